"""The lines a quote is cut from: an answering unit grown by the neighbouring units of its section that the reader
scores nearly as well (a paragraph's sentences, a short list whole), or a table row under its table's header with
the rows next to it and, for a how-much question, its total row. Always the note's own lines. Apart from
`extractive`, which chooses what to quote; this decides how much of the note around it is shown.
"""

from __future__ import annotations

import re
from pathlib import Path

from rag.answer import reader
from rag.answer.context import Source
from rag.answer.counted import number_contexts
from rag.answer.question_kinds import QUANTITY
from rag.answer.quotable import CODE, LEAD, ROW, SENTENCE, Unit
from rag.answer.reader import Reading
from rag.text import stemming

MARKUP = 0.5  # a unit this much markup (HTML, includes, admonition fences) does not grow a quote
# A quote grows only by a unit scoring within this of the best, its own paragraph's sentences too (1.5 loses keys on
# 8 QA sets) …
GROW_MARGIN = 2.5
# … but a paragraph or list this short is one thought: its sentences all join (replaying every QA set's readings,
# 0 loses 4 of time-dev's 140 answers, 300 one time question, 400 none; the median demo quote 8 lines → 7 either way).
SHORT_BLOCK = 400
_TOTAL = re.compile(r"^\|?\s*\**\s*(?:итого|всего|сумма|total|sum|overall)\b", re.IGNORECASE)  # a table's total row
_ASKS_TOTAL = re.compile(r"\b(?:in total|total|altogether|overall|in all|итого|всего|в сумме|суммарно|в целом)\b", re.IGNORECASE)


def row_lines(
    reading: Reading, best: int, asked: tuple[str, ...], question: str, *, margin: float, alone: bool = False, rows: frozenset[int] = frozenset()
) -> tuple[str, int, int]:
    """A table row quoted under its table's header: the header line(s), then the answering row with the rows next to
    it that the reader scores nearly as well (within `margin`), then — for a how-much question whose words name nothing of
    that row ("How much did the trip cost?") or that asks for the total — the table's total row. The rest of the table
    is one click away. The text is the note's own lines (the header's, then the rows'), with the first and last of the
    rows' lines, the header above them being what names their cells (as for one row, whose unit holds its header).
    `rows`: the first lines of other rows of the table to quote too (a log's rows from the days a question names),
    with the rows between them."""
    chosen = reading.candidates[best]
    row, source = chosen.unit, chosen.source
    table = [u for u in reader.units_of(source) if u.kind == ROW and u.block == row.block]
    score = {c.unit.start_line: float(reading.scores[i]) for i, c in enumerate(reading.candidates) if c.source.id == source.id and c.unit.kind == ROW}
    floor = reading.scores[best] - margin
    at = next(k for k, u in enumerate(table) if u.start_line == row.start_line)
    lo, hi = at, at
    while not alone and lo > 0 and score.get(table[lo - 1].start_line, floor - 1) >= floor:
        lo -= 1
    while not alone and hi + 1 < len(table) and score.get(table[hi + 1].start_line, floor - 1) >= floor:
        hi += 1
    wanted = [k for k, u in enumerate(table) if u.start_line in rows]
    lo, hi = min([lo, *wanted]), max([hi, *wanted])
    shown = table[lo : hi + 1]
    total = next((u for u in table[hi + 1 :] if _TOTAL.search(_row_line(u))), None)
    if total is not None and QUANTITY in asked and (_ASKS_TOTAL.search(question) or not _names_row(question, row, source)):
        shown.append(total)
    header = row.text.split("\n")[:-1]
    text = "\n".join(header + [_row_line(u) for u in shown])
    return text, shown[0].start_line, shown[-1].end_line


def _row_line(row: Unit) -> str:
    """A row unit's own line of the note (its text is that line under the table's header lines)."""
    return row.text.split("\n")[-1]


def _names_row(question: str, row: Unit, source: Source) -> bool:
    """The question names something of the row itself: a number of the row counts one of its words ("Авиабилеты …
    | 46 800" for «билеты»), other than the words of the note's title and heading and of the table's header (they name
    the whole table: "How much did the Baikal trip cost?" names no row of the trip's costs)."""
    whole = f"{source.heading} {Path(source.path).stem} {row.text.split(chr(10))[0]}".casefold()
    words = [t for t in stemming.query_terms(question) if len(t) >= 3 and t not in whole]
    near = frozenset().union(*number_contexts(row.scoring, 4).values())
    return any(t in form for t in words for form in near)


def grown(reading: Reading, best: int, *, quote_chars: int) -> Unit:
    """The best unit with the neighbouring units of its section that the reader scores nearly as well (GROW_MARGIN),
    the higher-scored side first, while the note's lines they cover fit `quote_chars` (a unit longer than that alone is
    quoted alone). Of its own paragraph or list, a lower-scored sentence joins only when the block is short
    (SHORT_BLOCK): the quote grows as far as the reader reads an answer, not to fill a long paragraph. Never by a
    table's rows: a row that answers is quoted as a row (`row_lines`), under its header, not as a sentence's
    neighbourhood (which took the whole table in: no QA set's answer key needed it)."""
    chosen = reading.candidates[best]
    source, unit = chosen.source, chosen.unit
    markup = reader.FEATURES.index("markup")
    floor = reading.scores[best] - GROW_MARGIN
    own = [c.unit for c in reading.candidates if c.source.id == source.id]  # the units of the best one's source
    block = [u for u in own if u.block == unit.block]
    short = len(_note_lines(source, min(u.start_line for u in block), max(u.end_line for u in block))) <= SHORT_BLOCK

    def grows(i: int) -> bool:
        c = reading.candidates[i]
        if c.source.id != source.id or c.unit.section != unit.section or c.unit.kind not in (SENTENCE, CODE):
            return False
        return reading.features[i, markup] < MARKUP and (reading.scores[i] >= floor or c.unit.block == unit.block and short)

    atoms = sorted((i for i in range(len(reading.candidates)) if grows(i)), key=lambda i: reading.candidates[i].unit.start_line)
    lo, hi = unit.start_line, unit.end_line
    before = [i for i in atoms if reading.candidates[i].unit.end_line < lo][::-1]
    after = [i for i in atoms if reading.candidates[i].unit.start_line > hi]
    budget = max(quote_chars, len(_note_lines(source, lo, hi)))
    while before or after:
        sides = sorted((side for side in (before, after) if side), key=lambda side: -reading.scores[side[0]])
        for side in sides:
            nxt = reading.candidates[side[0]].unit
            a, b = min(lo, nxt.start_line), max(hi, nxt.end_line)
            if len(_note_lines(source, a, b)) <= budget:
                lo, hi = a, b
                side.pop(0)
                break
        else:
            break
    hi = _past_lead_in(own, lo, hi)
    lo = _before_reference(own, unit.section, lo)
    whole = _note_lines(source, lo, hi)
    if (lo, hi) == (unit.start_line, unit.end_line) and len(whole) > quote_chars:
        return unit  # a line longer than a quote (a paragraph written on one line): the sentence alone
    # whole lines, so a sentence that shares its line is shown too («То есть примерно 48 700 ₽ на человека. Бюджет …»)
    return Unit(whole, unit.scoring, lo, hi, unit.section, unit.kind, unit.block, unit.position)


def _past_lead_in(units: list[Unit], lo: int, hi: int) -> int:
    """The quote's last line, moved to the end of the block a lead-in sentence in it introduces ("…set the `orderBy`
    parameter:", "Namely:") when the quote stops before that block's end: a quote that ends on a colon, or part way
    down the list after one, promises what it leaves out. The block comes whole (a list, a code block, a table:
    quotable.LEAD, up to MAX_LEAD_CHARS with its lead-in)."""
    return max((u.end_line for u in units if u.kind == LEAD and lo <= u.start_line <= hi < u.end_line), default=hi)


# A sentence whose first words point back at what came before ("This is called…", «Иногда это называют…»)
_POINTS_BACK = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:this|these|such|it|they|это|этот|эта|эти|этого|этим|такой|такая|такие|так)\b", re.IGNORECASE)


def _before_reference(units: list[Unit], section: str, lo: int) -> int:
    """The quote's first line, moved back to the sentence before when the quote's first sentence points back at it
    ("Sometimes this is called callback hell"): a quote that opens on "this" leaves out what "this" is."""
    first = [u for u in units if u.kind == SENTENCE and u.start_line == lo]
    if not first or not _POINTS_BACK.match(first[0].scoring):
        return lo
    before = [u for u in units if u.kind == SENTENCE and u.section == section and u.end_line <= lo and u.start_line < lo]
    return max(before, key=lambda u: u.end_line).start_line if before else lo


def _note_lines(source: Source, start: int, end: int) -> str:
    """The note's lines `start`..`end` as they are in the source (an exact slice, whole lines)."""
    lines = source.text.split("\n")
    return "\n".join(lines[start - source.start_line : end - source.start_line + 1]).strip("\n")
