"""Agent memory: facts an agent keeps between sessions, as notes in `Memory/Facts/`, recalled by meaning first (each
fact's own vector), confirmed by identifiers and names, × trust × recency, with HRR entity questions and feedback.
`AgentMemory` is what the adapters use (through `Knowledge.memory`); the modules below it: `facts` (a fact as a note),
`entities`, `hrr`, `meaning` (a fact's vector), `table` (the facts of one index generation, kept in the index),
`recall` (ranking), `rewrite` (the optional chat-model rewrite of a question), `writes` (changes, all as note writes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from rag.errors import ConfigError, VaultError
from rag.limits import check_query
from rag.memory import entity_questions, writes
from rag.memory import recall as ranking
from rag.memory.facts import Fact
from rag.memory.recall import Recalled
from rag.memory.table import FactCache, FactTable

__all__ = ["AgentMemory", "Fact", "FactCache", "Recalled"]

log = logging.getLogger(__name__)


class AgentMemory:
    """One vault's memory for an adapter. `workspace()` gives the index as the adapter should see it (checked first
    or not); facts are read from the notes the index knows."""

    def __init__(self, workspace: Callable, cache: FactCache, changed: Callable[[], object] = lambda: None) -> None:
        self._workspace = workspace
        self._cache = cache
        self._changed = changed  # after a write: the index takes the changed notes in now

    def table(self) -> FactTable:
        ws = self._workspace()
        return self._cache.table(ws, ws.settings.memory_hrr_dim)

    # --- reading ------------------------------------------------------------------------------------------------

    def recall(self, query: str, limit: int = 10, *, category: str | None = None, weights: dict[str, float] | None = None) -> list[Recalled]:
        check_query(query, what="query")
        ws = self._workspace()
        table = self._cache.table(ws, ws.settings.memory_hrr_dim)
        found = ranking.recall(
            table,
            ws.retriever,
            query,
            limit=limit,
            category=category,
            weights=weights,
            rewrites=_rewrites(ws.settings, query),
            **self._decay(ws.settings),
        )
        ws.store.count_recalls([r.fact.id for r in found])
        return found

    def probe(self, entity: str, limit: int = 20) -> list[Recalled]:
        return entity_questions.probe(self._named_table(entity), entity, limit=limit, **self._decay(self._settings()))

    def reason(self, entities: list[str], limit: int = 20) -> list[Recalled]:
        names = [e for e in entities if e and e.strip()]
        if not names:
            raise VaultError("Name at least one entity.")
        return entity_questions.reason(self.table(), names, limit=limit, **self._decay(self._settings()))

    def related(self, entity: str, limit: int = 10) -> list[tuple[str, float, tuple[str, ...]]]:
        return entity_questions.related(self._named_table(entity), entity, limit=limit)

    def get(self, fact_id: str) -> Fact:
        entry = self.table().get((fact_id or "").strip())
        if entry is None:
            raise VaultError(f"There is no fact with id {fact_id!r} in Memory/Facts/ (it may have been archived).")
        return entry.fact

    def facts(self) -> list[Fact]:
        return [e.fact for e in self.table().entries]

    def recall_counts(self) -> dict[str, tuple[int, float | None]]:
        table = self.table()
        return self._workspace().store.recall_counts([e.fact.id for e in table.entries])

    # --- changing -----------------------------------------------------------------------------------------------

    def remember(self, content: str, *, category: str | None = None, tags=(), entities=None, supersedes: str | None = None) -> Fact:
        table = self.table()
        if supersedes and table.get(supersedes.strip()) is None:
            raise VaultError(f"There is no fact with id {supersedes!r} to supersede.")
        ws = self._workspace()
        known = set(table.by_id)
        fact = writes.remember(ws.settings, content, category=category, tags=tags, entities=entities, supersedes=supersedes, known_ids=known)
        return self._after(fact)

    def feedback(self, fact_id: str, helpful: bool) -> Fact:
        return self._after(writes.feedback(self._settings(), self.get(fact_id), helpful))

    def update(self, fact_id: str, content: str, expected_sha256: str) -> Fact:
        return self._after(writes.update(self._settings(), self.get(fact_id), content, expected_sha256))

    def forget(self, fact_id: str) -> str:
        """Archive the fact (its note moves to Memory/Archive/); the new path."""
        return self._after(writes.forget(self._settings(), self.get(fact_id)))

    def import_file(self, path: Path) -> tuple[int, int, list[str]]:
        """(imported, already present, problems by line) for a JSON Lines file of facts."""
        return self._after(writes.import_jsonl(self._settings(), Path(path), set(self.table().by_id)))

    # --- helpers ------------------------------------------------------------------------------------------------

    def _after(self, result):
        self._changed()
        return result

    def _named_table(self, entity: str) -> FactTable:
        if not entity or not entity.strip():
            raise VaultError("Name an entity.")
        return self.table()

    def _settings(self):
        return self._workspace().settings

    @staticmethod
    def _decay(settings) -> dict:
        return {"half_life_days": settings.memory_half_life_days, "decay_floor": settings.memory_decay_floor}


def _rewrites(settings, query: str) -> tuple[str, ...]:
    """The question in the facts' words, when `memory_rewrite` is on and a chat model is configured; else ()."""
    if not (settings.memory_rewrite and settings.chat_model):
        return ()
    from rag.chat.configured import make_chat_model  # the chat client is loaded only when asked for
    from rag.memory.rewrite import cached_rewrites

    try:
        chat = make_chat_model(settings)
    except ConfigError as exc:
        log.warning("Memory recall without the question's rewrites: %s", exc)
        return ()
    try:
        return cached_rewrites(chat, query)
    finally:
        chat.close()
