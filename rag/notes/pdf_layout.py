"""The PDF reader's child process (`python -m rag.notes.pdf_layout`): PDF bytes on stdin, the text as Markdown on
stdout ({"text": …, "title": …} or {"error": …}), or with `--page N --width W` one page drawn as RGB pixels.

How a page's text becomes Markdown, kept apart from the parent (rag/notes/pdf.py: the bounds, the cache, where a
passage is on its page) because it runs PDFium, native code, on hostile input, in a process of its own:
- each page opens with `# p. N` (PAGE_HEADING);
- the PDF's headings: the entries of its outline, and lines set HEADING_SIZE× the body text's size, as `##`–`####`;
- paragraphs by the steps between baselines; a word hyphenated at a line's end joined on the first line;
- lines set in the same columns as a table's rows under its header (the DELIMITER row added);
- runs of lines set in a fixed-pitch font as a code block, their indentation from where each starts (the FENCE
  lines added);
- a line Markdown would read as syntax escaped. Every other line of the text is a line of the page.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass

PAGE_HEADING = re.compile(r"^# p\. (\d+)$")
DELIMITER = re.compile(r"^\|(?: -{3} \|)+$")  # the delimiter row a table's header gets here
FENCE = "```"  # the line that opens and closes a code block here (a page's own line like it is escaped)
MAX_PAGES = 2000
MAX_DRAWN_PIXELS = 20_000_000
COLUMN_SLACK = 3.0  # points: cells of one column start this close
HEADING_SIZE = 1.15  # a line set this much larger than the body text is a heading
HEADING_CHARS = 120
PARAGRAPH_GAP = 1.4  # a step between baselines this many times the usual one starts a paragraph
CODE_LINES = 2  # a code block: at least this many lines in a row set in a fixed-pitch font
_MARKDOWN_START = re.compile(r"^(?:#|```|~~~|---|\+\+\+|<!--)")  # a line of text Markdown would read as syntax
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_HYPHENS = "-\u00ad\x02"


@dataclass
class _Line:
    text: str
    size: float  # mean font size of its characters
    baseline: float  # page coordinates (y grows upwards)
    cells: tuple[tuple[float, str], ...] = ()  # (left x, text) of each cell, when the line is set in columns
    fixed: bool = False  # set in a fixed-pitch font (code)
    left: float = 0.0  # where its first character's advance starts
    advance: float = 0.0  # and how wide it is (in a fixed-pitch font, every character's)


def to_markdown(data: bytes) -> dict:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        return {"error": "encrypted" if "password" in str(exc).lower() else "broken", "detail": str(exc)}
    try:
        if len(pdf) > MAX_PAGES:
            return {"error": "pages", "pages": len(pdf)}
        pages = [_lines(pdf[i]) for i in range(len(pdf))]
        title = _title(pdf)
        outline = _outline(pdf)
    except MemoryError:
        return {"error": "memory"}
    except pdfium.PdfiumError as exc:
        return {"error": "broken", "detail": str(exc)}
    finally:
        pdf.close()
    if not any(line.text.strip() for page in pages for line in page):
        return {"error": "no_text"}
    return {"text": _render(pages, outline), "title": title}


def _lines(page) -> list[_Line]:
    import pypdfium2.raw as raw

    textpage = page.get_textpage()
    try:
        text = textpage.get_text_range()
        out, at = [], 0
        for piece in text.split("\r\n"):
            sizes = [raw.FPDFText_GetFontSize(textpage.raw, i) for i in range(at, at + len(piece)) if not piece[i - at].isspace()]
            first = next((i for i in range(at, at + len(piece)) if not piece[i - at].isspace()), None)
            baseline = _origin_y(raw, textpage, first) if first is not None else 0.0
            size = sum(sizes) / len(sizes) if sizes else 0.0
            fixed = first is not None and _fixed_pitch(raw, textpage, [i for i in range(at, at + len(piece)) if not piece[i - at].isspace()])
            left, advance = _advance(raw, textpage, first) if fixed else (0.0, 0.0)
            out.append(_Line(piece, size, baseline, () if fixed else _cells(textpage, piece, at, size), fixed, left, advance))
            at += len(piece) + 2
        return out
    finally:
        textpage.close()


def _cells(textpage, piece: str, at: int, size: float) -> tuple[tuple[float, str], ...]:
    """The line's cells when a space in it spans more than a character's height (a table's columns), else ()."""
    if size <= 0 or " " not in piece.strip():
        return ()
    bounds, start = [], 0
    for j in range(1, len(piece) - 1):
        if piece[j] == " " and piece[j - 1] != " " and piece[j + 1] != " ":
            if textpage.get_charbox(at + j + 1)[0] - textpage.get_charbox(at + j - 1)[2] > size:
                bounds.append((start, j))
                start = j + 1
    if not bounds:
        return ()
    bounds.append((start, len(piece)))
    cells = tuple((textpage.get_charbox(at + a)[0], piece[a:b].strip()) for a, b in bounds)
    # a cell of a table says something; a tree drawn with "│  ├──" is not one
    return cells if all(any(c.isalnum() for c in text) for _, text in cells) else ()


def _fixed_pitch(raw, textpage, indexes: list[int]) -> bool:
    """Whether a line's characters are set in a fixed-pitch font: its first, middle and last ones (a word of inline
    code in a sentence is not a line of code)."""
    import ctypes

    flags = ctypes.c_int()
    for i in {indexes[0], indexes[len(indexes) // 2], indexes[-1]}:
        name = ctypes.create_string_buffer(128)
        raw.FPDFText_GetFontInfo(textpage.raw, i, name, 128, ctypes.byref(flags))
        # the font's flag, or its name when a writer left the flag out
        if not flags.value & 1 and not re.search(rb"mono|courier|consol|menlo|code", name.value, re.I):
            return False
    return True


def _advance(raw, textpage, index: int) -> tuple[float, float]:
    """Where a character's advance starts and its width (the loose box: the font's metrics, not the glyph's ink)."""
    import ctypes

    box = raw.FS_RECTF()
    if not raw.FPDFText_GetLooseCharBox(textpage.raw, index, ctypes.byref(box)):
        return 0.0, 0.0
    return float(box.left), float(box.right - box.left)


def _origin_y(raw, textpage, index: int) -> float:
    """The baseline's height of a character (glyph boxes vary with the letters; baselines do not)."""
    import ctypes

    x, y = ctypes.c_double(), ctypes.c_double()
    if not raw.FPDFText_GetCharOrigin(textpage.raw, index, ctypes.byref(x), ctypes.byref(y)):
        return 0.0
    return float(y.value)


def _title(pdf) -> str | None:
    try:
        title = (pdf.get_metadata_dict().get("Title") or "").strip()
    except Exception:  # noqa: BLE001 — metadata is optional and often malformed
        return None
    title = " ".join(title.split())[:200]
    # Writers fill it with the source file's name ("Microsoft Word - report.docx", "a.html"): then the file's name wins
    if not title or re.search(r"\.(?:docx?|html?|tex|dvi|pdf|odt|rtf|txt|md|pptx?)$", title, re.I) or title.lower() in ("untitled", "title"):
        return None
    return title


def _outline(pdf) -> list[tuple[int, int, str]]:
    """The PDF's outline (its bookmarks) as (page from 1, depth from 0, title); empty when it has none or it cannot
    be read. Bounded: a hostile outline may be deep, long or a loop (pypdfium2 stops at a loop)."""
    out = []
    try:
        for item in pdf.get_toc(max_depth=8):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            if index is not None and 0 <= index < len(pdf):
                out.append((index + 1, item.level, " ".join((item.get_title() or "").split())))
            if len(out) >= 10 * MAX_PAGES:
                break
    except Exception:  # noqa: BLE001 — the outline is optional: the font sizes still give headings
        return []
    return out


def _marked(pages: list[list[_Line]], outline: list[tuple[int, int, str]]) -> dict[tuple[int, int], int]:
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


def _render(pages: list[list[_Line]], outline: list[tuple[int, int, str]] = ()) -> str:
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
            _Line(_clean(line.text), line.size, line.baseline, tuple((x, _clean(c)) for x, c in line.cells), line.fixed, line.left, line.advance)
            for line in page
        ]
        _join_hyphens(lines)
        table = _table_rows(lines)
        code = _code_lines(lines, body_size)
        steps = [a.baseline - b.baseline for a, b in zip(lines, lines[1:]) if a.text and b.text and a.baseline > b.baseline]
        usual = sorted(steps)[len(steps) // 4] if steps else 0.0  # from a line to the next: most steps are within a paragraph
        for k, line in enumerate(lines):
            previous = lines[k - 1] if k else None
            if k in code:  # a line of a code block: indented as set, the block between FENCE lines
                if k - 1 not in code:
                    out += [""] if out[-1] else []
                    out.append(FENCE)
                elif previous is not None and usual and previous.baseline - line.baseline > PARAGRAPH_GAP * usual:
                    out.append("")  # a blank line of the code
                text = " " * code[k] + line.text.strip()
                out.append(("\\" + text) if text.startswith(FENCE) else text)
                if k + 1 not in code:
                    out += [FENCE, ""]
                continue
            if (number, k) in marked:
                out.append(f"{'#' * min(2 + marked[(number, k)], 4)} {line.text.strip()}")
                continue
            if _heading(line, body_size):
                level = min(2 + heading_sizes.index(round(line.size, 1)), 4)
                if (
                    previous is not None
                    and _heading(previous, body_size)
                    and round(previous.size, 1) == round(line.size, 1)
                    and out[-1].startswith("#")
                ):
                    # a heading wrapped onto a second line: whole on its first line (the section's name), this line
                    # kept as text so the page's lines still count as the PDF shows them
                    out[-1] = f"{out[-1]} {line.text.strip()}"
                    out.append(_escaped(line.text))
                    continue
                out.append(f"{'#' * level} {line.text.strip()}")
                continue
            if k in table:  # a row of a table: its cells as Markdown's, the header followed by the delimiter row
                if k - 1 not in table and out[-1]:
                    out.append("")
                out.append("| " + " | ".join(c.replace("|", "\\|") for _, c in line.cells) + " |")
                if table[k] == "header":
                    out.append("|" + " --- |" * len(line.cells))
                continue
            if k - 1 in table and out[-1]:
                out.append("")  # the table's end
            elif previous is not None and usual and previous.baseline - line.baseline > PARAGRAPH_GAP * usual and out[-1]:
                out.append("")  # a paragraph's end, as the chunker reads it
            out.append(_escaped(line.text))
        out.append("")
    return "\n".join(out)


def _code_lines(lines: list[_Line], body_size: float) -> dict[int, int]:
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


def _table_rows(lines: list[_Line]) -> dict[int, str]:
    """Line index → "header" or "row", for runs of two lines or more set in the same columns (the same number of
    cells, the first column and another starting within COLUMN_SLACK points)."""

    def same(a: _Line, b: _Line) -> bool:
        if len(a.cells) < 2 or len(a.cells) != len(b.cells) or abs(a.cells[0][0] - b.cells[0][0]) > COLUMN_SLACK:
            return False
        return any(abs(x - y) <= COLUMN_SLACK for (x, _), (y, _) in zip(a.cells[1:], b.cells[1:]))

    out: dict[int, str] = {}
    i = 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and same(lines[j], lines[j + 1]):
            j += 1
        if j > i:
            out[i] = "header"
            out.update({n: "row" for n in range(i + 1, j + 1)})
        i = j + 1
    return out


def _escaped(text: str) -> str:
    """A line of the PDF's text that Markdown would read as syntax (a heading, a fence, frontmatter) kept as text."""
    return ("\\" + text) if _MARKDOWN_START.match(text) else text


def _heading(line: _Line, body_size: float) -> bool:
    text = line.text.strip()
    return bool(body_size) and line.size >= HEADING_SIZE * body_size and 0 < len(text) <= HEADING_CHARS and any(c.isalpha() for c in text)


def _clean(text: str) -> str:
    text = text.translate(_LIGATURES).replace("\x00", "").replace("\ufffe", "").replace("\uffff", "")
    return "".join(c for c in text if c in "\t\x02" or c >= " ").rstrip()


def _join_hyphens(lines: list[_Line]) -> None:
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


def draw(data: bytes, page: int, width: int) -> None:
    """Page `page` as RGB pixels, written to stdout in numpy's format (nothing for a page it cannot draw)."""
    import numpy as np
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    if not 1 <= page <= min(len(pdf), MAX_PAGES):
        return
    drawn = pdf[page - 1]
    w, h = drawn.get_size()
    scale = min(width / max(w, 1.0), (MAX_DRAWN_PIXELS / max(w * h, 1.0)) ** 0.5)  # a page 100 m long stays bounded too
    np.save(sys.stdout.buffer, drawn.render(scale=max(scale, 0.01), rev_byteorder=True).to_numpy(), allow_pickle=False)


def main() -> None:
    data = sys.stdin.buffer.read()
    if "--page" in sys.argv:
        draw(data, int(sys.argv[sys.argv.index("--page") + 1]), int(sys.argv[sys.argv.index("--width") + 1]))
        return
    try:
        out = to_markdown(data)
    except MemoryError:
        out = {"error": "memory"}
    sys.stdout.write(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
