"""The app's pure helpers (no Streamlit): citation links, passages, obsidian URLs, grouped and filtered search,
background indexing, streamed calls and the settings panel's choices. Real files and SQLite; fake embedder."""

from __future__ import annotations

import threading

import pytest

from rag.config import default_index_path
from rag.errors import ConfigError, RagError, VaultError
from rag.knowledge import Knowledge
from rag.live import LiveIndex, Progress
from rag.search.by_note import Filters, filter_choices, search_notes
from rag.search.presentation import excerpt, why_found
from rag.web import untrusted
from rag.web.ui_render import (
    answer_html,
    obsidian_url,
    parse_cite_href,
    passage,
    passage_html,
)
from rag.web.ui_stream import StreamedCall
from rag.web.webapp import Choices, apply_choices, choices_of, index_key
from tests.waiting import wait_for

# --- rendering ---------------------------------------------------------------------------------------------------


def test_valid_citations_become_links_the_app_catches_and_unknown_ones_stay_text():
    html = answer_html("Bake at 250 °C [S1][S2], costs $5 [S7].", ["S1", "S2"], turn=3)
    assert html == '<div class="rag-answer"><p>Bake at 250 °C <a href="#cite-3-S1">[S1]</a><a href="#cite-3-S2">[S2]</a>, costs $5 [S7].</p>\n</div>'


def test_a_citation_link_names_its_turn_and_source():
    assert parse_cite_href("#cite-3-S12|1712345") == (3, "S12")
    assert parse_cite_href("cite-0-S1") == (0, "S1")
    assert parse_cite_href("#elsewhere") is None and parse_cite_href(None) is None


def test_obsidian_url_encodes_the_vault_name_and_the_path():
    from pathlib import Path

    url = obsidian_url(Path("/home/me/My Vault"), "Notes/Поездка на Байкал.md")
    assert (
        url
        == "obsidian://open?vault=My%20Vault&file=Notes%2F%D0%9F%D0%BE%D0%B5%D0%B7%D0%B4%D0%BA%D0%B0%20%D0%BD%D0%B0%20%D0%91%D0%B0%D0%B9%D0%BA%D0%B0%D0%BB.md"
    )


def test_why_found_names_the_rank_in_each_channel():
    assert why_found(2, 1) == "keyword #2 · meaning #1"
    assert why_found(None, 4) == "meaning #4 only"
    assert why_found(None, None) == "boosted (curated note)"


def test_note_text_is_escaped_for_markdown_and_excerpts_are_cut_at_a_word():
    assert untrusted.text("**a** [b](c) $5 :red[x]") == "\\*\\*a\\*\\* \\[b\\]\\(c\\) \\$5 \\:red\\[x\\]"
    assert excerpt("one two three four", 9) == "one two …"


def test_a_passage_shows_the_cited_lines_marked_inside_their_surroundings(vault):
    text = (vault / "Notes/Sourdough.md").read_text(encoding="utf-8")
    cited = "\n".join(text.split("\n")[13:15])  # lines 14-15
    p = passage(vault, "Notes/Sourdough.md", 14, 15, cited, around=2, quoted_lines=[14])
    assert not p.changed
    assert [(line.number, line.cited, line.quoted) for line in p.lines] == [
        (12, False, False),
        (13, False, False),
        (14, True, True),
        (15, True, False),
        (16, False, False),
        (17, False, False),
    ]
    assert p.lines[2].text.startswith("I keep the dough at 72% hydration")


def test_a_passage_from_a_changed_note_shows_the_text_as_it_was_cited(vault):
    p = passage(vault, "Notes/Sourdough.md", 13, 13, "Text that is no longer there.")
    assert p.changed and [line.text for line in p.lines] == ["Text that is no longer there."]
    assert passage(vault, "Notes/Gone.md", 1, 1, "x").changed


def test_passage_html_escapes_note_text():
    from rag.web.ui_render import Passage, PassageLine

    html = passage_html(Passage("a.md", 1, 1, (PassageLine(1, "<script>alert(1)</script>", True),), False))
    assert "<script>" not in html and "&lt;script&gt;" in html and "rag-cited" in html


# --- search ------------------------------------------------------------------------------------------------------


def test_search_results_are_grouped_by_note_best_first_with_at_most_n_passages(workspace):
    workspace.sync()
    results = search_notes(workspace.retriever, "sqlite wal fts5 bm25", passages=1)
    paths = [n.path for n in results.notes]
    assert len(paths) == len(set(paths)) and paths[0] == "Notes/SQLite.md"
    assert all(len(n.hits) == 1 for n in results.notes)
    assert [n.score for n in results.notes] == sorted((n.score for n in results.notes), reverse=True)


def test_filters_admit_notes_by_folder_tag_project_and_tier(workspace):
    workspace.sync()
    info = workspace.store.file_info("Notes/Sourdough.md")
    assert Filters(folders=("Notes",)).admits(info) and not Filters(folders=("Projects",)).admits(info)
    assert Filters(tags=("#Baking",)).admits(info) and Filters(tags=("хлеб",)).admits(info)
    assert not Filters(projects=("Alpha",)).admits(info)
    assert Filters(tiers=(1,)).admits(info) and not Filters(tiers=(2,)).admits(info)
    assert not Filters(folders=("Not",)).admits(info)  # a folder, not a string prefix


def test_filter_choices_list_every_folder_tag_project_and_tier(workspace):
    workspace.sync()
    choices = filter_choices(workspace.store)
    assert {"Notes", "Projects", "Projects/Alpha", "Projects/Alpha/Notes"} <= set(choices.folders)
    assert "baking" in choices.tags and "путешествия" in choices.tags
    assert choices.projects == ("Alpha",) and choices.tiers == (1, 2)


def test_a_narrow_filter_still_finds_its_notes(workspace):
    workspace.sync()
    results = search_notes(workspace.retriever, "hydration bread", Filters(projects=("Alpha",)))
    assert results.notes and all(n.info.project == "Alpha" for n in results.notes)


# --- background indexing and streamed calls ----------------------------------------------------------------------


def test_the_live_index_indexes_in_the_background_and_reports_each_change(settings, fake_embedder):
    seen: list[Progress] = []
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.subscribe(seen.append)
        live.start()
        wait_for(lambda: live.progress().state == "idle" and live.status()["vectors_missing"] == 0)
        state = live.progress()
        assert state.error is None and state.changes >= 2  # notes, then vectors
        assert any(p.last_report and p.last_report.files_added == 11 for p in seen)
        assert {p.state for p in seen} >= {"opening", "reading notes", "embedding", "idle"}
        before = live.status()
        assert live.status() is before  # cached until the index changes
        (settings.vault / "Notes" / "Okapi.md").write_text("# Okapi\n\nAn okapi is shy.\n", encoding="utf-8")
        live.check_soon(now=True)
        wait_for(lambda: live.status()["notes"] == 12)


def test_a_reindex_that_finds_a_new_note_refreshes_the_cached_status(settings, fake_embedder):
    """No indexer thread and no watcher: the reindex call alone took the note in, so the status must say so (it is
    cached until the index changes; the MCP `knowledge_reindex` then `knowledge_status` saw the old count)."""
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.reindex()
        assert live.status()["notes"] == 11
        (settings.vault / "Notes" / "Okapi.md").write_text("# Okapi\n\nAn okapi is shy.\n", encoding="utf-8")
        assert live.reindex().files_added == 1 and live.status()["notes"] == 12


def test_the_live_index_reports_embedding_failures_with_the_fix(settings, fake_embedder):
    fake_embedder.fail = True
    with LiveIndex(settings, embedder=fake_embedder) as live:
        live.start()
        wait_for(lambda: live.progress().error is not None)
        assert "python -m rag index" in live.progress().error and live.status()["notes"] == 11


def test_searching_works_while_indexing_runs(settings, fake_embedder):
    gate = threading.Event()
    original = fake_embedder.embed_passages

    def slow(texts):
        gate.wait(10)
        return original(texts)

    fake_embedder.embed_passages = slow
    with LiveIndex(settings, embedder=fake_embedder) as live:
        knowledge = Knowledge(live, reads_wait=False)
        live.start()
        wait_for(lambda: live.progress().state == "embedding")
        result = knowledge.search("hydration", 3)
        assert result.hits and result.hits[0].chunk.path == "Notes/Sourdough.md" and result.channels == ("bm25",)
        gate.set()
        wait_for(lambda: live.progress().state == "idle")
        assert live.progress().error is None


def test_closing_the_live_index_leaves_no_thread_and_no_open_index(settings, fake_embedder):
    before = set(threading.enumerate())
    live = LiveIndex(settings.replace(watch_debounce=0.1), embedder=fake_embedder).start()
    wait_for(lambda: live.progress().state == "idle" and live._watcher is not None)
    assert len(set(threading.enumerate()) - before) >= 2  # the indexer and the watcher's threads
    live.close()
    wait_for(lambda: not [t for t in set(threading.enumerate()) - before if t.is_alive()], timeout=10)
    assert live._ws is None


def test_a_streamed_call_yields_pieces_in_order_then_its_result():
    call = StreamedCall(lambda emit, stage: [emit(p) for p in ("a", "", "b", "c")] and "done")
    assert list(call) == ["a", "b", "c"] and call.result() == "done"
    assert call.first_piece is not None and call.finished >= call.first_piece


def test_a_streamed_call_reports_stages_in_the_reading_thread_between_pieces():
    seen: list[str] = []

    def work(emit, stage):
        stage("searching")
        stage("generating")
        emit("a")
        stage("checking")
        return "done"

    call = StreamedCall(work, on_stage=lambda name: seen.append(f"{name}@{threading.current_thread().name}"))
    assert list(call) == ["a"] and call.result() == "done"
    me = threading.current_thread().name
    assert seen == [f"searching@{me}", f"generating@{me}", f"checking@{me}"]


def test_a_streamed_call_re_raises_the_error_of_the_call():
    def boom(emit, stage):
        emit("partial")
        raise RagError("The endpoint failed. Start it.")

    call = StreamedCall(boom)
    assert list(call) == ["partial"]
    with pytest.raises(RagError, match="Start it"):
        call.result()


# --- settings ------------------------------------------------------------------------------------------------------


def test_choices_round_trip_and_a_new_vault_gets_its_own_index(settings, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    same = apply_choices(settings, choices_of(settings))
    assert same == settings
    moved = apply_choices(settings, choices_of(settings).__class__(**{**choices_of(settings).__dict__, "vault": str(other)}))
    assert moved.vault == other.resolve() and moved.db_path == default_index_path(other.resolve())


def test_a_server_index_stays_with_its_vault_and_another_vault_gets_a_local_index(settings, tmp_path):
    server = settings.replace(db_url="postgresql://ann@db.example/notes")
    assert apply_choices(server, choices_of(server)).db_url == server.db_url
    other = tmp_path / "other"
    other.mkdir()
    moved = apply_choices(server, Choices(**{**choices_of(server).__dict__, "vault": str(other)}))
    assert moved.db_url is None and moved.db_path == default_index_path(other.resolve())


def test_invalid_choices_are_refused_with_the_fix(settings, tmp_path):
    base = choices_of(settings).__dict__
    with pytest.raises(VaultError, match="does not exist"):
        apply_choices(settings, Choices(**{**base, "vault": str(tmp_path / "missing")}))
    with pytest.raises(VaultError, match="empty"):
        apply_choices(settings, Choices(**{**base, "vault": "  "}))
    with pytest.raises(ConfigError, match="endpoint URL, or OPENAI_API_KEY"):
        apply_choices(settings, Choices(**{**base, "embedder": "openai", "endpoint": ""}))
    with pytest.raises(ConfigError, match="context_max_notes must be between 1 and 100, got 0"):
        apply_choices(settings, Choices(**{**base, "max_notes": 0}))


def test_answer_settings_share_one_index_and_the_api_key_is_only_hashed_in_its_key(settings):
    assert index_key(settings) == index_key(settings.replace(chat_model="m", context_max_notes=2))
    assert index_key(settings) != index_key(settings.replace(embedder="openai"))
    assert "sk-secret" not in index_key(settings.replace(openai_api_key="sk-secret"))


def test_a_session_sees_its_own_answer_settings_over_the_shared_index(settings, fake_embedder):
    with LiveIndex(settings, embedder=fake_embedder) as live:
        mine = live.workspace().with_settings(settings.replace(context_max_notes=1))
        shared = live.workspace()
        assert mine.settings.context_max_notes == 1 and shared.settings.context_max_notes == settings.context_max_notes
        assert mine.store is shared.store and mine.retriever is shared.retriever
        view = Knowledge(live).for_settings(settings.replace(context_max_notes=1))
        assert view.settings.context_max_notes == 1 and view._ws().store is shared.store


def test_snippets_are_plain_text_around_the_matched_words_and_titles_are_not_repeated():
    from rag.search.presentation import heading_without_title, plain_text, snippet
    from rag.text import stemming

    note = "## Setup\n\n| Key | Value |\n|---|---|\n| **timeout** | 5000 ms |\n\nSee [[SQLite WAL|WAL notes]] and `PRAGMA`.\n- item"
    assert plain_text(note) == "Setup · Key · Value · timeout · 5000 ms · See WAL notes and PRAGMA. item"
    assert plain_text("Connect:\n```python\nconn = connect()\n```\nDone.") == "Connect: conn = connect() Done."
    assert plain_text("> [!note] Лучшее место\n> [!warning]- Careful") == "Лучшее место Careful"  # Obsidian callouts
    text, spans = snippet(note, stemming.query_terms("timeouts"))
    assert [text[a:b] for a, b in spans] == ["timeout"]
    long = "Intro words. " * 60 + "The **busy timeout** is 5000 ms."
    text, spans = snippet(long, stemming.query_terms("busy timeout"), limit=120)
    assert text.startswith("… ") and len(text) <= 124 and [text[a:b] for a, b in spans] == ["busy", "timeout"]
    assert heading_without_title("Use SQLite for logs › Decision", "Use SQLite for logs", "D/2026-03-14 x.md") == "Decision"
    assert heading_without_title("2026-03-14 Use SQLite › Decision", None, "D/2026-03-14 Use SQLite.md") == "Decision"
    assert heading_without_title("Sourdough › Hydration", "Bread", "Notes/Bread.md") == "Sourdough › Hydration"
