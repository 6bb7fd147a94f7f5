"""The layout rules that turn a PDF's lines (rag/notes/pdf_lines.py) into Markdown, page by page:
- each page opens with `# p. N` (PAGE_HEADING);
- the PDF's headings: the entries of its outline, and lines set HEADING_SIZE× the body text's size, as `##`–`####`;
- paragraphs by the steps between baselines; a word hyphenated at a line's end joined on the first line;
- lines set in the same columns (text flush left, numbers flush right) as a table's rows under its header, an empty
  cell kept in its column (the DELIMITER row added);
- runs of lines set in a fixed-pitch font as a code block, their indentation from where each starts (the FENCE
  lines added);
- a line Markdown would read as syntax escaped. Every other line of the text is a line of the page.

Pure: no PDFium here, so the rules are tested on lines made by hand (tests/test_pdf.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

PAGE_HEADING = re.compile(r"^# p\. (\d+)$")
DELIMITER = re.compile(r"^\|(?: -{3} \|)+$")  # the delimiter row a table's header gets here
FENCE = "```"  # the line that opens and closes a code block here (a page's own line like it is escaped)
COLUMN_SLACK = 3.0  # points: cells of one column start this close
HEADING_SIZE = 1.15  # a line set this much larger than the body text is a heading
HEADING_CHARS = 120
PARAGRAPH_GAP = 1.4  # a step between baselines this many times the usual one starts a paragraph
CODE_LINES = 2  # a code block: at least this many lines in a row set in a fixed-pitch font
_MARKDOWN_START = re.compile(r"^(?:#|```|~~~|---|\+\+\+|<!--)")  # a line of text Markdown would read as syntax
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_HYPHENS = "-\u00ad\x02"


@dataclass
class Line:
    """A line of a page's text as PDFium sets it: what the layout rules read."""

    text: str
    size: float  # mean font size of its characters
    baseline: float  # page coordinates (y grows upwards)
    cells: tuple[tuple[float, float, str], ...] = ()  # (left x, right x, text) of each cell, when set in columns
    fixed: bool = False  # set in a fixed-pitch font (code)
    left: float = 0.0  # where its first character's advance starts
    advance: float = 0.0  # and how wide it is (in a fixed-pitch font, every character's)


def _marked(pages: list[list[Line]], outline: list[tuple[int, int, str]]) -> dict[tuple[int, int], int]:
    """(page, line index) → outline depth, for the line each outline entry names on its page (its title, or the
    first line of a title wrapped onto two)."""
    marked: dict[tuple[int, int], int] = {}
    for page, depth, title in outline:
        wanted = title.casefold()
        if not wanted or page > len(pages):
            continue
        for k, line in enumerate(pages[page - 1]):
            text = " ".join(_clean(line.text).split()).casefold()
            if (page, k) not in marked and text and (text == wanted or (len(text) >= 12 and wanted.startswith(text))):
                marked[(page, k)] = depth
                break
    return marked


def render(pages: list[list[Line]], outline: list[tuple[int, int, str]] = ()) -> str:
    """The pages' lines as Markdown, each page under its `# p. N` heading."""
    body = Counter()
    for page in pages:
        for line in page:
            body[round(line.size, 1)] += len(line.text)
    body_size = body.most_common(1)[0][0] if body else 0.0
    heading_sizes = sorted({round(line.size, 1) for page in pages for line in page if _heading(line, body_size)}, reverse=True)
    marked = _marked(pages, list(outline))  # the outline names headings the font sizes may not show
    out = []
    for number, page in enumerate(pages, 1):
        out.append(f"# p. {number}")
        lines = [
            Line(
                _clean(line.text),
                line.size,
                line.baseline,
                tuple((x, end, _clean(c)) for x, end, c in line.cells),
                line.fixed,
                line.left,
                line.advance,
            )
            for line in page
        ]
        _join_hyphens(lines)
        depths = {k: depth for (n, k), depth in marked.items() if n == number}
        _render_page(out, lines, depths, body_size, heading_sizes)
        out.append("")
    return "\n".join(out)


def _render_page(out: list[str], lines: list[Line], marked: dict[int, int], body_size: float, heading_sizes: list[float]) -> None:
    """One page's lines appended to `out`; `marked`: line index → outline depth."""
    table = _table_rows(lines)
    code = _code_lines(lines, body_size)
    steps = [a.baseline - b.baseline for a, b in zip(lines, lines[1:]) if a.text and b.text and a.baseline > b.baseline]
    usual = sorted(steps)[len(steps) // 4] if steps else 0.0  # from a line to the next: most steps are within a paragraph
    for k, line in enumerate(lines):
        previous = lines[k - 1] if k else None
        gap = previous is not None and usual and previous.baseline - line.baseline > PARAGRAPH_GAP * usual
        if k in code:  # a line of a code block: indented as set, the block between FENCE lines
            if k - 1 not in code:
                out += [""] if out[-1] else []
                out.append(FENCE)
            elif gap:
                out.append("")  # a blank line of the code
            text = " " * code[k] + line.text.strip()
            out.append(("\\" + text) if text.startswith(FENCE) else text)
            if k + 1 not in code:
                out += [FENCE, ""]
        elif k in marked:
            out.append(f"{'#' * min(2 + marked[k], 4)} {line.text.strip()}")
        elif _heading(line, body_size):
            _heading_line(out, line, previous, body_size, heading_sizes)
        elif k in table:  # a row of a table: its cells in the table's columns, the header followed by the delimiter row
            if k - 1 not in table and out[-1]:
                out.append("")
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in table[k].cells) + " |")
            if table[k].header:
                out.append("|" + " --- |" * len(table[k].cells))
        else:
            if k - 1 in table and out[-1]:
                out.append("")  # the table's end
            elif gap and out[-1]:
                out.append("")  # a paragraph's end, as the chunker reads it
            out.append(_escaped(line.text))


def _heading_line(out: list[str], line: Line, previous: Line | None, body_size: float, heading_sizes: list[float]) -> None:
    """A line set as a heading, its level by its size among the document's heading sizes."""
    if previous is not None and _heading(previous, body_size) and round(previous.size, 1) == round(line.size, 1) and out[-1].startswith("#"):
        # a heading wrapped onto a second line: whole on its first line (the section's name), this line kept as text
        # so the page's lines still count as the PDF shows them
        out[-1] = f"{out[-1]} {line.text.strip()}"
        out.append(_escaped(line.text))
        return
    level = min(2 + heading_sizes.index(round(line.size, 1)), 4)
    out.append(f"{'#' * level} {line.text.strip()}")


def _code_lines(lines: list[Line], body_size: float) -> dict[int, int]:
    """Line index → its indentation in characters, for runs of CODE_LINES lines or more set in a fixed-pitch font (not
    a heading). The indentation is how far right of the run's leftmost line a line starts, in character widths."""
    out: dict[int, int] = {}
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].fixed and lines[j].text.strip() and not _heading(lines[j], body_size):
            j += 1
        if j - i >= CODE_LINES:
            run = lines[i:j]
            left = min(line.left for line in run)
            for k, line in enumerate(run, i):
                out[k] = min(round((line.left - left) / line.advance), 40) if line.advance > 0 else 0
        i = max(j, i + 1)
    return out


@dataclass(frozen=True)
class _Row:
    header: bool  # the table's first line
    cells: tuple[str, ...]  # its text in each of the table's columns ("" where the line has none)


def _table_rows(lines: list[Line]) -> dict[int, _Row]:
    """Line index → its row, for runs of two lines or more set in the same columns: the first cells start together,
    and each cell of the line with fewer cells stands in a column of the other, its left or right edge within
    COLUMN_SLACK points of that column's (text is set flush left, numbers flush right; an empty cell is no cell)."""
    out: dict[int, _Row] = {}
    i = 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and _columns_of(lines[j], lines[j + 1]) is not None:
            j += 1
        if j > i:
            widest = max(lines[i : j + 1], key=lambda line: len(line.cells))
            for k in range(i, j + 1):
                columns = _placed(lines[k].cells, widest.cells) or range(len(lines[k].cells))
                texts = [""] * max(len(widest.cells), len(lines[k].cells))
                for column, (*_, text) in zip(columns, lines[k].cells):
                    texts[column] = text
                out[k] = _Row(k == i, tuple(texts))
        i = j + 1
    return out


def _columns_of(a: Line, b: Line) -> list[int] | None:
    """Where the cells of the line with fewer cells stand among the other's, or None when the two are no table."""
    if len(a.cells) < 2 or len(b.cells) < 2:
        return None
    few, many = sorted((a.cells, b.cells), key=len)
    return _placed(few, many)


def _placed(cells: tuple, columns: tuple) -> list[int] | None:
    """The column each cell stands in, left to right, the first cell in the first column; None if one stands in none."""
    if abs(cells[0][0] - columns[0][0]) > COLUMN_SLACK:
        return None
    out, at = [0], 1
    for left, right, _ in cells[1:]:
        while at < len(columns) and abs(left - columns[at][0]) > COLUMN_SLACK and abs(right - columns[at][1]) > COLUMN_SLACK:
            at += 1
        if at == len(columns):
            return None
        out.append(at)
        at += 1
    return out


def _escaped(text: str) -> str:
    """A line of the PDF's text that Markdown would read as syntax (a heading, a fence, frontmatter) kept as text."""
    return ("\\" + text) if _MARKDOWN_START.match(text) else text


def _heading(line: Line, body_size: float) -> bool:
    text = line.text.strip()
    return bool(body_size) and line.size >= HEADING_SIZE * body_size and 0 < len(text) <= HEADING_CHARS and any(c.isalpha() for c in text)


def _clean(text: str) -> str:
    text = text.translate(_LIGATURES).replace("\x00", "").replace("\ufffe", "").replace("\uffff", "")
    return "".join(c for c in text if c in "\t\x02" or c >= " ").rstrip()


def _join_hyphens(lines: list[Line]) -> None:
    """ "con-" / "troller waters" → "controller" / "waters": the word whole on the first line, line count kept."""
    for a, b in zip(lines, lines[1:]):
        head = a.text.rstrip()
        if len(head) >= 2 and head[-1] in _HYPHENS and head[-2].isalpha() and b.text[:1].islower() and not a.fixed:
            rest = b.text.split(" ", 1)
            a.text = head[:-1] + rest[0]
            b.text = rest[1] if len(rest) > 1 else ""
        a.text = a.text.replace("\x02", "")
    if lines:
        lines[-1].text = lines[-1].text.replace("\x02", "")
