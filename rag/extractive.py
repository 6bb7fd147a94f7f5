"""Answers without a chat model: the note that answers, then the lines in it that do, quoted with their source ids.

1. Every sentence, table row and code line of the context (`quotable`) is scored against the question: meaning
   (cosine with the embedder the index uses) + keyword overlap (rarity-weighted share of the question's stems) + the
   question's words in its heading path, minus a penalty for lines that are only links.
2. **The note first**: each source scores by its best line plus a prior for its retrieval rank; the best source is
   the one the answer quotes, so a lower-ranked note cannot win on a stray word.
3. **The lines by what is asked** (`question_kinds`): when → a line with a date; how much → with a number; what is →
   the first sentences of the term's section; how do I → the whole list of steps; yes/no → the deciding line. A line
   ending with ":" brings the list, table or code it introduces; a sentence of a list item brings the whole item; a
   table row comes with its header. A question that asks two things gets a line for each.
4. **Say which**: each quote is labelled with its note and section ("Люди и контакты › Семья"), so two similar facts
   are told apart.
5. **Not found** when nothing in the context is close in meaning and the question's own words are mostly absent
   (thresholds calibrated by bench/offline_answers.py on answerable and off-topic questions).

Knows nothing about the index or chat models; vectors come through `TextVectors`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from rag import question_kinds, quotable, stemming
from rag.citations import defang
from rag.context import FrozenContext, Source
from rag.question_kinds import DEFINITION, PROCEDURE, QUANTITY, WHEN
from rag.quotable import CODE_LINE, ITEM, LIST, ROW, SENTENCE, Unit
from rag.specifics import content_words, profile
from rag.text_vectors import TextVectors

KEYWORD_WEIGHT = 0.1  # of keyword overlap (0..1) against cosine (about 0.7..0.95 for the default model)
HEADING_WEIGHT = 0.04  # share of the question's words in the line's heading path
FIT_BONUS = 0.03  # a line with what the question asks for (a date, a number, the first sentence …)
SOURCE_PRIOR = 0.04  # added to a note's score for S1, half for S2, a third for S3 …
LINK_PENALTY = 0.05  # an index entry or a line of [[links]] points elsewhere rather than answering
FOLLOWING_CHARS = 240  # a sentence is quoted with the next one of its paragraph when that is this short
MAX_ITEM_CHARS = 500  # a sentence of a list item brings the whole item up to this length
# Not found: no line close in meaning and too few of the question's words in the best note.
MIN_COSINE = 0.80
MIN_COVERAGE = 0.5

_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]")
_DATE = re.compile(r"\b(?:1[89]|20)\d\d\b|\b\d{1,2}:\d\d\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\b|"
                   r"\b(?:mon|tue|wed|thu|fri|sat|sun)\w*\b|\b(?:понедельник|вторник|сред|четверг|пятниц|суббот|воскресень)\w*",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Quote:
    source_id: str
    text: str  # the note's lines as quoted (citation-like markers inside defanged)
    line: int  # 1-based first line of the note
    end_line: int
    label: str  # "Note › Section": which note and part it is from
    score: float


@dataclass(frozen=True)
class Extract:
    quotes: tuple[Quote, ...]  # the answer first
    not_found: bool


@dataclass(frozen=True)
class _Scored:
    unit: Unit
    source: Source
    rank: int
    score: float  # meaning + keywords + heading − links
    cosine: float
    keywords: float


def extract(question: str, context: FrozenContext, *, vectors: TextVectors | None = None) -> Extract:
    """The quotes of `context` that answer `question` (the answer first), or not_found."""
    per_source = {s.id: quotable.units(s.text, s.start_line) for s in context.sources}
    scored = _score(question, context, per_source, vectors)
    if not scored:
        return Extract((), not_found=True)
    asked = question_kinds.kinds(question)
    notes = {}
    for s in scored:
        best = s.score + _fit(s.unit, asked) + SOURCE_PRIOR / (s.rank + 1)
        notes[s.source.id] = max(notes.get(s.source.id, -1.0), best)
    chosen = context.get(max(notes, key=notes.get))
    mine = [s for s in scored if s.source.id == chosen.id]
    if _not_found(question, scored, mine):
        return Extract((), not_found=True)
    picks = _picks(mine, asked)
    quotes = []
    for pick in picks:
        unit = _expand(pick.unit, per_source[chosen.id], asked)
        if any(q.line <= unit.start_line and unit.end_line <= q.end_line for q in quotes):
            continue  # already inside a quote
        quotes.append(Quote(chosen.id, defang(unit.text), unit.start_line, unit.end_line, _label(chosen, unit), round(pick.score, 4)))
    return Extract(tuple(quotes), not_found=False)


def _score(question: str, context: FrozenContext, per_source: dict[str, list[Unit]], vectors: TextVectors | None) -> list[_Scored]:
    candidates = [(u, s, rank) for rank, s in enumerate(context.sources) for u in per_source[s.id] if u.kind in (SENTENCE, ROW, CODE_LINE)]
    if not candidates:
        return []
    texts = [u.scoring for u, _, _ in candidates]
    keyword = _keyword_scores(question, [u.context or u.scoring for u, _, _ in candidates])
    cosine = np.zeros(len(candidates), np.float32)
    if vectors is not None:
        prose = [i for i, (u, _, _) in enumerate(candidates) if u.kind != CODE_LINE]
        if prose:
            cosine[prose] = vectors.passages([texts[i] for i in prose]) @ vectors.question(question)
    asked = {w for ws in content_words(question) for w in ws}
    out = []
    for i, (u, s, rank) in enumerate(candidates):
        heading = {w for ws in content_words(f"{s.heading} {u.section}") for w in ws}
        share = len(asked & heading) / len(asked) if asked else 0.0
        score = float(cosine[i]) + KEYWORD_WEIGHT * keyword[i] + HEADING_WEIGHT * share - LINK_PENALTY * _mostly_links(u.text)
        out.append(_Scored(u, s, rank, score, float(cosine[i]), keyword[i]))
    return out


def _fit(unit: Unit, asked: tuple[str, ...]) -> float:
    """A bonus for a line holding what the question asks for."""
    if not asked:
        return 0.0
    kind = asked[0]
    if kind == WHEN:
        keys = profile(unit.scoring).keys
        return FIT_BONUS * bool(_DATE.search(unit.scoring) or any(k.startswith("month:") for k in keys))
    if kind == QUANTITY:
        return FIT_BONUS * bool(re.search(r"\d", unit.scoring))
    if kind == DEFINITION:
        return FIT_BONUS * (unit.position == 0)
    if kind == PROCEDURE:
        return FIT_BONUS * (unit.leads_in or unit.in_list)
    return 0.0


def _picks(mine: list[_Scored], asked: tuple[str, ...]) -> list[_Scored]:
    """The best line of the chosen note for each kind asked (one for a plain question)."""
    picks = []
    for kind in asked or ("",):
        best = max(mine, key=lambda s: s.score + _fit(s.unit, (kind,) if kind else ()))
        if best not in picks:
            picks.append(best)
    return picks


def _expand(unit: Unit, units: list[Unit], asked: tuple[str, ...]) -> Unit:
    """What to quote for the answering line: its whole list for a procedure, the section's opening for a definition,
    the block a lead-in introduces, the whole item of a list sentence, the next short sentence of a paragraph."""
    same_block = [u for u in units if u.block == unit.block]
    whole_list = next((u for u in same_block if u.kind == LIST), None)
    if PROCEDURE in asked and whole_list is not None:
        return _with_lead_in(whole_list, units)
    if unit.leads_in:
        after = quotable.following(units, unit)
        if after is not None:
            return _joined(unit, after)
    if PROCEDURE in asked:
        lists = [u for u in units if u.kind == LIST and u.section == unit.section]
        if lists:
            return _with_lead_in(lists[0], units)
    if DEFINITION in asked and unit.kind == SENTENCE:
        first = next((u for u in units if u.section == unit.section and u.kind == SENTENCE and u.position == 0), unit)
        return _with_next(first, units)
    if unit.kind == SENTENCE and whole_list is not None:
        item = next((u for u in same_block if u.kind == ITEM and u.start_line <= unit.start_line and unit.end_line <= u.end_line), None)
        if item is not None and len(item.text) <= MAX_ITEM_CHARS:
            return item
    if unit.kind == SENTENCE and not (set(asked) & {WHEN, QUANTITY}):
        return _with_next(unit, units)
    return unit


def _with_next(unit: Unit, units: list[Unit]) -> Unit:
    nxt = next((u for u in units if u.kind == SENTENCE and u.block == unit.block and u.position == unit.position + 1
                and u.section == unit.section), None)
    if nxt is None or len(nxt.text) > FOLLOWING_CHARS:
        return unit
    return _joined(unit, nxt, sep=" ")


def _with_lead_in(block: Unit, units: list[Unit]) -> Unit:
    lead = next((u for u in units if u.block == block.block - 1 and u.leads_in and u.kind == SENTENCE), None)
    return _joined(lead, block) if lead is not None else block


def _joined(first: Unit, second: Unit, sep: str = "\n") -> Unit:
    return Unit(f"{first.text}{sep}{second.text}", f"{first.scoring} {second.scoring}", first.start_line, second.end_line,
                first.section, LIST, first.block, first.position)


def _label(source: Source, unit: Unit) -> str:
    parts = [p for p in source.heading.split(" › ") if p]
    if unit.section and (not parts or parts[-1] != unit.section):
        parts.append(unit.section)
    return " › ".join(parts)


def _not_found(question: str, scored: list[_Scored], mine: list[_Scored]) -> bool:
    """Nothing close in meaning, and most of the question's words absent from the chosen note."""
    best_cosine = max(s.cosine for s in scored)
    words = content_words(question)
    note = frozenset().union(*({w for ws in content_words(s.unit.scoring) for w in ws} for s in mine),
                             {w for ws in content_words(mine[0].source.heading) for w in ws})
    coverage = sum(not w.isdisjoint(note) for w in words) / len(words) if words else 0.0
    return best_cosine < MIN_COSINE and coverage < MIN_COVERAGE


def _mostly_links(text: str) -> bool:
    """An entry of an index note ("[[Note]] — what it holds"), or a line that is half links or more."""
    linked = sum(len(m.group(0)) for m in _WIKILINK.finditer(text))
    body = text.lstrip("-*+ 0123456789.)")
    return body.startswith(("[[", "![[")) or linked * 2 >= len(text.strip())


def _keyword_scores(question: str, texts: list[str]) -> list[float]:
    """Σ idf of the question stems a line contains / Σ idf of all question stems (0..1)."""
    terms = stemming.query_terms(question)
    stems = [{stemming.stem(w) for w in stemming.words(t)} for t in texts]
    n = len(texts)
    idf = {t: math.log(1 + n / (1 + sum(t in s for s in stems))) for t in terms}
    total = sum(idf.values()) or 1.0
    return [sum(idf[t] for t in terms if t in s) / total for s in stems]
