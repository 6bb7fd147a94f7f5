"""Answers without a chat model: the sentences of a frozen context that best answer a question, quoted with
their source ids.

Each source is split into sentences (wrapped lines of a paragraph joined; headings, code, table rules and callout
markers skipped; a table row read as "Header: cell; …"); each sentence keeps the 1-based line it starts on. A
sentence scores by meaning (cosine between question and sentence, with the embedder the index uses) plus keyword
overlap (share of the question's stems, weighted by rarity among the candidates) plus a small prior for
better-ranked sources, minus a penalty for index entries made of [[links]]. Both languages work; across them the
meaning channel carries the answer. Without an embedder, keywords alone decide. The best sentence is quoted with
the next one of its paragraph (the specifics often follow), then up to two more that score nearly as well.
Nothing in common by keyword and a low best cosine means the notes do not answer: not found.

Knows nothing about the index or chat models; the embedder is passed in.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from rag import stemming
from rag.sentences import plain, split
from rag.citations import defang
from rag.context import FrozenContext, Source
from rag.embed import Embedder
from rag.text_vectors import Languages, StoredVectors, TextVectors

MAX_QUOTES = 3
MAX_QUOTE_CHARS = 900  # all quotes together; the best sentence is always quoted whole
KEYWORD_WEIGHT = 0.1  # of keyword overlap (0..1) against cosine (about 0.7..0.95 for the default model)
SOURCE_PRIOR = 0.02  # added for S1, half for S2, a third for S3 …
FOLLOWING_CHARS = 300  # the best sentence is quoted with the next one of its paragraph when that is this short
FOLLOW_MARGIN = 0.03  # a further quote must score within this of the best one
LINK_PENALTY = 0.05  # an index entry or a line of [[links]] points elsewhere rather than answering
MIN_COSINE = 0.78  # with no keyword in common, a best sentence below this means the notes do not answer

_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]")


@dataclass(frozen=True)
class Quote:
    source_id: str
    text: str  # the sentence as written in the note (citation-like markers inside it defanged)
    line: int  # 1-based line of the note that holds it
    score: float


@dataclass(frozen=True)
class Extract:
    quotes: tuple[Quote, ...]  # best first
    not_found: bool


@dataclass(frozen=True)
class _Candidate:
    source: Source
    rank: int  # 0 for S1
    text: str
    line: int
    following: str  # the next sentence of the same paragraph ("" if none): often where the specifics are


def extract(
    question: str, context: FrozenContext, *, embedder: Embedder | None = None, stored: StoredVectors | None = None,
    languages: Languages | None = None,
) -> Extract:
    """The best sentences of `context` for `question` (best first), or not_found if none answers it. Sentence
    vectors come from `stored` when the index has them (same embedder), else they are embedded here; with
    `languages`, sentences and question are compared as the index compares them."""
    candidates = _dedupe([c for rank, s in enumerate(context.sources) for c in _candidates(s, rank)])
    if not candidates:
        return Extract((), not_found=True)
    plain_texts = [plain(c.text) for c in candidates]
    keyword = _keyword_scores(question, plain_texts)
    cosine = _cosines(question, plain_texts, embedder, stored, languages) if embedder is not None else None
    base = cosine if cosine is not None else np.zeros(len(candidates), np.float32)
    weight = KEYWORD_WEIGHT if cosine is not None else 1.0
    scores = [
        float(base[i]) + weight * keyword[i] + SOURCE_PRIOR / (c.rank + 1) - LINK_PENALTY * _mostly_links(c.text)
        for i, c in enumerate(candidates)
    ]
    order = sorted(range(len(candidates)), key=lambda i: -scores[i])
    if max(keyword) == 0 and (cosine is None or float(cosine.max()) < MIN_COSINE):
        return Extract((), not_found=True)
    return Extract(_pick(candidates, scores, order), not_found=False)


def _pick(candidates: list[_Candidate], scores: list[float], order: list[int]) -> tuple[Quote, ...]:
    quotes: list[Quote] = []
    quoted: list[str] = []
    for i in order[:MAX_QUOTES]:
        c = candidates[i]
        if any(c.text in q for q in quoted):
            continue  # already quoted as the sentence after the best one
        if quotes and (scores[i] < scores[order[0]] - FOLLOW_MARGIN or sum(map(len, quoted)) + len(c.text) > MAX_QUOTE_CHARS):
            break
        text = c.text
        if not quotes and c.following and len(c.following) <= FOLLOWING_CHARS:
            text = f"{text} {c.following}"  # the best sentence keeps the next one: it often holds the specifics
        quotes.append(Quote(c.source.id, defang(text), c.line, round(scores[i], 4)))
        quoted.append(text)
    return tuple(quotes)


def _candidates(source: Source, rank: int) -> list[_Candidate]:
    return [_Candidate(source, rank, s.text, s.line, s.following) for s in split(source.text, source.start_line)]


def _dedupe(candidates: list[_Candidate]) -> list[_Candidate]:
    """The same sentence in two notes (copies, quotes) is scored once, under its best-ranked source."""
    seen: set[str] = set()
    out = []
    for c in candidates:
        key = " ".join(stemming.words(c.text))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _mostly_links(text: str) -> bool:
    """An entry of an index note ("[[Note]] — what it holds"), or a line that is half links or more."""
    linked = sum(len(m.group(0)) for m in _WIKILINK.finditer(text))
    return text.startswith(("[[", "![[")) or linked * 2 >= len(text)


def _keyword_scores(question: str, texts: list[str]) -> list[float]:
    """Σ idf of the question stems a sentence contains / Σ idf of all question stems (0..1)."""
    terms = stemming.query_terms(question)
    stems = [{stemming.stem(w) for w in stemming.words(t)} for t in texts]
    n = len(texts)
    idf = {t: math.log(1 + n / (1 + sum(t in s for s in stems))) for t in terms}
    total = sum(idf.values()) or 1.0
    return [sum(idf[t] for t in terms if t in s) / total for s in stems]


def _cosines(question: str, texts: list[str], embedder: Embedder, stored: StoredVectors | None, languages: Languages | None) -> np.ndarray:
    vectors = TextVectors(embedder, stored=stored, languages=languages)
    return vectors.passages(texts) @ vectors.question(question)
