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
марте» nor «на прошлой неделе», and takes «Марта» and "8080" for dates. The calendar's words and spans are in `calendar_words`. Pure: no I/O, no
clock (today is passed in).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from rag.text.calendar_words import (
    EN_MONTH,
    NUMBER,
    RU_MONTH,
    SEASON_MONTHS,
    WEEKDAYS_EN,
    WEEKDAYS_RU,
    day_of,
    last_weekday,
    month_end,
    month_number,
    month_span,
    months_back,
    number_value,
    recent_month_year,
    season_span,
    week_start,
    weekday_number,
)

RECENT_DAYS = 30  # "recently", "lately", «недавно», "the past month"


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


def _year(word: str | None) -> int | None:
    return int(word) if word else None


def _group(match: re.Match, *names: str) -> str | None:
    """The first of these groups the pattern has and matched (the English and Russian forms name theirs apart)."""
    return next((match[n] for n in names if n in match.re.groupindex and match[n]), None)


# --- the rules ----------------------------------------------------------------------------------------------------

Span = tuple[date | None, date | None]
_RULES: list[tuple[re.Pattern, Callable[[re.Match, date], Span | None], bool]] = []  # (pattern, span, newest first)


def _rule(*patterns: str, newest: bool = False):
    """Register `function(match, today) -> (first, last) | None` for each pattern (Python's `re` takes a group name
    once per pattern, so the English and Russian forms are often two)."""

    def register(function):
        _RULES.extend((re.compile(p, re.IGNORECASE), function, newest) for p in patterns)
        return function

    return register


YEAR = r"(?P<year>(?:19|20)\d\d)"
EN_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
RU_YEAR_WORD = r"(?:\s*(?:г\.|года|году|год))?"


def _iso(match: re.Match, prefix: str = "") -> date | None:
    """The date of `_date_pattern(prefix)`'s match, written either way."""
    form = prefix + ("i" if match[prefix + "iy"] else "t")
    try:
        return date(int(match[form + "y"]), int(match[form + "m"]), int(match[form + "d"]))
    except ValueError:
        return None


ISO = r"(?P<{p}y>(?:19|20)\d\d)-(?P<{p}m>\d\d)-(?P<{p}d>\d\d)"
DOTTED = r"(?P<{p}d>\d{{1,2}})\.(?P<{p}m>\d{{1,2}})\.(?P<{p}y>(?:19|20)\d\d)"


def _date_pattern(p: str) -> str:
    """2026-03-14 or 14.03.2026 (day first, as Russian and most of Europe write it)."""
    return "(?:" + ISO.format(p=p + "i") + "|" + DOTTED.format(p=p + "t") + ")"


# ranges between two dates ----------------------------------------------------------------------------------------
@_rule(r"\b(?:between|from)\s+" + _date_pattern("a") + r"\s+(?:and|to|until|till)\s+" + _date_pattern("b"))
@_rule(r"(?<!\w)(?:с|между)\s+" + _date_pattern("a") + r"\s+(?:по|и|до)\s+" + _date_pattern("b"))
def _dates_range(m, today):
    return _iso(m, "a"), _iso(m, "b")


@_rule(
    r"\b(?:between|from)\s+" + EN_MONTH.format(g="m1") + r"\s+" + EN_DAY.replace("day", "d1")
    + r"\s+(?:and|to|until|till)\s+(?:" + EN_MONTH.format(g="m2") + r"\s+)?" + EN_DAY.replace("day", "d2")
)  # fmt: skip
def _en_days_range(m, today):
    m1 = month_number(m["m1"])
    m2 = month_number(m["m2"]) if _group(m, "m2") else m1
    return day_of(today, int(m["d1"]), m1, None), day_of(today, int(m["d2"]), m2, None)


@_rule(r"\bfrom\s+" + EN_MONTH.format(g="m1") + r"\s+(?:to|until|till|through)\s+" + EN_MONTH.format(g="m2"))
@_rule(r"(?<!\w)с\s+" + RU_MONTH.format(g="m1") + r"\s+(?:по|до)\s+" + RU_MONTH.format(g="m2"))
def _months_range(m, today):
    m1, m2 = month_number(m["m1"]), month_number(m["m2"])
    end_year = recent_month_year(today, m2)
    start_year = end_year if m1 <= m2 else end_year - 1
    return date(start_year, m1, 1), min(month_end(end_year, m2), today)


@_rule(r"(?<!\w)(?:с|между)\s+(?P<d1>\d{1,2})\s+(?:по|и|до)\s+(?P<d2>\d{1,2})\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + ")?")
def _ru_days_range(m, today):
    month, year = month_number(m["m"]), _year(_group(m, "year"))
    return day_of(today, int(m["d1"]), month, year), day_of(today, int(m["d2"]), month, year)


# relative days ---------------------------------------------------------------------------------------------------
@_rule(r"\b(?:the\s+)?day\s+before\s+yesterday\b|(?<!\w)позавчера(?!\w)")
def _before_yesterday(m, today):
    day = today - timedelta(days=2)
    return day, day


@_rule(r"\bsince\s+yesterday\b|(?<!\w)со\s+вчерашнего\s+дня(?!\w)")
def _since_yesterday(m, today):
    return today - timedelta(days=1), today


@_rule(r"\b(?:yesterday|last\s+night)\b|(?<!\w)вчера(?:\s+(?:утром|днём|днем|вечером))?(?!\w)")
def _yesterday(m, today):
    day = today - timedelta(days=1)
    return day, day


@_rule(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b|(?<!\w)сегодня(?:\s+(?:утром|днём|днем|вечером))?(?!\w)")
def _today(m, today):
    return today, today


# since … ---------------------------------------------------------------------------------------------------------
@_rule(r"\bsince\s+(?:the\s+)?(?:beginning|start)\s+of\s+(?:the\s+|this\s+)?year\b|(?<!\w)с\s+начала\s+(?:этого\s+)?года(?!\w)")
def _since_new_year(m, today):
    return date(today.year, 1, 1), today


@_rule(r"\bsince\s+last\s+week\b|(?<!\w)с\s+прошлой\s+недели(?!\w)")
def _since_last_week(m, today):
    return week_start(today) - timedelta(days=7), today


@_rule(r"\bsince\s+(?P<w>" + "|".join(WEEKDAYS_EN) + r")\b|(?<!\w)с\s+(?P<rw>" + "|".join(WEEKDAYS_RU) + r")(?!\w)")
def _since_weekday(m, today):
    weekday = weekday_number(_group(m, "w", "rw"))
    start = today if today.weekday() == weekday else last_weekday(today, weekday)
    return start, today


@_rule(r"\bsince\s+" + EN_MONTH.format(g="m") + r"\s+" + EN_DAY + r"(?:,?\s+" + YEAR + r")?\b")
@_rule(r"\bsince\s+(?:the\s+)?" + EN_DAY + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@_rule(r"(?<!\w)(?:с|со)\s+(?P<day>\d{1,2})\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _since_day(m, today):
    start = day_of(today, int(m["day"]), month_number(m["m"]), _year(_group(m, "year")))
    return (start, today) if start is not None else None


@_rule(r"\bsince\s+" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@_rule(r"(?<!\w)(?:с|со)\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _since_month(m, today):
    month = month_number(m["m"])
    year = _year(_group(m, "year")) or recent_month_year(today, month)
    return date(year, month, 1), today


@_rule(r"\bsince\s+" + YEAR + r"\b", r"(?<!\w)с\s+" + YEAR + RU_YEAR_WORD + r"(?!\w)")
def _since_year(m, today):
    return date(int(m["year"]), 1, 1), today


# before … ---------------------------------------------------------------------------------------------------------
BEFORE = r"(?:\bbefore|\bprior\s+to|\buntil|(?<!\w)до|(?<!\w)раньше)\s+"


@_rule(BEFORE + r"last\s+week\b|(?<!\w)до\s+прошлой\s+недели(?!\w)")
def _before_last_week(m, today):
    return None, week_start(today) - timedelta(days=8)


@_rule(
    BEFORE + EN_MONTH.format(g="m") + r"\s+" + EN_DAY + r"(?:,?\s+" + YEAR + r")?\b",
    BEFORE + EN_DAY + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b",
    BEFORE + r"(?P<rday>\d{1,2})\s+" + RU_MONTH.format(g="rm") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)",
)  # fmt: skip
def _before_day(m, today):
    day = day_of(today, int(_group(m, "day", "rday")), month_number(_group(m, "m", "rm")), _year(_group(m, "year")))
    return (None, day - timedelta(days=1)) if day is not None else None


@_rule(BEFORE + r"(?:" + EN_MONTH.format(g="m") + r"|" + RU_MONTH.format(g="rm") + r")(?:,?\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _before_month(m, today):
    month = month_number(_group(m, "m", "rm"))
    year = _year(_group(m, "year")) or recent_month_year(today, month)
    return None, date(year, month, 1) - timedelta(days=1)


@_rule(BEFORE + YEAR + RU_YEAR_WORD + r"(?!\w)")
def _before_year(m, today):
    return None, date(int(m["year"]) - 1, 12, 31)


# explicit dates ----------------------------------------------------------------------------------------------------
@_rule(r"(?<![\w.-])" + _date_pattern("") + r"(?![\w-]|\.\d)")
def _explicit_numeric(m, today):
    day = _iso(m)
    return (day, day) if day is not None else None


@_rule(r"(?<!\w)" + EN_DAY + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@_rule(r"\b" + EN_MONTH.format(g="m") + r"\s+" + EN_DAY + r"(?:,?\s+" + YEAR + r")?(?![\w:])")
@_rule(r"(?<![\w.])(?P<day>\d{1,2})\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _explicit_day(m, today):
    day = day_of(today, int(m["day"]), month_number(m["m"]), _year(_group(m, "year")))
    return (day, day) if day is not None and day <= today else None


# parts of a month ------------------------------------------------------------------------------------------------
_PART_EN = r"(?P<part>early|mid|late|(?:the\s+)?(?:beginning|start|middle|end)\s+of)"
_PART_RU = r"(?P<rpart>начале|середине|конце)"


@_rule(r"\b(?:in\s+|at\s+)?(?:the\s+)?" + _PART_EN + r"[\s-]+" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@_rule(r"(?<!\w)в\s+" + _PART_RU + r"\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _part_of_month(m, today):
    month = month_number(m["m"])
    year = _year(_group(m, "year")) or recent_month_year(today, month)
    part = _group(m, "part", "rpart").lower()
    first, last = (
        (1, 10) if part.startswith(("early", "beginning", "start", "the beginning", "the start", "начал")) else
        (11, 20) if part.startswith(("mid", "middle", "the middle", "середин")) else
        (21, month_end(year, month).day)
    )  # fmt: skip
    return date(year, month, first), min(date(year, month, last), today)


# months ----------------------------------------------------------------------------------------------------------
@_rule(r"\b(?:in\s+|during\s+)?last\s+" + EN_MONTH.format(g="m") + r"\b|(?<!\w)в\s+прошлом\s+" + RU_MONTH.format(g="rm") + r"(?!\w)")
def _last_named_month(m, today):
    month = month_number(_group(m, "m", "rm"))
    return month_span(today, today.year - 1, month)


@_rule(r"\b(?:in|during|from|of|for)\s+" + EN_MONTH.format(g="m") + r"\s+(?:of\s+)?(?:(?P<last>last)\s+year|" + YEAR + r")\b")
@_rule(r"(?<!\w)(?:в|во|за)\s+" + RU_MONTH.format(g="m") + r"\s+(?:(?P<last>прошлого)\s+года|" + YEAR + RU_YEAR_WORD + r")(?!\w)")
def _month_of_year(m, today):
    month = month_number(m["m"])
    year = today.year - 1 if _group(m, "last") else int(m["year"])
    return None if date(year, month, 1) > today else month_span(today, year, month)


@_rule(r"\b" + EN_MONTH.format(g="m") + r",?\s+" + YEAR + r"\b")
def _month_year_bare(m, today):
    month, year = month_number(m["m"]), int(m["year"])
    return None if date(year, month, 1) > today else month_span(today, year, month)


@_rule(r"\b(?:in|during|from|for|throughout)\s+" + EN_MONTH.format(g="m") + r"(?![\w-])")
@_rule(r"(?<!\w)(?:в|во|за)\s+" + RU_MONTH.format(g="m") + r"(?!\w)")
def _named_month(m, today):
    month = month_number(m["m"])
    return month_span(today, recent_month_year(today, month), month)


# weeks, months, years relative to today -----------------------------------------------------------------------------
@_rule(r"\b(?:in|over|during|for)\s+the\s+(?:last|past)\s+24\s+hours\b")
def _last_day(m, today):
    return today - timedelta(days=1), today


@_rule(
    r"\b(?:in|over|during|for|within)\s+the\s+(?:last|past)\s+(?:" + NUMBER + r"\s+)?(?P<unit>days?|weeks?|months?)\b"
    r"|(?<!\w)за\s+(?:последн(?:ие|ий|юю|их)|прошедш(?:ие|ий|ую))\s+(?:" + NUMBER.replace("<n>", "<rn>") + r"\s+)?(?P<ru>дн(?:я|ей|ь)|недел(?:и|ю|ь)|месяц(?:а|ев)?)(?!\w)"
)  # fmt: skip
def _last_n(m, today):
    count = _group(m, "n", "rn")
    n = number_value(count) if count else 1
    unit = _group(m, "unit", "ru").lower()
    days = n * (7 if unit.startswith(("week", "недел")) else RECENT_DAYS if unit.startswith(("month", "месяц")) else 1)
    return today - timedelta(days=days), today


@_rule(r"\b(?:from\s+)?(?:the\s+)?past\s+month\b")
def _past_month(m, today):
    return today - timedelta(days=RECENT_DAYS), today


@_rule(r"\b(?:a\s+)?couple\s+(?:of\s+)?days\s+ago\b|(?<!\w)пару\s+дней\s+назад(?!\w)")
def _couple_of_days(m, today):
    return today - timedelta(days=3), today - timedelta(days=1)


@_rule(r"\b(?:from\s+)?" + NUMBER + r"\s+(?P<unit>days?|weeks?|months?|years?)\s+ago\b")
@_rule(r"(?<!\w)(?:" + NUMBER + r"\s+)?(?P<unit>дн(?:я|ей|ь)|день|недел(?:и|ю|ь)|месяц(?:а|ев)?|год(?:а)?|лет)\s+назад(?!\w)")
def _ago(m, today):
    count = _group(m, "n")
    n = number_value(count) if count else 1
    unit = m["unit"].lower()
    if unit.startswith(("day", "дн", "ден")):
        day = today - timedelta(days=n)
        return day, day
    if unit.startswith(("week", "недел")):
        start = week_start(today) - timedelta(days=7 * n)
        return start, start + timedelta(days=6)
    if unit.startswith(("month", "месяц")):
        year, month = months_back(today, n)
        return date(year, month, 1), month_end(year, month)
    return date(today.year - n, 1, 1), date(today.year - n, 12, 31)


@_rule(r"\b(?:the\s+)?week\s+before\s+last\b|(?<!\w)(?:на\s+)?позапрошлой\s+недел[еи](?!\w)")
def _week_before_last(m, today):
    start = week_start(today) - timedelta(days=14)
    return start, start + timedelta(days=6)


@_rule(r"\b(?:(?:during|from|in|over)\s+)?(?:the\s+)?(?:last|previous|past)\s+week\b|(?<!\w)(?:на\s+)?прошл(?:ой|ая|ую)\s+недел[еияю](?!\w)")
def _last_week(m, today):
    start = week_start(today) - timedelta(days=7)
    return start, start + timedelta(days=6)


@_rule(r"\bthis\s+week\b|(?<!\w)(?:на\s+)?этой\s+неделе(?!\w)")
def _this_week(m, today):
    return week_start(today), today


@_rule(r"\b(?:(?:during|from|in)\s+)?(?:the\s+)?(?:last|previous)\s+month\b|(?<!\w)в\s+прошлом\s+месяце(?!\w)")
def _last_month(m, today):
    year, month = months_back(today, 1)
    return date(year, month, 1), month_end(year, month)


@_rule(r"\bthis\s+month\b|(?<!\w)в\s+этом\s+месяце(?!\w)")
def _this_month(m, today):
    return date(today.year, today.month, 1), today


@_rule(r"\b(?:the\s+)?year\s+before\s+last\b|(?<!\w)в\s+позапрошлом\s+году(?!\w)")
def _year_before_last(m, today):
    return date(today.year - 2, 1, 1), date(today.year - 2, 12, 31)


@_rule(r"\b(?:(?:during|from|in)\s+)?(?:the\s+)?(?:last|previous)\s+year\b|(?<!\w)в\s+прошлом\s+году(?!\w)")
def _last_year(m, today):
    return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)


@_rule(r"\bthis\s+year\b|(?<!\w)в\s+этом\s+году(?!\w)")
def _this_year(m, today):
    return date(today.year, 1, 1), today


@_rule(
    r"\b(?:in|during|from|for|throughout)\s+(?:the\s+year\s+)?" + YEAR + r"(?![\w.])",
    r"(?<!\w)(?:в|за)\s+" + YEAR + r"\s*(?:г\.|года|году|год)(?!\w)",
)
def _named_year(m, today):
    year = int(m["year"])
    return None if year > today.year else (date(year, 1, 1), min(date(year, 12, 31), today))


# seasons, weekends, weekdays -----------------------------------------------------------------------------------------
@_rule(
    r"\b(?:(?:in|during)\s+(?:the\s+)?(?P<which>last|this|past)?\s*|(?P<which2>last|this|past)\s+)(?P<s>winter|spring|summer|autumn|fall)(?:\s+(?:of\s+)?" + YEAR + r")?\b"
    r"|(?<!\w)(?:(?P<rwhich>прошл(?:ой|ым|ую)|эт(?:ой|им|у))\s+)?(?P<rs>зим|весн|лет|осен)(?:ой|ою|ом|ью)(?:\s+" + YEAR.replace("<year>", "<ryear>") + RU_YEAR_WORD + r")?(?!\w)"
)  # fmt: skip
def _named_season(m, today):
    name = _group(m, "s", "rs").lower()
    which = (_group(m, "which", "which2", "rwhich") or "").lower()
    return season_span(today, SEASON_MONTHS[name], this=which.startswith(("this", "эт")), year=_year(_group(m, "year", "ryear")))


@_rule(r"\b(?:over|on|during)\s+the\s+weekend\b|\blast\s+weekend\b|(?<!\w)(?:в|на)\s+(?:прошлые\s+|прошлых\s+)?выходны[ех](?!\w)")
def _weekend(m, today):
    saturday = last_weekday(today, 5)
    return saturday, min(saturday + timedelta(days=1), today)


@_rule(
    r"\b(?:on|last|from|this\s+past)\s+(?P<w>" + "|".join(WEEKDAYS_EN) + r")\b"
    r"|(?<!\w)(?:в|во)\s+(?:прошл(?:ый|ую|ое)\s+)?(?P<rw>понедельник|вторник|сред[уы]|четверг|пятниц[уы]|суббот[уы]|воскресенье)(?!\w)"
)  # fmt: skip
def _named_weekday(m, today):
    day = last_weekday(today, weekday_number(_group(m, "w", "rw")))
    return day, day


# no range, the newest first ------------------------------------------------------------------------------------------
@_rule(r"\b(?:(?<!most\s)recently|lately|recent)\b|(?<!\w)(?:недавн(?:о|ие|ий|яя|их)|в\s+последнее\s+время)(?!\w)", newest=True)
def _recently(m, today):
    return today - timedelta(days=RECENT_DAYS), today


@_rule(
    r"\b(?:the\s+last\s+time|most\s+recently|latest|newest)\b|(?<=\bwhen\s)(?:.{0,40}?\b)?(?P<last>last)\b"
    r"|(?<!\w)(?:в\s+)?последний\s+раз(?!\w)|(?<!\w)последн(?:яя|ие|юю|ий|их)\s+(?:замет|запис)\w*",
    newest=True,
)  # fmt: skip
def _last_time(m, today):
    return None


def read_period(question: str, today: date) -> Period | None:
    """The time `question` is about, or None when it names none. The first rule that matches wins (the rules run
    from the most specific); "when did I last …" gives a Period without a range, newest first. A time before year 1
    or after 9999 (a `today` at the calendar's ends) is no range: never an error."""
    for pattern, span, newest in _RULES:
        for match in pattern.finditer(question):
            try:
                found = span(match, today)
            except (ValueError, OverflowError):  # past the calendar's ends (year 1 or 9999): no range
                found = None
            start, end = match.span("last") if span is _last_time and _group(match, "last") else match.span()
            words = question[start:end]
            if found is None and not newest:
                continue
            after, before = found if found is not None else (None, None)
            if before is not None and after is not None and after > before:
                continue
            return Period(after, before, newest, words, start, end)
    return None
