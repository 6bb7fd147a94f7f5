"""The keyword channel of the SQLite index: FTS5's bm25() over the stems of each chunk (rag/text/stemming.py), with
the note's title, aliases and description as weighted columns (`schema.BM25_RANK`).

Mixed into `store.Store`, which owns the connection; `pg_keywords` is the same channel on PostgreSQL.
"""

from __future__ import annotations

import json

from rag.index import schema
from rag.index.records import DAY_MAX, DAY_MIN
from rag.text.stemming import fts_query

ROWS_IN_QUERY = 200  # a filtered keyword search over more chunks than this filters the ranked matches instead


class KeywordIndex:
    """FTS5 ranking (methods of `Store`)."""

    def bm25(self, terms: list[str], limit: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk rowid, bm25 score) of the chunks matching any of the stemmed `terms`, best first; FTS5's bm25() is
        negative, lower is better, so it is negated. Its column weights (body, title, aliases, description) are
        `schema.BM25_RANK`. With `rows`, only those chunks are ranked (a filtered search: the WHERE runs inside the FTS
        query)."""
        return self._ranked("chunks_fts", fts_query(terms), limit, rows, rank=schema.BM25_RANK)

    def sound_bm25(self, keys: list[str], limit: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk rowid, bm25 score) of the chunks whose sounds (`sounds.sound_text`) contain any of `keys`, best
        first: the keyword channel between scripts. `rows` as in `bm25`."""
        return self._ranked("chunks_sounds", fts_query(keys), limit, rows)

    def _ranked(self, table: str, match: str | None, limit: int, rows: list[int] | None, *, rank: str | None = None) -> list[tuple[int, float]]:
        """(rowid, −rank) of an FTS5 table's rows matching `match`, best first; `rank` its ranking function (FTS5's
        default: bm25() with every column weighted 1)."""
        if match is None or rows == []:
            return []
        sql = f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ?" + (" AND rank MATCH ?" if rank else "")
        args = (match, rank) if rank else (match,)
        if rows is None:
            found = self._read(f"{sql} ORDER BY rank LIMIT ?", (*args, limit))
        elif len(rows) <= ROWS_IN_QUERY:
            found = self._read(f"{sql} AND rowid IN (SELECT value FROM json_each(?)) ORDER BY rank LIMIT ?", (*args, json.dumps(rows), limit))
        else:  # FTS5 runs the MATCH once per rowid of an IN list: for many rows, rank every match and keep the wanted
            wanted = set(rows)
            found = [r for r in self._read(f"{sql} ORDER BY rank", args) if r[0] in wanted][:limit]
        return [(r[0], -r[1]) for r in found]

    def chunk_rowids(self, paths: list[str]) -> list[int]:
        """The rowids of every chunk of these notes, sorted."""
        if not paths:
            return []
        found = self._read("SELECT rowid FROM chunks WHERE path IN (SELECT value FROM json_each(?)) ORDER BY rowid", (json.dumps(paths),))
        return [r[0] for r in found]

    def chunk_rowids_dated(self, after: str | None, before: str | None) -> list[int]:
        """The rowids of every chunk whose day, or the day of a log entry in it, is within [after, before] (ISO days,
        inclusive; None: open), sorted. A log's rows date its passage as much as its heading does."""
        found = self._read(
            "SELECT rowid FROM chunks WHERE day BETWEEN ? AND ? UNION SELECT chunk FROM chunk_days WHERE day BETWEEN ? AND ? ORDER BY 1",
            (after or DAY_MIN, before or DAY_MAX) * 2,
        )
        return [r[0] for r in found]

    def latest_entry_days(self, rowids: list[int], until: str) -> dict[int, str]:
        """chunk rowid → the latest day of a log entry in it up to `until` (chunks without one left out)."""
        if not rowids:
            return {}
        found = self._read(
            "SELECT chunk, MAX(day) FROM chunk_days WHERE day <= ? AND chunk IN (SELECT value FROM json_each(?)) GROUP BY chunk",
            (until, json.dumps(rowids)),
        )
        return dict(found)

    def chunk_paths(self, paths: list[str]) -> dict[int, str]:
        """rowid → path of every chunk of these notes."""
        if not paths:
            return {}
        return dict(self._read("SELECT rowid, path FROM chunks WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(paths),)))

    def document_frequencies(self, terms: list[str]) -> tuple[int, dict[str, int]]:
        """(number of chunks, {term: chunks containing it}) for the given stems; absent terms are left out."""
        total = self._read("SELECT COUNT(*) FROM chunks")[0][0]
        if not terms:
            return total, {}
        marks = ",".join("?" * len(terms))
        return total, dict(self._read(f"SELECT term, doc FROM chunks_vocab WHERE term IN ({marks})", terms))
