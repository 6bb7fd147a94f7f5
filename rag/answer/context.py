"""Ranked hits → a frozen, capped, fenced context: the only text a chat model sees, and the only ids it may cite.

1. Every chunk is re-read from its file and re-hashed; a chunk whose file changed or vanished since indexing is
   dropped (and the drop is recorded with its reason), so the model never sees text that is no longer in the note.
2. Caps, with a chat model and without one alike: at most `max_chunks_per_note` sources per note, `max_notes` notes
   and `max_chars` characters of source text. A hit whose chunk directly follows or precedes one already chosen from
   its note (only blank lines between) extends that source into one contiguous span instead of becoming another
   source: a reader that needs more of a note gets more of it, never a third source. A chunk that does not fit is
   skipped and the next one tried; text is never cut.
3. Source ids S1, S2 … are assigned here, in rank order, each mapped to path, heading path, lines and hash.
4. Each source is fenced as untrusted data with a backtick fence longer than any backtick run in the whole
   context, so no note can close its fence or pose as the system.
5. The result is immutable. Building reads files, never the index: the hits were read (under the store's lock)
   before, so nothing here or during streaming holds the index.

Knows nothing about prompts or chat models; token counts use the chat-model tokenizer in `rag.tokens`.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Callable, Iterable

from rag.config import Settings
from rag.errors import NoteError
from rag.index.chunking import SEPARATOR
from rag.notes import pdf
from rag.notes.dates import stated_day
from rag.notes.pdf import Place
from rag.notes.vault import read_note
from rag.search.results import Hit
from rag.tokens import count_tokens as chat_tokens

REASON_CHANGED = "the note changed since it was indexed; run `python -m rag index` to refresh it"
REASON_VANISHED = "the note no longer exists; run `python -m rag index` to refresh the index"
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class ContextLimits:
    max_chunks_per_note: int = 2
    max_notes: int = 6
    max_chars: int = 12_000

    @classmethod
    def from_settings(cls, settings: Settings) -> ContextLimits:
        return cls(settings.context_max_chunks_per_note, settings.context_max_notes, settings.context_max_chars)


@dataclass(frozen=True)
class Source:
    id: str  # "S1", assigned by the program
    path: str
    heading: str  # "Note › Section": the headings that hold all of `text` (common to its chunks' heading paths)
    start_line: int  # 1-based, inclusive
    end_line: int
    sha256: str  # of `text`; each chunk in it matched the hash recorded at indexing time
    text: str  # the exact slice of the note as it is on disk now
    score: float  # retrieval score and per-channel ranks: why this passage was chosen
    bm25_rank: int | None = None
    dense_rank: int | None = None
    start_char: int = 0  # where `text` is in the note as read (`vault.read_note`)
    end_char: int = 0
    day: str | None = None  # ISO day the passage is from (rag/notes/dates.py), and where that was read
    day_source: str | None = None
    place: Place | None = None  # a PDF's passage: its page and the lines on it (rag/notes/pdf.py)
    linked_from: str | None = None  # a PDF found because a note among the best passages links to it

    def place_of(self, start_line: int, end_line: int) -> Place | None:
        """Where lines of this passage are on its PDF's page (None for a note's)."""
        return pdf.within(self.text, self.start_line, self.place, start_line, end_line) if self.place else None

    @property
    def lines(self) -> str:
        """ "lines 12-18", or on a PDF's page "p. 3, lines 12-18"."""
        return str(self.place) if self.place else f"lines {self.start_line}-{self.end_line}"

    @property
    def dated(self) -> date | None:
        """The day the passage is from, when something in the note says it (a file time is no such statement)."""
        return stated_day(self.day, self.day_source)

    @property
    def label(self) -> str:
        """Where the passage is: path, heading path, lines and day (written by the note's author: it goes inside the
        fence). The day lets a model answer "when did I …"."""
        day = f" ({self.dated.isoformat()})" if self.dated else ""
        return " ".join(f"{self.path} › {self.heading}, {self.lines}{day}".split())


@dataclass
class _Span:
    """A source being built: one chunk, or adjacent chunks of one note, and the hits that chose them."""

    path: str
    hits: list[Hit]  # best first
    start: int  # char offsets in the note
    end: int
    note: str  # the note's text on disk

    @property
    def text(self) -> str:
        return self.note[self.start : self.end]

    def touches(self, chunk) -> bool:
        """Only whitespace lies between this span and `chunk` (they are neighbours in the note), on the same page of
        a PDF (a source is cited by its page)."""
        if chunk.start_char >= self.end:
            return not self.note[self.end : chunk.start_char].strip() and not self._opens_page(chunk.start_char)
        return chunk.end_char <= self.start and not self.note[chunk.end_char : self.start].strip() and not self._opens_page(self.start)

    def _opens_page(self, at: int) -> bool:
        return self.path.lower().endswith(pdf.SUFFIX) and bool(pdf.PAGE_HEADING.match(self.note[at:].split("\n", 1)[0]))


@dataclass(frozen=True)
class Dropped:
    path: str
    heading: str
    start_line: int
    end_line: int
    reason: str


@dataclass(frozen=True)
class FrozenContext:
    sources: tuple[Source, ...]
    dropped: tuple[Dropped, ...]  # chunks left out because their file changed or vanished
    fence: str  # the backtick fence around every source; longer than any backtick run inside
    tokens: int  # of `render()`, in the chat model's tokenizer
    left_out: int = 0  # sources the caps chose that the model's window could not hold (left out whole, never cut)

    def get(self, source_id: str) -> Source | None:
        return next((s for s in self.sources if s.id == source_id), None)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.sources)

    @property
    def chars(self) -> int:
        return sum(len(s.text) for s in self.sources)

    def render(self) -> str:
        """All sources, each as its id line and its fenced place and text, separated by blank lines."""
        return render_sources(self.sources, self.fence)


def build_context(
    hits: Iterable[Hit],
    *,
    vault: Path,
    outside: tuple[str, ...] = (),
    limits: ContextLimits = ContextLimits(),
    max_tokens: int | None = None,
    count_tokens: Callable[[str], int] = chat_tokens,
) -> FrozenContext:
    """Verify, cap, number and fence `hits` (best first). With `max_tokens`, lower-ranked sources are left out
    until the rendered sources fit; a source is always kept whole."""
    spans, dropped = _select(hits, functools.partial(_read, vault, outside=outside), limits)
    fence = fence_for([s.text for s in spans] + [_label_text(s) for s in spans])
    chosen = len(spans)
    if max_tokens is not None:
        spans = _fit_tokens(spans, fence, max_tokens, count_tokens)
    sources = tuple(_source(f"S{i}", span) for i, span in enumerate(spans, 1))
    tokens = count_tokens(render_sources(sources, fence)) if sources else 0
    return FrozenContext(sources, tuple(dropped), fence, tokens, chosen - len(spans))


def fence_for(texts: Iterable[str]) -> str:
    """A backtick fence longer than the longest backtick run in any of `texts` (at least three)."""
    longest = max((len(m.group()) for t in texts for m in _BACKTICKS.finditer(t)), default=0)
    return "`" * max(3, longest + 1)


def render_sources(sources: Iterable[Source], fence: str) -> str:
    """Each source as its id on a line of its own, then its place and text inside the fence: nothing the note's author
    wrote (file name and headings included) is outside it."""
    return "\n\n".join(f"[{s.id}]\n{fence}text\nFrom: {s.label}\n\n{s.text}\n{fence}" for s in sources)


def _select(hits: Iterable[Hit], read: Callable[[str], tuple[str, str | None]], limits: ContextLimits) -> tuple[list[_Span], list[Dropped]]:
    """Walk the hits best first, keeping those that are still true on disk and fit the caps; a chunk next to a chosen
    source of its note extends that source."""
    spans: list[_Span] = []
    dropped: list[Dropped] = []
    notes: dict[str, tuple[str, str | None]] = {}  # path → (decoded text, why unreadable); read once per context
    seen: set[str] = set()
    for hit in hits:
        chunk = hit.chunk
        mine = [s for s in spans if s.path == chunk.path]
        if chunk.id in seen or (not mine and len({s.path for s in spans}) >= limits.max_notes):
            continue
        text, reason = _verify(hit, read, notes)
        if reason is not None:
            dropped.append(Dropped(chunk.path, chunk.heading_path, chunk.start_line, chunk.end_line, reason))
            continue
        chars = sum(len(s.text) for s in spans)
        beside = next((s for s in mine if s.touches(chunk)), None)
        if beside is not None:
            grown = max(beside.end, chunk.end_char) - min(beside.start, chunk.start_char)
            if chars - len(beside.text) + grown <= limits.max_chars:
                beside.hits.append(hit)
                beside.start, beside.end = min(beside.start, chunk.start_char), max(beside.end, chunk.end_char)
                seen.add(chunk.id)
            continue  # a neighbour too long to add is not taken as a source of its own either
        if len(mine) >= limits.max_chunks_per_note or chars + len(text) > limits.max_chars:
            continue  # too many sources of this note, or too long for what is left: try the next one, never cut text
        spans.append(_Span(chunk.path, [hit], chunk.start_char, chunk.end_char, notes[chunk.path][0]))
        seen.add(chunk.id)
    return spans, dropped


def _verify(hit: Hit, read: Callable[[str], tuple[str, str | None]], notes: dict[str, tuple[str, str | None]]) -> tuple[str, str | None]:
    """(text on disk, None) if the chunk is unchanged, else ("", why it was dropped)."""
    chunk = hit.chunk
    if chunk.path not in notes:
        notes[chunk.path] = read(chunk.path)
    note, reason = notes[chunk.path]
    if reason is not None:
        return "", reason
    text = note[chunk.start_char : chunk.end_char]
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != chunk.sha256:
        return "", REASON_CHANGED
    return text, None


def _read(vault: Path, path: str, *, outside: tuple[str, ...] = ()) -> tuple[str, str | None]:
    if not (vault / path).is_file():
        return "", REASON_VANISHED
    try:
        return read_note(vault, path, outside=outside).text, None
    except NoteError as exc:  # vanished this instant, or no longer UTF-8
        return "", str(exc)


def _fit_tokens(spans: list[_Span], fence: str, max_tokens: int, count_tokens) -> list[_Span]:
    """Keep sources best first while they fit `max_tokens`; one that does not fit is skipped, the next tried."""
    kept: list[_Span] = []
    used = 0
    for span in spans:
        cost = count_tokens(render_sources([_source("S99", span)], fence)) + 2  # + the blank line between
        if used + cost <= max_tokens:
            kept.append(span)
            used += cost
    while kept and count_tokens(render_sources([_source(f"S{i}", s) for i, s in enumerate(kept, 1)], fence)) > max_tokens:
        kept.pop()  # estimates were optimistic: drop the lowest-ranked source
    return kept


def _source(source_id: str, span: _Span) -> Source:
    """A span as a source: from its first chunk's line to its last's, under the headings that hold all of them (two
    neighbouring sections are under their parent, never one inside the other), with its best hit's score and ranks."""
    chunks = sorted((h.chunk for h in span.hits), key=lambda c: c.start_char)
    best = span.hits[0]
    text = span.text
    bm25 = min((h.bm25_rank for h in span.hits if h.bm25_rank is not None), default=None)
    dense = min((h.dense_rank for h in span.hits if h.dense_rank is not None), default=None)
    sha = chunks[0].sha256 if len(chunks) == 1 else hashlib.sha256(text.encode("utf-8")).hexdigest()
    first, last = chunks[0], chunks[-1]
    where = pdf.place(span.note, first.start_line, last.end_line) if span.path.lower().endswith(pdf.SUFFIX) else None
    return Source(
        source_id, span.path, common_heading(c.heading_path for c in chunks), first.start_line, last.end_line, sha, text, best.score,
        bm25, dense, span.start, span.end,
        first.day, first.day_source, where, best.linked_from if bm25 is None and dense is None else None,
    )  # fmt: skip


def common_heading(paths: Iterable[str]) -> str:
    """The heading path that holds all of `paths` ("Note › Plan › Costs", "Note › Plan › Dates" → "Note › Plan"): their
    common leading headings, the note's title at least."""
    parts = [p.split(SEPARATOR) for p in paths]
    common = parts[0]
    for other in parts[1:]:
        n = next((i for i, (a, b) in enumerate(zip(common, other)) if a != b), min(len(common), len(other)))
        common = common[: max(n, 1)]
    return SEPARATOR.join(common)


def _label_text(span: _Span) -> str:
    return " ".join([span.path] + [h.chunk.heading_path for h in span.hits])
