"""A PDF in the vault read as a note: its text page by page, as Markdown the chunker and every reader of notes take.

Each page opens with a heading of its own, `# p. N`, so every chunk sits on one page and its heading path names it.
Each line of the text is a line of the PDF, so a passage's lines are lines on its page (`place` turns the note's line
numbers into the page's). How a page becomes Markdown (its headings, paragraphs, tables) is rag/notes/pdf_markdown.py,
run in the reader's child process, rag/notes/pdf_layout.py.
The title is the PDF's own, else the file name.

A PDF is hostile input like any note, and its reader (PDFium, through pypdfium2) is native code: it runs in a child
process with a memory and a time bound, fed the bytes that were hashed, so a bomb, a loop or a crash costs that one
file, which is skipped with the reason ("encrypted", "no text layer — a scan; OCR is not supported yet", …) and listed
with the other skipped notes (`rag status`, the Index page).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import PurePosixPath

from rag.errors import NoteError
from rag.notes.pdf_layout import MAX_PAGES
from rag.notes.pdf_markdown import DELIMITER, FENCE, PAGE_HEADING
from rag.recent import Recent

SUFFIX = ".pdf"
# Bump when the text a PDF reads as changes. A PDF's hash (what the index keys it by) covers its bytes, this and the
# reader's version; the sync reads every PDF again when `reading_version()` changes, and nothing else.
READING_VERSION = 3  # 2: code blocks; 3: table columns by either edge
SECONDS = 60.0  # to read one PDF, whole
MEMORY_BYTES = 2_000_000_000  # the child's address space
PAGE_WIDTH = 900  # pixels of a page drawn for the citation dialog


@dataclass(frozen=True)
class Read:
    text: str  # the note as Markdown
    sha256: str  # of the PDF's bytes and the reading's version (`_hash`)
    mtime: float  # of the file that was read
    size: int


# (real path, mtime_ns, size) → what was read: a PDF cited again (each answer reads its sources anew) is not parsed again
_cache: Recent[tuple[str, int, int], Read] = Recent(32)


def read_pdf(real: str, rel: str, *, max_bytes: int, max_text_bytes: int) -> Read:
    """The PDF at `real` (vault path `rel`) as a note's text. Raises NoteError with the reason and what to do."""
    st = _stat(real, rel, max_bytes)
    key = (real, st.st_mtime_ns, st.st_size)
    read = _cache.get(key, None)
    if read is None:
        raw = _raw(real, rel, max_bytes)
        out = _in_child(raw, rel)
        # The title goes in the frontmatter, never as the first heading: that is the first page's
        title = out.get("title") or PurePosixPath(rel).stem
        text = f"---\ntitle: {json.dumps(str(title), ensure_ascii=False)}\n---\n{out['text']}"
        read = Read(text, _hash(raw), st.st_mtime, st.st_size)
        _cache.put(key, read)
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


def printed(line: str) -> bool:
    """A line of the note that is a line of the PDF's page (not a page heading, a blank this reading added, a table's
    delimiter row or a code block's fence)."""
    return bool(line.strip()) and not PAGE_HEADING.match(line) and not DELIMITER.match(line) and line != FENCE


def numbered(text: str) -> list[tuple[int, int] | None]:
    """Each line of a PDF's text → (its page, its line on that page: the printed lines counted up to it, at least 1);
    None above the first page."""
    out, page, count = [], None, 0
    for line in text.split("\n"):
        m = PAGE_HEADING.match(line)
        if m:
            page, count = int(m.group(1)), 0
        elif page is not None:
            count += printed(line)
        out.append(None if page is None else (page, max(1, count)))
    return out


def place(text: str, start_line: int, end_line: int) -> Place | None:
    """A passage's note lines (1-based, inclusive) → where it is on the PDF's pages; None when `text` is not a
    PDF's (no page heading in it)."""
    marks = numbered(text)
    first_page = next((m[0] for m in marks if m is not None), None)
    if first_page is None:
        return None

    def at(n: int) -> tuple[int, int] | None:
        return marks[min(max(n, 1), len(marks)) - 1]

    start = at(start_line) or (first_page, 1)
    end = max(at(max(end_line, start_line)) or start, start)
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


def render_page(real: str, rel: str, page: int, *, max_bytes: int, width: int = PAGE_WIDTH):
    """Page `page` (from 1) of the PDF drawn as RGB pixels (a numpy array) `width` wide, for the citation dialog: in
    the bounded child, like its reading. Raises NoteError."""
    import numpy as np

    _stat(real, rel, max_bytes)
    done = _child(_raw(real, rel, max_bytes), rel, "--page", str(int(page)), "--width", str(int(width)))
    try:
        return np.load(io.BytesIO(done.stdout), allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise NoteError(f"Page {page} of {rel} could not be drawn (exit {done.returncode}).") from None


def _stat(real: str, rel: str, max_bytes: int) -> os.stat_result:
    try:
        st = os.stat(real)
    except FileNotFoundError as exc:
        raise NoteError(f"{rel} vanished while reading; it will be picked up on the next sync if it returns.") from exc
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc
    if st.st_size > max_bytes:
        raise NoteError(
            f"{rel} is {_size(st.st_size)}, over the {_size(max_bytes)} limit for a PDF; it is skipped. Raise max_pdf_bytes, or add it to `ignore`."
        )
    return st


def _raw(real: str, rel: str, max_bytes: int) -> bytes:
    """The file's bytes, at most `max_bytes` (what the child reads is what is hashed)."""
    try:
        with open(real, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise NoteError(f"{rel} vanished while reading; it will be picked up on the next sync if it returns.") from exc
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc
    if len(raw) > max_bytes:
        raise NoteError(f"{rel} grew past the {_size(max_bytes)} limit for a PDF while it was read; it is skipped.")
    return raw


def _child(raw: bytes, rel: str, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            [sys.executable, "-m", "rag.notes.pdf_layout", *args],
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
        if done.returncode == -6:  # PDFium aborts when an allocation fails, which the memory bound makes it do
            raise NoteError(
                f"Reading {rel} stopped the PDF reader (it aborted, most likely at its {_size(MEMORY_BYTES)} memory bound); it is skipped (a damaged or hostile PDF?)."
            ) from None
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
