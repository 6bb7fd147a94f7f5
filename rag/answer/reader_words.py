"""What the learned reader reads by words: rarity-weighted shares of the question's stems (code names split into their
parts), the question's content words in a heading, a note or a title, the names it asks about, and the words beside a
unit's numbers. Pure; cached per text, since the same passages meet many questions.
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING

from rag.answer.specifics import content_words, occurs, profile
from rag.text import stemming

if TYPE_CHECKING:
    from rag.answer.reader_model import Candidate


def note_cover(question: str, candidates: list[Candidate], path: str) -> float:
    """Σ idf of the question's stems found anywhere in note `path`'s passages / Σ idf of all of them (idf over the
    context's units)."""
    terms = stemming.query_terms(question)
    if not terms:
        return 0.0
    stems = [stems_of(c.unit.scoring) for c in candidates]
    mine = frozenset().union(*(st for st, c in zip(stems, candidates) if c.source.path == path), stems_of(candidates[0].source.heading))
    idf = {t: math.log(1 + len(stems) / (1 + sum(t in st for st in stems))) for t in terms}
    return sum(v for t, v in idf.items() if t in mine) / (sum(idf.values()) or 1.0)


_ANCHOR = re.compile(r"\s*\{\s*#[^}]*\}")  # "## Origin { #origin }": an anchor for the site generator, not words


def clean_heading(heading: str) -> str:
    """The heading without a site generator's anchor."""
    return _ANCHOR.sub("", heading)


def share(words: list[frozenset[str]], text: str) -> float:
    """The share of the question's content words found in `text`."""
    forms = forms_of(text)
    return sum(not w.isdisjoint(forms) for w in words) / len(words) if words else 0.0


def coverage(words: list[frozenset[str]], texts: list[str]) -> float:
    """The share of the question's content words found in any of `texts`."""
    forms = frozenset().union(*(forms_of(t) for t in texts))
    return sum(not w.isdisjoint(forms) for w in words) / len(words) if words else 0.0


def names_found(names, texts: list[str]) -> float:
    """The share of the names the question asks about found in any of `texts` (0 when it asks about none)."""
    if not names:
        return 0.0
    found = [profile_of(t) for t in texts]
    return sum(any(occurs(sp, p) for p in found) for sp in names) / len(names)


@functools.lru_cache(maxsize=16384)
def forms_of(text: str) -> frozenset[str]:
    """Every form of every content word of `text` (cached: the same passages meet many questions)."""
    return frozenset().union(*content_words(text)) if text else frozenset()


@functools.lru_cache(maxsize=16384)
def profile_of(text: str):
    """`specifics.profile`, cached."""
    return profile(text)


def keyword_scores(question: str, texts: list[str]) -> list[float]:
    """Σ idf of the question stems a text contains / Σ idf of all question stems (0..1); idf over these texts. A stem
    found only inside a longer word counts half («билет» in «авиабилеты», "cache" in "precached")."""
    terms = stemming.query_terms(question)
    stems = [stems_of(t) for t in texts]
    joined = [" ".join(st) for st in stems]
    n = len(texts)
    found = [{t: 1.0 if t in st else 0.5 if len(t) >= 4 and t in flat else 0.0 for t in terms} for st, flat in zip(stems, joined)]
    idf = {t: math.log(1 + n / (1 + sum(f[t] > 0 for f in found))) for t in terms}
    total = sum(idf.values()) or 1.0
    return [sum(idf[t] * f[t] for t in terms) / total for f in found]


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_PARTS = re.compile(r"[_./-]+")


@functools.lru_cache(maxsize=16384)
def stems_of(text: str) -> frozenset[str]:
    """The stems of a text's words, and of the parts of its code names (`convert_underscores`, `TemplateResponse`:
    a question says "underscore", "template")."""
    words = stemming.words(_CAMEL.sub(" ", text)) + stemming.words(text)
    parts = [p for w in words if _PARTS.search(w) for p in _PARTS.split(w) if p]
    return frozenset(stemming.stem(w) for w in words + parts)
