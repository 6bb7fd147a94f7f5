"""A passage → what an extractive answer can quote from it, with lines: sentences of its paragraphs and list items,
whole paragraphs, whole list items, whole lists, table rows with their header, code blocks, and each lead-in with
the block it introduces ("To embed a note:" and its steps). Each unit knows the section it sits under, its place
there, and whether it introduces the block after it.

Quotes are the note's own lines (a sentence keeps its words; wrapped lines are joined with a space). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.index.chunking import SEPARATOR
from rag.text.markdown import FENCE, HEADING, LIST_ITEM, QUOTE_MARK
from rag.text.sentences import TABLE_RULE, plain, row_text, split_sentences

SENTENCE, ITEM, LIST, ROW, CODE, CODE_LINE = "sentence", "item", "list", "row", "code", "code line"
PARAGRAPH, LEAD = "paragraph", "lead"  # a paragraph of two sentences or more; a lead-in and the block after it
MAX_LIST_LINES = 24  # a longer list is quoted item by item, not whole
MAX_PARAGRAPH_CHARS = 900  # a longer paragraph is quoted sentence by sentence
MAX_LEAD_CHARS = 1500  # a lead-in brings the block after it up to this length

_CALLOUT = re.compile(r"\[![\w-]+\][+-]?\s*")


@dataclass(frozen=True)
class Unit:
    text: str  # what is quoted: a sentence as written, or the block's lines (a row with its header lines)
    scoring: str  # what is compared with the question: the sentence's plain text, a row as "Header: cell; …"
    start_line: int  # 1-based lines of the note
    end_line: int
    section: str  # the passage's heading it sits under ("" for none), with that heading's parents when the passage
    # holds a sibling of one of them ("Plan › Costs"): the source's heading path and this make its real place
    kind: str  # SENTENCE, ITEM, LIST, ROW, CODE or CODE_LINE
    block: int  # the paragraph, list or table it belongs to (index within the passage)
    position: int  # its place among the sentences of its section (0 = the first)
    leads_in: bool = False  # ends with ":": the next block is what it introduces
    in_list: bool = False  # a sentence of a list item
    context: str = ""  # for a sentence of a list item, the whole item ("Дина — … День рождения — 14 марта"): whose it is


@dataclass
class _Block:
    kind: str  # "paragraph", "list", "table", "code"
    lines: list[tuple[int, str]]  # (1-based line, raw text)
    section: str


def units(text: str, first_line: int = 1) -> list[Unit]:
    """Every quotable unit of a passage whose first line is `first_line`, in order."""
    out: list[Unit] = []
    position: dict[str, int] = {}
    for index, block in enumerate(_blocks(text, first_line)):
        made = _block_units(block, index)
        start = position.get(block.section, 0)
        for u in made:
            if u.kind in (SENTENCE, ROW):
                count = position.get(u.section, 0)
                position[u.section] = count + 1
                u = Unit(u.text, u.scoring, u.start_line, u.end_line, u.section, u.kind, u.block, count, u.leads_in, u.in_list, u.context)
            elif u.kind == PARAGRAPH:
                u = Unit(u.text, u.scoring, u.start_line, u.end_line, u.section, u.kind, u.block, start)
            out.append(u)
    return out + _leads(out)


def _leads(units_: list[Unit]) -> list[Unit]:
    """Each lead-in sentence joined to the block it introduces, as one unit."""
    out = []
    for u in units_:
        if u.kind != SENTENCE or not u.leads_in:
            continue
        after = following(units_, u)
        if after is not None and after.section == u.section and len(u.text) + len(after.text) <= MAX_LEAD_CHARS:
            out.append(
                Unit(f"{u.text}\n{after.text}", f"{u.scoring} {after.scoring}", u.start_line, after.end_line, u.section, LEAD, u.block, u.position)
            )
    return out


def following(units_: list[Unit], unit: Unit) -> Unit | None:
    """The block right after `unit`'s block, as one unit (a whole list, a table, a code block, or a paragraph's first
    sentence): what a lead-in such as "To embed a note:" introduces."""
    later = [u for u in units_ if u.block == unit.block + 1]
    whole = [u for u in later if u.kind in (LIST, CODE)]
    if whole:
        return whole[0]
    rows = [u for u in later if u.kind == ROW]
    if rows:
        return _table_unit(rows)
    return later[0] if later else None


def _table_unit(rows: list[Unit]) -> Unit:
    """All rows of a table as one quote (the header once)."""
    header = rows[0].text.split("\n")[:2]
    body = [r.text.split("\n")[-1] for r in rows]
    first = rows[0]
    return Unit(
        "\n".join(header + body),
        "; ".join(r.scoring for r in rows),
        first.start_line - len(header),
        rows[-1].end_line,
        first.section,
        LIST,
        first.block,
        first.position,
    )


def _blocks(text: str, first_line: int) -> list[_Block]:
    blocks: list[_Block] = []
    held: list[tuple[_Block, tuple[str, ...]]] = []  # each block with the passage's headings it sits under
    stack: list[tuple[int, str]] = []  # (level, heading) open at this line, from the passage's own headings
    current: _Block | None = None
    fence: str | None = None
    for number, raw in enumerate(text.split("\n"), first_line):
        if fence is not None:
            current.lines.append((number, raw))
            if raw.strip().startswith(fence):
                fence, current = None, None
            continue
        heading = HEADING.match(raw)
        kind = _kind(raw, current)
        if heading or not raw.strip() or kind != (current.kind if current else None):
            current = None
        if heading:
            level = len(heading.group(1))
            stack = [h for h in stack if h[0] < level] + [(level, plain(heading.group(2)))]
            continue
        if not raw.strip():
            continue
        if current is None:
            current = _Block(kind, [], "")
            blocks.append(current)
            held.append((current, tuple(h for _, h in stack)))
        current.lines.append((number, raw))
        if kind == "code" and len(current.lines) == 1:
            fence = FENCE.match(raw).group(1)
    _name_sections(held)
    return blocks


def _name_sections(held: list[tuple[_Block, tuple[str, ...]]]) -> None:
    """Each block's section: the passage's headings above it, below those that hold the whole passage (the source's
    heading path ends with these), so a source's heading path and a unit's section read as one real path: "Plan ›
    Costs" for a section nested in a passage that also holds a sibling of "Plan", just "Costs" when "Plan" holds all."""
    stacks = [headings for _, headings in held]
    shared = 0
    while stacks and all(len(h) > shared and h[shared] == stacks[0][shared] for h in stacks):
        shared += 1
    for block, headings in held:
        below = headings[shared:]
        block.section = SEPARATOR.join(below) if below else (headings[-1] if headings else "")


def _kind(raw: str, current: _Block | None) -> str:
    line = QUOTE_MARK.sub("", raw)
    if FENCE.match(raw):
        return "code"
    if line.strip().startswith("|"):
        return "table"
    if LIST_ITEM.match(line) or (current is not None and current.kind == "list" and raw[:1].isspace()):
        return "list"
    return "paragraph"


def _block_units(block: _Block, index: int) -> list[Unit]:
    if block.kind == "code":
        (first, _), (last, _) = block.lines[0], block.lines[-1]
        body = "\n".join(raw for _, raw in block.lines)
        code = "\n".join(raw for _, raw in block.lines[1:-1])
        lines = [Unit(raw, raw.strip(), n, n, block.section, CODE_LINE, index, 0) for n, raw in block.lines[1:-1] if raw.strip()]
        return [Unit(body, code, first, last, block.section, CODE, index, 0)] + lines
    if block.kind == "table":
        return _rows(block, index)
    if block.kind == "list":
        return _list(block, index)
    own = _sentences(block.lines, block.section, index)
    text = "\n".join(raw for _, raw in block.lines)
    if len(own) >= 2 and len(text) <= MAX_PARAGRAPH_CHARS:
        own.append(Unit(text, " ".join(u.scoring for u in own), block.lines[0][0], block.lines[-1][0], block.section, PARAGRAPH, index, 0))
    return own


def _sentences(lines: list[tuple[int, str]], section: str, index: int, kind: str = SENTENCE) -> list[Unit]:
    """The sentences of wrapped prose lines (quote and callout marks dropped), each with its first and last line."""
    text, starts = "", []
    for number, raw in lines:
        piece = _CALLOUT.sub("", QUOTE_MARK.sub("", raw), count=1).strip()
        marker = LIST_ITEM.match(piece)
        piece = piece[marker.end() :] if marker and not starts else piece  # the list marker of an item's first line
        if not piece:
            continue
        text += " " if text else ""
        starts.append((len(text), number))
        text += piece
    out = []
    for a, b in split_sentences(text):
        sentence = text[a:b].strip()
        if not re.search(r"\w", sentence):
            continue
        lines_in = [n for offset, n in starts if offset < b]
        start = max((n for offset, n in starts if offset <= a), default=lines_in[0])
        out.append(Unit(sentence, plain(sentence), start, lines_in[-1], section, kind, index, 0, sentence.rstrip(" *_").endswith(":")))
    return out


def _list(block: _Block, index: int) -> list[Unit]:
    """Each item's sentences, each whole item, and the whole list (when it is short enough to quote at once)."""
    items: list[list[tuple[int, str]]] = []
    indent = len(LIST_ITEM.match(QUOTE_MARK.sub("", block.lines[0][1])).group(1)) if LIST_ITEM.match(QUOTE_MARK.sub("", block.lines[0][1])) else 0
    for number, raw in block.lines:
        m = LIST_ITEM.match(QUOTE_MARK.sub("", raw))
        if (m and len(m.group(1)) <= indent) or not items:
            items.append([])
        items[-1].append((number, raw))
    out: list[Unit] = []
    for item in items:
        own = _sentences(item, block.section, index)
        whole_item = " ".join(u.scoring for u in own)
        sentences = [Unit(u.text, u.scoring, u.start_line, u.end_line, u.section, u.kind, u.block, 0, u.leads_in, True, whole_item) for u in own]
        out += sentences
        whole = "\n".join(raw for _, raw in item)
        out.append(Unit(whole, " ".join(s.scoring for s in sentences), item[0][0], item[-1][0], block.section, ITEM, index, 0))
    if len(block.lines) <= MAX_LIST_LINES:
        text = "\n".join(raw for _, raw in block.lines)
        out.append(Unit(text, plain(text), block.lines[0][0], block.lines[-1][0], block.section, LIST, index, 0))
    return out


def _rows(block: _Block, index: int) -> list[Unit]:
    """Each data row quoted with the header and rule lines above it; scored as "Header: cell; …"."""
    lines = block.lines
    cells = [[c.strip() for c in raw.strip().strip("|").split("|")] for _, raw in lines]
    has_header = len(lines) > 1 and TABLE_RULE.fullmatch(lines[1][1].strip())
    header, head_lines, body = (
        (cells[0], [raw for _, raw in lines[:2]], list(zip(lines[2:], cells[2:]))) if has_header else (None, [], list(zip(lines, cells)))
    )
    out = []
    for (number, raw), row in body:
        if TABLE_RULE.fullmatch(raw.strip()):
            continue
        scoring = row_text(header, row)
        if scoring:
            out.append(Unit("\n".join(head_lines + [raw]), plain(scoring), number, number, block.section, ROW, index, 0))
    return out
