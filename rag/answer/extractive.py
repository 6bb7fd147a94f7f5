"""Answers without a chat model: the lines of the context that answer, quoted with their source ids — or "not found".

1. The learned reader (`reader`) scores every unit the context offers (sentences, list items, lists, table rows,
   code blocks, paragraphs, lead-ins with their block) against the question; the best one answers.
2. Its quote is the note's own lines around it: the best unit, grown by the neighbouring units of its section that
   the reader scores nearly as well, up to QUOTE_CHARS — the answering line with what it needs around it, never the whole
   section. A table row is quoted under its table's header with only the rows that answer (those next to it the
   reader scores nearly as well; the total row when a how-much question asks for the whole, not a row it names).
3. A question that asks two things ("when … and how much …") gets a second quote for the other, from the same note,
   when one of its units fits it.
4. A question about a span of days ("since April 20", «с февраля по март») gets each day's part: the best unit of
   up to PERIOD_QUOTES days from the span that are about what it asks, in the days' order after the answer, and a
   log's rows from the span as one quote under its header.
5. **Not found** when the reader's probability that the context answers at all is under its calibrated threshold
   (both fitted by bench/reader_fit.py on answerable and off-topic questions).
Each quote is labelled with its note and section ("Люди и контакты › Семья"), so two similar facts are told apart.
How much of the note around the chosen unit is quoted (growing, a row's table) is `quote_lines`.

Knows nothing about the index or chat models; vectors come through `TextVectors`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from rag.answer import question_kinds, quote_lines, reader
from rag.answer.citations import defang
from rag.answer.context import FrozenContext, Source
from rag.answer.question_kinds import QUANTITY, WHEN, WHY
from rag.answer.quotable import LEAD, ROW, SENTENCE, Unit
from rag.answer.reader import Reading
from rag.notes.dates import dates_in
from rag.search.text_vectors import TextVectors
from rag.text import sentences

QUOTE_CHARS = 600  # a quote grows around its best unit up to this (--sweep; 400 loses keys on 6 of 14 QA sets)
SECOND_MARGIN = 3.0  # a second part's quote must score within this of the best unit (reader score units)
ALSO_MARGIN = 0.75  # another place is quoted too when it scores within this of the best (--sweep: padding against keys)
MAX_QUOTES = 2
NAVIGATION_MARGIN = 2.0  # an index entry ("[[Note]] — …") answers only when nothing else scores within this of it
# "When did I last …": the latest dated unit scoring within this of the best is quoted instead (a log's last row).
# bench/time_questions' 16 newest-first questions, answer contains every key: 6 without, 6 at 0.75, 7 at 1.5, 8 at 3.
NEWEST_MARGIN = 3.0
ROW_MARGIN = ALSO_MARGIN  # a table row is quoted with the rows next to it that score within this of it
# A question about a span of days ("since April 20", «с февраля по март», "last week") is answered by each day's part:
# the best unit of up to PERIOD_QUOTES days from inside the span, each scoring within PERIOD_MARGIN of the best.
# bench/time_questions (56) and bench/time_dev2 (136), answer contains every key: 0.589 / 0.801 with one quote and one
# more within ALSO_MARGIN; 3 days at margin 1.5 or 2: 0.625 / 0.801; 3 at 3.0: 0.661 / 0.801; 4 at 3.0: 0.661 / 0.809;
# and only units about the question (`_from_period`) at a cosine 0.02 under the best's: 0.643 / 0.809 (at 0: 0.607 /
# 0.801; without it, a month's decisions came with that month's bake log); the cosine only across scripts: 0.643 /
# 0.824 with the parser's two new phrasings (0.831 in any script, with more padding: time_dev's 0.050 → 0.086).
PERIOD_QUOTES = 4
PERIOD_MARGIN = NEWEST_MARGIN
PERIOD_COSINE = 0.02


@dataclass(frozen=True)
class Quote:
    source_id: str
    text: str  # the note's lines as quoted (citation-like markers inside defanged)
    line: int  # 1-based first line of the note
    end_line: int
    label: str  # "Note › Section": which note and part it is from
    score: float
    answering_line: int | None = None  # a table row's line: its quote shows the header's lines above its rows


@dataclass(frozen=True)
class Extract:
    quotes: tuple[Quote, ...]  # the answer first
    not_found: bool
    answerable: float = 0.0  # the reader's probability that the context answers the question


def extract(
    question: str,
    context: FrozenContext,
    *,
    vectors: TextVectors | None = None,
    coverage: float = 1.0,
    newest_until: date | None = None,
    period: reader.Period | None = None,
) -> Extract:
    """The quotes of `context` that answer `question` (the answer first), or not_found. `coverage`: retrieval's
    share of the question's terms found anywhere in the index. `newest_until`: the question asks for the latest
    ("when did I last …"), up to that day. `period`: the days the search kept to (`question` without the words
    that named them)."""
    reading = reader.read(question, context, vectors=vectors, coverage=coverage, period=period)
    if reading is None:
        return Extract((), not_found=True)
    if not reading.answers:
        return Extract((), not_found=True, answerable=reading.answerable)
    best = _best(reading)
    if newest_until is not None:
        best = _newest(reading, best, newest_until, question)
    asked = question_kinds.kinds(question)
    # "When did I last …" is one day: the latest row, not its neighbours (an older and a planned row score as well)
    quotes = [_quote(reading, best, asked, question, alone=newest_until is not None)]
    second = _second_part(reading, best, asked, quotes[0])
    if second is not None:
        quotes.append(_quote(reading, second, asked[1:] or asked, question))
    # "When did I last …" is one day; a question about a span gets each day's part of it
    days = []
    if newest_until is None and _spans_days(period):
        span = _from_period(reading, best, question)
        quotes[0] = _quote(reading, best, asked, question, rows=_rows_of_period(reading, best, span))
        days = _days_of_period(reading, best, quotes, span)
        for other in days:
            quotes.append(_quote(reading, other, asked, question, rows=_rows_of_period(reading, other, span)))
    also = _also(reading, best, quotes) if newest_until is None else None  # an older place is not "the last time"
    if also is not None and len(quotes) < max(MAX_QUOTES, PERIOD_QUOTES if days else 0):
        quotes.append(_quote(reading, also, asked, question))
    return Extract(tuple(quotes), not_found=False, answerable=reading.answerable)


def _best(reading: Reading) -> int:
    """The best-scored unit; an index entry or a line of links only if no other unit is nearly as good (it points at
    the note that answers, and that note is the better quote). A lead-in ("Why:", "Reasons:") is quoted with the
    block it introduces: alone it says nothing."""
    best = _with_block(reading, reading.best())
    links = reader.FEATURES.index("links")
    if not reading.features[best, links]:
        return best
    prose = [i for i in range(len(reading.candidates)) if not reading.features[i, links]]
    other = max(prose, key=lambda i: reading.scores[i], default=None)
    return other if other is not None and reading.scores[other] >= reading.scores[best] - NAVIGATION_MARGIN else best


def _with_block(reading: Reading, best: int) -> int:
    """The lead-in with its block (the LEAD unit that starts on its line) for a lead-in sentence; else `best`."""
    chosen = reading.candidates[best]
    if chosen.unit.kind != SENTENCE or not chosen.unit.leads_in:
        return best
    lead = [
        i
        for i, c in enumerate(reading.candidates)
        if c.source.id == chosen.source.id and c.unit.kind == LEAD and c.unit.start_line == chosen.unit.start_line
    ]
    return lead[0] if lead else best


def _newest(reading: Reading, best: int, until: date, question: str) -> int:
    """Of the units scoring within NEWEST_MARGIN of the best and about what the question asks (`_about`: a newer
    line on something else is not "the last time"), the one from the latest day up to `until` (the dates its lines
    name, else its passage's day when the note says it); the best when none is dated."""
    floor = reading.scores[best] - NEWEST_MARGIN
    dated = [
        (day, float(reading.scores[i]), i)
        for i, c in enumerate(reading.candidates)
        if reading.scores[i] >= floor and _about(reading, i, best, question)
        for day in [_unit_day(c, until)]
        if day
    ]
    return max(dated)[2] if dated else best


def _spans_days(period: reader.Period | None) -> bool:
    """The question names more than one day ("in March", "since May", "before 2025"), not one ("on 2 May")."""
    return period is not None and (period[0] is None or period[1] is None or period[0] < period[1])


def _days_of_period(reading: Reading, best: int, quotes: list[Quote], span: list[int]) -> list[int]:
    """For a question about a span of days: the best unit of each other day of `span` (`_from_period`) not quoted
    yet, of the best-scoring days up to PERIOD_QUOTES quotes in all, in the days' order. A day is what the unit's
    lines name, else its passage's day; a table's rows from the span are one quote (`_rows_of_period`)."""
    chosen_day = _unit_day(reading.candidates[best], date.max)
    by_day: dict[object, tuple[date, int]] = {}  # a day, or a table
    for i in span:
        c = reading.candidates[i]
        if any(q.source_id == c.source.id and q.line <= c.unit.end_line and c.unit.start_line <= q.end_line for q in quotes):
            continue
        day = _unit_day(c, date.max)
        if day is None or day == chosen_day:
            continue
        key = (c.source.id, c.unit.block) if c.unit.kind == ROW else day
        if key not in by_day or reading.scores[i] > reading.scores[by_day[key][1]]:
            by_day[key] = (min(day, by_day[key][0]) if key in by_day else day, i)
    best_days = sorted(by_day.values(), key=lambda di: -reading.scores[di[1]])[: max(0, PERIOD_QUOTES - len(quotes))]
    return [i for _, i in sorted(best_days)]


def _from_period(reading: Reading, best: int, question: str) -> list[int]:
    """The units dated inside the question's span that score within PERIOD_MARGIN of the best and are about what it
    asks (`_about`). A February bake log is from February, but does not say what I decided then."""
    inside = reader.FEATURES.index("in_period")
    floor = reading.scores[best] - PERIOD_MARGIN
    return [
        i
        for i in range(len(reading.candidates))
        if reading.features[i, inside] > 0 and reading.scores[i] >= floor and _about(reading, i, best, question)
    ]


def _about(reading: Reading, i: int, best: int, question: str) -> bool:
    """Unit `i` is about what the question asks, as the best unit is: it or its headings hold some of the question's
    words; or, in the other script, whose words cannot meet the question's, it is nearly as close to it in meaning as
    the best (PERIOD_COSINE). Within one script meaning alone admits nothing: e5 puts a short line of any day near any
    question ("Посмотрим." at the best's cosine)."""
    words, cos = reader.FEATURES.index("kw_heading"), reader.FEATURES.index("cos")
    f = reading.features
    if i == best or f[i, words] > 0:
        return True
    other = sentences.script(reading.candidates[i].unit.scoring) not in (sentences.script(question), None)
    return other and f[i, cos] >= f[best, cos] - PERIOD_COSINE


def _rows_of_period(reading: Reading, i: int, span: list[int]) -> frozenset[int]:
    """For a table row: the first lines of its table's other rows in `span` (a log's rows of those days)."""
    c = reading.candidates[i]
    if c.unit.kind != ROW:
        return frozenset()
    table = [reading.candidates[k].unit for k in span if reading.candidates[k].source.id == c.source.id]
    return frozenset(u.start_line for u in table if u.kind == ROW and u.block == c.unit.block)


def _unit_day(candidate, until: date) -> date | None:
    named = [d for d in dates_in(candidate.unit.text) if d <= until]
    if named:
        return max(named)
    day = candidate.source.dated
    return day if day is not None and day <= until else None


def _also(reading: Reading, best: int, quotes: list[Quote]) -> int | None:
    """The best unit outside the quotes so far, if it scores within ALSO_MARGIN of the best: two places that answer
    about as well are both shown rather than a guess between them."""

    def quoted(c) -> bool:
        return any(q.source_id == c.source.id and q.line <= c.unit.end_line and c.unit.start_line <= q.end_line for q in quotes)

    rest = [i for i, c in enumerate(reading.candidates) if not quoted(c)]
    if not rest:
        return None
    other = max(rest, key=lambda i: reading.scores[i])
    return other if reading.scores[other] >= reading.scores[best] - ALSO_MARGIN else None


def _quote(reading: Reading, best: int, asked: tuple[str, ...], question: str, *, alone: bool = False, rows: frozenset[int] = frozenset()) -> Quote:
    chosen = reading.candidates[best]
    if chosen.unit.kind == ROW:
        text, line, end_line = quote_lines.row_lines(reading, best, asked, question, margin=ROW_MARGIN, alone=alone, rows=rows)
        score = round(float(reading.scores[best]), 4)
        return Quote(chosen.source.id, defang(text), line, end_line, _label(chosen.source, chosen.unit), score, chosen.unit.start_line)
    unit = quote_lines.grown(reading, best, quote_chars=QUOTE_CHARS)
    return Quote(
        chosen.source.id, defang(unit.text), unit.start_line, unit.end_line, _label(chosen.source, unit), round(float(reading.scores[best]), 4)
    )


def _second_part(reading: Reading, best: int, asked: tuple[str, ...], first: Quote) -> int | None:
    """For a question that asks two things (a date and an amount; which pins, and why), the best unit of the same
    note that holds what the second asks for and is not already quoted, if it scores nearly as well. A reason is
    that second thing whenever the best unit gives none (a pin map's row does not say why those pins): the note's
    best unit that gives one, however it scores against the whole question (its words are the first part's)."""
    margin = SECOND_MARGIN
    if len(asked) >= 2 and asked[1] in (WHEN, QUANTITY):
        wanted = reader.FEATURES.index("when_date" if asked[1] == WHEN else "quantity_number")
        fitting_units = {i for i in range(len(reading.candidates)) if reading.features[i, wanted] > 0}
    elif WHY in asked and not _gives_reason(reading.candidates[best].unit):
        fitting_units = {i for i, c in enumerate(reading.candidates) if _gives_reason(c.unit)}
        margin = float("inf")
    else:
        return None
    path = reading.candidates[best].source.path
    fitting = [
        i
        for i, c in enumerate(reading.candidates)
        if c.source.path == path and i in fitting_units and not (first.line <= c.unit.start_line and c.unit.end_line <= first.end_line)
    ]
    if not fitting:
        return None
    second = max(fitting, key=lambda i: reading.scores[i])
    return second if reading.scores[second] >= reading.scores[best] - margin else None


# A unit that gives reasons ("because", «поэтому», "Reasons:"), for the reason a why-question asks as its second part
# (`_second_part`). Not a feature of the reader's score: in documentation "because" is everywhere, and as
# one it chose the wrong explanation (bench/reading_dev's jsinfo-ru aside third, 0.739 → 0.565 contains-key).
_REASON = re.compile(
    r"\b(?:because|since|so that|due to|caused by|reasons?|why|in order to|to avoid|therefore|thus|hence|otherwise|as a result|"
    r"потому что|так как|поэтому|из-за|причин\w*|почему|зачем|чтобы|иначе|благодаря|ради|т\.\s?к\.)(?!\w)|,\s+so\b",
    re.IGNORECASE,
)


def _gives_reason(unit: Unit) -> bool:
    """The unit gives reasons, or sits under a heading that asks or names them ("## Why only ADC1 pins")."""
    return bool(_REASON.search(unit.scoring) or _REASON.search(unit.section))


def _label(source: Source, unit: Unit) -> str:
    parts = [reader.clean_heading(p) for p in source.heading.split(" › ") if p]
    section = reader.clean_heading(unit.section)
    if section and (not parts or parts[-1] != section):
        parts.append(section)
    return " › ".join(parts)
