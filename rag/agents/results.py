"""What the MCP tools return: typed results, so agents get structured output with a schema (rag/agents/mcp_server.py)."""

from __future__ import annotations

from dataclasses import dataclass

from rag.surface import CheckedClaim, Citation, Neighbour, ProjectInfo


@dataclass(frozen=True)
class SearchHit:
    path: str
    heading: str  # "Note › Section › Subsection"
    start_line: int
    end_line: int
    score: float
    excerpt: str  # at most 2,000 characters of the passage
    project: str | None
    tier: int  # 1 = curated (profile, memory, overviews), 2 = everything else
    day: str | None = None  # YYYY-MM-DD the passage is from, as the note says (frontmatter, file name, a dated heading, a chat message's time)
    day_from: str | None = None  # where that day was read; "file time" when the note says nothing (a copy or sync resets it)
    page: int | None = None  # a PDF's passage: the page it starts on, and its lines there (null for a Markdown note)
    page_lines: list[int] | None = None
    linked_from: str | None = None  # a PDF found because this note, among the best results, links to it


@dataclass(frozen=True)
class SearchTime:
    """The time a search kept to: from the question's words ("last week") or the after/before arguments."""

    after: str | None  # YYYY-MM-DD, inclusive; None: open
    before: str | None
    newest_first: bool  # "when did I last …": the best matches were put newest first
    words: str  # the question's words that named it ("" when set by arguments)
    applied: bool  # False: nothing in the notes is dated then, so all dates were searched


@dataclass(frozen=True)
class SearchResults:
    results: tuple[SearchHit, ...]
    channels: tuple[str, ...]  # "bm25" (keywords) and/or "dense" (meaning)
    notice: str | None  # why a channel is missing or results may be incomplete
    weaker_matches: int = 0  # results under the relevance floor, not returned
    time: SearchTime | None = None  # the time the search kept to; None: all dates


@dataclass(frozen=True)
class AskResult:
    answer: str
    mode: str  # "llm" or "extractive"
    not_found: bool
    citations: tuple[Citation, ...]
    notice: str | None
    claims: tuple[CheckedClaim, ...]  # each sentence with its status: supported, misattributed, uncited, unconfirmed, unsupported
    grounding: dict[str, int]  # claims per status
    time: SearchTime | None = None  # the time the notes were searched in; None: all dates


@dataclass(frozen=True)
class Saved:
    path: str
    sha256: str  # pass it as expected_sha256 to change the note again
    created: bool
    bytes: int
    indexed: bool  # already searchable; if False, the background indexer adds it within seconds
    warning: str | None = None  # the note was written, but its line in the vault's writes.log was not


@dataclass(frozen=True)
class Status:
    vault: str
    notes: int
    chunks: int
    vectors_present: int
    vectors_missing: int
    model: str
    last_sync: str | None
    indexing: str  # "not started", "opening", "reading notes", "embedding", "idle" or "failed"
    progress: str | None
    error: str | None


@dataclass(frozen=True)
class Reindexed:
    files_added: int
    files_updated: int
    files_removed: int
    files_unchanged: int
    chunks_total: int
    vectors_missing: int  # being computed in the background; keyword search already covers the text
    seconds: float
    skipped: tuple[str, ...]  # "path: reason" for notes that could not be read


@dataclass(frozen=True)
class Projects:
    projects: tuple[ProjectInfo, ...]


@dataclass(frozen=True)
class Similar:
    path: str
    notes: tuple[Neighbour, ...]


@dataclass(frozen=True)
class MemoryFact:
    id: str
    content: str
    category: str
    tags: tuple[str, ...]
    entities: tuple[str, ...]
    trust: float  # 0–1; feedback moves it
    helpful: int
    unhelpful: int
    created: str
    updated: str
    supersedes: str | None
    path: str  # the fact's note, vault-relative
    sha256: str  # pass it back as expected_sha256 to memory_update


@dataclass(frozen=True)
class MemoryHit:
    id: str
    content: str
    path: str
    score: float  # relevance × trust × decay
    channels: dict[str, float]  # fts, jaccard, hrr, semantic, exact, entities: each 0–1 (0: it did not find this fact)
    found_by: tuple[str, ...]
    trust: float
    decay: float  # ½ per half-life since the fact was created
    category: str
    created: str
    superseded_by: str | None  # a newer fact replaces this one: prefer it


@dataclass(frozen=True)
class MemoryResults:
    results: tuple[MemoryHit, ...]


@dataclass(frozen=True)
class RelatedEntity:
    entity: str
    score: float
    facts: tuple[str, ...]  # ids of the facts that bind it to the entity asked about


@dataclass(frozen=True)
class RelatedEntities:
    entity: str
    related: tuple[RelatedEntity, ...]


@dataclass(frozen=True)
class Archived:
    id: str
    path: str  # where the fact's note is now (Memory/Archive/…)
