"""Notes as files that an agent may read and write: every path confined to the vault, every write atomic and
guarded by the hash the writer read, so an edit made since is never lost.

A replace is a compare-and-swap on the file, one writer at a time across processes (rag/notes/disk.py): an editor's
save in the instant of the write is kept and the write reports a conflict. An append without a hash retries on a
concurrent change. Every write leaves a line in the vault's `.ask-your-vault/writes.log`: time, tool, path, old and new hash.

Paths are vault-relative POSIX strings ("Notes/Topic.md"). Refused: absolute paths, `..`, hidden folders and the
index folder, and anything that resolves outside the vault through a symbolic link. Only `.md` files are written.
A note's `sha256` is the hash of its bytes on disk, the same hash the index records. Knows nothing about the index
(callers re-sync after a write) or about MCP.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from rag.config import Settings
from rag.errors import ConflictError, NoteError, VaultError
from rag.notes import disk, pdf
from rag.notes.line_ranges import line_range, page_lines, read_bytes, split_lines, take
from rag.notes.note_names import INVISIBLE, refuse_bad_names, refuse_hidden, refuse_outside
from rag.notes.vault import NOTE_SUFFIXES, decode, read_note

MAX_READ_CHARS = 40_000  # per read; a longer note is read in line ranges
MAX_WRITE_CHARS = 2_000_000
WRITE_SUFFIX = ".md"

APPEND_RETRIES = 3  # an append (without a hash) re-reads and tries again when the note changed under it
_DRIVE = re.compile(r"^[A-Za-z]:")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NoteText:
    path: str
    sha256: str  # of the whole file on disk: pass it back as expected_sha256 to replace or append
    start_line: int  # 1-based, inclusive
    end_line: int  # inclusive; 0 for an empty note
    total_lines: int
    content: str  # the lines asked for, line endings normalised to "\n"
    truncated: bool  # cut at the size limit: read on from end_line + 1


@dataclass(frozen=True)
class Written:
    path: str
    sha256: str  # the new hash, for the next write
    created: bool
    bytes: int
    warning: str | None = None  # the write is done, but something after it was not (its line in writes.log)


def confine(settings: Settings, path: str, *, write: bool = False) -> tuple[str, Path]:
    """(normalised vault-relative path, absolute path) for a path inside the vault, or VaultError saying why not.
    Reading may follow a symbolic link into a folder listed in `outside_folders`; writing never leaves the vault."""
    text = (path or "").strip().replace("\\", "/")
    if not text or "\x00" in text:
        raise VaultError("Give a vault-relative note path, like Notes/Topic.md.")
    if text.startswith("/") or text == "~" or text.startswith("~/") or _DRIVE.match(text):
        raise VaultError(f"{path!r} is an absolute path. Give a path relative to the vault, like Notes/Topic.md.")
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if ".." in parts:
        raise VaultError(f"{path!r} uses '..' to leave its folder. Give a path inside the vault, like Notes/Topic.md.")
    if not parts:
        raise VaultError("Give a vault-relative note path, like Notes/Topic.md.")
    refuse_hidden(path, parts)
    if write:
        refuse_bad_names(path, parts)
    full = settings.vault.joinpath(*parts)
    refuse_outside(settings, path, full, outside=() if write else settings.outside_folders)
    return "/".join(parts), full


def without_invisible(text: str) -> str:
    """`text` without the characters a note name may not hold unseen (`note_names.INVISIBLE`): for names made from a title."""
    return "".join(ch for ch in text if unicodedata.category(ch) not in INVISIBLE)


def read_text(
    settings: Settings,
    path: str,
    *,
    start_line: int | None = None,
    end_line: int | None = None,
    page: int | None = None,
    end_page: int | None = None,
    max_chars: int = MAX_READ_CHARS,
) -> NoteText:
    """A note or a range of its lines, with the hash of the whole file. Ranges are 1-based and inclusive. A PDF is
    read as its text is indexed (rag/notes/pdf.py: `# p. N` opens each page), with the hash of its bytes; `page`
    (to `end_page`, else that page alone) reads whole pages of it."""
    rel, full = confine(settings, path)
    if (page is not None or end_page is not None) and not rel.lower().endswith(pdf.SUFFIX):
        raise VaultError(f"{rel} is a note, not a PDF: it has no pages. Read it by start_line and end_line.")
    if rel.lower().endswith(pdf.SUFFIX):
        try:
            note = read_note(
                settings.vault, rel, outside=settings.outside_folders, max_bytes=settings.max_note_bytes, max_pdf_bytes=settings.max_pdf_bytes
            )
        except NoteError as exc:
            raise VaultError(str(exc)) from exc
        lines = split_lines(note.text)
        if page is not None or end_page is not None:
            if start_line is not None or end_line is not None:
                raise VaultError("Give pages or lines, not both.")
            first_page = 1 if page is None else page  # a page 0 is refused, not read as the first
            start_line, end_line = page_lines(rel, note.text, first_page, first_page if end_page is None else end_page)
        first, last = line_range(rel, len(lines), start_line, end_line)
        content, last, truncated = take(lines, first, last, max_chars)
        return NoteText(rel, note.sha256, first, last, len(lines), content, truncated)
    if not rel.lower().endswith(NOTE_SUFFIXES):
        raise VaultError(f"{rel} is not a Markdown note or a PDF; only .md and .pdf files can be read.")
    raw = read_bytes(rel, full)
    lines = split_lines(decode(raw, rel))
    first, last = line_range(rel, len(lines), start_line, end_line)
    content, last, truncated = take(lines, first, last, max_chars)
    return NoteText(rel, disk.sha256(raw), first, last, len(lines), content, truncated)


def write_note(settings: Settings, path: str, content: str, *, expected_sha256: str | None = None, tool: str = "write") -> Written:
    """Create a note, or replace it if it still has `expected_sha256`. Raises ConflictError otherwise."""
    rel, full = _writable(settings, path, content)
    expected = _expected(expected_sha256)
    with disk.audited(settings.vault) as audit:
        current = _current_bytes(rel, full)
        if current is None:
            if expected is not None:
                raise ConflictError(
                    f"{rel} no longer exists (it was moved or deleted since it was read). Write it without expected_sha256 to create it again."
                )
            return _logged(audit, tool, _create(rel, full, _encode(content, crlf=False)), None)
        if expected is None:
            raise ConflictError(f"{rel} already exists. Read it first and pass its sha256 as expected_sha256 to replace it, or choose a new path.")
        _check_unchanged(rel, current, expected)
        data = _encode(content, crlf=b"\r\n" in current)
        disk.swap(rel, full, data, expected)
        return _logged(audit, tool, Written(rel, disk.sha256(data), False, len(data)), expected)


def append_note(settings: Settings, path: str, text: str, *, expected_sha256: str | None = None, tool: str = "append") -> Written:
    """Add `text` at the end of an existing note (on a new line). With `expected_sha256`, only if it still matches;
    without, a note that changes while the text is added is re-read and the append tried again."""
    rel, full = _writable(settings, path, text)
    if not text.strip():
        raise VaultError("There is nothing to append: the text is empty.")
    expected = _expected(expected_sha256)
    with disk.audited(settings.vault) as audit:
        for attempt in range(APPEND_RETRIES):
            current = _current_bytes(rel, full)
            if current is None:
                raise VaultError(f"There is no note at {rel} to append to. Create it with a write first.")
            if expected is not None:
                _check_unchanged(rel, current, expected)
            decode(current, rel)  # refuses binary and non-UTF-8 files before anything is added to them
            addition = text if text.endswith("\n") else text + "\n"
            if current and not current.endswith(b"\n"):
                addition = "\n" + addition
            data = current + _encode(addition, crlf=b"\r\n" in current)
            try:
                disk.swap(rel, full, data, disk.sha256(current))
            except ConflictError:
                if expected is not None or attempt == APPEND_RETRIES - 1:
                    raise
                continue  # changed under us: append to the new text
            return _logged(audit, tool, Written(rel, disk.sha256(data), False, len(data)), disk.sha256(current))
    raise AssertionError("unreachable")


def create_note(settings: Settings, path: str, content: str, *, tool: str = "create") -> Written:
    """Create a new note; never replaces one. Raises ConflictError if the path is taken."""
    rel, full = _writable(settings, path, content)
    with disk.audited(settings.vault) as audit:
        return _logged(audit, tool, _create(rel, full, _encode(content, crlf=False)), None)


def _logged(audit: disk.Audit, tool: str, written: Written, old_sha: str | None) -> Written:
    """The write's line in writes.log. The note is written by now: a line that cannot be added is said as such in
    `warning`, never as a failed write (an agent retrying it would write it twice)."""
    problem = audit.add(tool, written.path, old_sha, written.sha256)
    if problem is None:
        return written
    warning = f"{written.path} was written, but its line in writes.log could not be added ({problem})."
    log.warning("%s", warning)
    return replace(written, warning=warning)


def _writable(settings: Settings, path: str, content: str) -> tuple[str, Path]:
    rel, full = confine(settings, path, write=True)
    if not rel.lower().endswith(WRITE_SUFFIX):
        raise VaultError(f"{rel} is not a .md file; only Markdown notes can be written. Use a name ending in .md.")
    if len(content) > MAX_WRITE_CHARS:
        raise VaultError(f"The text is {len(content):,} characters; a write takes at most {MAX_WRITE_CHARS:,}. Split it into several notes.")
    if full.is_symlink():
        raise VaultError(f"{rel} is a symbolic link; write to the note it points to instead.")
    if full.is_dir():
        raise VaultError(f"{rel} is a folder, not a note. Give the path of a .md file.")
    return rel, full


def _expected(sha: str | None) -> str | None:
    if sha is None or not sha.strip():
        return None
    sha = sha.strip().lower()
    if not _HEX64.match(sha):
        raise ConflictError(f"expected_sha256 {sha!r} is not a SHA-256 hash. Pass the sha256 that reading the note returned.")
    return sha


def _current_bytes(rel: str, full: Path) -> bytes | None:
    try:
        return full.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc


def _check_unchanged(rel: str, current: bytes, expected: str) -> None:
    actual = disk.sha256(current)
    if actual != expected:
        raise ConflictError(
            f"{rel} changed since it was read (expected sha256 {expected[:12]}…, the file now has {actual[:12]}…). "
            "Nothing was written. Read it again, apply your change to the new text, and write with the new sha256."
        )


def _encode(text: str, *, crlf: bool) -> bytes:
    text = text.replace("\r\n", "\n")
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")


def _create(rel: str, full: Path, data: bytes) -> Written:
    try:
        disk.write_new(full, data)
    except FileExistsError as exc:
        raise ConflictError(f"{rel} already exists; nothing was written. Choose a new path, or read it and replace it with its sha256.") from exc
    return Written(rel, disk.sha256(data), True, len(data))
