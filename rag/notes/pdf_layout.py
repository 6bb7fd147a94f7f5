"""The PDF reader's child process (`python -m rag.notes.pdf_layout`): PDF bytes on stdin, the text as Markdown on
stdout ({"text": …, "title": …} or {"error": …}), or with `--page N --width W` one page drawn as RGB pixels.

Kept apart from the parent (rag/notes/pdf.py: the bounds, the cache, where a passage is on its page) because it
runs PDFium, native code, on hostile input, in a process of its own. The page's lines and fonts are read by
rag/notes/pdf_lines.py; the rules that make Markdown of them (headings, paragraphs, tables, code blocks) are
rag/notes/pdf_markdown.py.
"""

from __future__ import annotations

import json
import sys

from rag.notes.pdf_lines import read_lines, read_outline, read_title
from rag.notes.pdf_markdown import render

MAX_PAGES = 2000
MAX_DRAWN_PIXELS = 20_000_000


def to_markdown(data: bytes) -> dict:
    """The PDF's text as Markdown and its title, or what kept it from being read."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        return {"error": "encrypted" if "password" in str(exc).lower() else "broken", "detail": str(exc)}
    try:
        if len(pdf) > MAX_PAGES:
            return {"error": "pages", "pages": len(pdf)}
        pages = [read_lines(pdf[i]) for i in range(len(pdf))]
        title = read_title(pdf)
        outline = read_outline(pdf, 10 * MAX_PAGES)
    except MemoryError:
        return {"error": "memory"}
    except pdfium.PdfiumError as exc:
        return {"error": "broken", "detail": str(exc)}
    finally:
        pdf.close()
    if not any(line.text.strip() for page in pages for line in page):
        return {"error": "no_text"}
    return {"text": render(pages, outline), "title": title}


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
