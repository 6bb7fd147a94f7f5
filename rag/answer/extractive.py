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

from rag.answer import question_kinds, quotable
from rag.answer.citations import defang
from rag.answer.context import FrozenContext, Source
from rag.answer.question_kinds import DEFINITION, PROCEDURE, QUANTITY, WHEN
from rag.answer.quotable import CODE_LINE, ITEM, LIST, ROW, SENTENCE, Unit
from rag.answer.specifics import content_words, occurs, profile, specifics
from rag.index import sentences, stemming
from rag.search.text_vectors import TextVectors

KEYWORD_WEIGHT = 0.1  # of keyword overlap (0..1) against cosine (about 0.7..0.95 for the default model)
HEADING_WEIGHT = 0.04  # share of the question's words in the line's heading path
FIT_BONUS = 0.03  # a line with what the question asks for (a date, a number, the first sentence …)
SOURCE_PRIOR = 0.04  # added to a note's score for S1, half for S2, a third for S3 …
TITLE_WEIGHT = 0.08  # share of the question's words in a note's title and headings (twice that for "what is")
SECTION_WEIGHT = 0.5  # of a section heading's cosine to the question above SECTION_BASE
SECTION_BASE = 0.8
CODE_COSINE = 0.8  # a code line in a note without prose: a neutral meaning score
LINK_PENALTY = 0.05  # an index entry or a line of [[links]] points elsewhere rather than answering
MAX_QUOTES = 3
NEARLY = 0.03  # a further line must score within this of the best one
FOLLOWING_CHARS = 240  # a sentence is quoted with the next one of its paragraph when that is this short
MAX_ITEM_CHARS = 500  # a sentence of a list item brings the whole item up to this length
# Not found (calibrated by bench/offline_answers.py on answerable and off-topic questions): no line this close in
# meaning; or not CLOSE_COSINE while under MIN_COVERAGE of the question's words are in the chosen note (for a note
# in the other language, its best line not standing out from the rest); or a name
# the question asks about is in no passage and no line is NAMED_COSINE close.
MIN_COSINE = 0.80
CLOSE_COSINE = 0.845
MIN_COVERAGE = 0.5
NAMED_COSINE = 0.88
AGREED_RANK = 2  # keyword and meaning search both rank the chosen note's passage in their top two: never "not found"
ACROSS_COSINE = 0.78  # for a note in the other language than the question: at least this close, and
ACROSS_MARGIN = 0.055  # this far above the median line of the context

# A number with a unit, a currency, a percentage or thousands — not a bare date or a model name.
_QUANTITY = re.compile(
    r"\d[\d\s.,]*\s?(?:%|₽|\$|€|руб\w*|rub\w*|г\b|гр\b|кг|g\b|kg|ml|мл|l\b|л\b|°|mm|мм|cm|см|km|км|min\w*|мин\w*|h\b|ч\b|"
    r"hours?|час\w*|days?|дн\w*|дней|s\b|sec\w*|сек\w*|ms\b|MB|GB|Мбит|Mbit\w*|шт|pcs|×|x\b|times|раз\w*)|\b\d{1,3}(?:[ \u00a0]\d{3})+\b|\d+:\d+|\b\d+\s?(?:из|of|/)\s?\d+",
    re.IGNORECASE,
)
_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]|\[[^\]\n]*\]\([^)\n]*\)|(?<!\w)#[\w/-]+")  # wikilinks, links, #tags
_DATE = re.compile(
    r"\b(?:1[89]|20)\d\d\b|\b\d{1,2}:\d\d\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\b|"
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)\w*\b|\b(?:понедельник|вторник|сред|четверг|пятниц|суббот|воскресень)\w*",
    re.IGNORECASE,
)


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


def extract(question: str, context: FrozenContext, *, vectors: TextVectors | None = None, deciding_per_note: int | None = None) -> Extract:
    """The quotes of `context` that answer `question` (the answer first), or not_found. With `deciding_per_note`, only
    each note's first that many passages choose the note and decide "not found"; the chosen note's other passages in
    the context may still be quoted (its cost table beside the dates a question also asks for)."""
    per_source = {s.id: quotable.units(s.text, s.start_line) for s in context.sources}
    everything = _score(question, context, per_source, vectors)
    deciding = _first_per_note(context, deciding_per_note)
    scored = [s for s in everything if s.source.id in deciding]
    if not scored:
        return Extract((), not_found=True)
    asked = question_kinds.kinds(question)
    title = TITLE_WEIGHT * (2 if DEFINITION in asked else 1)
    notes = {}
    for s in scored:
        best = s.score + _fit(s.unit, asked) + SOURCE_PRIOR / (s.rank + 1) + title * _share(question, s.source.heading)
        notes[s.source.id] = max(notes.get(s.source.id, -1.0), best)
    chosen = context.get(max(notes, key=notes.get))
    mine = [s for s in scored if s.source.path == chosen.path]  # the note: its deciding passages
    if _not_found(question, scored, mine, by_meaning=vectors is not None and vectors.calibrated):
        return Extract((), not_found=True)
    quotes: list[Quote] = []
    for pick in _picks([s for s in everything if s.source.path == chosen.path], asked):  # all its passages
        titled = _share(question, pick.unit.section or pick.source.heading) >= 0.5  # the section is about the term
        unit = _expand(pick.unit, per_source[pick.source.id], asked, titled=titled)
        if any(q.source_id == pick.source.id and q.line <= unit.start_line and unit.end_line <= q.end_line for q in quotes):
            continue  # already inside a quote
        quotes.append(Quote(pick.source.id, defang(unit.text), unit.start_line, unit.end_line, _label(pick.source, unit), round(pick.score, 4)))
    return Extract(tuple(quotes), not_found=False)


def _first_per_note(context: FrozenContext, limit: int | None) -> set[str]:
    """Ids of each note's first `limit` sources (all with no limit); sources are in rank order."""
    taken: dict[str, int] = {}
    ids = set()
    for s in context.sources:
        if limit is None or taken.get(s.path, 0) < limit:
            ids.add(s.id)
            taken[s.path] = taken.get(s.path, 0) + 1
    return ids


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
    sections = _section_cosines(question, candidates, vectors)
    prose_best: dict[str, float] = {}
    for i, (u, s, _) in enumerate(candidates):
        if u.kind != CODE_LINE:
            prose_best[s.id] = max(prose_best.get(s.id, 0.0), float(cosine[i]))
    out = []
    for i, (u, s, rank) in enumerate(candidates):
        # A code line has no vector of its own: it is as close as the prose around it, and its words decide.
        meaning = prose_best.get(s.id, CODE_COSINE) if u.kind == CODE_LINE else float(cosine[i])
        score = (
            meaning
            + KEYWORD_WEIGHT * keyword[i]
            + HEADING_WEIGHT * _share(question, u.section)
            + SECTION_WEIGHT * max(0.0, sections.get(u.section, 0.0) - SECTION_BASE)
            - LINK_PENALTY * _mostly_links(u.text)
        )
        out.append(_Scored(u, s, rank, score, meaning, keyword[i]))
    return out


def _section_cosines(question: str, candidates, vectors: TextVectors | None) -> dict[str, float]:
    """How close each section heading is to the question ("Какой у меня уровень" and "My current level")."""
    headings = sorted({u.section for u, _, _ in candidates if len(u.section.split()) >= 2})
    if vectors is None or not headings:
        return {}
    return dict(zip(headings, (vectors.passages(headings) @ vectors.question(question)).tolist()))


def _share(question: str, heading: str) -> float:
    """The share of the question's content words found in a heading path."""
    words = content_words(question)
    forms = frozenset().union(*content_words(heading)) if heading else frozenset()
    return sum(not w.isdisjoint(forms) for w in words) / len(words) if words else 0.0


def _fit(unit: Unit, asked: tuple[str, ...]) -> float:
    """A bonus for a line holding what the question asks for."""
    if not asked:
        return 0.0
    kind = asked[0]
    if kind == WHEN:
        keys = profile(unit.scoring).keys
        return FIT_BONUS * bool(_DATE.search(unit.scoring) or any(k.startswith("month:") for k in keys))
    if kind == QUANTITY:
        return FIT_BONUS * bool(_QUANTITY.search(unit.scoring))
    if kind == DEFINITION:
        return FIT_BONUS * (unit.position == 0)
    if kind == PROCEDURE:
        return FIT_BONUS * (unit.leads_in or unit.in_list)
    return 0.0


def _picks(mine: list[_Scored], asked: tuple[str, ...]) -> list[_Scored]:
    """The best line of the chosen note for each kind asked (one for a plain question), each a different line; then
    up to MAX_QUOTES lines in all that score nearly as well (two rows of a table, two sentences of a section)."""

    def value(s: _Scored, kinds: tuple[str, ...]) -> float:  # the passage retrieval ranked higher wins a near tie
        return s.score + _fit(s.unit, kinds) + SOURCE_PRIOR / (s.rank + 1)

    picks: list[_Scored] = []
    for kind in asked or ("",):
        rest = [s for s in mine if s not in picks]
        fitting = [s for s in rest if kind and _fit(s.unit, (kind,)) > 0]  # "how much" is answered by a line with a number
        if rest:
            picks.append(max(fitting or rest, key=lambda s: value(s, (kind,) if kind else ())))
    top = max(value(s, asked) for s in picks)
    for s in sorted(mine, key=lambda s: -value(s, asked)):
        if len(picks) >= MAX_QUOTES or value(s, asked) < top - NEARLY:
            break
        if s not in picks:
            picks.append(s)
    return picks


def _expand(unit: Unit, units: list[Unit], asked: tuple[str, ...], *, titled: bool = False) -> Unit:
    """What to quote for the answering line: its whole list for a procedure, the opening of the section named for the
    term for a definition (`titled`),
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
    if DEFINITION in asked and unit.kind == SENTENCE and titled:
        first = next((u for u in units if u.section == unit.section and u.kind == SENTENCE and u.position == 0), unit)
        return _with_next(first, units)
    if unit.kind == SENTENCE and whole_list is not None:
        item = next((u for u in same_block if u.kind == ITEM and u.start_line <= unit.start_line and unit.end_line <= u.end_line), None)
        if item is not None and len(item.text) <= MAX_ITEM_CHARS:
            return item
    if unit.kind == SENTENCE and not (set(asked) & {WHEN, QUANTITY}):
        return _with_next(unit, units)
    if unit.kind == ROW and QUANTITY in asked:
        return _with_total(unit, same_block)
    return unit


_TOTAL = re.compile(r"^\|?\s*\**\s*(?:итого|всего|сумма|total|sum|overall)\b", re.IGNORECASE)


def _with_total(row: Unit, same_table: list[Unit]) -> Unit:
    """A row of a table that has a total row ("Итого", "Total"), with that total after it: one item's cost is not
    what the whole cost, and a reader sees both."""
    total = next((u for u in same_table if u.kind == ROW and u is not row and _TOTAL.search(u.text.split("\n")[-1])), None)
    if total is None or _TOTAL.search(row.text.split("\n")[-1]):
        return row
    line = total.text.split("\n")[-1]
    return Unit(f"{row.text}\n{line}", f"{row.scoring} {total.scoring}", row.start_line, total.end_line, row.section, ROW, row.block, row.position)


def _with_next(unit: Unit, units: list[Unit]) -> Unit:
    nxt = next(
        (u for u in units if u.kind == SENTENCE and u.block == unit.block and u.position == unit.position + 1 and u.section == unit.section), None
    )
    if nxt is None or len(nxt.text) > FOLLOWING_CHARS:
        return unit
    return _joined(unit, nxt, sep=" ")


def _with_lead_in(block: Unit, units: list[Unit]) -> Unit:
    lead = next((u for u in units if u.block == block.block - 1 and u.leads_in and u.kind == SENTENCE), None)
    return _joined(lead, block) if lead is not None else block


def _joined(first: Unit, second: Unit, sep: str = "\n") -> Unit:
    return Unit(
        f"{first.text}{sep}{second.text}",
        f"{first.scoring} {second.scoring}",
        first.start_line,
        second.end_line,
        first.section,
        LIST,
        first.block,
        first.position,
    )


def _label(source: Source, unit: Unit) -> str:
    parts = [p for p in source.heading.split(" › ") if p]
    if unit.section and (not parts or parts[-1] != unit.section):
        parts.append(unit.section)
    return " › ".join(parts)


def _not_found(question: str, scored: list[_Scored], mine: list[_Scored], *, by_meaning: bool = True) -> bool:
    """The notes do not answer: the names the question asks about are in none of the passages, or (unless the chosen
    note has half of them) nothing is close in meaning, or only somewhat close while most of the question's words are
    missing from the chosen note. The meaning thresholds hold for the model they were calibrated on; with another,
    the question's words decide: under half of them in any one note of the context is not found."""
    cosines = sorted(s.cosine for s in scored if s.unit.kind != CODE_LINE) or [0.0]
    best, margin = cosines[-1], cosines[-1] - cosines[len(cosines) // 2]
    found = profile("\n".join(dict.fromkeys([s.source.heading for s in scored] + [s.unit.scoring for s in scored])))
    # Names, not numbers: "10-й" in a question may be "десятой" in the note.
    names = [sp for sp in specifics(question) if sp.soft and not sp.text[:1].isdigit()]
    if names and not any(occurs(sp, found) for sp in names) and (best < NAMED_COSINE or not by_meaning):
        return True
    note_text = profile("\n".join([mine[0].source.heading] + [s.unit.scoring for s in mine]))
    if names and sum(occurs(sp, note_text) for sp in names) * 2 >= len(names):
        return False  # the note is about what the question names (Baikal, «Байкал»): it answers as well as it can
    top = min((s.source for s in mine), key=lambda src: context_rank(src))
    if top.bm25_rank is not None and top.dense_rank is not None and max(top.bm25_rank, top.dense_rank) <= AGREED_RANK:
        return False  # both channels put this note at their top: the question is about it
    if not by_meaning:
        notes = {s.source.path for s in scored}
        return max(_coverage(question, [s for s in scored if s.source.path == p]) for p in notes) < MIN_COVERAGE
    if sentences.script(question) != sentences.script(mine[0].source.text):
        # A note in the other language shares no words with the question: meaning alone, by how far its best line
        # stands out from the rest of the context.
        return best < ACROSS_COSINE or margin < ACROSS_MARGIN
    return best < MIN_COSINE or (best < CLOSE_COSINE and _coverage(question, mine) < MIN_COVERAGE)


def context_rank(source: Source) -> int:
    return int(source.id[1:])


def _coverage(question: str, lines: list[_Scored]) -> float:
    """The share of the question's content words that a note's lines (and its headings) hold."""
    words = content_words(question)
    texts = [lines[0].source.heading] + [s.unit.scoring for s in lines]
    note = frozenset().union(*(frozenset().union(*content_words(t)) for t in texts))
    return sum(not w.isdisjoint(note) for w in words) / len(words) if words else 0.0


def _mostly_links(text: str) -> bool:
    """An entry of an index note ("[[Note]] — what it holds"), or a line that is half links or tags or more:
    navigation, not an answer."""
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
