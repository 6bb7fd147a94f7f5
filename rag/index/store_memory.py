"""Agent memory's counts in the index: how often each fact was recalled and when last (`memory_stats`). The facts
themselves are notes; these counts are the index's, disposable like the rest of it.

Mixed into `store.Store`, which owns the connection and transactions.
"""

from __future__ import annotations

import time


class MemoryStats:
    """The `memory_stats` table (methods of `Store`)."""

    def count_recalls(self, fact_ids: list[str]) -> None:
        """One more recall for each fact, now (bookkeeping: does not bump the index generation)."""
        if not fact_ids:
            return
        now = time.time()
        with self.transaction(searchable=False) as db:
            db.executemany(
                "INSERT INTO memory_stats(fact_id, recalled, last_recalled) VALUES (?, 1, ?)"
                " ON CONFLICT(fact_id) DO UPDATE SET recalled = recalled + 1, last_recalled = excluded.last_recalled",
                [(fact_id, now) for fact_id in sorted(set(fact_ids))],  # a fact returned twice is one recall
            )

    def recall_counts(self, fact_ids: list[str]) -> dict[str, tuple[int, float | None]]:
        """fact id → (times recalled, when last) for those recalled at least once."""
        if not fact_ids:
            return {}
        rows = self._read_in("SELECT fact_id, recalled, last_recalled FROM memory_stats WHERE fact_id IN ({marks})", fact_ids)
        return {r[0]: (r[1], r[2]) for r in rows}
