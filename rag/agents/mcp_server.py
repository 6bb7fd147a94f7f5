"""The MCP adapter: the vault's knowledge as tools for AI agents (Claude Code, Cursor, Codex, Claude Desktop).

`python -m rag mcp` serves over stdio (the protocol owns stdout; logs go to stderr), or with `--http PORT` over
streamable HTTP bound to 127.0.0.1. The handshake never waits for indexing: the index is opened and brought up to
date by `LiveIndex` in the background. Every RagError becomes a tool error (the model sees `isError` with the
message that names the fix); anything else is a bug, logged with its traceback. No logic of its own.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import date, datetime
from typing import Annotated, Literal

import anyio
from mcp.server import MCPServer
from pydantic import Field

from rag.agents.http_auth import BearerGate
from rag.agents.memory_tools import MemoryTools
from rag.agents.results import AskResult, Projects, Reindexed, Saved, SearchHit, SearchResults, SearchTime, Similar, Status
from rag.agents.stdio_transport import serve_stdio
from rag.agents.tools import ADD, INDEX, READ, WRITE, declared, register, tool
from rag.config import Settings
from rag.knowledge import Knowledge, SavedNote
from rag.live import EXIT_WAIT_SECONDS, LiveIndex
from rag.surface import (
    CONTEXT_MAX_CHARS,
    MAX_QUERY_CHARS,
    Filters,
    Hit,
    NoteList,
    NoteText,
    ProjectContext,
    TimeScope,
    block_excerpt,
    check_vault,
    confine,
    pdf_place,
)

INSTRUCTIONS = (
    "Tools over the user's Markdown notes (an Obsidian vault, Russian and English). Search the notes before answering "
    "questions about the user's past work, decisions, projects or preferences, and cite the note paths you used. "
    "Before changing a note, read it and pass its sha256 back as expected_sha256; on a conflict, read it again and "
    "merge. Record decisions and session summaries with knowledge_commit. Remember durable facts about the user "
    "(preferences, people, configurations, decisions) with memory_remember and recall them with memory_recall."
)
NotePath = Annotated[str, Field(description="Vault-relative path with forward slashes, e.g. 'Projects/Alpha/Overview.md'.")]
Sha = Annotated[str | None, Field(description="The sha256 that knowledge_read returned for this note.")]
After = Annotated[date | None, Field(description="Only passages from this day or later (YYYY-MM-DD); wins over a time named in the query.")]
Before = Annotated[date | None, Field(description="Only passages from this day or earlier (YYYY-MM-DD).")]
ReadTime = Annotated[bool, Field(description='Read a time named in the query ("last week", «в марте») and search only then; false: plain words.')]


class VaultTools:
    """The tools, bound to one vault's `Knowledge`. Each `@tool` method is one MCP tool (rag/agents/tools.py); its
    docstring is what the model reads. Writes are re-indexed by `Knowledge` (`Knowledge.changed`)."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self.settings: Settings = knowledge.settings

    @tool(READ)
    def knowledge_search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="Words or a question, in any language.")],
        limit: Annotated[int, Field(ge=1, le=50)] = 8,
        project: Annotated[str | None, Field(description="Only notes of this project (see knowledge_projects).")] = None,
        tier: Annotated[Literal[1, 2] | None, Field(description="1 = curated notes (profile, memory, overviews) only; 2 = the rest.")] = None,
        after: After = None,
        before: Before = None,
        read_time: ReadTime = True,
    ) -> SearchResults:
        """Search the user's notes by keywords and by meaning (hybrid; Russian and English, across languages).
        Use it before answering anything about the user's past work, decisions, projects or preferences. Each result
        gives the note path, heading, line range, score and an excerpt; read more with knowledge_read(path,
        start_line, end_line). A result from a PDF in the vault also gives its `page` and `page_lines` (cite those). Cite the paths you rely on. Results stop where matches stop standing out (fewer than
        `limit`, or none: the notes probably do not cover it); `weaker_matches` says how many were left out.
        A time in the query ("last week", "in March", «вчера», "when did I last …") is read against today and
        narrows the search to passages from then (`time` says which days; each result has its `day`)."""
        if project is not None:
            project = self.knowledge.resolve_project(project)
        filters = Filters(projects=(project,) if project is not None else (), tiers=(tier,) if tier is not None else (), after=after, before=before)
        result = self.knowledge.search(query, limit, filters=filters, read_time=read_time)
        hits = list(result.hits)
        notice = " ".join(n for n in (self._indexing_notice(), result.notice) if n) or None
        return SearchResults(
            tuple(_search_hit(h, self.settings) for h in hits[:limit]), result.channels, notice, result.hidden, _search_time(result.time)
        )

    @tool(READ)
    def knowledge_ask(
        self,
        question: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)],
        after: After = None,
        before: Before = None,
        read_time: ReadTime = True,
    ) -> AskResult:
        """Answer a question from the notes, with citations checked against the passages used. Without a configured
        chat model the answer quotes the best sentences (extractive). `not_found` means no claim of the answer was found
        in the notes: say so rather than guess. Every claim is checked against its passage: never repeat an
        `unsupported` claim as a fact; an `unconfirmed` one cites a passage in another language that the check could
        not confirm it in: read that passage before you rely on it. Prefer knowledge_search when you want to read and reason over the passages yourself. A time the
        question names narrows the notes searched (`time`); citations of dated notes carry their `day`."""
        answer = self.knowledge.ask(question, read_time=read_time, filters=Filters(after=after, before=before))
        return AskResult(
            answer.text, answer.mode, answer.not_found, answer.citations, answer.notice, answer.claims, answer.grounding(), _search_time(answer.time)
        )

    @tool(READ)
    def knowledge_read(
        self,
        path: NotePath,
        start_line: Annotated[int | None, Field(ge=1)] = None,
        end_line: Annotated[int | None, Field(ge=1)] = None,
        page: Annotated[int | None, Field(ge=1, description="A PDF's page to read whole (instead of lines).")] = None,
        end_page: Annotated[int | None, Field(ge=1, description="With page: the last page to read.")] = None,
    ) -> NoteText:
        """Read a note, or lines start_line..end_line of it (1-based, inclusive), straight from disk. A PDF is read
        as its text is searched (each page opens with a line "# p. N"), or by page..end_page; it is never written.
        Returns the text and the sha256 of the whole file: pass that sha256 to knowledge_write or knowledge_append.
        Long notes come back cut at whole lines with truncated=true: read on from end_line + 1."""
        return self.knowledge.read(path, start_line=start_line, end_line=end_line, page=page, end_page=end_page)

    @tool(WRITE)
    def knowledge_write(self, path: NotePath, content: str, expected_sha256: Sha = None) -> Saved:
        """Create a new note (.md), or replace an existing one. Replacing needs expected_sha256 from your last
        knowledge_read; if the note changed since, nothing is written and you get a conflict error: read it again and
        merge. The write is atomic and the note is re-indexed. Prefer knowledge_append to add to a note."""
        return self._saved(self.knowledge.write(path, content, expected_sha256=expected_sha256, tool="knowledge_write"))

    @tool(ADD)
    def knowledge_append(self, path: NotePath, text: str, expected_sha256: Sha = None) -> Saved:
        """Append text to the end of an existing note (on a new line). With expected_sha256, only if the note has not
        changed since you read it (otherwise a conflict error). Atomic; the note is re-indexed."""
        return self._saved(self.knowledge.append(path, text, expected_sha256=expected_sha256, tool="knowledge_append"))

    @tool(ADD)
    def knowledge_commit(
        self,
        title: Annotated[str, Field(description="A few words: what was decided or done.")],
        body: Annotated[str, Field(description="Markdown: context, the decision or work done, reasons, next steps.")],
        project: Annotated[str | None, Field(description="Project name (see knowledge_projects); new names create a project folder.")] = None,
        kind: Literal["decision", "session"] = "decision",
    ) -> Saved:
        """Record a decision or a work-session summary as a new dated note with frontmatter, in
        Projects/<project>/Decisions/ or .../Sessions/ (Decisions/ or Sessions/ without a project), named
        'YYYY-MM-DD Title.md'. Never overwrites: a taken name gets a number. Use it at the end of meaningful work."""
        return self._saved(self.knowledge.commit(kind, title, body, project=project))

    @tool(READ)
    def project_context(self, project: str, max_chars: Annotated[int, Field(ge=1000, le=100_000)] = CONTEXT_MAX_CHARS) -> ProjectContext:
        """The starting context for work on a project, in one bounded call: the project's overview, the user's
        profile notes, the project's other curated notes, then its most recent decisions and sessions, each with its
        path and sha256, within max_chars. Paths that did not fit are listed in `omitted`: read them if needed."""
        return self.knowledge.project_context(project, max_chars=max_chars)

    @tool(READ)
    def knowledge_status(self) -> Status:
        """What is indexed (notes, chunks, vectors present and missing, model, last sync) and what the background
        indexer is doing. Search works while it reads or embeds; results then may be incomplete."""
        info = self.knowledge.status()
        ix = self.knowledge.progress()
        last = datetime.fromtimestamp(info["last_sync"]).astimezone().isoformat(timespec="seconds") if info["last_sync"] else None
        return Status(
            info["vault"],
            info["notes"],
            info["chunks"],
            info["vectors_present"],
            info["vectors_missing"],
            info["model"],
            last,
            ix.state,
            (f"{ix.fraction:.0%}" if ix.state == "embedding" else f"{ix.done}/{ix.total}") if ix.total else None,
            ix.error,
        )

    @tool(READ)
    def knowledge_projects(self) -> Projects:
        """The user's projects with counts of notes, decisions and sessions, the overview note and the latest change.
        Use a name from here with project_context, knowledge_search(project=…) and knowledge_commit."""
        return Projects(tuple(self.knowledge.list_projects()))

    @tool(INDEX)
    def knowledge_reindex(self, full: bool = False) -> Reindexed:
        """Bring the index in line with the notes now (normally automatic: it is checked before reads at most every
        10 s). full=true re-reads every note (unchanged text is not embedded again; searches find less until it ends).
        Vectors follow in the background."""
        r = self.knowledge.reindex(full=full)
        return Reindexed(
            r.files_added,
            r.files_updated,
            r.files_removed,
            r.files_unchanged,
            r.chunks_total,
            r.vectors_missing,
            r.seconds,
            tuple(f"{p}: {why}" for p, why in r.skipped),
        )

    @tool(READ)
    def similar_notes(self, path: NotePath, limit: Annotated[int, Field(ge=1, le=50)] = 8) -> Similar:
        """Notes closest in meaning to the given note (by the mean of their passage vectors), best first. Each has
        its cosine (`score`), `closeness` in plain words (near-duplicate, very similar, related, loosely related,
        unrelated; calibrated on real notes), `percentile` (% of this vault's note pairs less alike; null in a vault
        under 10 notes), `overlap` (share of the shorter note's text also in the other) and, for a PDF, the `page`
        most like the note (null for a note). Useful to find related work or duplicates before writing a new note."""
        rel, _ = confine(self.settings, path)
        return Similar(rel, tuple(self.knowledge.similar(rel, limit)))

    @tool(READ)
    def list_notes(
        self,
        folder: Annotated[str | None, Field(description="e.g. 'Projects/Alpha'; omit for the whole vault.")] = None,
        limit: Annotated[int, Field(ge=1, le=5000)] = 500,
    ) -> NoteList:
        """List notes (sorted by path) with size, last modification time, tier (1 = curated) and project.
        `total` says how many there are when the list is cut at `limit`."""
        return self.knowledge.list_notes(folder, limit=limit)

    @staticmethod
    def _saved(saved: SavedNote) -> Saved:
        return Saved(saved.path, saved.sha256, saved.created, saved.bytes, saved.indexed, saved.warning)

    def _indexing_notice(self) -> str | None:
        ix = self.knowledge.progress()
        if ix.state == "reading notes":
            return f"Indexing in progress ({ix.done}/{ix.total} notes read); results may be incomplete."
        if ix.state == "embedding":
            return f"Meaning search is still being built ({ix.fraction:.0%} embedded); results may be incomplete."
        return None


def _search_hit(hit: Hit, settings) -> SearchHit:
    c = hit.chunk
    page = pdf_place(settings.vault, c.path, c.start_line, c.end_line, outside=settings.outside_folders)
    return SearchHit(
        c.path, c.heading_path, c.start_line, c.end_line, round(hit.score, 4), block_excerpt(c.text), c.project, c.tier, c.day, c.day_source,
        page.page if page else None, [page.line, page.end_line] if page else None, hit.linked_from,
    )  # fmt: skip


def _search_time(scope: TimeScope | None) -> SearchTime | None:
    if scope is None:
        return None
    iso = scope.to_json()
    return SearchTime(iso["after"], iso["before"], scope.newest_first, scope.words, scope.applied)


TOOLS = declared(VaultTools)  # name → annotations, in the order agents see them
MEMORY_TOOLS = declared(MemoryTools)  # listed after TOOLS


def build_server(knowledge: Knowledge) -> MCPServer:
    """The MCP server with every tool registered. Starting a session starts the background indexer."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer):
        knowledge.live.start()  # returns at once; the handshake never waits for indexing
        yield None

    server = MCPServer("ask-your-vault", instructions=INSTRUCTIONS, log_level="WARNING", lifespan=lifespan)
    register(server, VaultTools(knowledge), MemoryTools(knowledge))  # the order agents see: TOOLS, then MEMORY_TOOLS
    return server


def serve(settings: Settings, *, http_port: int | None = None, token: str | None = None) -> None:
    """Run the server until the client disconnects: stdio by default, or streamable HTTP on 127.0.0.1 with a port,
    every request carrying `token` (rag/agents/http_auth.py)."""
    check_vault(settings.vault)
    live = LiveIndex(settings)
    server = build_server(Knowledge(live))
    try:
        if http_port is None:
            anyio.run(serve_stdio, server)  # every line answered, even one the SDK cannot read (stdio_transport.py)
        else:
            if not token:
                raise ValueError("the HTTP transport needs a token")
            _serve_http(server, http_port, token)
    finally:
        live.close(timeout=EXIT_WAIT_SECONDS)  # the current batch ends first (see rag.live._close_at_exit)


def _serve_http(server: MCPServer, port: int, token: str) -> None:
    from rag.agents.http_server import http_server

    app = BearerGate(server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1"), token)
    try:  # connections bounded and slow headers cut before the token is checked (rag/agents/http_server.py)
        anyio.run(http_server(app, port=port).serve)
    except KeyboardInterrupt:  # Ctrl+C: uvicorn has shut down already
        pass
