"""The pieces the period rules are built from: a rule (patterns, the span they name, newest first), the decorator
that adds one to a list, the regex parts both languages share (a year, an English day, «года», a numeric date) and
reading a matched group or date.

Apart so that `period_dated` and `period_relative` build their rules from the same parts, and `periods` reads the
rules without knowing how they were written. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

Span = tuple[date | None, date | None]
Rule = tuple[re.Pattern, Callable[[re.Match, date], Span | None], bool]  # (pattern, span, newest first)


def rule(into: list[Rule], *patterns: str, newest: bool = False):
    """Add `function(match, today) -> (first, last) | None` to `into` for each pattern (Python's `re` takes a group
    name once per pattern, so the English and Russian forms are often two). Stacked decorators add from the bottom
    up."""

    def register(function):
        into.extend((re.compile(p, re.IGNORECASE), function, newest) for p in patterns)
        return function

    return register


def year_of(word: str | None) -> int | None:
    return int(word) if word else None


def group(match: re.Match, *names: str) -> str | None:
    """The first of these groups the pattern has and matched (the English and Russian forms name theirs apart)."""
    return next((match[n] for n in names if n in match.re.groupindex and match[n]), None)


YEAR = r"(?P<year>(?:19|20)\d\d)"
EN_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
RU_YEAR_WORD = r"(?:\s*(?:г\.|года|году|год))?"


def iso(match: re.Match, prefix: str = "") -> date | None:
    """The date of `date_pattern(prefix)`'s match, written either way."""
    form = prefix + ("i" if match[prefix + "iy"] else "t")
    try:
        return date(int(match[form + "y"]), int(match[form + "m"]), int(match[form + "d"]))
    except ValueError:
        return None


ISO = r"(?P<{p}y>(?:19|20)\d\d)-(?P<{p}m>\d\d)-(?P<{p}d>\d\d)"
DOTTED = r"(?P<{p}d>\d{{1,2}})\.(?P<{p}m>\d{{1,2}})\.(?P<{p}y>(?:19|20)\d\d)"


def date_pattern(p: str) -> str:
    """2026-03-14 or 14.03.2026 (day first, as Russian and most of Europe write it)."""
    return "(?:" + ISO.format(p=p + "i") + "|" + DOTTED.format(p=p + "t") + ")"
