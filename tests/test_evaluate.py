"""Retrieval evaluation: metrics reproduce hand-computed values; the harness runs the real pipeline end to end."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.eval import retrieval as evaluate


def test_ndcg_recall_and_mrr_match_hand_computed_values():
    relevant = {"a": 1, "c": 2}
    ranked = ["b", "c", "a", "d"]
    # DCG = 2/log2(3) + 1/log2(4); IDCG = 2/log2(2) + 1/log2(3)
    expected = (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))
    assert evaluate.ndcg_at(ranked, relevant) == pytest.approx(expected)
    assert evaluate.recall_at(ranked, relevant, 1) == 0.0
    assert evaluate.recall_at(ranked, relevant, 2) == 0.5
    assert evaluate.recall_at(ranked, relevant, 3) == 1.0
    assert evaluate.mrr_at(ranked, relevant) == 0.5
    assert evaluate.mrr_at(["x"] * 10 + ["a"], relevant) == 0.0  # beyond the cutoff


def test_score_run_averages_over_queries():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": ["a"], "q2": ["x", "b"]}
    assert evaluate.score_run(run, qrels)["mrr@10"] == pytest.approx(0.75)


def test_chunk_hits_map_to_documents_at_their_best_chunk():
    mapping = {"d1.md": "d1", "d2.md": "d2"}
    assert evaluate.documents(["d2.md", "d1.md", "d2.md", "other.md"], mapping) == ["d2", "d1"]


@pytest.fixture
def tiny_dataset(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    docs = [
        {"id": "bread", "title": "Sourdough", "text": "Sourdough bread rises with a levain and bakes at 250 degrees."},
        {"id": "lake", "title": "Байкал", "text": "Байкал — самое глубокое озеро в мире, его глубина 1642 метра."},
        {"id": "db/1", "title": "SQLite", "text": "SQLite in WAL mode allows readers during a write transaction."},
    ]
    queries = [
        {"id": "q1", "text": "how deep is lake Baikal"},
        {"id": "q2", "text": "какая глубина у озера Байкал"},
        {"id": "q3", "text": "sqlite write-ahead log readers"},
        {"id": "q4", "text": "bread levain"},
    ]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs), encoding="utf-8")
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in queries), encoding="utf-8")
    qrels = "query-id\tcorpus-id\tscore\nq1\tlake\t1\nq2\tlake\t1\nq3\tdb/1\t1\nq4\tbread\t1\n"
    (folder / "qrels.tsv").write_text(qrels, encoding="utf-8")
    return folder


def test_eval_retrieval_on_a_tiny_corpus_ranks_every_relevant_document_first(tiny_dataset, tmp_path):
    db = tmp_path / "kept" / "index.db"
    result = CliRunner().invoke(cli, ["eval", "retrieval", str(tiny_dataset), "--db", str(db), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dataset"] == "tiny" and data["queries"] == 4
    assert set(data["channels"]) == {"bm25", "dense", "crossing", "lexicon", "tokens", "hybrid"}
    assert data["channels"]["tokens"]["mrr@10"] == 0.25  # the English question's tokens find «Байкал» too
    assert data["channels"]["crossing"]["mrr@10"] == 0.25  # "lake Baikal" finds «Байкал» by its sound; the others are same-script
    assert data["channels"]["dense"]["mrr@10"] == 1.0
    assert data["channels"]["hybrid"]["ndcg@10"] == 1.0
    assert (db.parent / "index-vault" / "db_1.md").is_file()
    again = json.loads(CliRunner().invoke(cli, ["eval", "retrieval", str(tiny_dataset), "--db", str(db), "--json", "--mode", "bm25"]).stdout)
    assert set(again["channels"]) == {"bm25"}


def test_eval_retrieval_on_a_folder_without_data_says_what_is_missing(tmp_path):
    result = CliRunner().invoke(cli, ["eval", "retrieval", str(tmp_path)])
    assert result.exit_code == 1 and "corpus.jsonl" in result.output
