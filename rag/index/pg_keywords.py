"""The keyword channel of the PostgreSQL index: SQLite FTS5's BM25, computed over `postings` — each chunk's stems
(rag/text/stemming.py, tokenised as FTS5's unicode61 does) with their occurrences weighted by field. Both backends
rank alike to the last digit (tests/test_postgres.py), which PostgreSQL's own text search (ts_rank, its Snowball
configurations) would not.

Mixed into `pg_store.PgStore`, which owns the pool.
"""

from __future__ import annotations

import collections

from rag.index.records import DAY_MAX, DAY_MIN
from rag.text.stemming import fts_tokens

# FTS5's bm25(): k1, b, and the weight of each field (body, title, aliases, description) as in `schema.BM25_RANK`
BM25_K1, BM25_B = 1.2, 0.75
FIELD_WEIGHTS = (1.0, 1.5, 1.5, 1.0)


class PgKeywordIndex:
    """BM25 over `postings` (methods of `PgStore`)."""

    def bm25(self, terms: list[str], limit: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk rowid, bm25 score) of the chunks matching any of the stemmed `terms`, best first, FTS5's formula over
        `postings`: per term, idf = ln((N − n + ½) / (n + ½)) (at least 1e-6), and f · (k1 + 1) / (f + k1 · (1 − b + b ·
        len / avglen)) with f the field-weighted count."""
        return self._bm25("postings", "terms", sorted({t for term in terms for t in fts_tokens(term)}), limit, rows)

    def sound_bm25(self, keys: list[str], limit: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """The keyword channel between scripts: FTS5's BM25 over `sound_postings`, as SQLite ranks `chunks_sounds`."""
        return self._bm25("sound_postings", "sounds", sorted({t for key in keys for t in fts_tokens(key)}), limit, rows)

    def _bm25(self, postings: str, length: str, terms: list[str], limit: int, rows: list[int] | None) -> list[tuple[int, float]]:
        """`postings` (a table of ours) ranked for `terms`, `length` the chunks' column with each row's token count."""
        if not terms or rows == []:
            return []
        only = "AND p.chunk = ANY(%(rows)s)" if rows is not None else ""
        found = self._read(
            f"WITH n AS (SELECT COUNT(*)::float8 AS rows, GREATEST(COALESCE(SUM({length}), 0), 1)::float8 AS tokens FROM chunks),"
            f" q AS (SELECT t.term, GREATEST(LN((n.rows - d.hits + 0.5) / (d.hits + 0.5)), 1e-6) AS idf"
            f"       FROM unnest(%(terms)s::text[]) t(term), n, LATERAL (SELECT COUNT(*)::float8 AS hits FROM {postings} WHERE term = t.term) d)"
            f" SELECT p.chunk, SUM(q.idf * p.freq * %(k1)s::float8 / (p.freq + %(k)s::float8 * (%(b1)s::float8 + %(b)s::float8 * c.{length} / (n.tokens / NULLIF(n.rows, 0)))))"
            f" AS score FROM q JOIN {postings} p ON p.term = q.term JOIN chunks c ON c.rowid = p.chunk CROSS JOIN n"
            f" WHERE true {only} GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %(limit)s",
            {"terms": terms, "rows": rows, "limit": limit, "k1": BM25_K1 + 1, "k": BM25_K1, "b1": 1 - BM25_B, "b": BM25_B},
        )
        return [(r[0], float(r[1])) for r in found]

    def chunk_rowids(self, paths: list[str]) -> list[int]:
        if not paths:
            return []
        return [r[0] for r in self._read("SELECT rowid FROM chunks WHERE path = ANY(%s) ORDER BY rowid", (list(paths),))]

    def chunk_rowids_dated(self, after: str | None, before: str | None) -> list[int]:
        found = self._read(
            "SELECT rowid FROM chunks WHERE day BETWEEN %s AND %s UNION SELECT chunk FROM chunk_days WHERE day BETWEEN %s AND %s ORDER BY 1",
            (after or DAY_MIN, before or DAY_MAX) * 2,
        )
        return [r[0] for r in found]

    def latest_entry_days(self, rowids: list[int], until: str) -> dict[int, str]:
        """chunk rowid → the latest day of a log entry in it up to `until` (chunks without one left out)."""
        if not rowids:
            return {}
        found = self._read(
            "SELECT chunk, MAX(day) FROM chunk_days WHERE day <= %s AND chunk = ANY(%s) GROUP BY chunk",
            (until, list(rowids)),
        )
        return dict(found)

    def chunk_paths(self, paths: list[str]) -> dict[int, str]:
        if not paths:
            return {}
        return dict(self._read("SELECT rowid, path FROM chunks WHERE path = ANY(%s)", (list(paths),)))

    def document_frequencies(self, terms: list[str]) -> tuple[int, dict[str, int]]:
        total = self._read("SELECT COUNT(*) FROM chunks")[0][0]
        if not terms:
            return total, {}
        return total, dict(self._read("SELECT term, COUNT(*) FROM postings WHERE term = ANY(%s) GROUP BY term", (list(terms),)))


def weighted_counts(body: collections.Counter, fields: list[collections.Counter]) -> tuple[dict[str, float], int]:
    """term → occurrences weighted by field, and the number of tokens over all fields (BM25's document length)."""
    weighted: dict[str, float] = {}
    length = 0
    for counts, weight in zip([body, *fields], FIELD_WEIGHTS):
        for term, n in counts.items():
            weighted[term] = weighted.get(term, 0.0) + weight * n
        length += sum(counts.values())
    return weighted, length
