"""The MCP adapter through the SDK's in-memory client (the legacy `initialize` handshake, JSON-RPC framing): every
tool, conflicts, traversal attempts, non-.md writes, huge reads, and a handshake that never waits for indexing.
Real files and SQLite; the fake embedder at the model seam, and the real default embedder in one test."""

from __future__ import annotations

import shutil
import time
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp import Client

from rag.agents.mcp_server import MEMORY_TOOLS, TOOLS, build_server
from rag.config import load_settings
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.notes.files import MAX_READ_CHARS
from rag.search.similar import CLOSENESS
from rag.workspace import Workspace

from .conftest import FIXTURES
from .test_mcp_live import GatedEmbedder

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def live(settings, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()  # indexed up front, so results do not depend on the background indexer's timing
    live = LiveIndex(settings, embedder=fake_embedder)
    yield live
    live.close()


@asynccontextmanager
async def connect(live):
    async with Client(build_server(Knowledge(live)), mode="legacy") as client:
        yield client


async def call(client, name, **arguments) -> dict:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def until(condition, timeout: float = 30.0) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.02)


async def fails(client, name, **arguments) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error and not result.structured_content, result
    return result.content[0].text


# --- the tool list --------------------------------------------------------------------------------------------


async def test_every_tool_is_listed_with_a_description_schemas_and_read_only_only_on_reads(live):
    async with connect(live) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == [*TOOLS, *MEMORY_TOOLS]
    writes = {
        "knowledge_write",
        "knowledge_append",
        "knowledge_commit",
        "knowledge_reindex",
        "memory_remember",
        "memory_feedback",
        "memory_forget",
        "memory_update",
    }
    for tool in tools:
        assert tool.annotations.read_only_hint is (tool.name not in writes), tool.name
        assert len(tool.description) > 80 and tool.output_schema["type"] == "object"
    search = next(t for t in tools if t.name == "knowledge_search")
    assert set(search.input_schema["properties"]) == {"query", "limit", "project", "tier", "after", "before", "read_time"}
    ask = next(t for t in tools if t.name == "knowledge_ask")
    assert set(ask.input_schema["properties"]) == {"question", "after", "before", "read_time"}


# --- search, ask, read ----------------------------------------------------------------------------------------


async def test_search_gives_path_heading_lines_score_and_an_excerpt_of_at_most_2000_chars(live, vault):
    (vault / "Notes" / "Long.md").write_text("# Long\n\nzebrafish " + "x" * 6000 + "\n", encoding="utf-8")
    live.workspace().sync()  # text and vector, before the session starts
    async with connect(live) as client:
        found = await call(client, "knowledge_search", query="zebrafish", limit=3)
        hydration = await call(client, "knowledge_search", query="sourdough hydration", limit=2)
    top = found["results"][0]
    assert set(top) == {
        "path",
        "heading",
        "start_line",
        "end_line",
        "score",
        "excerpt",
        "project",
        "tier",
        "day",
        "day_from",
        "page",
        "page_lines",
        "linked_from",
    }
    assert top["path"] == "Notes/Long.md" and len(top["excerpt"]) == 2000 and top["excerpt"].endswith("…")
    first = hydration["results"][0]
    assert first["path"] == "Notes/Sourdough.md" and first["heading"].startswith("Sourdough bread")
    assert 1 <= first["start_line"] <= first["end_line"] and set(hydration["channels"]) == {"bm25", "dense"}


async def test_search_filters_by_project_and_tier(live):
    async with connect(live) as client:
        alpha = await call(client, "knowledge_search", query="SQLite", project="alpha")
        curated = await call(client, "knowledge_search", query="SQLite", tier=1)
        unknown = await fails(client, "knowledge_search", query="SQLite", project="Gamma")
    assert alpha["results"] and {r["project"] for r in alpha["results"]} == {"Alpha"}
    assert {r["tier"] for r in curated["results"]} == {1}
    assert "no project named 'Gamma'" in unknown and "Known projects: Alpha" in unknown


async def test_ask_answers_extractively_with_citations_when_no_chat_model_is_configured(live):
    async with connect(live) as client:
        answer = await call(client, "knowledge_ask", question="What hydration do I use for white bread?")
    assert answer["mode"] == "extractive" and not answer["not_found"]
    assert "72%" in answer["answer"] and answer["citations"][0]["path"] == "Notes/Sourdough.md"
    assert answer["claims"] and {c["status"] for c in answer["claims"]} == {"supported"}
    assert answer["grounding"]["supported"] == len(answer["claims"])
    shown = answer["claims"][0]["evidence"][0]  # what states the claim, with its lines, for the agent to quote or read
    assert "72%" in shown["text"] and shown["start_line"] <= shown["end_line"] and shown["source"].startswith("S")


async def test_read_returns_the_text_and_the_hash_the_index_holds(live):
    async with connect(live) as client:
        note = await call(client, "knowledge_read", path="Notes/SQLite.md", start_line=3, end_line=3)
        paged = await fails(client, "knowledge_read", path="Notes/SQLite.md", page=1)  # pages are a PDF's
    assert note["content"] == "WAL mode lets readers continue while one writer commits.\n"
    assert "it has no pages" in paged
    assert note["sha256"] == live.workspace().store.file_info("Notes/SQLite.md").sha256


async def test_a_huge_note_comes_back_in_bounded_pieces(settings, fake_embedder, vault):
    (vault / "Notes" / "Huge.md").write_text(("y" * 99 + "\n") * 100_000, encoding="utf-8")  # 10 MB
    live = LiveIndex(settings.replace(ignore=("Notes/Huge.md",)), embedder=fake_embedder)  # read, never indexed
    async with connect(live) as client:
        piece = await call(client, "knowledge_read", path="Notes/Huge.md")
        rest = await call(client, "knowledge_read", path="Notes/Huge.md", start_line=piece["end_line"] + 1, end_line=piece["end_line"] + 2)
    live.close()
    assert piece["truncated"] and len(piece["content"]) <= MAX_READ_CHARS and piece["total_lines"] == 100_000
    assert rest["content"] == ("y" * 99 + "\n") * 2 and not rest["truncated"]


# --- confinement ----------------------------------------------------------------------------------------------


@pytest.fixture
def escape_link(vault, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n", encoding="utf-8")
    (vault / "Notes" / "escape.md").symlink_to(outside)
    return outside


@pytest.mark.parametrize(
    "path, says",
    [
        ("../x.md", "'..'"),
        ("Notes/../../x.md", "'..'"),
        ("/etc/passwd", "absolute path"),
        (".rag/index.db", "off limits"),
        ("Notes/escape.md", "outside the vault"),
    ],
)
async def test_paths_out_of_the_vault_are_tool_errors_for_every_path_tool(live, escape_link, path, says):
    async with connect(live) as client:
        errors = [
            await fails(client, "knowledge_read", path=path),
            await fails(client, "knowledge_write", path=path, content="x"),
            await fails(client, "knowledge_append", path=path, text="x"),
            await fails(client, "similar_notes", path=path),
        ]
    assert all(says in e for e in errors), errors
    assert escape_link.read_text(encoding="utf-8") == "secret\n"


async def test_only_md_files_can_be_written(live, vault):
    async with connect(live) as client:
        error = await fails(client, "knowledge_write", path="Notes/run.sh", content="rm -rf ~")
    assert "only Markdown notes can be written" in error and not (vault / "Notes" / "run.sh").exists()


# --- writes ---------------------------------------------------------------------------------------------------


async def test_a_written_note_is_searchable_by_keyword_at_once_and_by_meaning_once_embedded(live, vault):
    async with connect(live) as client:
        saved = await call(client, "knowledge_write", path="Inbox/Axolotl.md", content="# Axolotl\n\nAxolotls regrow limbs.\n")
        keyword = live.workspace().retriever.keyword("axolotl regrow").hits
        await until(lambda: live.workspace().status()["vectors_missing"] == 0)
        found = await call(client, "knowledge_search", query="axolotl regrow")
    assert saved["created"] and saved["indexed"] and (vault / "Inbox" / "Axolotl.md").exists()
    assert keyword[0].chunk.path == "Inbox/Axolotl.md" and found["results"][0]["path"] == "Inbox/Axolotl.md"


async def test_a_write_with_a_stale_hash_is_a_conflict_and_the_newer_text_survives(live, vault):
    async with connect(live) as client:
        note = await call(client, "knowledge_read", path="Notes/SQLite.md")
        (vault / "Notes" / "SQLite.md").write_text("# SQLite\n\nEdited in Obsidian meanwhile.\n", encoding="utf-8")
        conflict = await fails(client, "knowledge_write", path="Notes/SQLite.md", content="agent text", expected_sha256=note["sha256"])
        again = await call(client, "knowledge_read", path="Notes/SQLite.md")
        saved = await call(client, "knowledge_write", path="Notes/SQLite.md", content="# SQLite\n\nMerged.\n", expected_sha256=again["sha256"])
        overwrite = await fails(client, "knowledge_write", path="Notes/SQLite.md", content="blind overwrite")
    assert "changed since it was read" in conflict and "Nothing was written" in conflict
    assert not saved["created"] and "already exists" in overwrite
    assert (vault / "Notes" / "SQLite.md").read_text(encoding="utf-8") == "# SQLite\n\nMerged.\n"


async def test_append_adds_to_a_note_and_conflicts_on_a_stale_hash(live, vault):
    async with connect(live) as client:
        note = await call(client, "knowledge_read", path="Memory/Preferences.md")
        saved = await call(client, "knowledge_append", path="Memory/Preferences.md", text="- Tea: sencha.", expected_sha256=note["sha256"])
        stale = await fails(client, "knowledge_append", path="Memory/Preferences.md", text="- Tea: oolong.", expected_sha256=note["sha256"])
        missing = await fails(client, "knowledge_append", path="Memory/Nope.md", text="x")
    text = (vault / "Memory" / "Preferences.md").read_text(encoding="utf-8")
    assert text.endswith("- Tea: sencha.\n") and "oolong" not in text and saved["sha256"] != note["sha256"]
    assert "changed since it was read" in stale and "no note" in missing


async def test_commit_records_a_dated_decision_that_project_context_then_shows(live, vault):
    async with connect(live) as client:
        first = await call(client, "knowledge_commit", title="Use WAL mode", body="Readers must not block.", project="Alpha")
        second = await call(client, "knowledge_commit", title="Use WAL mode", body="Again.", project="Alpha")
        session = await call(client, "knowledge_commit", title="Pairing", body="Wrote tests.", project="Alpha", kind="session")
        context = await call(client, "project_context", project="alpha")
    day = time.strftime("%Y-%m-%d")
    assert first["path"] == f"Projects/Alpha/Decisions/{day} Use WAL mode.md" and first["created"]
    assert second["path"] == f"Projects/Alpha/Decisions/{day} Use WAL mode (2).md"
    assert session["path"] == f"Projects/Alpha/Sessions/{day} Pairing.md"
    assert (vault / first["path"]).read_text(encoding="utf-8").startswith("---\ntitle: Use WAL mode\n")
    roles = [(n["role"], n["path"]) for n in context["notes"]]
    assert roles[0] == ("overview", "Projects/Alpha/Overview.md")
    assert ("decision", first["path"]) in roles and ("session", session["path"]) in roles


# --- the index and the catalog --------------------------------------------------------------------------------


async def test_status_projects_notes_and_reindex_describe_the_vault(live, vault):
    async with connect(live) as client:
        status = await call(client, "knowledge_status")
        projects = await call(client, "knowledge_projects")
        listing = await call(client, "list_notes", folder="Projects/Alpha")
        (vault / "Notes" / "Added.md").write_text("# Added\n", encoding="utf-8")
        reindex = await call(client, "knowledge_reindex")
        after = await call(client, "knowledge_status")
        full = await call(client, "knowledge_reindex", full=True)
    assert status["notes"] == 11 and status["vectors_missing"] == 0 and status["model"] == "fake-embedder-v1"
    assert [p["name"] for p in projects["projects"]] == ["Alpha"] and projects["projects"][0]["overview"] == "Projects/Alpha/Overview.md"
    assert listing["total"] == 3 and {"path", "size", "modified", "tier", "project", "title"} <= set(listing["notes"][0])
    # the watcher may index the new note before the reindex call does; either way it is in when reindex returns
    assert reindex["files_added"] + reindex["files_unchanged"] == 12 and after["notes"] == 12
    assert full["files_added"] == 12


async def test_similar_notes_are_nearest_by_meaning_and_exclude_the_note_itself(live):
    async with connect(live) as client:
        similar = await call(client, "similar_notes", path="Notes/Sourdough.md", limit=3)
        unknown = await fails(client, "similar_notes", path="Notes/Nope.md")
    paths = [n["path"] for n in similar["notes"]]
    assert len(paths) == 3 and "Notes/Sourdough.md" not in paths
    assert paths[0] == "Conversations/claude-ai/General/2026-04-10 Bread chat.md"
    first = similar["notes"][0]  # how close, in words an agent can pass on: the same fields as the CLI and the app
    assert set(first) == {"path", "score", "overlap", "closeness", "percentile", "page"} and first["page"] is None
    assert first["closeness"] in CLOSENESS and 0.0 <= first["overlap"] <= 1.0 and 0.0 <= first["percentile"] <= 99.9
    assert "not in the index" in unknown


async def test_bad_arguments_are_tool_errors(live):
    async with connect(live) as client:
        assert "limit" in await fails(client, "knowledge_search", query="x", limit=500)
        assert "query" in await fails(client, "knowledge_search", query="")


# --- never waiting for indexing -------------------------------------------------------------------------------


async def test_the_handshake_and_a_search_do_not_wait_for_indexing(settings):
    embedder = GatedEmbedder()  # indexing cannot progress until the gate opens
    live = LiveIndex(settings, embedder=embedder)
    try:
        started = time.monotonic()
        async with connect(live) as client:
            tools = (await client.list_tools()).tools
            handshake = time.monotonic() - started
            await until(lambda: live.progress().state == "reading notes")
            during = await call(client, "knowledge_search", query="sourdough")
            status = await call(client, "knowledge_status")
            embedder.gate.set()
            await until(lambda: live.progress().state == "idle")
            after = await call(client, "knowledge_search", query="sourdough")
    finally:
        embedder.gate.set()
        live.close()
    assert len(tools) == len(TOOLS) + len(MEMORY_TOOLS) and handshake < 5
    assert during["results"] == [] and "Indexing in progress" in during["notice"] and status["indexing"] == "reading notes"
    assert after["results"][0]["path"] == "Notes/Sourdough.md"


async def test_with_the_real_embedder_a_question_finds_a_note_in_another_language(tmp_path, real_embedder):
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    for name in ("Байкал.md", "Sourdough.md"):
        shutil.copy(FIXTURES / "vault" / "Notes" / name, vault / "Notes" / name)
    settings = load_settings(vault=vault, db_path=tmp_path / "index.db", env={})
    live = LiveIndex(settings, embedder=real_embedder)
    try:
        async with connect(live) as client:
            await until(lambda: live.progress().state == "idle", timeout=60)
            found = await call(client, "knowledge_search", query="How much did the flights to Lake Baikal cost?", limit=1)
    finally:
        live.close()
    assert found["results"][0]["path"] == "Notes/Байкал.md" and found["channels"] == ["bm25", "dense"]


async def test_a_blank_search_is_a_tool_error_that_says_the_query_is_empty(live):
    async with connect(live) as client:
        message = await fails(client, "knowledge_search", query="   ")
    assert "The query is empty" in message
