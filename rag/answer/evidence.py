"""A claim's evidence: the sentence, two sentences, table row or rows of a source that states it, found among every
source of the frozen context, and how likely it is that it states it — one learned verdict over what the check measures.

For each window of each passage (`support`'s units: sentences, rows, code lines; one, two in a row, or a run of a
table's rows that lists what the claim lists: `support.listed`) the features
are the rules' signals — the claim's specifics found there with what they count (`support.found`), its names in the
sentence itself rather than only in the heading, the share of its words, a negation on one side only — and two
models' readings: the claim–sentence cosine (e5, from the index's stored sentence vectors) and the pair scorer's
logit (rag/embed/pairs.py, a cross-encoder that reads both together), for the windows the words already rank near
the top. A logistic regression fitted by bench/verdict_fit.py on claims labelled by careful readers
(`verdict_weights.json`; nothing is fitted at run time) turns them into a probability; a claim is supported by the
best window at or above its threshold. A words-only weight set serves where the models cannot run.

Pure apart from the two models (through `TextVectors` and `PairScorer`); knows nothing about statuses or the answer.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.answer import support
from rag.answer.claim_view import ClaimView
from rag.answer.passage_units import Passage
from rag.answer.specifics import content_words, occurs
from rag.errors import EmbedderError

log = logging.getLogger(__name__)

WEIGHTS = Path(__file__).with_name("verdict_weights.json")
READ_BY_MODELS = 8  # windows per claim that the models read (the best by words and specifics)
FEATURES = (
    "missing",  # share of the claim's specifics not in the window (a number counting something else counts missing)
    "any_missing",
    "names_in_heading_only",  # share of its names that the window's sentences do not hold (the heading does)
    "counts_other",  # a number of the claim is in the window but counts something else there
    "overlap",  # share of its content words in the window with the heading
    "overlap_sentences",  # … in the window's sentences alone
    "negation_differs",  # a negation on one side only
    "two_sentences",
    "row",  # a table row
    "code_line",
    "across",  # claim and window in different scripts
    "claim_words",  # log(1 + its content words)
    "overlap_said",  # share of the words it says beyond the question (`claim_view.beyond_question`) in the window
    "refers_back",  # it opens with "this", «это», "they" …: its subject is in the sentence before it
    "refers_elsewhere",  # … and the window is not next to where the claim before it was found
    "rules",  # the rules' verdict (`support.judge`) lets the passage support it, in this window
    "cos",  # e5 cosine of the claim and the window's closest sentence (0 when not measured)
    "cos_measured",
    "across_cos",
    "pair",  # the pair scorer's logit (0 when not read)
    "pair_read",
    "across_pair",
)
WORD_FEATURES = FEATURES[:16]
ADJACENT_LINES = 3  # a window this close to the previous claim's continues what it says
_REFERS_BACK = re.compile(
    r"^\W*(?:this|that|these|those|it|they|he|she|its|their|such|there|then|это|этот|эта|эти|этого|этому|он|она|оно|они|его|её|ее|их|там|такой|такая|такие|тогда)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|cannot|can['’]t|don['’]t|doesn['’]t|didn['’]t|isn['’]t|aren['’]t|wasn['’]t|won['’]t|не|нет|ни|никогда|нельзя)\b", re.I
)


@dataclass(frozen=True)
class Window:
    source: str  # source id
    units: tuple[int, ...]  # indices into the passage's units
    start_line: int
    end_line: int
    text: str  # the sentences as a reader sees them (plain)


@dataclass(frozen=True)
class Judged:
    window: Window
    features: np.ndarray
    probability: float  # that the window states the claim
    read: bool = False  # the full verdict decided it (the models read it, or it cannot hold the claim's specifics)


@dataclass(frozen=True)
class Weights:
    weights: np.ndarray  # standardised features, then the intercept
    mean: np.ndarray
    scale: np.ndarray
    threshold: float
    features: tuple[str, ...]

    def probability(self, X: np.ndarray) -> np.ndarray:
        z = ((X - self.mean) / self.scale) @ self.weights[:-1] + self.weights[-1]
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


@functools.lru_cache(maxsize=4)
def load_weights(path: Path = WEIGHTS) -> dict[str, Weights]:
    """The fitted verdicts: "full" (with the models' readings) and "words" (without)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for name, part in data["verdicts"].items():
        names = tuple(part["features"])
        if not set(names) <= set(FEATURES):
            raise ValueError(f"{path.name} was fitted for other features; run `python bench/verdict_fit.py --write` to refit it")
        out[name] = Weights(*(np.array(part[k], np.float64) for k in ("weights", "mean", "scale")), float(part["threshold"]), names)
    return out


def threshold(*, read_by_models: bool, weights: dict[str, Weights] | None = None) -> float:
    """The probability at which a window states a claim: the full verdict's when the models read the best windows,
    else the words-only verdict's."""
    weights = weights or load_weights()
    return weights["full" if read_by_models and "full" in weights else "words"].threshold


def windows(passage: Passage) -> list[Window]:
    """Every sentence, row and code line of a passage, every two sentences in a row, and runs of a table's rows."""
    return [window_of(passage, w) for w in support.windows(len(passage.units), passage.rows) if w and not (len(w) == 2 and w[1] >= passage.prose)]


def window_of(passage: Passage, units: tuple[int, ...]) -> Window:
    """These units of the passage as one window: their lines and their text."""
    lines = [passage.lines[i] for i in units] if passage.lines and units else [(0, 0)]
    rows = len(units) > 1 and all(i in passage.rows for i in units)
    text = ("\n" if rows else " ").join(passage.units[i].text for i in units)  # rows stay one to a line
    return Window(passage.id, units, min(a for a, _ in lines), max(b for _, b in lines), text)


def word_features(
    claim: ClaimView, passage: Passage, window: Window, previous: Window | None = None, rules: support.Verdict | None = None
) -> dict[str, float]:
    """The rules' signals for one window (no model); `previous`: where the claim before this one was found; `rules`:
    `support.judge` of the claim and this passage (computed once per passage)."""
    units = [passage.units[i] for i in window.units]
    heading = passage.heading
    named = support.named_in(claim, passage, window.units)
    everywhere = [heading, *units]
    specs = claim.specifics
    missing = [
        s
        for s in specs
        if not any(support.found(s, claim, u, sentence=u is not heading, window=everywhere) for u in (named if s.soft else everywhere))
    ]
    numbers = [s for s in missing if any(k.startswith("num:") for k in s.keys)]
    counts_other = any(occurs(s, u.facts) for s in numbers for u in units)
    names = [s for s in specs if s.soft]
    heading_only = [s for s in names if not any(support.found(s, claim, u, window=everywhere) for u in units)]
    refers = bool(_REFERS_BACK.match(claim.text))
    return {
        "missing": len(missing) / len(specs) if specs else 0.0,
        "any_missing": float(bool(missing)),
        "names_in_heading_only": len(heading_only) / len(names) if names else 0.0,
        "counts_other": float(counts_other),
        "overlap": support.share(claim.words, everywhere) if claim.words else 1.0,
        "overlap_sentences": support.share(claim.words, units) if claim.words else 1.0,
        "negation_differs": float(bool(_NEGATION.search(claim.text)) != bool(_NEGATION.search(window.text))),
        "two_sentences": float(len(window.units) == 2),
        "row": float(len(window.units) == 1 and window.units[0] in passage.rows),
        "code_line": float(window.units[0] >= passage.prose),
        "across": float(across(claim, passage)),
        "claim_words": math.log1p(len(claim.words)),
        "overlap_said": support.share(said, everywhere) if (said := _said_words(claim)) else 1.0,
        "refers_back": float(refers),
        "refers_elsewhere": float(refers and not _next_to(window, previous)),
        "rules": float(rules is not None and rules.supports and window.units in rules.windows),
    }


def holds_specifics(features: dict[str, float]) -> bool:
    """Can this window state the claim at all: every number, date, name and code of the claim is there, and each
    number counts what the claim says it counts. What the readers labelled by (a claim with a number of another
    statistic is not stated), too rare in the labels for the verdict to learn it as firmly as it must hold."""
    return not features["any_missing"] and not features["counts_other"]


def read_across(row: dict[str, float]) -> bool:
    """Across scripts the claim's words and names cannot be matched, so the window states it only when the pair scorer
    reads it so ("The capital of Australia is Canberra" is not stated by a Russian travel note); too rare in the labels
    (their claims and notes share a script) for the verdict to learn."""
    return not row.get("across") or row.get("pair", 0.0) > 0.0


def across(claim: ClaimView, passage: Passage) -> bool:
    """Whether the claim and the passage are written in different scripts (an English claim, a Russian note)."""
    return claim.script is not None and passage.script is not None and claim.script != passage.script


def _said_words(claim: ClaimView) -> tuple[frozenset[str], ...]:
    if not claim.said or claim.said == claim.text:
        return claim.words
    return tuple(content_words(claim.said)) or claim.words


def _next_to(window: Window, previous: Window | None) -> bool:
    if previous is None or previous.source != window.source:
        return False
    return window.start_line <= previous.end_line + ADJACENT_LINES and window.end_line >= previous.start_line - ADJACENT_LINES


def judge_claim(
    claim: ClaimView,
    passages: dict[str, Passage],
    *,
    vectors=None,
    pairs=None,
    previous: Window | None = None,
    weights: dict[str, Weights] | None = None,
    rules: dict[str, support.Verdict] | None = None,
) -> list[Judged]:
    """Every window of every passage judged for `claim`, best first. The models read the READ_BY_MODELS windows the
    words-only verdict ranks highest; without models (or when they fail) the words-only verdict ranks them.
    `previous`: the window that stated the claim before this one (a claim that refers back continues it); `rules`:
    `support.judge` of the claim and each passage, when the caller has it."""
    weights = weights or load_weights()
    words = weights["words"]
    candidates = [(p, w) for p in passages.values() for w in windows(p) if support.listed(claim, p, w.units)]
    if not candidates:
        return []
    rules = rules or {pid: support.judge(claim, p) for pid, p in passages.items()}
    rows = [word_features(claim, p, w, previous, rules[p.id]) for p, w in candidates]
    X = np.array([[r[f] for f in words.features] for r in rows], np.float64)
    prior = np.where([holds_specifics(r) for r in rows], words.probability(X), 0.0)
    order = np.argsort(-prior, kind="stable")
    top = [int(i) for i in order[:READ_BY_MODELS] if prior[i] > 0]
    if not top:  # no window holds the claim's specifics: nothing states it, whatever the models would read
        return [Judged(candidates[i][1], X[i], 0.0, read=True) for i in order]
    cosines = bool({"cos", "cos_measured", "across_cos"} & set(weights["full"].features)) if "full" in weights else False
    read = _models(claim, [candidates[i] for i in top], vectors, pairs, cosines=cosines) if "full" in weights else None
    if read is None:
        return [Judged(candidates[i][1], X[i], float(prior[i])) for i in order]
    full = weights["full"]
    judged = []
    for k, i in enumerate(top):
        row = {**rows[i], **read[k]}
        x = np.array([row[f] for f in full.features], np.float64)
        probability = float(full.probability(x[None, :])[0]) if read_across(row) else 0.0
        judged.append(Judged(candidates[i][1], x, probability, read=True))
    judged.sort(key=lambda j: -j.probability)
    chosen = set(top)
    rest = [Judged(candidates[i][1], X[i], float(min(prior[i], judged[-1].probability))) for i in order if i not in chosen]
    return judged + rest


def _models(claim: ClaimView, chosen: list[tuple[Passage, Window]], vectors, pairs, *, cosines: bool = True) -> list[dict[str, float]] | None:
    """The pair scorer's logit and the cosine (when the vectors are the default model's, whose scale the verdict was
    fitted on, and `cosines`: the verdict weighs them) for each chosen window; None when the pair scorer cannot run
    (then the words decide)."""
    if pairs is None:
        return None
    try:
        logits = pairs.score("claim", [(claim.said or claim.text, w.text) for _, w in chosen])
    except EmbedderError as exc:
        log.warning("The claim check goes on without the pair scorer: %s", exc)
        return None
    out = [{"cos": 0.0, "cos_measured": 0.0, "pair": float(np.clip(v, -10.0, 10.0)), "pair_read": 1.0} for v in logits]
    if cosines and vectors is not None and getattr(vectors, "calibrated", False):
        try:
            claim_vector = vectors.passages([claim.said or claim.text])[0]
            for k, (p, w) in enumerate(chosen):
                texts = [p.units[i].text for i in w.units if i < p.prose and len(p.units[i].text.split()) >= 3]
                if texts:
                    out[k]["cos"] = float(max(vectors.passages(texts) @ claim_vector))
                    out[k]["cos_measured"] = 1.0
        except EmbedderError as exc:
            log.warning("The claim check goes on without sentence vectors: %s", exc)
    for k, (p, _) in enumerate(chosen):
        other = float(across(claim, p))
        out[k]["across_cos"] = other * out[k]["cos"]
        out[k]["across_pair"] = other * out[k]["pair"]
    return out
