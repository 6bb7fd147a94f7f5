"""Imported notes on disk: where each conversation lives, whether a person edited it, atomic writes.

The record of what the importer wrote lives in each note's own frontmatter as `import_sha256: <hex>`: the
SHA-256 of the note text without that line. A note whose text still hashes to its stamp is exactly what
the importer wrote, so a re-import may replace it; any other note (edited, stamp removed, line endings
changed, not UTF-8) is a person's and is never overwritten. Keeping the stamp in the note (not in a
ledger under the disposable `.rag/` index folder) means deleting the index, moving the vault or syncing it
to another machine loses nothing. A note is found again by its `conversation_id` frontmatter anywhere
under `Conversations/<source>/`, so a renamed conversation or a note moved to another project folder keeps
its file. A note the person deleted is imported again on the next run (keep it with an emptied body to
stop that). Knows nothing about export formats.
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from rag.importers.markdown import IndexEntry, parse_time
from rag.limits import NAME_BYTES, cut_to_bytes
from rag.notes import disk
from rag.notes.files import without_invisible
from rag.notes.vault import parse_frontmatter, resolves_inside

log = logging.getLogger(__name__)

STAMP_KEY = "import_sha256"
INDEX_NAME = "INDEX.md"
_STAMP_LINE = re.compile(rf"^{STAMP_KEY}: ([0-9a-f]{{64}})\n", re.MULTILINE)
_UNSAFE = re.compile(r'[\x00-\x1f\x7f-\x9f/\\:*?"<>|#^\[\]]+')
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


@dataclass(frozen=True)
class ExistingNote:
    """An imported note already in the vault, as its frontmatter describes it."""

    path: str  # vault-relative POSIX path
    conversation_id: str
    entry: IndexEntry


def stamp(text: str) -> str:
    """Add `import_sha256: <hash of text>` as the last frontmatter line."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    head, sep, rest = text.partition("\n---\n")
    if not text.startswith("---\n") or not sep:
        raise ValueError("a note to stamp must start with YAML frontmatter")
    return f"{head}\n{STAMP_KEY}: {digest}\n---\n{rest}"


def is_untouched(text: str) -> bool:
    """True when the text is exactly what `stamp` produced (nobody edited it since)."""
    if not text.startswith("---\n"):
        return False
    end = text.find("\n---\n")
    match = _STAMP_LINE.search(text, 0, end + 1 if end >= 0 else 0)
    if not match:
        return False
    unstamped = text[: match.start()] + text[match.end() :]
    return hashlib.sha256(unstamped.encode("utf-8")).hexdigest() == match.group(1)


def read_text(path: Path) -> str | None:
    """The file's text as stored (no newline translation), or None if it is not readable UTF-8."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def write_atomic(vault: Path, path: Path, text: str) -> None:
    """Write a note whole under the vault's write lock (rag/notes/disk.py): readers never see half a note, a
    rewritten note keeps its permissions, and a process writing notes of the same vault waits its turn."""
    with disk.locked(vault):
        disk.replace(path, text.encode("utf-8"))


def safe_name(text: str, limit: int = 80) -> str:
    """A file or folder name that is valid on Linux, macOS and Windows and linkable in Obsidian."""
    name = unicodedata.normalize("NFC", without_invisible(text))  # a chat's title may hide a direction override
    name = " ".join(_UNSAFE.sub(" ", name).split())
    if len(name) > limit:
        name = name[:limit].rsplit(" ", 1)[0] if " " in name[:limit] else name[:limit]
    name = cut_to_bytes(name, NAME_BYTES).strip(" .")  # CJK or emoji: 80 characters can be 320 bytes
    if not name or name.casefold() in _RESERVED:
        name = f"_{name}" if name else "Untitled"
    return name


def read_frontmatter(path: Path) -> dict | None:
    """The YAML frontmatter of a note as a dict (`rag.notes.vault.parse_frontmatter`: the safe loader, bounded), or
    None when it has none or it is not YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    front = parse_frontmatter(text.replace("\r\n", "\n"))
    return front.data if front.data and not front.error else None


def scan_notes(vault: Path, folder: str, source: str) -> dict[str, ExistingNote]:
    """Imported notes of one source under `folder`, keyed by conversation id."""
    found: dict[str, ExistingNote] = {}
    root = vault / folder
    if not root.is_dir():
        return found
    for path in sorted(root.rglob("*.md")):
        if path.name == INDEX_NAME or not path.is_file() or not resolves_inside(vault, path):
            continue
        meta = read_frontmatter(path)
        if not meta or meta.get("source") != source or not meta.get("conversation_id"):
            continue
        rel = path.relative_to(vault).as_posix()
        cid = str(meta["conversation_id"])
        if cid in found:
            log.warning("%s and %s hold the same conversation %s; using the first", found[cid].path, rel, cid)
            continue
        found[cid] = ExistingNote(rel, cid, _entry(rel, meta))
    return found


def _entry(rel: str, meta: dict) -> IndexEntry:
    messages = meta.get("messages")
    return IndexEntry(
        path=rel,
        title=str(meta.get("title") or Path(rel).stem),
        created=parse_time(meta.get("created")),
        project=str(meta.get("project") or "General"),
        messages=messages if isinstance(messages, int) else 0,
    )
