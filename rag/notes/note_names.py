"""What a note path may name: no hidden or internal folder, nothing that resolves outside the vault (or, for a read,
outside the folders listed in `outside_folders`), and for a name a write makes no control or invisible characters
and at most MAX_NAME_BYTES. Each refusal is a VaultError that says what to do.

Apart from rag/notes/files.py, which confines every path with these rules before reading or writing it.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from rag.config import Settings
from rag.errors import VaultError
from rag.limits import MAX_NAME_BYTES
from rag.notes.vault import SKIP_DIRS, resolves_inside

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Characters that change how a name looks without being seen (U+202E shows "Photo\u202egpj.md" as "Photodm.jpg"; a
# zero-width space makes a second "Plan.md"), or that are no character at all: refused in the names a write makes.
INVISIBLE = {
    "Cf": "an invisible formatting character (a direction mark, a zero-width one) that can disguise a name",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cs": "half of a UTF-16 pair, not a character",
}


def refuse_bad_names(path: str, parts: list[str]) -> None:
    """Names a write would make: no control characters (they reach terminals and logs), no invisible ones (below), at
    most 255 UTF-8 bytes."""
    for part in parts:
        if CONTROL.search(part):
            raise VaultError(f"{path!r} holds control characters; a note name cannot. Use letters, digits and spaces.")
        hidden = next((ch for ch in part if unicodedata.category(ch) in INVISIBLE), None)
        if hidden is not None:
            raise VaultError(
                f"{path!r} holds U+{ord(hidden):04X}, {INVISIBLE[unicodedata.category(hidden)]}; a note name cannot. Use letters, digits and spaces."
            )
        size = len(part.encode("utf-8"))
        if size > MAX_NAME_BYTES:
            raise VaultError(f"{part[:40]!r}… is {size} bytes long in UTF-8; a file name can be at most {MAX_NAME_BYTES}. Use a shorter name.")


def refuse_hidden(path: str, parts: list[str]) -> None:
    """No part of the path a hidden folder or one of the vault's internal ones (SKIP_DIRS)."""
    for part in parts:
        if part.startswith(".") or part in SKIP_DIRS:
            raise VaultError(f"{path!r} is inside the hidden or internal folder {part!r}, which is off limits. Use a visible folder.")


def refuse_outside(settings: Settings, path: str, full: Path, *, outside: tuple[str, ...] = ()) -> None:
    """`full` resolves inside the vault (or a folder of `outside`), not into the index folder or a hidden one."""
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
    refuse_hidden(path, list(real.relative_to(vault).parts))
