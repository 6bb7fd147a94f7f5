"""Period rules for times written with a date or a month's name: ranges between two dates ("between 2026-03-01 and
2026-03-14", «с 3 по 10 марта»), "since X" and "before X", an explicit day (2026-03-14, "May 3", «3 мая»), part of a
month ("early May", «в конце марта») and a named month («в марте», "in May 2025").

Apart from `period_relative` (times counted back from today): these read calendar names and numbers. `periods` runs
the lists in its own order. Pure: today is passed in.
"""

from __future__ import annotations

from datetime import date, timedelta

from rag.text.calendar_words import (
    EN_MONTH,
    RU_MONTH,
    WEEKDAYS_EN,
    WEEKDAYS_RU,
    day_of,
    last_weekday,
    month_end,
    month_number,
    month_span,
    recent_month_year,
    week_start,
    weekday_number,
)
from rag.text.period_patterns import (
    EN_DAY,
    RU_YEAR_WORD,
    YEAR,
    Rule,
    date_pattern,
    group,
    iso,
    rule,
    year_of,
)

RANGES: list[Rule] = []  # between two dates, days or months
SINCE: list[Rule] = []  # open at the end: since X up to today
BEFORE: list[Rule] = []  # open at the start: up to the day before X
NAMED: list[Rule] = []  # an explicit day, a part of a month, a named month


# ranges between two dates ----------------------------------------------------------------------------------------
def _both(first: date | None, last: date | None) -> tuple[date, date] | None:
    """A range only when both its days exist: "between 31 and 35 March" names no time (it was "after 31 March")."""
    return (first, last) if first is not None and last is not None else None


@rule(RANGES, r"\b(?:between|from)\s+" + date_pattern("a") + r"\s+(?:and|to|until|till)\s+" + date_pattern("b"))
@rule(RANGES, r"(?<!\w)(?:с|между)\s+" + date_pattern("a") + r"\s+(?:по|и|до)\s+" + date_pattern("b"))
def _dates_range(m, today):
    return _both(iso(m, "a"), iso(m, "b"))


@rule(
    RANGES,
    r"\b(?:between|from)\s+" + EN_MONTH.format(g="m1") + r"\s+" + EN_DAY.replace("day", "d1")
    + r"\s+(?:and|to|until|till)\s+(?:" + EN_MONTH.format(g="m2") + r"\s+)?" + EN_DAY.replace("day", "d2")
)  # fmt: skip
def _en_days_range(m, today):
    m1 = month_number(m["m1"])
    m2 = month_number(m["m2"]) if group(m, "m2") else m1
    return _both(day_of(today, int(m["d1"]), m1, None), day_of(today, int(m["d2"]), m2, None))


@rule(
    RANGES,
    r"\b(?:between|from)\s+(?:the\s+)?" + EN_DAY.replace("day", "d1") + r"(?:\s+(?:of\s+)?" + EN_MONTH.format(g="m1") + r")?"
    + r"\s+(?:and|to|until|till|through)\s+(?:the\s+)?" + EN_DAY.replace("day", "d2") + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m2")
    + r"(?:,?\s+" + YEAR + r")?\b"
)  # fmt: skip
def _en_days_first_range(m, today):
    """Day first, the month once or twice: "between 1 and 10 March", "from the 1st to the 10th of March"."""
    m2 = month_number(m["m2"])
    m1 = month_number(m["m1"]) if group(m, "m1") else m2
    year = year_of(group(m, "year"))
    return _both(day_of(today, int(m["d1"]), m1, year), day_of(today, int(m["d2"]), m2, year))


@rule(RANGES, r"\bfrom\s+" + EN_MONTH.format(g="m1") + r"\s+(?:to|until|till|through)\s+" + EN_MONTH.format(g="m2"))
@rule(RANGES, r"(?<!\w)с\s+" + RU_MONTH.format(g="m1") + r"\s+(?:по|до)\s+" + RU_MONTH.format(g="m2"))
def _months_range(m, today):
    m1, m2 = month_number(m["m1"]), month_number(m["m2"])
    end_year = recent_month_year(today, m2)
    start_year = end_year if m1 <= m2 else end_year - 1
    return date(start_year, m1, 1), min(month_end(end_year, m2), today)


@rule(
    RANGES,
    r"(?<!\w)(?:с|между)\s+(?P<d1>\d{1,2})\s+(?:по|и|до)\s+(?P<d2>\d{1,2})\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + ")?",
)
def _ru_days_range(m, today):
    month, year = month_number(m["m"]), year_of(group(m, "year"))
    return _both(day_of(today, int(m["d1"]), month, year), day_of(today, int(m["d2"]), month, year))


# since … ---------------------------------------------------------------------------------------------------------
_PART_SINCE_EN = r"(?P<part>beginning|start|middle|end)"
_PART_SINCE_RU = r"(?P<rpart>начала|середины|конца)"


@rule(SINCE, r"\bsince\s+(?:the\s+)?(?:beginning|start)\s+of\s+(?:the\s+|this\s+)?year\b|(?<!\w)с\s+начала\s+(?:этого\s+)?года(?!\w)")
def _since_new_year(m, today):
    return date(today.year, 1, 1), today


@rule(
    SINCE,
    r"\bsince\s+(?:the\s+)?" + _PART_SINCE_EN + r"\s+of\s+" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b",
    r"(?<!\w)с\s+" + _PART_SINCE_RU + r"\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)",
)  # fmt: skip
def _since_part_of_month(m, today):
    """Since a part of a month ("since the beginning of April", «с начала марта»): its first day up to today."""
    month = month_number(m["m"])
    year = year_of(group(m, "year")) or recent_month_year(today, month)
    first, _ = _part_days(group(m, "part", "rpart"), year, month)
    return date(year, month, first), today


@rule(SINCE, r"\bsince\s+last\s+week\b|(?<!\w)с\s+прошлой\s+недели(?!\w)")
def _since_last_week(m, today):
    return week_start(today) - timedelta(days=7), today


@rule(SINCE, r"\bsince\s+(?P<w>" + "|".join(WEEKDAYS_EN) + r")\b|(?<!\w)с\s+(?P<rw>" + "|".join(WEEKDAYS_RU) + r")(?!\w)")
def _since_weekday(m, today):
    weekday = weekday_number(group(m, "w", "rw"))
    start = today if today.weekday() == weekday else last_weekday(today, weekday)
    return start, today


@rule(SINCE, r"\bsince\s+" + EN_MONTH.format(g="m") + r"\s+" + EN_DAY + r"(?:,?\s+" + YEAR + r")?\b")
@rule(SINCE, r"\bsince\s+(?:the\s+)?" + EN_DAY + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@rule(SINCE, r"(?<!\w)(?:с|со)\s+(?P<day>\d{1,2})\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _since_day(m, today):
    start = day_of(today, int(m["day"]), month_number(m["m"]), year_of(group(m, "year")))
    return (start, today) if start is not None else None


@rule(SINCE, r"\bsince\s+" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@rule(SINCE, r"(?<!\w)(?:с|со)\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _since_month(m, today):
    month = month_number(m["m"])
    year = year_of(group(m, "year")) or recent_month_year(today, month)
    return date(year, month, 1), today


@rule(SINCE, r"\bsince\s+" + YEAR + r"\b", r"(?<!\w)с\s+" + YEAR + RU_YEAR_WORD + r"(?!\w)")
def _since_year(m, today):
    return date(int(m["year"]), 1, 1), today


# before … ---------------------------------------------------------------------------------------------------------
_BEFORE = r"(?:\bbefore|\bprior\s+to|\buntil|(?<!\w)до|(?<!\w)раньше)\s+"


@rule(BEFORE, _BEFORE + r"last\s+week\b|(?<!\w)до\s+прошлой\s+недели(?!\w)")
def _before_last_week(m, today):
    return None, week_start(today) - timedelta(days=8)


@rule(
    BEFORE,
    _BEFORE + EN_MONTH.format(g="m") + r"\s+" + EN_DAY + r"(?:,?\s+" + YEAR + r")?\b",
    _BEFORE + EN_DAY + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b",
    _BEFORE + r"(?P<rday>\d{1,2})\s+" + RU_MONTH.format(g="rm") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)",
)  # fmt: skip
def _before_day(m, today):
    day = day_of(today, int(group(m, "day", "rday")), month_number(group(m, "m", "rm")), year_of(group(m, "year")))
    return (None, day - timedelta(days=1)) if day is not None else None


@rule(BEFORE, _BEFORE + r"(?:" + EN_MONTH.format(g="m") + r"|" + RU_MONTH.format(g="rm") + r")(?:,?\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _before_month(m, today):
    month = month_number(group(m, "m", "rm"))
    year = year_of(group(m, "year")) or recent_month_year(today, month)
    return None, date(year, month, 1) - timedelta(days=1)


@rule(BEFORE, _BEFORE + YEAR + RU_YEAR_WORD + r"(?!\w)")
def _before_year(m, today):
    return None, date(int(m["year"]) - 1, 12, 31)


# explicit dates ----------------------------------------------------------------------------------------------------
@rule(NAMED, r"(?<![\w.-])" + date_pattern("") + r"(?![\w-]|\.\d)")
def _explicit_numeric(m, today):
    day = iso(m)
    return (day, day) if day is not None else None


@rule(NAMED, r"(?<!\w)" + EN_DAY + r"\s+(?:of\s+)?" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@rule(NAMED, r"\b" + EN_MONTH.format(g="m") + r"\s+" + EN_DAY + r"(?:,?\s+" + YEAR + r")?(?![\w:])")
@rule(NAMED, r"(?<![\w.])(?P<day>\d{1,2})\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _explicit_day(m, today):
    day = day_of(today, int(m["day"]), month_number(m["m"]), year_of(group(m, "year")))
    return (day, day) if day is not None and day <= today else None


# parts of a month ------------------------------------------------------------------------------------------------
_PART_EN = r"(?P<part>early|mid|late|(?:the\s+)?(?:beginning|start|middle|end)\s+of)"
_PART_RU = r"(?P<rpart>начале|середине|конце)"


@rule(NAMED, r"\b(?:in\s+|at\s+)?(?:the\s+)?" + _PART_EN + r"[\s-]+" + EN_MONTH.format(g="m") + r"(?:,?\s+" + YEAR + r")?\b")
@rule(NAMED, r"(?<!\w)в\s+" + _PART_RU + r"\s+" + RU_MONTH.format(g="m") + r"(?:\s+" + YEAR + RU_YEAR_WORD + r")?(?!\w)")
def _part_of_month(m, today):
    month = month_number(m["m"])
    year = year_of(group(m, "year")) or recent_month_year(today, month)
    first, last = _part_days(group(m, "part", "rpart"), year, month)
    return date(year, month, first), min(date(year, month, last), today)


def _part_days(part: str, year: int, month: int) -> tuple[int, int]:
    """The first and last day of a part of a month: its beginning 1–10, its middle 11–20, its end 21 to the last."""
    part = part.lower()
    if part.startswith(("early", "beginning", "start", "the beginning", "the start", "начал")):
        return 1, 10
    if part.startswith(("mid", "middle", "the middle", "середин")):
        return 11, 20
    return 21, month_end(year, month).day


# months ----------------------------------------------------------------------------------------------------------
@rule(NAMED, r"\b(?:in\s+|during\s+)?last\s+" + EN_MONTH.format(g="m") + r"\b|(?<!\w)в\s+прошлом\s+" + RU_MONTH.format(g="rm") + r"(?!\w)")
def _last_named_month(m, today):
    month = month_number(group(m, "m", "rm"))
    return month_span(today, today.year - 1, month)


@rule(NAMED, r"\b(?:in|during|from|of|for)\s+" + EN_MONTH.format(g="m") + r"\s+(?:of\s+)?(?:(?P<last>last)\s+year|" + YEAR + r")\b")
@rule(NAMED, r"(?<!\w)(?:в|во|за)\s+" + RU_MONTH.format(g="m") + r"\s+(?:(?P<last>прошлого)\s+года|" + YEAR + RU_YEAR_WORD + r")(?!\w)")
def _month_of_year(m, today):
    month = month_number(m["m"])
    year = today.year - 1 if group(m, "last") else int(m["year"])
    return None if date(year, month, 1) > today else month_span(today, year, month)


@rule(NAMED, r"\b" + EN_MONTH.format(g="m") + r",?\s+" + YEAR + r"\b")
def _month_year_bare(m, today):
    month, year = month_number(m["m"]), int(m["year"])
    return None if date(year, month, 1) > today else month_span(today, year, month)


@rule(NAMED, r"\b(?:in|during|from|for|throughout)\s+" + EN_MONTH.format(g="m") + r"(?![\w-])")
@rule(NAMED, r"(?<!\w)(?:в|во|за)\s+" + RU_MONTH.format(g="m") + r"(?!\w)")
def _named_month(m, today):
    month = month_number(m["m"])
    return month_span(today, recent_month_year(today, month), month)
