"""What the SQLite index's file holds, by part, and giving back the space it no longer uses (mixed into `Store`).

The parts are what a person can weigh against what each buys: the notes' text with its keyword tables, the vectors
of chunks and sentences, the vocabulary's word vectors, the chunks' token states (the token match across languages)
and the second model's sentence readings (rag/embed/aligned.py), and the free pages. Sizes are SQLite's own page
counts (`dbstat`); the two tables that hold several parts are split by their rows' bytes.
"""

from __future__ import annotations

import logging

from rag.errors import RagError
from rag.index.records import WORD_MODELS, PerChunk

log = logging.getLogger(__name__)

# `rag index` compacts (VACUUM) when free pages are at least this share of the file and this many bytes: a
# migration that rewrote the vectors smaller, or a large deletion, leaves them behind; a few free pages are reused.
COMPACT_SHARE = 0.25
COMPACT_MIN_BYTES = 1 << 20


class IndexSpace:
    """`size_by_part` and `compact` (methods of `Store`)."""

    def size_by_part(self) -> dict[str, int]:
        """Bytes on disk of each part: text (notes, chunks, sentences, keyword tables, days, memory), vectors,
        vocabulary, token_states, sentence_readings, free."""
        owner = dict(self._read("SELECT name, tbl_name FROM sqlite_master"))
        tables: dict[str, int] = {}
        for name, size in self._read("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            tables[table] = tables.get(table, 0) + size
        words, vectors = byte_shares(
            self._read(f"SELECT model LIKE '{WORD_MODELS}%', SUM(LENGTH(vector) + LENGTH(vector_key)) FROM embeddings GROUP BY 1")
        )
        embedded = tables.pop("embeddings", 0)
        kept = {kind.value: tables.pop(kind.value, 0) for kind in PerChunk}
        page_size, free = (self._read(f"PRAGMA {p}")[0][0] for p in ("page_size", "freelist_count"))
        return {
            "text": sum(tables.values()),
            "vectors": round(embedded * vectors),
            "vocabulary": round(embedded * words),
            **kept,
            "free": page_size * free,
        }

    def compact(self) -> int:
        """Rewrite the file without its free pages (VACUUM) when they are worth it (`COMPACT_SHARE`,
        `COMPACT_MIN_BYTES`); the bytes given back (0: not worth it, or another process kept the index busy)."""
        pages, free, page_size = (self._read(f"PRAGMA {p}")[0][0] for p in ("page_count", "freelist_count", "page_size"))
        due = self.get_meta("compact") == "due"  # a migration gave back bytes spread inside pages (rag/index/text_rows.py)
        if not due and (free * page_size < COMPACT_MIN_BYTES or free < COMPACT_SHARE * pages):
            return 0
        before = self.size_bytes()
        try:
            self._read("VACUUM")
            self._read("PRAGMA wal_checkpoint(TRUNCATE)")
            if due:
                with self.transaction(searchable=False) as db:
                    db.execute("DELETE FROM meta WHERE key = 'compact'")
        except RagError as exc:  # busy, or no room for the copy VACUUM writes: compacting can wait for the next `rag index`
            log.warning("The index was not compacted (%s); the next `python -m rag index` tries again.", exc)
            return 0
        return max(before - self.size_bytes(), 0)


def byte_shares(rows: list[tuple]) -> tuple[float, float]:
    """(share of the rows where the flag is true, share where false) of the summed bytes."""
    sums = {bool(flag): size or 0 for flag, size in rows}
    total = sum(sums.values()) or 1
    return sums.get(True, 0) / total, sums.get(False, 0) / total
