"""A PDF in the vault read as a note: its text page by page, as Markdown the chunker and every reader of notes take.

Each page opens with a heading of its own, `# p. N`, so every chunk sits on one page and its heading path names it.
The PDF's own headings follow as `##`–`####` (the entries of its outline, and lines set larger than its body text).
Each line of the text is a line of the PDF, so a passage's lines are lines on its page (`place` turns the note's line
numbers into the page's). A word hyphenated at a line's end is joined on the first line; lines set in columns are a
table's rows under its header (the delimiter row added is not a line of the page). The title is the PDF's own, else
the file name.

A PDF is hostile input like any note, and its reader (PDFium, through pypdfium2) is native code: it runs in a child
process with a memory and a time bound, fed the bytes that were hashed, so a bomb, a loop or a crash costs that one
file, which is skipped with the reason ("encrypted", "no text layer — a scan; OCR is not supported yet", …) and listed
with the other skipped notes (`rag status`, the Index page). Run as `python -m rag.notes.pdf`, it is that child.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import io
import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from rag.errors import NoteError

SUFFIX = ".pdf"
# Bump when the text a PDF reads as changes. A PDF's hash (what the index keys it by) covers its bytes, this and the
# reader's version; the sync reads every PDF again when `reading_version()` changes, and nothing else.
READING_VERSION = 1
PAGE_HEADING = re.compile(r"^# p\. (\d+)$")
MAX_PAGES = 2000
SECONDS = 60.0  # to read one PDF, whole
MEMORY_BYTES = 2_000_000_000  # the child's address space
PAGE_WIDTH = 900  # pixels of a page drawn for the citation dialog
MAX_DRAWN_PIXELS = 20_000_000
COLUMN_SLACK = 3.0  # points: cells of one column start this close
_DELIMITER = re.compile(r"^\|(?: -{3} \|)+$")  # the delimiter row a table's header gets here
HEADING_SIZE = 1.15  # a line set this much larger than the body text is a heading
HEADING_CHARS = 120
PARAGRAPH_GAP = 1.4  # a step between baselines this many times the usual one starts a paragraph
_MARKDOWN_START = re.compile(r"^(?:#|```|~~~|---|\+\+\+|<!--)")  # a line of text Markdown would read as syntax
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_HYPHENS = "-\u00ad\x02"


@dataclass(frozen=True)
class Read:
    text: str  # the note as Markdown
    sha256: str  # of the PDF's bytes and the reading's version (`_hash`)


def read_pdf(real: str, rel: str, *, max_bytes: int, max_text_bytes: int) -> Read:
    """The PDF at `real` (vault path `rel`) as a note's text. Raises NoteError with the reason and what to do."""
    try:
        st = os.stat(real)
        if st.st_size > max_bytes:
            raise NoteError(
                f"{rel} is {_size(st.st_size)}, over the {_size(max_bytes)} limit for a PDF; it is skipped. Raise max_pdf_bytes, or add it to `ignore`."
            )
        key = (real, st.st_mtime_ns, st.st_size)
        read = _cache.get(key)  # a PDF cited again (each answer reads its sources anew) is not parsed again
        if read is None:
            with open(real, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise NoteError(f"{rel} vanished while reading; it will be picked up on the next sync if it returns.") from exc
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc
    if read is None:
        if len(raw) > max_bytes:
            raise NoteError(f"{rel} grew past the {_size(max_bytes)} limit for a PDF while it was read; it is skipped.")
        out = _in_child(raw, rel)
        # The title goes in the frontmatter, never as the first heading: that is the first page's
        title = out.get("title") or PurePosixPath(rel).stem
        read = Read(f"---\ntitle: {json.dumps(str(title), ensure_ascii=False)}\n---\n{out['text']}", _hash(raw))
        if len(_cache) >= CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = read
    if len(read.text.encode("utf-8")) > max_text_bytes:
        raise NoteError(
            f"{rel}'s text is over the {_size(max_text_bytes)} limit for a note; it is skipped. Raise max_note_bytes, or add it to `ignore`."
        )
    return read


@dataclass(frozen=True)
class Place:
    """Where a passage of a PDF's text is on its pages: lines counted on each page from 1, as the PDF shows them (the
    blank lines this reading adds between paragraphs are not the page's)."""

    page: int
    line: int
    end_page: int
    end_line: int

    def __str__(self) -> str:
        if self.page == self.end_page:
            return f"p. {self.page}, lines {self.line}-{self.end_line}" if self.end_line != self.line else f"p. {self.page}, line {self.line}"
        return f"p. {self.page}, line {self.line} - p. {self.end_page}, line {self.end_line}"


def page_json(where: Place | None) -> dict:
    """A passage's page for `--json` and MCP: "page" and "page_lines" ([first, last] on it; "end_page" when it runs
    onto the next), null for a Markdown note's."""
    if where is None:
        return {"page": None, "page_lines": None}
    out = {"page": where.page, "page_lines": [where.line, where.end_line]}
    return out | ({"end_page": where.end_page} if where.end_page != where.page else {})


def place(text: str, start_line: int, end_line: int) -> Place | None:
    """A passage's note lines (1-based, inclusive) → where it is on the PDF's pages; None when `text` is not a
    PDF's (no page heading at or above the passage's start)."""
    lines = text.split("\n")
    heads = [(n, int(m.group(1))) for n, line in enumerate(lines, 1) if (m := PAGE_HEADING.match(line))]

    def at(n: int) -> tuple[int, int] | None:
        above = [(top, page) for top, page in heads if top <= n]
        if not above:
            return None
        top, page = above[-1]
        return page, max(1, sum(1 for line in lines[top : min(n, len(lines))] if printed(line)))

    start = at(max(start_line, 1)) or (heads[0][1], 1) if heads else None
    if start is None or not lines:
        return None
    end = at(max(end_line, start_line)) or start
    if end < start:
        end = start
    return Place(start[0], start[1], end[0], end[1])


def within(text: str, first_line: int, where: Place, start_line: int, end_line: int) -> Place:
    """Lines `start_line`..`end_line` of the note inside a passage of one page (its `text` from note line
    `first_line`, at `where`) → where they are on that page (a claim's evidence inside its source)."""
    lines = text.split("\n")

    base = where.line - 1  # the passage's first line of text is line `where.line` of the page

    def on_page(n: int) -> int:
        return max(1, base + sum(1 for line in lines[: max(0, n - first_line + 1)] if printed(line)))

    first = on_page(start_line)
    return Place(where.page, first, where.page, max(first, on_page(end_line)))


_cache: dict[tuple[str, int, int], Read] = {}  # (real path, mtime_ns, size) → what was read; a few PDFs a process
CACHE_SIZE = 32


def render_page(real: str, rel: str, page: int, *, max_bytes: int, width: int = PAGE_WIDTH):
    """Page `page` (from 1) of the PDF drawn as RGB pixels (a numpy array) `width` wide, for the citation dialog: in
    the bounded child, like its reading. Raises NoteError."""
    import numpy as np

    try:
        st = os.stat(real)
        if st.st_size > max_bytes:
            raise NoteError(f"{rel} is over the {_size(max_bytes)} limit for a PDF.")
        with open(real, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}.") from exc
    done = _child(raw, rel, "--page", str(int(page)), "--width", str(int(width)))
    try:
        return np.load(io.BytesIO(done.stdout), allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise NoteError(f"Page {page} of {rel} could not be drawn (exit {done.returncode}).") from None


def _child(raw: bytes, rel: str, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            [sys.executable, "-m", "rag.notes.pdf", *args],
            input=raw,
            capture_output=True,
            timeout=SECONDS,
            preexec_fn=_bounded if os.name == "posix" else None,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
    except subprocess.TimeoutExpired as exc:
        raise NoteError(f"{rel} took more than {SECONDS:.0f} s to read; it is skipped (a damaged or hostile PDF?).") from exc
    except OSError as exc:
        raise NoteError(f"Cannot start the PDF reader for {rel}: {exc}.") from exc


def _in_child(raw: bytes, rel: str) -> dict:
    done = _child(raw, rel)
    try:
        out = json.loads(done.stdout.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        if b"MemoryError" in done.stderr or done.returncode in (-9, 137):
            raise NoteError(f"{rel} needed more than {_size(MEMORY_BYTES)} of memory to read; it is skipped (a damaged or hostile PDF?).") from None
        raise NoteError(f"Reading {rel} stopped the PDF reader (exit {done.returncode}); it is skipped (a damaged or hostile PDF?).") from None
    if not isinstance(out, dict) or "error" in out or not isinstance(out.get("text"), str):
        raise NoteError(_why(out if isinstance(out, dict) else {"error": "broken"}, rel))
    return out


def _why(out: dict, rel: str) -> str:
    kind = out["error"]
    if kind == "encrypted":
        return f"{rel} is protected by a password; it is skipped. Save a copy without the password to make it searchable."
    if kind == "pages":
        return f"{rel} has {out['pages']:,} pages, over the {MAX_PAGES:,}-page limit for a PDF; it is skipped. Split it, or add it to `ignore`."
    if kind == "no_text":
        return f"{rel} has no text layer (a scan or images of pages); it is skipped. Reading scans (OCR) is not supported yet."
    if kind == "memory":
        return f"{rel} needed more than {_size(MEMORY_BYTES)} of memory to read; it is skipped (a damaged or hostile PDF?)."
    return f"{rel} is not a readable PDF ({' '.join(str(out.get('detail', '')).split())[:200]}); it is skipped."


def _bounded() -> None:  # in the child, before it runs: a bomb fails there
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _hash(raw: bytes) -> str:
    digest = hashlib.sha256(raw)
    digest.update(f"\0ask-your-vault {reading_version()}".encode())
    return digest.hexdigest()


def reading_version() -> str:
    """This reading's version and its reader's: a PDF read by another is read again."""
    return f"pdf reading {READING_VERSION}, pypdfium2 {_reader_version()}"


@functools.cache
def _reader_version() -> str:
    try:
        return importlib.metadata.version("pypdfium2")
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


# ---- the child: PDF bytes on stdin → {"text": …} or {"error": …} on stdout ----


@dataclass
class _Line:
    text: str
    size: float  # mean font size of its characters
    baseline: float  # page coordinates (y grows upwards)
    cells: tuple[tuple[float, str], ...] = ()  # (left x, text) of each cell, when the line is set in columns


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
            out.append(_Line(piece, size, baseline, _cells(textpage, piece, at, size)))
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
        lines = [_Line(_clean(line.text), line.size, line.baseline, tuple((x, _clean(c)) for x, c in line.cells)) for line in page]
        _join_hyphens(lines)
        table = _table_rows(lines)
        steps = [a.baseline - b.baseline for a, b in zip(lines, lines[1:]) if a.text and b.text and a.baseline > b.baseline]
        usual = sorted(steps)[len(steps) // 4] if steps else 0.0  # from a line to the next: most steps are within a paragraph
        for k, line in enumerate(lines):
            previous = lines[k - 1] if k else None
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


def printed(line: str) -> bool:
    """A line of the note that is a line of the PDF's page (not a page heading, a blank this reading added, or a
    table's delimiter row)."""
    return bool(line.strip()) and not PAGE_HEADING.match(line) and not _DELIMITER.match(line)


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
        if len(head) >= 2 and head[-1] in _HYPHENS and head[-2].isalpha() and b.text[:1].islower():
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
