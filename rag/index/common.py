"""What both index backends do the same way: reads in SQL that SQLite and PostgreSQL both speak, written once and
mixed into `store.Store` and `pg_store.PgStore` (each supplies `_read` and `get_meta`)."""

from __future__ import annotations

from rag.index.blobs import warn_once
from rag.index.records import FileState


class CommonReads:
    """The index generation, file states, chunk texts and script shares (methods of both stores)."""

    def generation(self) -> int:
        """Bumped by every write; caches (the vector matrix) compare it to know they are stale. An unreadable value
        (the index file is not trusted) counts as 0, with a warning: the next write makes it a number again."""
        raw = self.get_meta("generation", "0")
        try:
            return int(raw)
        except (TypeError, ValueError):
            warn_once("meta", "generation", "The index's generation is unreadable (%r); the next write repairs it.", str(raw)[:40])
            return 0

    def file_states(self) -> dict[str, FileState]:
        return {r[0]: FileState(*r) for r in self._read("SELECT path, sha256, mtime, size FROM files")}

    def chunk_texts(self) -> list[tuple[int, str, int]]:
        """(rowid, text, start line) of every chunk, for re-deriving sentence rows."""
        return self._read("SELECT rowid, text, start_line FROM chunks ORDER BY rowid")

    def script_shares(self) -> dict[str, int]:
        """Characters of chunk text per script ("latin", "cyrillic"): what most of the vault is written in."""
        rows = self._read("SELECT script, SUM(length(text)) FROM chunks WHERE script IS NOT NULL GROUP BY script")
        return {script: int(chars) for script, chars in rows}
