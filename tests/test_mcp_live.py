"""The live workspace behind the MCP server: lazy, indexed in the background, re-checked before reads at most
every interval, never making a reader wait for long work. Real files and SQLite; the fake embedder at the seam."""

from __future__ import annotations

import threading
import time

import pytest

from rag.live import LiveIndex

from .fakes import FakeEmbedder
from .waiting import wait_for


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class GatedEmbedder(FakeEmbedder):
    """Blocks while chunking (count_tokens) until `gate` is set: indexing that takes as long as the test wants."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def count_tokens(self, text: str) -> int:
        self.gate.wait(30)
        return super().count_tokens(text)


def test_nothing_is_opened_or_indexed_until_asked(settings):
    live = LiveIndex(settings, embedder=FakeEmbedder())
    assert not settings.db_path.exists() and live.progress().state == "not started"
    live.close()


def test_the_background_indexer_reads_every_note_then_embeds_it(settings, fake_embedder):
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.start()
        wait_for(lambda: live.progress().state == "idle")
        status = live.workspace().status()
        assert status["notes"] == 11 and status["vectors_missing"] == 0 and status["chunks"] > 0


def test_reads_check_for_changes_at_most_once_per_interval(settings, vault, fake_embedder):
    clock = Clock()
    with LiveIndex(settings, embedder=fake_embedder, clock=clock, interval=10.0) as live:
        live.reindex()
        (vault / "Notes" / "Fresh.md").write_text("# Fresh\n\nThe word axolotl.\n", encoding="utf-8")
        clock.now += 5
        assert not live.fresh().retriever.keyword("axolotl").hits  # checked 5 s ago: not again yet
        clock.now += 5
        assert live.fresh().retriever.keyword("axolotl").hits[0].chunk.path == "Notes/Fresh.md"


def test_a_read_does_not_wait_for_a_running_indexer(settings):
    embedder = GatedEmbedder()
    with LiveIndex(settings, embedder=embedder) as live:
        live.start()
        wait_for(lambda: live.progress().state == "reading notes")
        started = time.monotonic()
        ws = live.fresh()  # the check is skipped while the indexer holds the index: no waiting
        assert ws.retriever.keyword("sourdough").hits == () and time.monotonic() - started < 2
        embedder.gate.set()
        wait_for(lambda: live.progress().state == "idle")
        assert live.fresh().retriever.keyword("sourdough").hits


def test_a_change_is_indexed_at_once_when_the_indexer_is_idle(settings, vault, fake_embedder):
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.start()
        wait_for(lambda: live.progress().state == "idle")
        (vault / "Notes" / "New.md").write_text("# New\n\nCapybara facts.\n", encoding="utf-8")
        assert live.changed() is True
        assert live.workspace().retriever.keyword("capybara").hits
        wait_for(lambda: live.workspace().status()["vectors_missing"] == 0)


def test_an_embedder_failure_keeps_keyword_search_and_is_reported(settings, fake_embedder):
    fake_embedder.fail = True
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.start()
        wait_for(lambda: live.progress().state == "idle")
        assert "fake embedder is down" in live.progress().error
        assert live.fresh().retriever.keyword("sourdough").hits


def test_a_full_reindex_reads_every_note_again_and_reuses_vectors(settings, fake_embedder):
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.start()
        wait_for(lambda: live.progress().state == "idle")
        embedded = len(fake_embedder.embedded)
        report = live.reindex(full=True)
        assert report.files_added == 11 and report.vectors_missing == 0
        time.sleep(0.2)
        assert len(fake_embedder.embedded) == embedded


def test_after_close_the_workspace_cannot_be_reopened(settings, fake_embedder):
    live = LiveIndex(settings, embedder=fake_embedder)
    live.workspace()
    live.close()
    with pytest.raises(Exception, match="shutting down"):
        live.workspace()
