"""`eval qa`: loading both dataset layouts, scoring citations against gold lines, and the command end to end."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.errors import ConfigError
from rag.eval.qa import load_dataset, run_qa_eval

from .fakes import FakeEmbedder
from .openai_server import FakeOpenAI

NOTES = {
    "Lakes.md": "# Lakes\n\nLake Baikal is the deepest lake in the world.\nIts maximum depth is 1642 metres.\n",
    "Bread.md": "# Bread\n\nSourdough needs a levain. I bake it at 250 degrees.\n",
}


@pytest.fixture
def xquad_dir(tmp_path):
    root = tmp_path / "xq"
    (root / "vault-en").mkdir(parents=True)
    for name, text in NOTES.items():
        (root / "vault-en" / name).write_text(text, encoding="utf-8")
    rows = [
        {
            "id": "1",
            "question": "What is the maximum depth in metres?",
            "answers": [{"text": "1642 metres"}],
            "gold_file": "Lakes.md",
            "gold_line_start": 4,
            "gold_line_end": 4,
            "answer_line": 4,
        },
        {
            "id": "2",
            "question": "At what temperature do I bake sourdough?",
            "answers": [{"text": "250 degrees."}],
            "gold_file": "Bread.md",
            "gold_line_start": 3,
            "gold_line_end": 3,
            "answer_line": 3,
        },
    ]
    (root / "qa.en.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


@pytest.fixture
def scifact_dir(tmp_path):
    root = tmp_path / "sf"
    (root / "vault").mkdir(parents=True)
    (root / "vault" / "1.md").write_text("# Vitamin\n\nVitamin B12 lowers homocysteine.\nIt was a large trial.\n", encoding="utf-8")
    rows = [
        {
            "id": "7",
            "claim": "Vitamin B12 lowers homocysteine.",
            "verdict": "SUPPORT",
            "evidence": [{"file": "1.md", "label": "SUPPORT", "lines": [3]}],
        },
        {"id": "8", "claim": "Cats can fly.", "verdict": "NOT_ENOUGH_INFO", "evidence": []},
    ]
    (root / "claims.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def test_both_layouts_load_with_gold_lines(xquad_dir, scifact_dir):
    vault, items = load_dataset(xquad_dir, lang="en")
    assert vault == xquad_dir / "vault-en" and items[0].gold == (("Lakes.md", 4),) and items[1].answers == ("250 degrees.",)
    vault, items = load_dataset(scifact_dir)
    assert vault == scifact_dir / "vault" and [i.id for i in items] == ["7"], "only SUPPORT/CONTRADICT claims are scored"
    assert items[0].gold == (("1.md", 3),)


def test_an_unknown_layout_names_what_is_expected(tmp_path):
    with pytest.raises(ConfigError, match="qa.ru.jsonl"):
        load_dataset(tmp_path, lang="ru")


def test_extractive_answers_are_scored_against_gold_lines_and_answers(xquad_dir, tmp_path):
    report = run_qa_eval(xquad_dir, lang="en", db_path=tmp_path / "e.db", embedder=FakeEmbedder())
    assert report.questions == 2 and report.mode == "extractive"
    assert report.first_citation_on_gold == 1.0 and report.first_quote_on_gold_line == 1.0
    assert report.answer_contains_gold == 1.0
    assert report.phantom_citations_shown == 0 and report.not_found == 0.0
    assert not (xquad_dir / "vault-en" / ".rag").exists(), "the dataset folder is never written to"


def test_scifact_claims_are_scored_by_evidence_lines(scifact_dir, tmp_path):
    report = run_qa_eval(scifact_dir, db_path=tmp_path / "s.db", embedder=FakeEmbedder())
    assert report.questions == 1 and report.any_citation_on_gold == 1.0 and report.answer_contains_gold is None


def test_eval_qa_command_prints_json_with_every_metric(xquad_dir, tmp_path):
    with FakeOpenAI() as srv:  # the configured embedder is honoured: here an OpenAI-compatible one over real HTTP
        env = {"RAG_EMBEDDER": "openai", "OPENAI_BASE_URL": srv.base_url, "RAG_EMBED_MODEL": "fake-embed", "RAG_CHAT_MODEL": ""}
        args = ["eval", "qa", str(xquad_dir), "--lang", "en", "--db", str(tmp_path / "c.db"), "--limit", "1", "--json"]
        result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
        assert any(r["path"] == "/v1/embeddings" for r in srv.requests)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["questions"] == 1 and data["phantom_citations_shown"] == 0
    assert {"first_citation_on_gold", "answer_contains_gold", "first_quote_on_gold_line", "not_found"} <= set(data)
