"""The learned reader: every unit a frozen context offers to quote, described by the features the product already
computes, and scored against the question by a linear model whose weights were fitted on QA sets with gold lines
(`bench/reader_fit.py` writes `reader_weights.json`; nothing is fitted at run time).

Candidates are exact units of the notes (`quotable`): a sentence, a list item, a whole list, a table row with its
header, a code block, a paragraph, and a lead-in with the block it introduces ("To embed a note:" and its steps).
Their features: meaning (the question–unit cosine from the index's stored sentence vectors, against the best in
the context), keywords (rarity-weighted share of the question's stems, in the unit and in its heading path), the
question's kind against the unit's shape (a date for "when", a number for "how much", "X is …" for "what is", steps
for "how do I", a code name for "which parameter"), the note's retrieval rank and channel agreement, position.

The same model's best score, with a few features of the whole context, says whether the context answers at all
(`answerable`). Pure apart from the embedder (through `TextVectors`); knows nothing about the index or prompts.
Its parts: the feature list and the model's arithmetic (`reader_model`), a unit's looks (`reader_looks`), what it
reads by words (`reader_words`) and by meaning (`reader_meaning`); which look each question kind wants is the kinds'
table (`question_kinds.READER_FEATURES`).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np

from rag.answer import question_kinds, quotable, reader_meaning
from rag.answer.context import FrozenContext, Source
from rag.answer.quotable import CODE, CODE_LINE, ITEM, LEAD, LIST, PARAGRAPH, ROW, SENTENCE, Unit
from rag.answer.reader_looks import looks, number_near
from rag.answer.reader_model import CONTEXT_FEATURES, FEATURES, Candidate, Weights
from rag.answer.reader_words import clean_heading, coverage, keyword_scores, names_found, note_cover, share
from rag.answer.specifics import content_words, specifics
from rag.notes.dates import dates_in, entry_dates
from rag.search.text_vectors import TextVectors
from rag.text import sentences, stemming

WEIGHTS = Path(__file__).with_name("reader_weights.json")
SECTION_BASE = 0.8  # a section heading's cosine counts above this (most headings of a vault sit near 0.78)

KINDS = (SENTENCE, ITEM, LIST, ROW, CODE, CODE_LINE, PARAGRAPH, LEAD)


@dataclass(frozen=True)
class Reading:
    """Every candidate of a context with its features, scored."""

    candidates: tuple[Candidate, ...]
    features: np.ndarray  # (candidates, FEATURES)
    scores: np.ndarray  # the model's score of each candidate (higher answers better)
    context_features: np.ndarray  # (CONTEXT_FEATURES,)
    answerable: float  # the model's probability that the context answers the question
    threshold: float  # … under which it says "not found" (calibrated by bench/reader_fit.py)

    def best(self) -> int:
        return int(np.argmax(self.scores))

    @property
    def answers(self) -> bool:
        return self.answerable >= self.threshold


@functools.lru_cache(maxsize=8)
def load_weights(path: Path = WEIGHTS, *, meaning: bool = True) -> Weights:
    """The fitted weights: those for sentence vectors of the model they were fitted with (`meaning`), or those of a
    reader that has words only (no vectors, or another embedding model, whose cosines sit on another scale)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES or tuple(data["context_features"]) != CONTEXT_FEATURES:
        raise ValueError(f"{path.name} was fitted for other features; run `python bench/reader_fit.py --write` to refit it")
    part = data["with_meaning" if meaning else "words_only"]
    return Weights(
        *(np.array(part[k], np.float64) for k in ("weights", "mean", "scale", "context_weights", "context_mean", "context_scale")),
        (float(part["threshold"]["same_language"]), float(part["threshold"]["across_languages"])),
    )


Period = tuple[date | None, date | None]  # the days a question names, inclusive (None: open on that side)


def read(
    question: str,
    context: FrozenContext,
    *,
    vectors: TextVectors | None = None,
    coverage: float = 1.0,
    weights: Weights | None = None,
    period: Period | None = None,
) -> Reading | None:
    """Every candidate of `context` described and scored against `question`; None when the context offers none.
    `coverage`: retrieval's share of the question's terms found in the index (`SearchResult.coverage`). `period`:
    the days the search kept to (the question then is read without the words that named them)."""
    candidates = candidates_of(context)
    if not candidates:
        return None
    if vectors is not None and not vectors.calibrated:
        vectors = None  # another model's cosines are on another scale: read by words alone
    features, extra = describe(question, candidates, vectors, period=period)
    if vectors is not None and not _enough_measured(candidates, extra["measured"]):
        vectors = None  # the index has no sentence vectors (turned off, or not embedded yet): words alone
        features, extra = describe(question, candidates, None, period=period)
    weights = weights or load_weights(meaning=vectors is not None)
    extra["vault_coverage"] = coverage
    scores = weights.score(features)
    best = int(np.argmax(scores))
    context = context_features(question, candidates, best, float(scores[best]), extra)
    across = bool(context[CONTEXT_FEATURES.index("across")])
    threshold = weights.threshold(across)
    if vectors is None and across and context[CONTEXT_FEATURES.index("across_names")] < 0.5:
        threshold = 1.0  # words alone cannot tell whether a note in another language answers; only names it shares can
    return Reading(tuple(candidates), features, scores, context, weights.answerable(context), threshold)


def _enough_measured(candidates: list[Candidate], measured: np.ndarray) -> bool:
    """Half of the sentences and rows have vectors in the index (nothing is embedded while answering)."""
    prose = [i for i, c in enumerate(candidates) if c.unit.kind in (SENTENCE, ROW)]
    return bool(prose) and measured[prose].mean() >= 0.5


def candidates_of(context: FrozenContext) -> list[Candidate]:
    """Every unit of every source, sources in context order."""
    return [Candidate(u, s, rank) for rank, s in enumerate(context.sources) for u in units_of(s)]


@functools.lru_cache(maxsize=2048)
def _units_of(text: str, start_line: int) -> tuple[Unit, ...]:
    return tuple(quotable.units(text, start_line))


def units_of(source: Source) -> list[Unit]:
    """The units of a source that can answer (something with a letter or digit in it)."""
    return [u for u in _units_of(source.text, source.start_line) if u.kind in KINDS and re.search(r"\w", u.scoring)]


def describe(question: str, candidates: list[Candidate], vectors: TextVectors | None, *, period: Period | None = None) -> tuple[np.ndarray, dict]:
    """The feature matrix of `candidates` (rows) and what the context features need besides."""
    words = content_words(question)
    names = [sp for sp in specifics(question) if sp.soft and not sp.text[:1].isdigit()]
    cos, measured = reader_meaning.cosines(question, candidates, vectors)
    kw = np.array(keyword_scores(question, [c.unit.context or c.unit.scoring for c in candidates]))
    kw_across = reader_meaning.across_words(question, candidates, vectors)
    notes = _Notes(candidates, cos, kw, words, names)
    dated = np.array([0.0 if period is None else in_period(c, period) for c in candidates])
    per_unit = {
        "kw_heading": np.array(keyword_scores(question, [f"{c.source.heading} {c.unit.section} {c.unit.scoring}" for c in candidates])),
        "region_cos": reader_meaning.region(candidates, cos, measured),
        "kw_across": kw_across,
        "in_period": dated,
    }
    section, section_best = reader_meaning.section_cosines(question, candidates, vectors), _section_best(candidates, cos)
    asked = set(question_kinds.kinds(question))
    stems = tuple(t for t in stemming.query_terms(question) if len(t) >= 3)
    rows = []
    for i, c in enumerate(candidates):
        u, s = c.unit, c.source
        heading = f"{s.heading} › {u.section}" if u.section else s.heading
        values = {
            "cos": cos[i],
            "cos_gap": cos[i] - cos.max(),
            "cos_in_note": cos[i] - notes.cos[s.path],
            "note_cos_gap": notes.cos[s.path] - cos.max(),
            "section_cos": max(0.0, section.get(u.section or s.heading.split(" › ")[-1], 0.0) - SECTION_BASE),
            "section_cos_gap": section_best[(s.id, u.section)] - cos.max(),
            "no_vector": float(not measured[i]),
            "kw": kw[i],
            "kw_in_note": kw[i] - notes.kw[s.path],
            "note_kw_gap": notes.kw[s.path] - kw.max(),
            "heading_share": share(words, clean_heading(heading)),
            "title_share": share(words, clean_heading(s.heading.split(" › ")[0]) + " " + Path(s.path).stem),
            "names_note": notes.names[s.path] if names else 0.0,
            "source_prior": 1.0 / (1.0 + c.rank),
            "note_prior": 1.0 / (1.0 + notes.order[s.path]),
            **{name: column[i] for name, column in per_unit.items()},
            **_asked_of(u, asked, titled=share(words, clean_heading(u.section or s.heading)) >= 0.5, stems=stems),
        }
        rows.append([values[f] for f in FEATURES])
    extra = {"cos": cos, "measured": measured, "kw": kw, "kw_across": kw_across, "coverage": notes.coverage, "names": names}
    extra |= {"note_names": notes.names, "period": period is not None, "in_period": dated}
    return np.array(rows, np.float64), extra


def _section_best(candidates: list[Candidate], cos: np.ndarray) -> dict[tuple[str, str], float]:
    """(source id, section) → the best cosine of its units (0 at least)."""
    best: dict[tuple[str, str], float] = {}
    for i, c in enumerate(candidates):
        key = (c.source.id, c.unit.section)
        best[key] = max(best.get(key, 0.0), cos[i])
    return best


class _Notes:
    """Per note of the context: its order, best cosine and keyword share, its coverage of the question's words and
    of the names it asks about."""

    def __init__(self, candidates: list[Candidate], cos: np.ndarray, kw: np.ndarray, words, names) -> None:
        rows: dict[str, list[int]] = {}
        for i, c in enumerate(candidates):
            rows.setdefault(c.source.path, []).append(i)
        texts = {p: [candidates[r[0]].source.heading] + [candidates[i].unit.scoring for i in r] for p, r in rows.items()}
        self.order = {path: k for k, path in enumerate(rows)}
        self.cos = {p: cos[r].max() for p, r in rows.items()}
        self.kw = {p: kw[r].max() for p, r in rows.items()}
        self.coverage = {p: coverage(words, t) for p, t in texts.items()}
        self.names = {p: names_found(names, t) for p, t in texts.items()}


def _asked_of(u: Unit, asked: set[str], *, titled: bool, stems: tuple[str, ...]) -> dict[str, float]:
    """The unit's looks, and its looks against what the question asks for (a date for "when", steps for "how"): each
    kind's features (question_kinds.READER_FEATURES) are the looks it names when the question asks for it, else 0."""
    seen = looks(u)
    first = float(u.position == 0 and u.kind in (SENTENCE, PARAGRAPH, LEAD))
    steps = float(u.kind in (LIST, LEAD) or (u.kind == ITEM and u.in_list))
    out = {"first_in_section": first, "definitional": seen["definitional"], "markup": seen["markup"], "links": seen["links"]}
    seen = {**seen, "first": first, "steps": steps, "titled": float(titled)}
    for kind, features in question_kinds.READER_FEATURES:
        for feature, look in features:
            if kind not in asked:
                out[feature] = 0.0
            elif look == "number_near":  # the only look that depends on the question: measured only when asked
                out[feature] = float(number_near(u.scoring, stems))
            else:
                out[feature] = seen[look]
    return out


def context_features(question: str, candidates: list[Candidate], best: int, best_score: float, extra: dict) -> np.ndarray:
    """The context's features for `answerable`, given its best candidate and that candidate's score."""
    cos = extra["cos"][extra["measured"]] if extra["measured"].any() else np.zeros(1)
    chosen = candidates[best].source
    names = extra["names"]
    top = candidates[0].source
    agreed = top.bm25_rank is not None and top.dense_rank is not None and max(top.bm25_rank, top.dense_rank) <= 2
    other = across(question, candidates[best])
    values = {
        "best_score": best_score,
        "best_cos": float(cos.max()),
        "cos_margin": float(cos.max() - np.median(cos)),
        "across_cos": other * float(cos.max()),
        "across_margin": other * float(cos.max() - np.median(cos)),
        "across_names": other * (extra["note_names"].get(chosen.path, 0.0) if names else 0.0),
        "across_words": other * float(extra["kw_across"][best]),
        "note_kw_cover": note_cover(question, candidates, chosen.path),
        "best_kw": float(extra["kw"].max()),
        "best_coverage": max(extra["coverage"].values()),
        "names_found": max(extra["note_names"].values()) if names else 1.0,
        "names_asked": float(bool(names)),
        "names_missing": 1.0 - max(extra["note_names"].values()) if names else 0.0,
        "agreed": float(agreed),
        "across": other,
        "vault_coverage": extra.get("vault_coverage", 1.0),
        "period": float(extra.get("period", False)),
        "best_in_period": extra["in_period"][best] if extra.get("period") else 0.0,
    }
    return np.array([values[f] for f in CONTEXT_FEATURES], np.float64)


def across(question: str, c: Candidate) -> float:
    """1 when the candidate's passage is in another script than the question (a note in the other language)."""
    return float(sentences.script(question) != sentences.script(c.source.text))


def in_period(c: Candidate, period: Period) -> float:
    """1 when the unit is from the period (a full date in its lines, its section's heading, or its passage's day as
    the note states it, falls in it), -1 when it is dated and none of its days does, 0 when nothing dates it. A unit
    whose lines are a log's entries ("- [x] 2026-03-14 — …") is from the period by the share of its entries that
    are: a year's milestones, one of them in March, are mostly not from March (2 × share − 1)."""
    after, before = period

    def inside(d) -> bool:
        return (after is None or d >= after) and (before is None or d <= before)

    entries = entry_dates(c.unit.text)
    if entries:
        return 2.0 * sum(map(inside, entries)) / len(entries) - 1.0
    days = dates_in(c.unit.text) + dates_in(c.unit.section or "")
    if c.source.dated is not None:
        days.append(c.source.dated)
    if not days:
        return 0.0
    return 1.0 if any(map(inside, days)) else -1.0
