"""Filters inside retrieval: a filtered search ranks every note that passes, even one far below the unfiltered top
100 — through the retriever, the app's note search and the MCP tool. Real SQLite and files; fake embedder."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from rag.agents.mcp_server import build_server
from rag.config import load_settings
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.search.by_note import search_notes
from rag.search.filters import Filters
from rag.workspace import Workspace

pytestmark = pytest.mark.both_backends  # the index's behaviour, in SQLite and in PostgreSQL

QUERY = "greenhouse humidity sensor"
BURIED = "Projects/Alpha/Meeting notes.md"


@pytest.fixture
def crowded(tmp_path, fake_embedder):
    """150 notes that match the query strongly, and one project note that mentions it once among other things."""
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    for i in range(150):
        (vault / "Notes" / f"Sensor log {i:03}.md").write_text(
            f"# Sensor log {i}\n\nGreenhouse humidity sensor reading {i}: the greenhouse humidity sensor was fine.\n", encoding="utf-8"
        )
    (vault / "Projects" / "Alpha").mkdir(parents=True)
    filler = " ".join(f"agenda item {w}" for w in ("budget", "hiring", "roadmap", "offsite", "pricing", "support") * 8)
    (vault / BURIED).write_text(f"# Meeting notes\n\n{filler}. Someone mentioned the humidity sensor once.\n", encoding="utf-8")
    settings = load_settings(vault=vault, db_path=tmp_path / "index.db", env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        yield ws


def test_a_project_note_below_the_unfiltered_top_100_is_found_by_its_filter(crowded):
    unfiltered = [h.chunk.path for h in crowded.retriever.hybrid(QUERY, 100).hits]
    assert BURIED not in unfiltered  # the premise: post-filtering the top 100 could never find it
    filtered = crowded.retriever.hybrid(QUERY, 5, filters=Filters(projects=("Alpha",)))
    assert [h.chunk.path for h in filtered.hits] == [BURIED]
    assert filtered.hits[0].bm25_rank == 1 and filtered.hits[0].dense_rank == 1  # both channels ranked it, filtered
    assert crowded.retriever.keyword(QUERY, 5, filters=Filters(folders=("Projects",))).hits[0].chunk.path == BURIED
    assert crowded.retriever.dense(QUERY, 5, filters=Filters(tiers=(2,), folders=("Projects/Alpha",))).hits[0].chunk.path == BURIED


def test_the_app_note_search_and_an_empty_filter(crowded):
    found = search_notes(crowded.retriever, QUERY, Filters(projects=("Alpha",)))
    assert [m.path for m in found.notes] == [BURIED]
    assert search_notes(crowded.retriever, QUERY, Filters(projects=("Nobody",))).notes == ()
    assert len(search_notes(crowded.retriever, QUERY).notes) == 10


def test_the_mcp_search_tool_filters_inside_retrieval(crowded, fake_embedder):
    live = LiveIndex(crowded.settings, embedder=fake_embedder)

    async def search():
        async with Client(build_server(Knowledge(live)), mode="legacy") as client:
            result = await client.call_tool("knowledge_search", {"query": QUERY, "limit": 3, "project": "Alpha"})
            return result.structured_content["results"]

    try:
        results = anyio.run(search)
    finally:
        live.close()
    assert [r["path"] for r in results] == [BURIED]
