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

import bisect
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from rag import stemming
from rag.chunking import visible_text
from rag.citations import defang
from rag.context import FrozenContext, Source
from rag.embed import Embedder

MAX_QUOTES = 3
MAX_QUOTE_CHARS = 900  # all quotes together; the best sentence is always quoted whole
KEYWORD_WEIGHT = 0.1  # of keyword overlap (0..1) against cosine (about 0.7..0.95 for the default model)
SOURCE_PRIOR = 0.02  # added for S1, half for S2, a third for S3 …
FOLLOWING_CHARS = 300  # the best sentence is quoted with the next one of its paragraph when that is this short
FOLLOW_MARGIN = 0.03  # a further quote must score within this of the best one
LINK_PENALTY = 0.05  # an index entry or a line of [[links]] points elsewhere rather than answering
MIN_COSINE = 0.78  # with no keyword in common, a best sentence below this means the notes do not answer

_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]")
_EMPHASIS = re.compile(r"\*\*|__|`")
_HEADING = re.compile(r"#{1,6}\s")
_TABLE_RULE = re.compile(r"\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?")
_LIST_MARK = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+)")
_QUOTE_MARK = re.compile(r"^(?:>\s?)+")
_CALLOUT = re.compile(r"\[![\w-]+\][+-]?(?:\s|$)")
_BOUNDARY = re.compile(r"(?<=[.!?…])[\"»”’')\]]*\s+(?=[\"«“(\[]?[A-ZА-ЯЁ0-9])")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr st prof sr jr vs etc e.g i.e no fig al approx ca cf gen gov sen rep col lt sgt "
    "т е г гг им ул д см стр тыс млн млрд руб проф акад др пр св".split()
)


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


def extract(question: str, context: FrozenContext, *, embedder: Embedder | None = None) -> Extract:
    """The best sentences of `context` for `question` (best first), or not_found if none answers it."""
    candidates = _dedupe([c for rank, s in enumerate(context.sources) for c in _candidates(s, rank)])
    if not candidates:
        return Extract((), not_found=True)
    plain = [_plain(c.text) for c in candidates]
    keyword = _keyword_scores(question, plain)
    cosine = _cosines(question, plain, embedder) if embedder is not None else None
    base = cosine if cosine is not None else np.zeros(len(candidates), np.float32)
    weight = KEYWORD_WEIGHT if cosine is not None else 1.0
    scores = [
        float(base[i]) + weight * keyword[i] + SOURCE_PRIOR / (c.rank + 1) - LINK_PENALTY * _mostly_links(c.text)
        for i, c in enumerate(candidates)
    ]
    order = sorted(range(len(candidates)), key=lambda i: -scores[i])
    best = order[0]
    if keyword[best] == 0 and max(keyword) == 0 and (cosine is None or float(cosine.max()) < MIN_COSINE):
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


def sentences(text: str, first_line: int = 1) -> list[tuple[str, int]]:
    """(sentence, 1-based line where it starts) for the prose of a Markdown passage starting at `first_line`.
    Wrapped lines of a paragraph or list item are joined; a table row becomes "Header: cell; …"; headings, code,
    table rules and callout markers are skipped."""
    source = Source("S0", "", "", first_line, first_line, "", text, 0.0)
    return [(c.text, c.line) for c in _candidates(source, 0)]


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of one paragraph: cut at . ! ? … before a capital or digit, not after abbreviations."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        before = text[start : m.start()].split()
        word = before[-1].rstrip(".!?…\"»”’')]").lstrip("(\"«“*_").lower() if before else ""
        if len(word) <= 1 or word in _ABBREVIATIONS or "." in word:
            continue  # "U.S. Army", "т. е.", "Dr. Smith": not the end of a sentence
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _paragraphs(lines: list[str], first_line: int) -> list[tuple[str, list[tuple[int, int]]]]:
    """(paragraph text, [(offset in text, line number)]) for each paragraph, list item and table row."""
    out: list[tuple[str, list[tuple[int, int]]]] = []
    parts: list[tuple[str, int]] = []
    table: list[tuple[str, int]] = []
    in_code = False

    def flush() -> None:
        if parts:
            out.append(_join(parts))
            parts.clear()
        if table:
            out.extend(_table_rows(table))
            table.clear()

    for number, raw in enumerate(lines, first_line):
        line = _QUOTE_MARK.sub("", raw.strip()).strip()
        if raw.strip().startswith(("```", "~~~")):
            flush()
            in_code = not in_code
        elif in_code or not line or _HEADING.match(line) or _CALLOUT.match(line):
            flush()
        elif line.startswith("|"):
            if parts:
                out.append(_join(parts))
                parts.clear()
            table.append((line, number))
        else:
            body = _LIST_MARK.sub("", line, count=1)
            if body != line or table:
                flush()  # a list item (or the end of a table) starts a new unit
            parts.append((body.strip(), number))
    flush()
    return out


def _join(parts: list[tuple[str, int]]) -> tuple[str, list[tuple[int, int]]]:
    text, starts = "", []
    for piece, number in parts:
        text += (" " if text else "")
        starts.append((len(text), number))
        text += piece
    return text, starts


def _table_rows(rows: list[tuple[str, int]]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each data row as its own unit, cells labelled by the header when there is one."""
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row, _ in rows]
    header = None
    if len(rows) > 1 and _TABLE_RULE.fullmatch(rows[1][0]):
        header, cells, rows = cells[0], cells[2:], rows[2:]
    out = []
    for row_cells, (row, number) in zip(cells, rows):
        if _TABLE_RULE.fullmatch(row):
            continue
        if header:
            text = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, row_cells) if c)
        else:
            text = " | ".join(c for c in row_cells if c)
        if text:
            out.append((text, [(0, number)]))
    return out


def _candidates(source: Source, rank: int) -> list[_Candidate]:
    out = []
    for para, starts in _paragraphs(source.text.split("\n"), source.start_line):
        spans = [(a, b) for a, b in split_sentences(para) if any(ch.isalnum() for ch in para[a:b])]
        for k, (a, b) in enumerate(spans):
            line = starts[bisect.bisect_right([o for o, _ in starts], a) - 1][1]
            following = para[spans[k + 1][0] : spans[k + 1][1]] if k + 1 < len(spans) else ""
            out.append(_Candidate(source, rank, para[a:b], line, following))
    return out


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


def _plain(text: str) -> str:
    """What a reader sees: wikilinks resolved, emphasis and code marks dropped (for scoring, not for quoting)."""
    return _EMPHASIS.sub("", visible_text(text))


def _keyword_scores(question: str, texts: list[str]) -> list[float]:
    """Σ idf of the question stems a sentence contains / Σ idf of all question stems (0..1)."""
    terms = stemming.query_terms(question)
    stems = [{stemming.stem(w) for w in stemming.words(t)} for t in texts]
    n = len(texts)
    idf = {t: math.log(1 + n / (1 + sum(t in s for s in stems))) for t in terms}
    total = sum(idf.values()) or 1.0
    return [sum(idf[t] for t in terms if t in s) / total for s in stems]


def _cosines(question: str, texts: list[str], embedder: Embedder) -> np.ndarray:
    return _CACHE.vectors(embedder, texts) @ _CACHE.query(embedder, question)


class _VectorCache:
    """Sentence vectors by (model, text), least recently used dropped first: follow-up questions and evaluation
    runs quote the same notes again, and embedding is the slow part of an extractive answer."""

    def __init__(self, capacity: int = 8192) -> None:
        self.capacity = capacity
        self._items: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def query(self, embedder: Embedder, text: str) -> np.ndarray:
        key = (embedder.name, "query", text)  # queries and passages are embedded differently (e5 prefixes)
        with self._lock:
            if key not in self._items:
                self._items[key] = embedder.embed_query(text)
            self._items.move_to_end(key)
            return self._items[key]

    def vectors(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        with self._lock:  # held while embedding: the local model runs one batch at a time anyway
            missing = list(dict.fromkeys(t for t in texts if (embedder.name, "passage", t) not in self._items))
            if missing:
                self._items.update(((embedder.name, "passage", t), v) for t, v in zip(missing, embedder.embed_passages(missing)))
            rows = [self._items[(embedder.name, "passage", t)] for t in texts]
            for t in texts:
                self._items.move_to_end((embedder.name, "passage", t))
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        return np.vstack(rows)


_CACHE = _VectorCache()
