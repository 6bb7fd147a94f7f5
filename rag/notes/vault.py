"""What a note is and where notes live: walking the vault, reading a note, its tier and project. Its frontmatter is
read by rag/notes/frontmatter.py (`parse_frontmatter`, importable from here too).

Knows nothing about chunks or the index. Paths handed around are vault-relative POSIX strings ("Notes/a.md").

The vault is a trust boundary: a symbolic link is followed only when it resolves inside the vault or inside a folder
the user listed in `outside_folders`; anything else (a link to ~/.ssh, to another project) is never walked or read.
A ".md" file larger than `max_note_bytes` is skipped with a message instead of being read whole.
"""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rag.config import Settings
from rag.errors import NoteError, VaultError
from rag.notes import disk, pdf
from rag.notes.frontmatter import Frontmatter, parse_frontmatter  # noqa: F401 — read with the note, imported from here

log = logging.getLogger(__name__)

NOTE_SUFFIXES = (".md", ".markdown")  # the notes that are written as well as read
READ_SUFFIXES = (*NOTE_SUFFIXES, pdf.SUFFIX)  # what is indexed: a PDF is read as a note (rag/notes/pdf.py), never written
DEFAULT_MAX_NOTE_BYTES = 10_000_000
DEFAULT_MAX_PDF_BYTES = 100_000_000
_WARNED_LINKS: set[str] = set()
SKIP_DIRS = {".obsidian", ".trash", ".git", ".rag", "node_modules", "__pycache__"}


@dataclass(frozen=True)
class FileStat:
    path: str  # vault-relative POSIX
    mtime: float
    size: int


@dataclass(frozen=True)
class Note:
    path: str
    text: str  # decoded, line endings normalised to "\n"
    sha256: str  # of the raw bytes on disk
    mtime: float
    size: int


# Messages the app recognises and says in its own words (rag/web/messages.py): keep them in step.
VAULT_MISSING = "The vault folder {path} does not exist. Pass --vault DIR or set RAG_VAULT to your notes folder."
VAULT_NOT_FOLDER = "{path} is a file, not a folder. Point --vault at the folder that holds your notes."


def check_vault(vault: Path) -> None:
    if not vault.exists():
        raise VaultError(VAULT_MISSING.format(path=vault))
    if not vault.is_dir():
        raise VaultError(VAULT_NOT_FOLDER.format(path=vault))


def walk(settings: Settings) -> list[FileStat]:
    """All notes under the vault, sorted by path. Unreadable folders and vanished files are skipped with a log.

    Paths are handled as strings (not `Path` objects): this walk is most of a no-change sync's cost."""
    check_vault(settings.vault)
    root = str(settings.vault)
    prefix = root if root.endswith(os.sep) else root + os.sep
    skip_abs = _index_dir(settings)
    skip = str(skip_abs) if skip_abs is not None else None
    found: list[FileStat] = []
    roots = allowed_roots(settings.vault, settings.outside_folders)
    stack = [root]
    seen_dirs: set[tuple[int, int]] = set()  # (dev, inode): guards against symlink loops
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen_dirs:
                continue
            seen_dirs.add((st.st_dev, st.st_ino))
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            log.warning("Skipping folder %s: %s", folder, exc)
            continue
        for entry in entries:
            _visit(entry, prefix, skip, settings.ignore, stack, found, roots)
    found.sort(key=lambda f: f.path)
    return found


def _visit(entry: os.DirEntry, prefix: str, skip: str | None, ignore: tuple[str, ...], stack: list, found: list, roots: tuple[str, ...]) -> None:
    name = entry.name
    if name.startswith("."):
        _sweep_leftover(entry)
        return
    if name in SKIP_DIRS:
        return
    try:
        if entry.is_symlink() and not _inside(os.path.realpath(entry.path), roots):
            if entry.path not in _WARNED_LINKS:  # once per process: live sync walks every few seconds
                _WARNED_LINKS.add(entry.path)
                log.warning(
                    "Not following the symbolic link %s: it leads outside the vault, to %s. List that folder in outside_folders to include it.",
                    _rel(entry.path, prefix),
                    os.path.realpath(entry.path),
                )
            return
        if entry.is_dir():
            if entry.path != skip and not (ignore and _ignored(_rel(entry.path, prefix) + "/", ignore)):
                stack.append(entry.path)
            return
        if not name.lower().endswith(READ_SUFFIXES) or not entry.is_file():
            return
        st = entry.stat()
    except OSError as exc:  # vanished mid-scan, broken symlink, permission
        log.warning("Skipping %s: %s", entry.path, exc)
        return
    rel = _rel(entry.path, prefix)
    if not (ignore and _ignored(rel, ignore)):
        found.append(FileStat(rel, st.st_mtime, st.st_size))


def _sweep_leftover(entry: os.DirEntry) -> None:
    """A temp or set-aside file a killed writer of ours left beside a note (rag/notes/disk.py): removed."""
    if not disk.LEFTOVER_NAME.match(entry.name):  # most dot entries (.obsidian, .git) are not: no stat for them
        return
    try:
        st = entry.stat(follow_symlinks=False)
        # A set-aside `.old` of a live write is a hard link to the note: its mtime is the note's, however old; the
        # link's making is its ctime. (Sweeping it by mtime failed a concurrent append: "No such file … .old".)
        made = st.st_ctime if st.st_nlink > 1 else st.st_mtime
        if entry.is_file(follow_symlinks=False) and disk.is_leftover(entry.name, made):
            os.unlink(entry.path)
            log.info("Removed %s, left by a write that was killed.", entry.path)
    except OSError:
        pass  # gone already, or not ours to remove


def resolves_inside(vault: Path, path: Path, outside: tuple[str, ...] = ()) -> bool:
    """Does `path` stay inside the vault (or a folder the user listed in `outside`) once symbolic links on the way,
    and the file itself if a link, resolve? The one test of confinement: the walk, reads, writes and imports use it."""
    try:
        return _inside(os.path.realpath(path), allowed_roots(vault, outside))
    except (OSError, RuntimeError, ValueError):  # a link loop, an unreadable path
        return False


def allowed_roots(vault: Path, outside: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The real paths a note may live under: the vault and the outside folders the user listed."""
    return tuple(os.path.realpath(str(p)) for p in (vault, *(Path(o).expanduser() for o in outside)))


def _inside(real: str, roots: tuple[str, ...]) -> bool:
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _index_dir(settings: Settings) -> Path | None:
    parent = settings.db_path.parent
    try:
        parent.relative_to(settings.vault)
    except ValueError:
        return None
    return parent if parent != settings.vault else None


def _rel(path: str, prefix: str) -> str:
    """`path` (under the vault, as os.scandir spells it) → vault-relative POSIX; `prefix` is the vault + separator."""
    rel = path[len(prefix) :]
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def _ignored(rel: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel.rstrip("/"), p) for p in patterns)


def read_note(
    vault: Path, rel: str, *, outside: tuple[str, ...] = (), max_bytes: int = DEFAULT_MAX_NOTE_BYTES, max_pdf_bytes: int = DEFAULT_MAX_PDF_BYTES
) -> Note:
    """Read one note (a PDF as its text, rag/notes/pdf.py). Raises NoteError (with the fix) for vanished, binary,
    oversized or non-UTF-8 files, unreadable PDFs, and a path that resolves (through a symbolic link) outside the
    vault and the listed `outside` folders."""
    full = vault / rel
    real = os.path.realpath(full)
    if not _inside(real, allowed_roots(vault, outside)):
        raise NoteError(
            f"{rel} leads outside the vault (to {real}) through a symbolic link; it is not read. List that folder in outside_folders to include it."
        )
    if rel.lower().endswith(pdf.SUFFIX):
        read = pdf.read_pdf(real, rel, max_bytes=max_pdf_bytes, max_text_bytes=max_bytes)
        return Note(rel, read.text, read.sha256, read.mtime, read.size)
    try:
        st = os.stat(real)
        if st.st_size > max_bytes:
            raise NoteError(
                f"{rel} is {_size(st.st_size)}, over the {_size(max_bytes)} limit for a note; it is skipped. "
                "Raise max_note_bytes, or add it to `ignore`."
            )
        with open(real, "rb") as handle:
            raw = handle.read(max_bytes + 1)  # the file may have grown since stat
    except FileNotFoundError as exc:
        raise NoteError(f"{rel} vanished while reading; it will be picked up on the next sync if it returns.") from exc
    except OSError as exc:
        raise NoteError(f"Cannot read {rel}: {exc.strerror}. Check its permissions.") from exc
    if len(raw) > max_bytes:
        raise NoteError(f"{rel} grew past the {_size(max_bytes)} limit for a note while it was read; it is skipped.")
    return Note(rel, decode(raw, rel), hashlib.sha256(raw).hexdigest(), st.st_mtime, st.st_size)


def pdf_place(vault: Path, rel: str, start_line: int, end_line: int, *, outside: tuple[str, ...] = ()) -> pdf.Place | None:
    """Where lines of a PDF's text are on its pages (None for a Markdown note, or a PDF that cannot be read now)."""
    if not rel.lower().endswith(pdf.SUFFIX):
        return None
    try:
        return pdf.place(read_note(vault, rel, outside=outside).text, start_line, end_line)
    except NoteError:
        return None


def pdf_page_image(vault: Path, rel: str, page: int, *, outside: tuple[str, ...] = (), max_pdf_bytes: int = DEFAULT_MAX_PDF_BYTES):
    """Page `page` of the vault's PDF `rel` drawn as RGB pixels (rag/notes/pdf.py `render_page`). Raises NoteError
    (a path outside the vault included)."""
    real = os.path.realpath(vault / rel)
    if not rel.lower().endswith(pdf.SUFFIX) or not _inside(real, allowed_roots(vault, outside)):
        raise NoteError(f"{rel} is not a PDF of the vault.")
    return pdf.render_page(real, rel, page, max_bytes=max_pdf_bytes)


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB" if n >= 1e3 else f"{n} bytes"


def decode(raw: bytes, rel: str) -> str:
    """Bytes → text with "\n" line endings. A BOM is dropped. Binary and non-UTF-8 content is refused."""
    if b"\x00" in raw[:8192]:
        raise NoteError(f"{rel} looks like a binary file with a .md name; it is skipped. Rename it or add it to `ignore`.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NoteError(f"{rel} is not valid UTF-8 (byte {exc.start}); it is skipped. Re-save it as UTF-8 to make it searchable.") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def tier_of(rel: str, settings: Settings) -> int:
    """1 for curated knowledge (Memory/, Notes/ at any depth, profile/overview files), else 2."""
    parts = PurePosixPath(rel).parts
    if parts[-1] in settings.tier1_files:
        return 1
    return 1 if any(p in settings.tier1_folders for p in parts[:-1]) else 2


def project_of(rel: str, settings: Settings) -> str | None:
    """The <name> in `…/Projects/<name>/…` (at any depth), normalised through the alias table."""
    parts = PurePosixPath(rel).parts[:-1]
    for i, part in enumerate(parts[:-1]):
        if part == settings.projects_folder:
            name = parts[i + 1]
            return settings.project_aliases.get(name, name)
    return None
