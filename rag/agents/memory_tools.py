"""The agent-memory MCP tools: remember, recall, vote on, probe, relate, reason over, archive and update facts.
Facts are notes in `Memory/Facts/`; these tools only adapt `Knowledge.memory` (rag/memory) to typed results."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from rag.agents.results import Archived, MemoryFact, MemoryHit, MemoryResults, RelatedEntities, RelatedEntity
from rag.agents.tools import ADD, READ, WRITE, tool
from rag.knowledge import Knowledge
from rag.surface import MAX_QUERY_CHARS, Fact, Recalled

FactId = Annotated[str, Field(min_length=1, description="A fact's id, e.g. 'f-3a9c0e12b4d1' (from memory_recall or memory_remember).")]
Entity = Annotated[str, Field(min_length=1, description="A name, tool, place or code token, in any script: 'nginx', 'Anna' / 'Анна'.")]


class MemoryTools:
    """The agent-memory tools, bound to one vault's `Knowledge`: each `@tool` method is one MCP tool (rag/agents/tools.py);
    its docstring is what the model reads. Writes are re-indexed by `Knowledge` (`Knowledge.changed`)."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge

    @tool(ADD)
    def memory_remember(
        self,
        content: Annotated[str, Field(min_length=1, description="One fact, stated on its own: who/what, and the detail.")],
        category: Annotated[str | None, Field(description="e.g. preferences, people, projects, config, decisions.")] = None,
        tags: list[str] | None = None,
        entities: Annotated[list[str] | None, Field(description="What the fact is about; omit to have them read from it.")] = None,
        supersedes: Annotated[str | None, Field(description="The id of the fact this one replaces (it stays, ranked below).")] = None,
    ) -> MemoryFact:
        """Remember a fact about the user, a project, a configuration, a preference or a decision, for later
        sessions. It becomes a note in Memory/Facts/<category>/ the user can read and edit. When a fact changed,
        pass the old fact's id as `supersedes`."""
        return _fact(self.knowledge.memory.remember(content, category=category, tags=tags or (), entities=entities, supersedes=supersedes))

    @tool(READ)
    def memory_recall(
        self,
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to recall, in words or a question, any language.")],
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        category: str | None = None,
    ) -> MemoryResults:
        """Recall remembered facts by meaning (across Russian and English and paraphrase), exact terms and entities,
        best first; score = relevance × trust × recency, and `channels` says which of semantic, exact (identifiers),
        entities, hrr, fts, jaccard found each. Prefer a fact over one it lists as `superseded_by`. Tell the user when nothing relevant is found."""
        return MemoryResults(tuple(_hit(r) for r in self.knowledge.memory.recall(query, limit, category=category)))

    @tool(WRITE)
    def memory_feedback(self, id: FactId, helpful: bool) -> MemoryFact:
        """Say whether a recalled fact was helpful (true) or wrong or useless (false): trust moves 10 % of the way to 1,
        or 20 % of the way to 0, and is written to the fact's note."""
        return _fact(self.knowledge.memory.feedback(id, helpful))

    @tool(READ)
    def memory_probe(self, entity: Entity, limit: Annotated[int, Field(ge=1, le=100)] = 20) -> MemoryResults:
        """Every fact bound to an entity ("everything about nginx"), most strongly bound first."""
        return MemoryResults(tuple(_hit(r) for r in self.knowledge.memory.probe(entity, limit)))

    @tool(READ)
    def memory_related(self, entity: Entity, limit: Annotated[int, Field(ge=1, le=50)] = 10) -> RelatedEntities:
        """Entities that appear with this one in remembered facts, strongest first, with the linking facts' ids."""
        found = self.knowledge.memory.related(entity, limit)
        return RelatedEntities(entity, tuple(RelatedEntity(name, score, facts) for name, score, facts in found))

    @tool(READ)
    def memory_reason(
        self,
        entities: Annotated[list[str], Field(min_length=1, description="Two or more entities, e.g. ['nginx', 'server-a'].")],
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> MemoryResults:
        """Facts that several entities share: each fact scored by its weakest binding to any of them."""
        return MemoryResults(tuple(_hit(r) for r in self.knowledge.memory.reason(entities, limit)))

    @tool(WRITE)
    def memory_forget(self, id: FactId) -> Archived:
        """Archive a fact that is wrong or no longer wanted: its note moves to Memory/Archive/ (kept, not deleted),
        and recall no longer returns it."""
        return Archived(id, self.knowledge.memory.forget(id))

    @tool(WRITE)
    def memory_update(
        self,
        id: FactId,
        content: Annotated[str, Field(min_length=1)],
        expected_sha256: Annotated[str, Field(description="The sha256 memory_remember/memory_feedback returned (or knowledge_read).")],
    ) -> MemoryFact:
        """Rewrite a fact's statement, only if its note is unchanged since you read it (a conflict error otherwise:
        recall it again and merge). To record that something changed over time, prefer memory_remember with
        `supersedes`."""
        return _fact(self.knowledge.memory.update(id, content, expected_sha256))


def _fact(f: Fact) -> MemoryFact:
    return MemoryFact(
        f.id, f.content, f.category, f.tags, f.entities, f.trust, f.helpful, f.unhelpful, f.created, f.updated, f.supersedes, f.path, f.sha256
    )


def _hit(r: Recalled) -> MemoryHit:
    j = r.to_json()
    return MemoryHit(
        j["id"],
        j["content"],
        j["path"],
        j["score"],
        j["channels"],
        r.found_by,
        j["trust"],
        j["decay"],
        j["category"],
        j["created"],
        j["superseded_by"],
    )
