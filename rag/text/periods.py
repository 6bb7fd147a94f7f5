"""The time a question is about, in English and Russian: "last week", «в марте», "since May 3", «за последние две
недели», "when did I last …" → a `Period` of calendar days (inclusive) against a given today, and the words that
named it (so they are not also searched for as keywords).

Conventions (bench/time_expressions/README.md states them with examples): weeks are ISO weeks, Monday first ("last
week" is the previous Monday–Sunday; "N weeks ago" the week N back); a month or season named without a year is the
most recent one that is not in the future (in April, "in May" is last May, "in April" is 1 April to today); "recently"
and "the past month" are the last 30 days; "last N days" runs from today − N to today; "before X" is open at the
start; "when did I last …" and "latest" have no range and ask for the newest first. A month name counts only where a
date would stand (after a preposition, beside a day or a year), so «Что любит Марта?» and "What did April say?" are
not about time; a four-digit year only after a preposition or before «год».

Rules rather than a general date parser: `dateparser` (checked, 1.5.0) returns points, not ranges, reads neither «в
марте» nor «на прошлой неделе», and takes «Марта» and "8080" for dates. The calendar's words and spans are in `calendar_words`;
the rules in `period_dated` (written with a date or a month) and `period_relative` (counted from today), built from
`period_patterns`. Pure: no I/O, no clock (today is passed in).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rag.text import period_dated as dated
from rag.text import period_relative as relative
from rag.text.period_patterns import Rule, group
from rag.text.period_relative import last_time

# The order is the priority: the first rule that matches wins, the most specific first ("since yesterday" before
# "yesterday", a range between two dates before either date alone).
RULES: list[Rule] = [
    *dated.RANGES,
    *relative.DAYS,
    *dated.SINCE,
    *dated.BEFORE,
    *dated.NAMED,
    *relative.COUNTED,
    *relative.NEWEST,
]


@dataclass(frozen=True)
class Period:
    after: date | None  # the first day, inclusive; None: from the beginning
    before: date | None  # the last day, inclusive; None: no range (only an order)
    newest_first: bool = False  # "when did I last …", "recently": rank newer notes first
    words: str = ""  # the words of the question that named the time, as written
    start: int = 0  # where they are in the question
    end: int = 0

    @property
    def ranged(self) -> bool:
        return self.before is not None


def read_period(question: str, today: date) -> Period | None:
    """The time `question` is about, or None when it names none. The first rule that matches wins (the rules run
    from the most specific); "when did I last …" gives a Period without a range, newest first. A time before year 1
    or after 9999 (a `today` at the calendar's ends) is no range: never an error."""
    for pattern, span, newest in RULES:
        for match in pattern.finditer(question):
            try:
                found = span(match, today)
            except (ValueError, OverflowError):  # past the calendar's ends (year 1 or 9999): no range
                found = None
            start, end = match.span("last") if span is last_time and group(match, "last") else match.span()
            words = question[start:end]
            if found is None and not newest:
                continue
            after, before = found if found is not None else (None, None)
            if before is not None and after is not None and after > before:
                continue
            return Period(after, before, newest, words, start, end)
    return None
