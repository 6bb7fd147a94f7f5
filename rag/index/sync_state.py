"""What a sync leaves in the index's meta for the next sync and for readers: the notes it could not index (path →
mtime, size, why), kept until they change so each is warned about once, and when the vault was last checked.

Apart from rag/index/sync.py, which decides what to read: this only reads and writes those two entries, and does not
trust them (the index file may have been edited or damaged): an unreadable entry is warned about and taken as unknown.
"""

from __future__ import annotations

import json
import math

from rag.index.blobs import warn_once
from rag.index.storage import IndexStore
from rag.notes.vault import FileStat

SKIPPED_KEY = "skipped_notes"
LATEST_TIME = 221_845_392_000.0  # 9000-01-01 UTC: a later "last sync" is not a clock's, and would overflow one


def skipped_notes(store: IndexStore) -> dict[str, tuple[float, int, str]]:
    """Notes the last syncs could not index: path → (mtime, size, why), kept in the index until they change."""
    return read_skipped(store)[0]


def read_skipped(store: IndexStore) -> tuple[dict[str, tuple[float, int, str]], bool]:
    """(`skipped_notes`, whether the stored list was read whole). An unreadable list or entry (the index file is not
    trusted) is left out, with a warning: its notes are read again, and the next sync writes the list anew."""
    try:
        stored = json.loads(store.get_meta(SKIPPED_KEY) or "{}")
    except ValueError:
        stored = None
    entries = {path: tuple(entry) for path, entry in stored.items() if _skip_entry(entry)} if isinstance(stored, dict) else {}
    whole = isinstance(stored, dict) and len(entries) == len(stored)
    if not whole:
        warn_once("meta", SKIPPED_KEY, "The index's list of skipped notes is unreadable; those notes are read again.")
    return entries, whole


def _skip_entry(entry: object) -> bool:
    """(mtime, size, why) as `remember_skipped` writes it."""
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in entry[:2])
        and isinstance(entry[2], str)
    )


def last_sync(store: IndexStore) -> float | None:
    """When the vault was last checked (seconds since the epoch), or None: never, or an unreadable value (with a
    warning; the next sync writes it again). Only times a clock can show are taken (0 … year 9000)."""
    raw = store.get_meta("last_sync")
    if raw is None:
        return None
    try:
        when = float(raw)
    except ValueError:
        when = math.nan
    if not 0 <= when <= LATEST_TIME:  # NaN too
        warn_once("meta", "last_sync", "The index's time of the last sync is unreadable (%r); taken as unknown.", raw[:40])
        return None
    return when


def still_skipped(skipped: dict, stat: FileStat) -> bool:
    entry = skipped.get(stat.path)
    return entry is not None and entry[0] == stat.mtime and entry[1] == stat.size


def remember_skipped(store: IndexStore, before: dict | None, now: list, on_disk: list[FileStat], read: list[FileStat]) -> None:
    """Skipped notes still on disk and not read again keep their entry; those read now are skipped or not anew.
    `before` None: the stored list was unreadable, and is written anew."""
    present, reread = {s.path: s for s in on_disk}, {s.path for s in read}
    kept = {p: e for p, e in (before or {}).items() if p in present and p not in reread}
    kept.update({path: (present[path].mtime, present[path].size, reason) for path, reason in now if path in present})
    if kept != before:
        store.set_meta(SKIPPED_KEY, json.dumps(kept, ensure_ascii=False))
