"""Agent memory in the PostgreSQL index: recall counts (`memory_stats`) and the fact table as last read (`memory_facts`).

Mixed into `pg_store.PgStore`, which owns the pool; `store_memory` is the same on SQLite.
"""

from __future__ import annotations

import time

from rag.index.records import FactRow


class PgMemoryStats:
    """The `memory_stats` and `memory_facts` tables (methods of `PgStore`)."""

    def count_recalls(self, fact_ids: list[str]) -> None:
        if not fact_ids:
            return
        now = time.time()
        with self.transaction(searchable=False) as db:
            db.cursor().executemany(
                "INSERT INTO memory_stats(fact_id, recalled, last_recalled) VALUES (%s, 1, %s)"
                " ON CONFLICT (fact_id) DO UPDATE SET recalled = memory_stats.recalled + 1, last_recalled = excluded.last_recalled",
                [(fact_id, now) for fact_id in sorted(set(fact_ids))],  # sorted: concurrent recalls lock rows in one order
            )

    def recall_counts(self, fact_ids: list[str]) -> dict[str, tuple[int, float | None]]:
        if not fact_ids:
            return {}
        rows = self._read("SELECT fact_id, recalled, last_recalled FROM memory_stats WHERE fact_id = ANY(%s)", (list(fact_ids),))
        return {r[0]: (r[1], r[2]) for r in rows}

    def fact_rows(self) -> list[FactRow]:
        rows = self._read("SELECT path, sha256, record, hrr, model, meaning, reading FROM memory_facts")
        return [FactRow(p, s, r, bytes(h), m, _bytes(v), _bytes(u)) for p, s, r, h, m, v, u in rows]

    def save_fact_rows(self, rows: list[FactRow], *, drop: list[str] = ()) -> None:
        if not rows and not drop:
            return
        with self.transaction(searchable=False) as db:
            cursor = db.cursor()
            if drop:
                cursor.execute("DELETE FROM memory_facts WHERE path = ANY(%s)", (list(drop),))
            cursor.executemany(
                "INSERT INTO memory_facts(path, sha256, record, hrr, model, meaning, reading) VALUES (%s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, record = excluded.record, hrr = excluded.hrr,"
                " model = excluded.model, meaning = excluded.meaning, reading = excluded.reading",
                [(r.path, r.sha256, r.record, r.hrr, r.model, r.meaning, r.reading) for r in sorted(rows, key=lambda r: r.path)],
            )


def _bytes(value) -> bytes | None:
    return None if value is None else bytes(value)
