"""A question's time, applied to a search: "what did I decide last week?", «что я писал про переезд в марте?».

The period the question names (rag/text/periods.py) becomes a date range filter inside both channels (as the note
filters are: every passage dated then is ranked, not the few of an unfiltered top-N); the words that named it leave
the query of both channels once the range narrows the search (so "March" does not also match notes that mention
March, nor «в феврале» make a log of February dates look like the answer to «что я решил»); "when did I last …" and
"recently" put the relevant passages newest first. A range from which no note or passage is does not empty the
search: the question was about its content's time ("Panthers' defence in 2015" over an encyclopedia), so it runs over
all dates with every word, and says so (`TimeScope.applied` False). A range set by a filter (the app's date filter,
`--after/--before`, an agent's arguments) wins over the question's words.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from rag.config import Settings
from rag.errors import ConfigError
from rag.index.records import StoredChunk
from rag.index.storage import IndexStore
from rag.notes.dates import stated_day
from rag.search.filters import Filters
from rag.search.results import Hit, SearchResult, TimeScope
from rag.search.retrieve import Retriever
from rag.text.periods import read_period

# "When did I last …" puts newest first the hits within this much of the best fused z-score (one deviation, the
# relevance floor's unit). On bench/time_questions' 16 newest-first questions, hit@1: 9 at 0.5 and 1.0, 7 at 0.3,
# 8 sorting every hit over the relevance floor, 7 not reordering, 8–9 adding a recency bonus instead (0.25–1.0 z).
NEWEST_MARGIN = 1.0
NEWEST_AMONG = 5  # without fused z-scores (RRF fusion, one channel), the top few are put newest first
# A period is a preference (`_in_range`): the days around it searched too, its own passages ranked first.
# Chosen on the fitted two thirds of bench/time_questions and bench/time_dev (hit@1/hit@5, /tmp sweep in the notes):
# 3 days after ranks better than 7 on both; a bonus of 0.5–1 keeps a relevant note from the edge above a loosely
# related one from inside (3 and more put the range first whatever it holds, as the old filter did).
LATE_DAYS = 3  # an event is written down days later ("last Saturday we…" on Monday)
EARLY_DAYS = 1  # … or the evening before ("tomorrow: dentist")
IN_RANGE_BONUS = 1.0  # fused z-score added to a passage from inside the range


def today_for(settings: Settings) -> date | None:
    """The day questions are read against: the settings' fixed `today` (tests, benchmarks) or the clock; None when
    reading time from questions is switched off (`time_questions = false`)."""
    if not settings.time_questions:
        return None
    if not settings.today:
        return date.today()
    try:
        return date.fromisoformat(settings.today)
    except ValueError:
        raise ConfigError(f"today = {settings.today!r} is not a date (YYYY-MM-DD).") from None


def timed_hybrid(
    retriever: Retriever, query: str, k: int = 10, *, today: date | None, filters: Filters = Filters(), candidates: int | None = None
) -> SearchResult:
    """`retriever.hybrid` with the question's time applied; `today` None reads no time from the question (a date
    range in `filters` still applies)."""
    period = read_period(query, today) if today is not None else None
    if filters.dated:  # the range set wins; "when did I last …" still orders within it
        result = retriever.hybrid(query, k, candidates=candidates, filters=filters)
        newest = period is not None and period.newest_first
        if newest:
            result = newest_first(result, until=filters.before or today, store=retriever.store)
        return replace(result, time=TimeScope(filters.after, filters.before, newest))
    if period is None:
        return retriever.hybrid(query, k, candidates=candidates, filters=filters)
    keywords = (query[: period.start] + " " + query[period.end :]).strip()
    scope = TimeScope(period.after, period.before if period.ranged else None, period.newest_first, period.words)
    if scope.ranged:
        result = _in_range(retriever, query, k, keywords, scope, filters, candidates, today)
        if result is None:  # nothing is from then: the time words were about the content ("in 2015"), not the notes
            result, scope = retriever.hybrid(query, k, candidates=candidates, filters=filters), replace(scope, applied=False)
    else:
        result = retriever.hybrid(query, k, candidates=candidates, filters=filters, keywords=keywords)
    if period.newest_first:
        result = newest_first(result, until=period.before or today, store=retriever.store)
    return replace(result, time=scope)


def _in_range(
    retriever: Retriever, query: str, k: int, keywords: str, scope: TimeScope, filters: Filters, candidates, today: date
) -> SearchResult | None:
    """The search around the range, its passages first, or None when no passage is from then. A range that admits
    every passage narrows nothing: the question's words then all count, as without it.

    The range is a preference, not a wall: what happened then is often written down later ("last night…" in the next
    day's note, Saturday's climb in Monday's) or the day before, so the search runs over the range widened by
    LATE_DAYS after it (never past today) and EARLY_DAYS before, and a passage from inside the range ranks
    IN_RANGE_BONUS (in fused z-scores) above an equally relevant one from its edges."""
    store = retriever.store
    ranged = replace(filters, after=scope.after, before=scope.before)
    inside = ranged.rows(store) or []
    widened = replace(
        filters,
        after=_moved(scope.after, -EARLY_DAYS) if scope.after else None,
        before=min(_moved(scope.before, LATE_DAYS), max(today, scope.before)) if scope.before else None,
    )
    near = widened.rows(store) or []
    if not near:
        return None
    if len(inside) == store.document_frequencies([])[0] and not filters.active:
        return retriever.hybrid(query, k, candidates=candidates, filters=filters)
    result = retriever.hybrid(keywords or query, max(k, candidates or k), candidates=candidates, filters=widened, keywords=keywords)
    if not result.hits:
        return None
    first = set(inside)
    if result.fused == "zscore":
        ordered = sorted(result.hits, key=lambda h: h.score + IN_RANGE_BONUS * (h.chunk.rowid in first), reverse=True)
    else:  # ranks without comparable scores (one channel, RRF): the range's passages first
        ordered = sorted(result.hits, key=lambda h: h.chunk.rowid in first, reverse=True)
    return replace(result, hits=tuple(ordered[:k]))


def _moved(day: date, days: int) -> date:
    """`day` moved by `days`, held inside the calendar (a `today` of 9999-12-31 has no day after it)."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max if days > 0 else date.min


def newest_first(result: SearchResult, *, until: date, store: IndexStore) -> SearchResult:
    """The hits close to the best (within NEWEST_MARGIN of its fused z-score; the top few without fused z-scores)
    ordered by the latest day they are from, up to `until`; the rest after them as they were. Relevance first:
    a newer passage that is only loosely about the question does not jump ahead of the one that answers it."""
    hits = list(result.hits)
    if not hits:
        return result
    if result.fused == "zscore":
        head = [h for h in hits if h.score >= hits[0].score - NEWEST_MARGIN]
    else:
        head = hits[:NEWEST_AMONG]
    last = until.isoformat()
    entries = store.latest_entry_days([h.chunk.rowid for h in head], last)
    ordered = sorted(head, key=lambda h: latest_day(h.chunk, entries.get(h.chunk.rowid), last), reverse=True)
    return replace(result, hits=tuple(ordered + hits[len(head) :]))


def latest_day(chunk: StoredChunk, entry: str | None, until: str) -> tuple[int, str]:
    """How recent a passage is, to order by: the latest of its day and its latest log entry (`entry`), not after
    `until`; a day read from the file time only ranks below every real date (a copy or a sync tool resets it)."""
    stated = stated_day(chunk.day, chunk.day_source)
    real = [d for d in (entry, stated.isoformat() if stated else None) if d and d <= until]
    if real:
        return 1, max(real)
    return 0, chunk.day if chunk.day and chunk.day <= until else ""


def hit_day(hit: Hit) -> date | None:
    """The day a found passage is from, for showing beside it: None when nothing in the note dates it (a file time
    is not shown as the passage's day)."""
    return stated_day(hit.chunk.day, hit.chunk.day_source)
