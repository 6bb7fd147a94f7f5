"""The learned reader's model: the features it is fitted on, in order, and what fitted weights do with them — a
linear score per candidate, a logistic `answerable` per context. `bench/reader_fit.py` fits them and writes
`reader_weights.json` (`reader.load_weights` reads it); nothing is fitted at run time. Apart from `reader`, which
computes the features, so that the list of features and the arithmetic on them read in one place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rag.answer import question_kinds
from rag.answer.context import Source
from rag.answer.quotable import Unit

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
    # the question's kind against the unit's look: the kinds' table (question_kinds.READER_FEATURES) names them
    *question_kinds.reader_features(),
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


@dataclass(frozen=True)
class Candidate:
    """A unit of a source the reader may quote."""

    unit: Unit
    source: Source
    rank: int  # the source's place in the context (0 for S1)


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
