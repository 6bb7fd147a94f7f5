"""Agent memory in the index: how often each fact was recalled and when last (`memory_stats`), and the fact table
as last read (`memory_facts`). The facts themselves are notes; both tables are the index's, disposable like the rest.

Mixed into `store.Store`, which owns the connection and transactions.
"""

from __future__ import annotations

import time

from rag.index.records import FactRow


class MemoryStats:
    """The `memory_stats` and `memory_facts` tables (methods of `Store`)."""

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

    def fact_rows(self) -> list[FactRow]:
        return [FactRow(*r) for r in self._read("SELECT path, sha256, record, hrr, model, meaning, reading FROM memory_facts")]

    def save_fact_rows(self, rows: list[FactRow], *, drop: list[str] = ()) -> None:
        """Store these rows (replacing a path's old one) and forget the `drop` paths (bookkeeping: no generation bump)."""
        if not rows and not drop:
            return
        with self.transaction(searchable=False) as db:
            db.executemany("DELETE FROM memory_facts WHERE path = ?", [(p,) for p in drop])
            db.executemany(
                "INSERT OR REPLACE INTO memory_facts(path, sha256, record, hrr, model, meaning, reading) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(r.path, r.sha256, r.record, r.hrr, r.model, r.meaning, r.reading) for r in rows],
            )
