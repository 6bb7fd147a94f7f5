"""A passage as the claim check reads it: its sentences, table rows and code lines as units in comparable form (content
words, specifics, script, what each number counts), its heading path going with every one, and the sentences that
address the model ("Ignore all previous instructions…") set apart, never evidence. Apart from `support` (which judges
a claim against these) because `evidence` and the benches build passages too. Pure.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from rag.answer.context import Source
from rag.answer.counted import number_contexts
from rag.answer.specifics import Profile, content_words, profile
from rag.text import markdown, sentences

NUMBER_REACH = 4  # words either side of a number in a passage that say what it counts
# Text that addresses the model rather than recording a fact (EN + RU): never evidence for a claim.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|rules?|prompts?|above|previous|prior)\b|"
    r"\b(?:reply|respond|answer|say|output|print|write)\b.{0,30}\b(?:only|exactly)\b.{0,40}['\"«“]|"
    r"\byou are (?:now )?(?:an? |the )?(?:ai|assistant|model|chatbot|language model|gpt)\b|"
    r"(?:^|\n)\s*(?:system|assistant)\s*:|\[/?inst\]|<\|im_(?:start|end)\|>|"
    r"\b(?:cite|citation)\b.{0,20}\b[SС]\d+|"
    r"\b(?:игнорир\w*|забуд\w*|не обращай\w*)\b.{0,40}\b(?:инструкц\w*|правил\w*|указани\w*|выше)|"
    r"\b(?:отвечай\w*|ответь\w*|напиши\w*|выведи\w*|скажи)\b.{0,30}\bтолько\b|"
    r"\bты (?:теперь )?(?:ии|ассистент|модель|бот|чат-бот)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Unit:
    text: str
    words: frozenset[str]  # every form of every content word
    facts: Profile
    script: str | None  # "latin" or "cyrillic"
    numbers: dict[str, frozenset[str]]  # each number's key → the words around it (`counted.number_contexts`)


@dataclass(frozen=True)
class Passage:
    id: str
    heading: Unit  # the heading path: it goes with every sentence
    units: tuple[Unit, ...]  # sentences, table rows and code lines that state facts
    instructions: tuple[Unit, ...]  # sentences that address the model
    lowered: str  # the whole text, lower-cased, whitespace collapsed (code must occur as written)
    script: str | None
    prose: int  # units[:prose] are sentences (compared by meaning too); the code lines after them only by words
    rows: frozenset[int] = frozenset()  # indices of the units that are table rows
    lines: tuple[tuple[int, int], ...] = ()  # each unit's first and last line in the note

    @classmethod
    def of(cls, source: Source) -> Passage:
        facts, told, rows, where = [], [], set(), []
        lines = source.text.split("\n")
        for s in sentences.split(source.text, source.start_line):
            if _INSTRUCTION.search(s.text):
                told.append(unit_of(sentences.plain(s.text)))
                continue
            if lines[s.line - source.start_line].lstrip().lstrip(">").lstrip().startswith("|"):
                rows.add(len(facts))
            facts.append(unit_of(sentences.plain(s.text)))
            where.append((s.line, max(s.line, s.end_line)))
        prose = len(facts)
        for number, line in markdown.code_lines(source.text, source.start_line):
            facts.append(unit_of(line))
            where.append((number, number))
        lowered = " ".join(source.text.lower().split())
        script = sentences.script(source.text)
        return cls(source.id, unit_of(source.heading), tuple(facts), tuple(told), lowered, script, prose, frozenset(rows), tuple(where))


@functools.lru_cache(maxsize=16384)
def unit_of(text: str) -> Unit:
    """Cached: follow-up questions and evaluation runs meet the same sentences again."""
    return Unit(text, frozenset().union(*content_words(text)), profile(text), sentences.script(text), number_contexts(text, NUMBER_REACH))
