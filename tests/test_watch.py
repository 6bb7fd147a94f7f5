"""The watcher: real files, real watchdog events, real SQLite. Events are debounced and coalesced into one sync."""

from __future__ import annotations

import os
import time

import pytest

from rag.index.watch import Watcher
from rag.workspace import Workspace

from .test_sync import consistency
from .waiting import wait_for


class Recorder:
    """apply() for the watcher: one sync per call, every report kept."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.reports = []

    def __call__(self) -> bool:
        self.reports.append(self.ws.sync())
        return True

    def reads(self) -> int:
        return sum(r.files_added + r.files_updated for r in self.reports)


@pytest.fixture
def watched(workspace):
    workspace.sync()
    recorder = Recorder(workspace)
    watcher = Watcher(workspace.settings, recorder, debounce=0.6).start()
    time.sleep(0.2)  # the observer's inotify watches are in place
    yield workspace, watcher, recorder
    watcher.stop()


def settled(watcher: Watcher, recorder: Recorder, flushes: int = 1):
    return lambda: watcher.flushes >= flushes and len(recorder.reports) >= flushes and not watcher.pending()


def test_a_burst_of_saves_is_one_re_read_after_typing_stops(watched, vault, fake_embedder):
    ws, watcher, recorder = watched
    note = vault / "Notes" / "Typing.md"
    for i in range(15):
        note.write_text(f"# Typing\n\nDraft {i} about the quetzal bird.\n", encoding="utf-8")
        time.sleep(0.02)
    wait_for(settled(watcher, recorder))
    assert recorder.reads() == 1 and watcher.flushes == 1
    hits = ws.retriever.keyword("quetzal").hits
    assert hits and "Draft 14" in hits[0].chunk.text
    embedded = [t for t in fake_embedder.embedded if "quetzal" in t and t != "quetzal"]  # texts, not the word alone
    assert len(embedded) == 1 and "Draft 14" in embedded[0]  # only the final text was embedded


def test_a_note_created_and_deleted_before_the_quiet_period_costs_nothing(watched, vault, fake_embedder):
    ws, watcher, recorder = watched
    fake_embedder.embedded.clear()
    scratch = vault / "Scratch.md"
    scratch.write_text("# Scratch\n\nEphemeral wombat.\n", encoding="utf-8")
    scratch.unlink()
    wait_for(settled(watcher, recorder))
    assert recorder.reads() == 0 and fake_embedder.embedded == []
    assert ws.store.file_info("Scratch.md") is None


def test_rename_and_folder_move_reuse_every_vector(watched, vault, fake_embedder):
    ws, watcher, recorder = watched
    fake_embedder.embedded.clear()
    (vault / "Archive").mkdir()
    os.rename(vault / "Notes" / "SQLite.md", vault / "Archive" / "SQLite databases.md")
    os.rename(vault / "Projects", vault / "Work")
    wait_for(lambda: ws.store.file_info("Archive/SQLite databases.md") is not None and ws.store.file_info("Work/Alpha/Overview.md") is not None)
    wait_for(settled(watcher, recorder))
    assert fake_embedder.embedded == []
    assert ws.store.chunks_of("Notes/SQLite.md") == [] and ws.store.file_info("Projects/Alpha/Overview.md") is None
    state = consistency(ws.store.path)
    assert state["chunks"] == state["fts"] and state["no_file"] == 0 and state["orphan_vectors"] == 0
    assert all((vault / p).is_file() for p in state["paths"])


def test_an_editor_that_saves_through_a_temp_file_and_rename_is_followed(watched, vault):
    ws, watcher, recorder = watched
    note = vault / "Notes" / "Sourdough.md"
    text = note.read_text(encoding="utf-8")
    for i, temp in enumerate((vault / "Notes" / ".Sourdough.md.swp", vault / "Notes" / "Sourdough.md~")):
        temp.write_text(text + f"\n\nSaved {i} with a pangolin.\n", encoding="utf-8")
        os.replace(temp, note)  # vim-, VS Code- and Obsidian-style atomic save
    wait_for(lambda: ws.retriever.keyword("pangolin").hits)
    wait_for(settled(watcher, recorder))
    assert "Saved 1" in ws.retriever.keyword("pangolin").hits[0].chunk.text
    assert not any(p.endswith(("~", ".swp")) for p in consistency(ws.store.path)["paths"])


def test_a_failed_apply_is_retried_after_the_next_quiet_period(workspace, vault):
    calls = []

    def busy_once() -> bool:
        calls.append(time.monotonic())
        return len(calls) > 1

    with Watcher(workspace.settings, busy_once, debounce=0.2) as watcher:
        time.sleep(0.2)
        (vault / "Busy.md").write_text("# Busy\n", encoding="utf-8")
        wait_for(lambda: len(calls) == 2 and not watcher.pending())
    assert calls[1] - calls[0] >= 0.2


def test_saved_note_is_found_by_keyword_then_by_meaning_with_the_real_embedder(settings, vault, real_embedder):
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        with Watcher(settings, Recorder(ws), debounce=0.3):
            time.sleep(0.2)
            (vault / "Notes" / "Kiwi.md").write_text("# Kiwi\n\nThe kiwi is a flightless bird from New Zealand.\n", encoding="utf-8")
            wait_for(lambda: ws.retriever.keyword("flightless").hits, timeout=30)
            wait_for(lambda: any(h.chunk.path == "Notes/Kiwi.md" for h in ws.retriever.dense("a bird that cannot fly", 3).hits), timeout=60)


# --- the live workspace (MCP server) follows the vault through the watcher ------------------------------------


def test_the_live_indexer_indexes_a_saved_note_without_any_read_asking(settings, vault, fake_embedder):
    from rag.live import LiveIndex

    with LiveIndex(settings.replace(watch_debounce=0.2), embedder=fake_embedder, interval=3600) as live:
        live.start()
        wait_for(lambda: live.progress().state == "idle" and live._watcher is not None)
        (vault / "Notes" / "Gecko.md").write_text("# Gecko\n\nGeckos lick their eyes.\n", encoding="utf-8")
        ws = live.workspace()  # not fresh(): the hourly check is not due, only the watcher can index it
        wait_for(lambda: ws.retriever.keyword("gecko").hits)
        wait_for(lambda: ws.status()["vectors_missing"] == 0)


def test_a_down_embedder_is_retried_with_backoff_and_the_status_says_so(settings, fake_embedder, monkeypatch):
    from rag import live as live_module
    from rag import live_indexer

    monkeypatch.setattr(live_indexer, "RETRY_FIRST", 0.3)
    fake_embedder.fail = True
    with live_module.LiveIndex(settings, embedder=fake_embedder) as live:
        live.start()
        wait_for(lambda: "Retrying in" in (live.progress().error or ""))
        assert "fake embedder is down" in live.progress().error
        assert live.workspace().status()["vectors_missing"] > 0
        fake_embedder.fail = False  # back up: the next retry fills in the vectors, nothing else needs to happen
        wait_for(lambda: live.workspace().status()["vectors_missing"] == 0)
        wait_for(lambda: live.progress().error is None)


def test_the_web_apps_live_index_follows_a_saved_note(settings, vault, fake_embedder):
    from rag.live import LiveIndex

    with LiveIndex(settings.replace(watch_debounce=0.2), embedder=fake_embedder, interval=3600) as live:
        live.start()
        wait_for(lambda: live.progress().state == "idle" and live._watcher is not None)
        (vault / "Notes" / "Tapir.md").write_text("# Tapir\n\nA tapir swims well.\n", encoding="utf-8")
        wait_for(lambda: live.workspace().retriever.keyword("tapir").hits)  # no page asked for a check
        wait_for(lambda: live.status()["vectors_missing"] == 0)
