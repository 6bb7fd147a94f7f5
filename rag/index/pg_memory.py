"""Agent memory's counts in the PostgreSQL index: how often each fact was recalled and when last (`memory_stats`).

Mixed into `pg_store.PgStore`, which owns the pool; `store_memory` is the same on SQLite.
"""

from __future__ import annotations

import time


class PgMemoryStats:
    """The `memory_stats` table (methods of `PgStore`)."""

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
