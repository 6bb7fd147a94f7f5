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
from rag.limits import MAX_NAME_BYTES
from rag.notes import disk, pdf
from rag.notes.vault import NOTE_SUFFIXES, SKIP_DIRS, decode, read_note, resolves_inside

MAX_READ_CHARS = 40_000  # per read; a longer note is read in line ranges
MAX_WRITE_CHARS = 2_000_000
WRITE_SUFFIX = ".md"

APPEND_RETRIES = 3  # an append (without a hash) re-reads and tries again when the note changed under it
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Characters that change how a name looks without being seen (U+202E shows "Photo\u202egpj.md" as "Photodm.jpg"; a
# zero-width space makes a second "Plan.md"), or that are no character at all: refused in the names a write makes.
_INVISIBLE = {
    "Cf": "an invisible formatting character (a direction mark, a zero-width one) that can disguise a name",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cs": "half of a UTF-16 pair, not a character",
}
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
    _refuse_hidden(path, parts)
    if write:
        _refuse_bad_names(path, parts)
    full = settings.vault.joinpath(*parts)
    _refuse_outside(settings, path, full, outside=() if write else settings.outside_folders)
    return "/".join(parts), full


def _refuse_bad_names(path: str, parts: list[str]) -> None:
    """Names a write would make: no control characters (they reach terminals and logs), no invisible ones (below), at
    most 255 UTF-8 bytes."""
    for part in parts:
        if _CONTROL.search(part):
            raise VaultError(f"{path!r} holds control characters; a note name cannot. Use letters, digits and spaces.")
        hidden = next((ch for ch in part if unicodedata.category(ch) in _INVISIBLE), None)
        if hidden is not None:
            raise VaultError(
                f"{path!r} holds U+{ord(hidden):04X}, {_INVISIBLE[unicodedata.category(hidden)]}; a note name cannot. Use letters, digits and spaces."
            )
        size = len(part.encode("utf-8"))
        if size > MAX_NAME_BYTES:
            raise VaultError(f"{part[:40]!r}… is {size} bytes long in UTF-8; a file name can be at most {MAX_NAME_BYTES}. Use a shorter name.")


def without_invisible(text: str) -> str:
    """`text` without the characters a note name may not hold unseen (`_INVISIBLE`): for names made from a title."""
    return "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE)


def _refuse_hidden(path: str, parts: list[str]) -> None:
    for part in parts:
        if part.startswith(".") or part in SKIP_DIRS:
            raise VaultError(f"{path!r} is inside the hidden or internal folder {part!r}, which is off limits. Use a visible folder.")


def _refuse_outside(settings: Settings, path: str, full: Path, *, outside: tuple[str, ...] = ()) -> None:
    try:
        real = full.resolve()
        vault = settings.vault.resolve()
        index = settings.db_path.parent.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise VaultError(f"{path!r} cannot be resolved ({exc}). Check the symbolic links on the way.") from exc
    if not resolves_inside(vault, full):
        if resolves_inside(vault, full, outside):
            return  # a folder the user listed in outside_folders: readable, never written
        raise VaultError(f"{path!r} resolves outside the vault (through a symbolic link). Only notes inside the vault can be used.")
    if index != vault and index.is_relative_to(vault) and real.is_relative_to(index):
        raise VaultError(f"{path!r} is inside the index folder {index.name!r}, which is off limits. Use a note path.")
    _refuse_hidden(path, list(real.relative_to(vault).parts))


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
        lines = _lines(note.text)
        if page is not None or end_page is not None:
            if start_line is not None or end_line is not None:
                raise VaultError("Give pages or lines, not both.")
            start_line, end_line = _page_lines(rel, note.text, page or 1, end_page or page or 1)
        first, last = _line_range(rel, len(lines), start_line, end_line)
        content, last, truncated = _take(lines, first, last, max_chars)
        return NoteText(rel, note.sha256, first, last, len(lines), content, truncated)
    if not rel.lower().endswith(NOTE_SUFFIXES):
        raise VaultError(f"{rel} is not a Markdown note or a PDF; only .md and .pdf files can be read.")
    raw = _read_bytes(rel, full)
    lines = _lines(decode(raw, rel))
    first, last = _line_range(rel, len(lines), start_line, end_line)
    content, last, truncated = _take(lines, first, last, max_chars)
    return NoteText(rel, disk.sha256(raw), first, last, len(lines), content, truncated)


def _page_lines(rel: str, text: str, page: int, end_page: int) -> tuple[int, int]:
    """The note lines (1-based, inclusive) that hold pages `page` to `end_page` of a PDF's text."""
    starts = {}
    for n, line in enumerate(text.split("\n"), 1):
        m = pdf.PAGE_HEADING.match(line)
        if m:
            starts[int(m.group(1))] = n
    pages = max(starts, default=0)
    if not 1 <= page <= pages or end_page < page:
        raise VaultError(f"{rel} has {pages} page{'s' if pages != 1 else ''}; ask for pages 1 to {pages}, the first not after the last.")
    after = starts.get(min(end_page, pages) + 1)
    return starts[page], (after - 1 if after else len(text.split("\n")))


def _read_bytes(rel: str, full: Path) -> bytes:
    try:
        return full.read_bytes()
    except FileNotFoundError as exc:
        raise VaultError(f"There is no note at {rel}. Check the path; paths are relative to the vault, like Notes/Topic.md.") from exc
    except IsADirectoryError as exc:
        raise VaultError(f"{rel} is a folder, not a note. Give the path of a .md file inside it.") from exc
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc


def _lines(text: str) -> list[str]:
    """The note's lines, each with its "\n" (the last one without, if the file does not end in a newline)."""
    if not text:
        return []
    pieces = text.split("\n")
    ends = pieces[-1] == ""
    if ends:
        pieces.pop()
    return [p + "\n" for p in pieces[:-1]] + [pieces[-1] + ("\n" if ends else "")]


def _line_range(rel: str, total: int, start: int | None, end: int | None) -> tuple[int, int]:
    first = 1 if start is None else start
    last = total if end is None else min(end, total)
    if first < 1 or (end is not None and end < first):
        raise VaultError(f"Line ranges are 1-based with start_line ≤ end_line; got {start}–{end}.")
    if total == 0 and start is None:
        return 1, 0
    if first > total:
        raise VaultError(f"{rel} has only {total} lines; ask for a range within 1–{total}.")
    return first, last


def _take(lines: list[str], first: int, last: int, max_chars: int) -> tuple[str, int, bool]:
    """The lines first..last joined, cut to whole lines within `max_chars` (a single longer line is cut)."""
    taken: list[str] = []
    size = 0
    for number in range(first, last + 1):
        line = lines[number - 1]
        if size + len(line) > max_chars:
            if not taken:
                return line[:max_chars], number, True
            return "".join(taken), number - 1, True
        taken.append(line)
        size += len(line)
    return "".join(taken), last, False


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
