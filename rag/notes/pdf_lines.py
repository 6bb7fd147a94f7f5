"""A PDF page's lines and fonts as PDFium reads them, for the layout rules (rag/notes/pdf_markdown.py) to
turn into Markdown: each line's text, font size, baseline, cells (where spaces wider than a character split it
into columns) and whether it is set in a fixed-pitch font; the document's title and outline.

Apart from the rules because this is the only part that calls PDFium (native code, on hostile input): it runs in
the reader's child process (rag/notes/pdf_layout.py) and knows nothing about Markdown.
"""

from __future__ import annotations

import re

from rag.notes.pdf_markdown import Line


def read_lines(page) -> list[Line]:
    """The page's lines of text (PDFium's own line breaks), each with its font size, baseline, columns and pitch."""
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
            out.append(Line(piece, size, baseline, () if fixed else _cells(textpage, piece, at, size), fixed, left, advance))
            at += len(piece) + 2
        return out
    finally:
        textpage.close()


def _cells(textpage, piece: str, at: int, size: float) -> tuple[tuple[float, float, str], ...]:
    """The line's cells (left and right x, text) when a space in it spans more than a character's height (a table's columns), else ()."""
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
    cells = tuple((textpage.get_charbox(at + a)[0], textpage.get_charbox(at + len(piece[:b].rstrip()) - 1)[2], piece[a:b].strip()) for a, b in bounds)
    # a cell of a table says something; a tree drawn with "│  ├──" is not one
    return cells if all(any(c.isalnum() for c in text) for *_, text in cells) else ()


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


def read_title(pdf) -> str | None:
    """The document's title from its metadata, unless it is missing or only names the source file."""
    try:
        title = (pdf.get_metadata_dict().get("Title") or "").strip()
    except Exception:  # noqa: BLE001 — metadata is optional and often malformed
        return None
    title = " ".join(title.split())[:200]
    # Writers fill it with the source file's name ("Microsoft Word - report.docx", "a.html"): then the file's name wins
    if not title or re.search(r"\.(?:docx?|html?|tex|dvi|pdf|odt|rtf|txt|md|pptx?)$", title, re.I) or title.lower() in ("untitled", "title"):
        return None
    return title


def read_outline(pdf, limit: int) -> list[tuple[int, int, str]]:
    """The PDF's outline (its bookmarks) as (page from 1, depth from 0, title); empty when it has none or it cannot
    be read. Bounded: a hostile outline may be deep, long or a loop (pypdfium2 stops at a loop)."""
    out = []
    try:
        for item in pdf.get_toc(max_depth=8):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            if index is not None and 0 <= index < len(pdf):
                out.append((index + 1, item.level, " ".join((item.get_title() or "").split())))
            if len(out) >= limit:
                break
    except Exception:  # noqa: BLE001 — the outline is optional: the font sizes still give headings
        return []
    return out
