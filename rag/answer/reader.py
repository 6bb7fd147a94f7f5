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
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np

from rag.answer import question_kinds, quotable
from rag.answer.context import FrozenContext, Source
from rag.answer.question_kinds import QUANTITY
from rag.answer.quotable import CODE, CODE_LINE, ITEM, LEAD, LIST, PARAGRAPH, ROW, SENTENCE, Unit
from rag.answer.specifics import content_words, number_contexts, occurs, profile, specifics
from rag.notes.dates import dates_in, entry_dates
from rag.search.text_vectors import TextVectors
from rag.text import sentences, stemming

WEIGHTS = Path(__file__).with_name("reader_weights.json")
SECTION_BASE = 0.8  # a section heading's cosine counts above this (most headings of a vault sit near 0.78)

KINDS = (SENTENCE, ITEM, LIST, ROW, CODE, CODE_LINE, PARAGRAPH, LEAD)
# Per candidate, in this order (the weights file names them, so a change here is caught when it is loaded). Chosen by
# leave-one-set-out fits (bench/reader_fit.py): features of the unit's kind alone (is it a list, a paragraph …) and
# of channel ranks fitted one set's habits and lost on the others, so they are not here.
FEATURES = (
    "cos",  # question–unit cosine
    "cos_gap",  # … minus the best in the context
    "cos_in_note",  # … minus the best in its note
    "note_cos_gap",  # the note's best minus the context's best
    "region_cos",  # with its closer neighbour: the note talks about this here
    "section_cos",  # the section heading's cosine above SECTION_BASE
    "section_cos_gap",  # the section's best unit minus the context's best
    "no_vector",  # no sentence vector of its own (code, a short line)
    "kw",  # rarity-weighted share of the question's stems in the unit
    "kw_in_note",  # … minus the best in its note
    "note_kw_gap",  # the note's best minus the context's best
    "kw_heading",  # … in the unit with its heading path
    "kw_across",  # a unit in the other language than the question: its words' match to the question's through the vault's vocabulary
    "heading_share",  # share of the question's content words in the heading path
    "title_share",  # … in the note's title and file name
    "names_note",  # share of the names the question asks about that its note holds
    "source_prior",  # 1 / (1 + the source's place in the context)
    "note_prior",  # 1 / (1 + the note's place)
    "first_in_section",
    "definitional",  # "X is …", «X — это …»
    "markup",  # share of HTML, includes, links and URLs: not prose
    "links",  # an index entry ("[[Note]] — what it holds") or a line that is half links or tags: navigation
    "when_date",  # the question's kind against the unit's shape
    "quantity_number",
    "quantity_quantity",
    "quantity_near",  # a number in it stands next to a word of the question ("Авиабилеты … | 46 800" for «билеты»)
    "definition_defines",
    "definition_first",
    "definition_titled",
    "procedure_steps",
    "procedure_code",
    "name_code",
    "yesno_negation",
    "yesno_first",
    "in_period",  # the question names a period: 1 the unit is from then (a date in its lines, else its passage's day), -1 dated otherwise; a log's share of entries between
)
# What a reader without sentence vectors cannot know: these are 0 (no_vector 1), and its own weights apply.
MEANING_FEATURES = ("cos", "cos_gap", "cos_in_note", "note_cos_gap", "region_cos", "section_cos", "section_cos_gap", "no_vector", "kw_across")
# Per context, for `answerable`: how well the best candidate and the context as a whole fit the question.
CONTEXT_FEATURES = (
    "best_score",  # the best candidate's score
    "best_cos",
    "cos_margin",  # the best cosine above the context's median
    "best_kw",
    "best_coverage",  # share of the question's content words in the best-covering note
    "names_found",  # … of the names it asks about
    "names_asked",
    "names_missing",  # names asked about that no note of the context holds (a motorcycle where only a car is)
    "agreed",  # both channels rank S1 in their top two
    "across",  # the best candidate's note is in the other language
    "across_cos",  # best_cos for a note in the other language (there words cannot help and cosines run lower)
    "across_margin",
    "across_names",  # … and the names the question asks about are in it (Baikal, «Байкал»): across scripts, names decide
    "across_words",  # … and the best candidate's kw_across: its words are the question's, in the other language
    "note_kw_cover",  # IDF-weighted share of the question's stems in the best candidate's note
    "vault_coverage",  # IDF-weighted share of the question's terms found anywhere in the index (retrieval's)
    "period",  # the search kept to a period the question names (rag/search/when.py): the time words did their part
    "best_in_period",  # … and the best candidate is from then (1), dated otherwise (-1)
)
MEANING_CONTEXT_FEATURES = ("best_cos", "cos_margin", "across_cos", "across_margin", "across_words")

_QUANTITY = re.compile(
    r"\d[\d\s.,]*\s?(?:%|₽|\$|€|руб\w*|rub\w*|г\b|гр\b|кг|g\b|kg|ml|мл|l\b|л\b|°|mm|мм|cm|см|km|км|min\w*|мин\w*|h\b|ч\b|"
    r"hours?|час\w*|days?|дн\w*|дней|s\b|sec\w*|сек\w*|ms\b|bytes?|байт\w*|KB|MB|GB|Мбит|Mbit\w*|шт|pcs|×|x\b|times|раз\w*)|"
    r"\b\d{1,3}(?:[ \u00a0]\d{3})+\b|\d+:\d+|\b\d+\s?(?:из|of|/)\s?\d+",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(?:1[89]|20)\d\d\b|\b\d{1,2}:\d\d\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\b|"
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)\w*\b|\b(?:понедельник|вторник|сред|четверг|пятниц|суббот|воскресень)\w*",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_CODE = re.compile(r"`[^`\n]+`|\b\w+\(\)|\b[a-z]+_[a-z_]+\b|--[a-z][\w-]+")
_DEFINES = re.compile(
    r"^[^.?!:]{0,80}?\b(?:is|are|means|refers to|stands for|is called|называ\w+|означает|представляет собой|является|являются)\b|"
    r"^[^.?!:]{0,80}?\s[—–-]\s(?:это\b|\w)|\bэто\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|don['’]t|doesn['’]t|isn['’]t|can['’]t|won['’]t|shouldn['’]t|cannot|не|нет|нельзя|никогда)\b", re.IGNORECASE
)
_MARKUP = re.compile(r"<[^>\n]{1,300}>|\{[*!%][^}\n]*[*!%]\}|!?\[[^\]\n]*\]\([^)\n]*\)|https?://\S+|^\s*/{3}.*$|^\s*[┌└├│─.]+.*$", re.MULTILINE)
_LINKS = re.compile(r"!?\[\[[^\]]*\]\]|\[[^\]\n]*\]\([^)\n]*\)|(?<!\w)#[\w/-]+")


@dataclass(frozen=True)
class Candidate:
    unit: Unit
    source: Source
    rank: int  # the source's place in the context (0 for S1)


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


@dataclass(frozen=True)
class Weights:
    weights: np.ndarray  # per feature, applied to standardised values
    mean: np.ndarray
    scale: np.ndarray
    context_weights: np.ndarray  # logistic weights of CONTEXT_FEATURES (standardised), then the intercept
    context_mean: np.ndarray
    context_scale: np.ndarray
    thresholds: tuple[float, float]  # answerable below this probability is "not found": same language, across

    def threshold(self, across: bool) -> float:
        return self.thresholds[1] if across else self.thresholds[0]

    def score(self, features: np.ndarray) -> np.ndarray:
        return ((features - self.mean) / self.scale) @ self.weights

    def answerable(self, context_features: np.ndarray) -> float:
        z = ((context_features - self.context_mean) / self.context_scale) @ self.context_weights[:-1] + self.context_weights[-1]
        return float(1.0 / (1.0 + math.exp(-z)))


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
    cos, measured = _cosines(question, candidates, vectors)
    kw = np.array(_keyword_scores(question, [c.unit.context or c.unit.scoring for c in candidates]))
    kw_heading = np.array(_keyword_scores(question, [f"{c.source.heading} {c.unit.section} {c.unit.scoring}" for c in candidates]))
    kw_across = _across_words(question, candidates, vectors)
    notes = _Notes(candidates, cos, kw, words, names)
    section = _section_cosines(question, candidates, vectors)
    section_best: dict[tuple[str, str], float] = {}
    for i, c in enumerate(candidates):
        key = (c.source.id, c.unit.section)
        section_best[key] = max(section_best.get(key, 0.0), cos[i])
    region = _region(candidates, cos, measured)
    asked = set(question_kinds.kinds(question))
    stems = tuple(t for t in stemming.query_terms(question) if len(t) >= 3)
    dated = np.array([0.0 if period is None else in_period(c, period) for c in candidates])
    rows = []
    for i, c in enumerate(candidates):
        u, s = c.unit, c.source
        heading = f"{s.heading} › {u.section}" if u.section else s.heading
        values = {
            "cos": cos[i],
            "cos_gap": cos[i] - cos.max(),
            "cos_in_note": cos[i] - notes.cos[s.path],
            "note_cos_gap": notes.cos[s.path] - cos.max(),
            "region_cos": region[i],
            "section_cos": max(0.0, section.get(u.section or s.heading.split(" › ")[-1], 0.0) - SECTION_BASE),
            "section_cos_gap": section_best[(s.id, u.section)] - cos.max(),
            "no_vector": float(not measured[i]),
            "kw": kw[i],
            "kw_in_note": kw[i] - notes.kw[s.path],
            "note_kw_gap": notes.kw[s.path] - kw.max(),
            "kw_heading": kw_heading[i],
            "kw_across": kw_across[i],
            "heading_share": _share(words, clean_heading(heading)),
            "title_share": _share(words, clean_heading(s.heading.split(" › ")[0]) + " " + Path(s.path).stem),
            "names_note": notes.names[s.path] if names else 0.0,
            "source_prior": 1.0 / (1.0 + c.rank),
            "note_prior": 1.0 / (1.0 + notes.order[s.path]),
            **_asked_of(u, asked, titled=_share(words, clean_heading(u.section or s.heading)) >= 0.5),
            "quantity_near": float(QUANTITY in asked and _number_near(u.scoring, stems)),
            "in_period": dated[i],
        }
        rows.append([values[f] for f in FEATURES])
    extra = {
        "cos": cos,
        "measured": measured,
        "kw": kw,
        "kw_across": kw_across,
        "coverage": notes.coverage,
        "names": names,
        "note_names": notes.names,
    }
    extra["period"], extra["in_period"] = period is not None, dated
    return np.array(rows, np.float64), extra


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
        self.coverage = {p: _coverage(words, t) for p, t in texts.items()}
        self.names = {p: _names_found(names, t) for p, t in texts.items()}


def _asked_of(u: Unit, asked: set[str], *, titled: bool) -> dict[str, float]:
    """The unit's shape, and its shape against what the question asks for (a date for "when", steps for "how")."""
    shape = _shape(u)
    first = float(u.position == 0 and u.kind in (SENTENCE, PARAGRAPH, LEAD))
    steps = float(u.kind in (LIST, LEAD) or (u.kind == ITEM and u.in_list))
    kinds = (question_kinds.WHEN, QUANTITY, question_kinds.DEFINITION, question_kinds.PROCEDURE, question_kinds.YESNO, question_kinds.NAME)
    when, quantity, definition, procedure, yesno, name = (float(k in asked) for k in kinds)
    return {
        "first_in_section": first,
        "definitional": shape["definitional"],
        "markup": shape["markup"],
        "links": shape["links"],
        "when_date": when * shape["has_date"],
        "quantity_number": quantity * shape["has_number"],
        "quantity_quantity": quantity * shape["has_quantity"],
        "definition_defines": definition * shape["definitional"],
        "definition_first": definition * first,
        "definition_titled": definition * float(titled),
        "procedure_steps": procedure * steps,
        "procedure_code": procedure * shape["has_code"],
        "name_code": name * shape["has_code"],
        "yesno_negation": yesno * shape["negation"],
        "yesno_first": yesno * first,
    }


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


@functools.lru_cache(maxsize=16384)
def _number_near(text: str, stems: tuple[str, ...]) -> bool:
    """A number of `text` has one of the question's `stems` among the words next to it (or inside one of them)."""
    near = frozenset().union(*number_contexts(text, 4).values()) if _NUMBER.search(text) else frozenset()
    return any(t in form for t in stems for form in near)


def note_cover(question: str, candidates: list[Candidate], path: str) -> float:
    """Σ idf of the question's stems found anywhere in note `path`'s passages / Σ idf of all of them (idf over the
    context's units)."""
    terms = stemming.query_terms(question)
    if not terms:
        return 0.0
    stems = [_stems(c.unit.scoring) for c in candidates]
    mine = frozenset().union(*(st for st, c in zip(stems, candidates) if c.source.path == path), _stems(candidates[0].source.heading))
    idf = {t: math.log(1 + len(stems) / (1 + sum(t in st for st in stems))) for t in terms}
    return sum(v for t, v in idf.items() if t in mine) / (sum(idf.values()) or 1.0)


def _across_words(question: str, candidates: list[Candidate], vectors: TextVectors | None) -> np.ndarray:
    """For each unit written in the other script than the question, how closely its words (and its section's) match
    the question's through the vault's vocabulary («полив» and "watering"): where stems cannot meet, the keyword
    features are blind, and this is what they would have said. 0 for units in the question's script."""
    out = np.zeros(len(candidates))
    mine = sentences.script(question)
    if vectors is None or mine is None:
        return out
    # prose only: code is in Latin letters in a Russian note too, and is not "the other language" (matched this way, a
    # Russian question's answer went to a code block: bench/reading_dev's jsinfo-ru aside third 0.739 → 0.652)
    other = [i for i, c in enumerate(candidates) if c.unit.kind not in (CODE, CODE_LINE) and sentences.script(c.unit.scoring) not in (None, mine)]
    out[other] = vectors.word_matches(question, [f"{candidates[i].unit.section} {candidates[i].unit.scoring}" for i in other])
    return out


def _cosines(question: str, candidates: list[Candidate], vectors: TextVectors | None) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's cosine to the question, and whether it was measured. Sentences and rows of three words or more
    have vectors in the index (nothing is embedded here); a larger unit is as close as its closest sentence; a unit
    with none (code, a short line) gets the closest of its section, marked as not measured."""
    n = len(candidates)
    cos, measured = np.zeros(n), np.zeros(n, bool)
    if vectors is None:
        return cos, measured
    own = [i for i, c in enumerate(candidates) if c.unit.kind in (SENTENCE, ROW) and len(c.unit.scoring.split()) >= sentences.MIN_WORDS]
    if own:
        found, known = vectors.known([candidates[i].unit.scoring for i in own])
        own = [i for i, k in zip(own, known) if k]
        cos[own] = found[known] @ vectors.question(question)
        measured[own] = True
    by_source: dict[str, list[int]] = {}
    for i in own:
        by_source.setdefault(candidates[i].source.id, []).append(i)
    for i, c in enumerate(candidates):
        if measured[i]:
            continue
        mine = by_source.get(c.source.id, [])
        inside = [j for j in mine if c.unit.start_line <= candidates[j].unit.start_line and candidates[j].unit.end_line <= c.unit.end_line]
        if inside and c.unit.kind not in (CODE, CODE_LINE):
            cos[i], measured[i] = max(cos[j] for j in inside), True
        else:
            near = [j for j in mine if candidates[j].unit.section == c.unit.section] or mine
            cos[i] = max((cos[j] for j in near), default=0.0)
    return cos, measured


def _region(candidates: list[Candidate], cos: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """The mean of a candidate's cosine and the closer of its neighbours' (the measured units just before and after it
    in its section): an answer sits where the note talks about the question, not in one stray close line."""
    out = cos.copy()
    by_section: dict[tuple[str, str], list[int]] = {}
    for i, c in enumerate(candidates):
        if measured[i] and c.unit.kind in (SENTENCE, ROW):
            by_section.setdefault((c.source.id, c.unit.section), []).append(i)
    for i, c in enumerate(candidates):
        line = sorted(by_section.get((c.source.id, c.unit.section), []), key=lambda j: candidates[j].unit.start_line)
        before = [j for j in line if candidates[j].unit.end_line < c.unit.start_line][-1:]
        after = [j for j in line if candidates[j].unit.start_line > c.unit.end_line][:1]
        near = [cos[j] for j in before + after]
        if near:
            out[i] = (cos[i] + max(near)) / 2
    return out


def _section_cosines(question: str, candidates: list[Candidate], vectors: TextVectors | None) -> dict[str, float]:
    """How close each section heading (or a note's title, for units under none) is to the question, for the headings
    the index holds vectors for (three words or more)."""
    headings = sorted({c.unit.section or c.source.heading.split(" › ")[-1] for c in candidates} - {""})
    if vectors is None or not headings:
        return {}
    found, known = vectors.known([sentences.plain(h) for h in headings])
    if not known.any():
        return {}
    cosines = found[known] @ vectors.question(question)
    return dict(zip([h for h, k in zip(headings, known) if k], cosines.tolist()))


_ANCHOR = re.compile(r"\s*\{\s*#[^}]*\}")  # "## Origin { #origin }": an anchor for the site generator, not words


def clean_heading(heading: str) -> str:
    return _ANCHOR.sub("", heading)


@functools.lru_cache(maxsize=16384)
def _shape(u: Unit) -> dict[str, float]:
    text = u.scoring
    raw = u.text
    markup = sum(len(m.group(0)) for m in _MARKUP.finditer(raw))
    linked = sum(len(m.group(0)) for m in _LINKS.finditer(raw))
    return {
        "has_number": float(bool(_NUMBER.search(text))),
        "has_quantity": float(bool(_QUANTITY.search(text))),
        "has_date": float(bool(_DATE.search(text)) or any(k.startswith("month:") for k in _profile(text).keys)),
        "has_code": float(bool(_CODE.search(raw))),
        "definitional": float(bool(_DEFINES.search(text))),
        "negation": float(bool(_NEGATION.search(text))),
        "markup": min(1.0, markup / max(1, len(raw.strip()))),
        "links": float(raw.lstrip("-*+ 0123456789.)").startswith(("[[", "![[")) or linked * 2 >= len(raw.strip())),
    }


def _share(words: list[frozenset[str]], text: str) -> float:
    """The share of the question's content words found in `text`."""
    forms = _forms(text)
    return sum(not w.isdisjoint(forms) for w in words) / len(words) if words else 0.0


def _coverage(words: list[frozenset[str]], texts: list[str]) -> float:
    forms = frozenset().union(*(_forms(t) for t in texts))
    return sum(not w.isdisjoint(forms) for w in words) / len(words) if words else 0.0


def _names_found(names, texts: list[str]) -> float:
    if not names:
        return 0.0
    found = [_profile(t) for t in texts]
    return sum(any(occurs(sp, p) for p in found) for sp in names) / len(names)


@functools.lru_cache(maxsize=16384)
def _forms(text: str) -> frozenset[str]:
    """Every form of every content word of `text` (cached: the same passages meet many questions)."""
    return frozenset().union(*content_words(text)) if text else frozenset()


@functools.lru_cache(maxsize=16384)
def _profile(text: str):
    return profile(text)


def _keyword_scores(question: str, texts: list[str]) -> list[float]:
    """Σ idf of the question stems a text contains / Σ idf of all question stems (0..1); idf over these texts. A stem
    found only inside a longer word counts half («билет» in «авиабилеты», "cache" in "precached")."""
    terms = stemming.query_terms(question)
    stems = [_stems(t) for t in texts]
    joined = [" ".join(st) for st in stems]
    n = len(texts)
    found = [{t: 1.0 if t in st else 0.5 if len(t) >= 4 and t in flat else 0.0 for t in terms} for st, flat in zip(stems, joined)]
    idf = {t: math.log(1 + n / (1 + sum(f[t] > 0 for f in found))) for t in terms}
    total = sum(idf.values()) or 1.0
    return [sum(idf[t] * f[t] for t in terms) / total for f in found]


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_PARTS = re.compile(r"[_./-]+")


@functools.lru_cache(maxsize=16384)
def _stems(text: str) -> frozenset[str]:
    """The stems of a text's words, and of the parts of its code names (`convert_underscores`, `TemplateResponse`:
    a question says "underscore", "template")."""
    words = stemming.words(_CAMEL.sub(" ", text)) + stemming.words(text)
    parts = [p for w in words if _PARTS.search(w) for p in _PARTS.split(w) if p]
    return frozenset(stemming.stem(w) for w in words + parts)
