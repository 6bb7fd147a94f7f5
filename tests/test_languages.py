"""Mixed-language vaults: each script's offset is removed from its vectors, so a question finds passages in the
other language. A synthetic matrix for the rule itself; the demo vault (English + Russian notes, cross-language
questions) with the real default embedder for what a person sees."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from rag import sentences
from rag.config import load_settings
from rag.vectors import MIN_SCRIPT_ROWS, align_scripts
from rag.workspace import Workspace

DEMO = Path(__file__).resolve().parent.parent / "examples"


def test_script_is_the_majority_of_letters():
    assert sentences.script("Купил SSD на 2 TB для NAS, очень доволен") == "cyrillic"
    assert sentences.script("The ESP32 reads ёмкостный sensor values") == "latin"
    assert sentences.script("2026-05-02 12:00 → 35 %") is None


def _nz(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_each_script_is_moved_onto_the_common_centre_so_the_meaning_decides():
    rng = np.random.default_rng(0)
    topics = _nz(rng.standard_normal((2 * MIN_SCRIPT_ROWS, 64)))
    latin, cyrillic = 3 * _nz(rng.standard_normal((1, 64))), 3 * _nz(rng.standard_normal((1, 64)))
    n = MIN_SCRIPT_ROWS
    # Latin texts about topics 0..n-1, Cyrillic texts about topics n..2n-1
    matrix = _nz(np.vstack([topics[:n] + latin, topics[n:] + cyrillic])).astype(np.float32)
    scripts = np.array([1] * n + [2] * n, np.int8)
    question = _nz(topics[n + 3 : n + 4] + latin)[0].astype(np.float32)  # a Latin question about a Cyrillic text
    assert int(np.argmax(matrix @ question)) < n  # as embedded: a Latin text wins by language alone
    aligned = align_scripts(matrix, scripts)
    assert int(np.argmax(aligned @ question)) == n + 3
    assert np.allclose(np.linalg.norm(aligned, axis=1), 1.0, atol=1e-5)


def test_one_script_or_a_small_minority_leaves_the_vectors_as_they_are():
    rng = np.random.default_rng(1)
    matrix = _nz(rng.standard_normal((50, 16))).astype(np.float32)
    assert align_scripts(matrix, np.ones(50, np.int8)) is matrix
    few = np.array([1] * 45 + [2] * 5, np.int8)
    assert align_scripts(matrix, few) is matrix  # 5 Cyrillic texts: their mean is their topic, not their language
    assert align_scripts(matrix, np.array([1] * 25 + [0] * 25, np.int8)) is matrix  # no letters is not a language


def _demo_questions() -> list[tuple[str, str]]:
    rows = [line for line in (DEMO / "demo-questions.md").read_text(encoding="utf-8").splitlines() if re.match(r"\| \d+ \|", line)]
    return [(row.split("|")[2].strip(), re.search(r"`([^`]+\.md)`", row).group(1)) for row in rows]


@pytest.fixture(scope="module")
def demo(tmp_path_factory, real_embedder):
    root = tmp_path_factory.mktemp("demo")
    shutil.copytree(DEMO / "demo-vault", root / "vault")
    settings = load_settings(vault=root / "vault", db_path=root / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        yield ws


def test_every_demo_question_finds_its_note_in_either_language(demo):
    """Twelve questions, four of them asked in the other language than their only source note."""
    ranks = {}
    for question, path in _demo_questions():
        notes = list(dict.fromkeys(h.chunk.path for h in demo.retriever.hybrid(question, 10).hits))
        ranks[question] = notes.index(path) + 1 if path in notes else None
    assert len(ranks) == 12
    assert all(r is not None and r <= 5 for r in ranks.values()), ranks  # within the notes an answer is built from
    assert sum(r == 1 for r in ranks.values()) >= 9, ranks


def test_a_cross_language_question_gets_an_extractive_answer_from_the_other_language(demo):
    from rag.answer import ask

    answer = ask(demo, "Which internet provider did we choose for the new flat, and how fast is it?")
    assert not answer.not_found and "500" in answer.text
    assert any(c.path == "Projects/Переезд/Notes/Чеклист переезда.md" for c in answer.citations)
