"""What the learned reader reads by meaning: each candidate's cosine to the question from the index's stored sentence
vectors (nothing is embedded while answering), the region and section it sits in, and the words of a unit in the
other language matched through the vault's vocabulary. Apart from `reader` because it is the part that needs
`TextVectors`; without vectors each returns zeros and the reader reads by words alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rag.answer.quotable import CODE, CODE_LINE, ROW, SENTENCE
from rag.search.text_vectors import TextVectors
from rag.text import sentences

if TYPE_CHECKING:
    from rag.answer.reader_model import Candidate


def across_words(question: str, candidates: list[Candidate], vectors: TextVectors | None) -> np.ndarray:
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


def cosines(question: str, candidates: list[Candidate], vectors: TextVectors | None) -> tuple[np.ndarray, np.ndarray]:
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


def region(candidates: list[Candidate], cos: np.ndarray, measured: np.ndarray) -> np.ndarray:
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


def section_cosines(question: str, candidates: list[Candidate], vectors: TextVectors | None) -> dict[str, float]:
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
