"""What a search returns: its hits (`Hit`), the result with the channels that served and why one is missing
(`SearchResult`), the time it kept to (`TimeScope`), and which hits are shown (`relevant`, at RELEVANCE_FLOOR).

Values only, apart from the retriever that makes them and the time scope that narrows it (rag/search/retrieve.py,
rag/search/when.py), so both, and the adapters, import them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from rag.index.records import StoredChunk
from rag.text.date_labels import range_phrase

# Search shows the hits whose fused score reaches this (z-scores fused: a hit standing out from the candidates by about
# one deviation). bench/search_cutoff.py on every QA set: the gold note stays in 0.966–1.0 of the results, 3–8 are
# shown instead of 10, and 2–5 for off-topic questions.
RELEVANCE_FLOOR = 1.0
MIN_POOL = 20  # … when meaning ranked this many candidates at least (in a vault of a few notes z-scores say little)


@dataclass(frozen=True)
class Hit:
    chunk: StoredChunk
    score: float
    bm25_rank: int | None = None  # 1-based rank in the keyword channel, None if it did not find this chunk
    dense_rank: int | None = None  # 1-based rank in the dense channel
    linked_from: str | None = None  # a PDF found because this note, among the best passages, links to it (rag/search/linked.py)


@dataclass(frozen=True)
class TimeScope:
    """The time a search kept to, for the person reading the results ("searching notes from 1–31 March 2026")."""

    after: date | None
    before: date | None
    newest_first: bool = False
    words: str = ""  # the question's words that named it ("" for a range set by a filter)
    applied: bool = True  # False: nothing in the notes is dated then, so the search ran over all dates

    @property
    def ranged(self) -> bool:
        return self.after is not None or self.before is not None

    @property
    def narrows(self) -> bool:
        """The search kept to a range (like a filter: its few passages are not held to the relevance floor)."""
        return self.applied and self.ranged

    def label(self, lang: str = "en") -> str:
        """The range as it follows "searching notes": "from 1–31 March 2026", "since 1 May 2026", «за 1–31 марта
        2026»; "" without a range (only an order)."""
        return range_phrase(self.after, self.before, lang)

    def to_json(self) -> dict:
        iso = lambda d: d.isoformat() if d else None  # noqa: E731
        return {"after": iso(self.after), "before": iso(self.before), "newest_first": self.newest_first, "words": self.words, "applied": self.applied}


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[Hit, ...]
    channels: tuple[str, ...]  # the channels that actually served: ("bm25", "dense"), ("bm25",) …
    notice: str | None = None  # why a channel is missing, for the person reading the results
    # The IDF-weighted share of the query's terms that occur anywhere in the index (hybrid only): "shoe size" over a
    # vault with no word "shoe" in it is probably not answered there, however close some passage is in meaning.
    coverage: float | None = None
    hidden: int = 0  # hits under the relevance floor, left out of what is shown (`relevant`)
    fused: str | None = None  # "zscore" or "rrf" when both channels were fused
    pool: int = 0  # candidates the meaning channel ranked: the z-scores' sample
    time: TimeScope | None = None  # the time the search kept to (rag/search/when.py), None: all dates
    translation: str | None = None  # the question as also searched in the vault's other language (rag/answer/translation.py)


def relevant(result: SearchResult, floor: float = RELEVANCE_FLOOR) -> SearchResult:
    """The hits a person or agent should see: those whose fused score reaches `floor`. Only fused z-scores (both
    channels, zscore fusion, over MIN_POOL candidates or more) are on that scale; other results are returned whole."""
    if result.fused != "zscore" or not result.hits or result.pool < MIN_POOL:
        return result
    kept = tuple(h for h in result.hits if h.score >= floor)
    return replace(result, hits=kept, hidden=len(result.hits) - len(kept))
