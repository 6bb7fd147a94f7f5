"""Period rules for times counted from today: yesterday and today, "the last N days", "3 weeks ago", last week,
this month, the year before last, a named season, the weekend, a weekday, and the questions with no range that ask
for the newest first ("recently", "when did I last …").

Apart from `period_dated` (times written with a date or a month's name): these need no calendar names beyond
seasons and weekdays. `periods` runs the lists in its own order. Pure: today is passed in.
"""

from __future__ import annotations

from datetime import date, timedelta

from rag.text.calendar_words import (
    NUMBER,
    SEASON_MONTHS,
    WEEKDAYS_EN,
    last_weekday,
    month_end,
    months_back,
    number_value,
    season_span,
    week_start,
    weekday_number,
)
from rag.text.period_patterns import RU_YEAR_WORD, YEAR, Rule, group, rule, year_of

RECENT_DAYS = 30  # "recently", "lately", «недавно», "the past month"

DAYS: list[Rule] = []  # yesterday, today, the day before yesterday
COUNTED: list[Rule] = []  # weeks, months, years, seasons, weekends and weekdays counted back from today
NEWEST: list[Rule] = []  # no range or a recent one, the newest first


# relative days ---------------------------------------------------------------------------------------------------
@rule(DAYS, r"\b(?:the\s+)?day\s+before\s+yesterday\b|(?<!\w)позавчера(?!\w)")
def _before_yesterday(m, today):
    day = today - timedelta(days=2)
    return day, day


@rule(DAYS, r"\bsince\s+yesterday\b|(?<!\w)со\s+вчерашнего\s+дня(?!\w)")
def _since_yesterday(m, today):
    return today - timedelta(days=1), today


@rule(DAYS, r"\b(?:yesterday|last\s+night)\b|(?<!\w)вчера(?:\s+(?:утром|днём|днем|вечером))?(?!\w)")
def _yesterday(m, today):
    day = today - timedelta(days=1)
    return day, day


@rule(DAYS, r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b|(?<!\w)сегодня(?:\s+(?:утром|днём|днем|вечером))?(?!\w)")
def _today(m, today):
    return today, today


# weeks, months, years relative to today -----------------------------------------------------------------------------
@rule(COUNTED, r"\b(?:in|over|during|for)\s+the\s+(?:last|past)\s+24\s+hours\b")
def _last_day(m, today):
    return today - timedelta(days=1), today


@rule(
    COUNTED,
    r"\b(?:in|over|during|for|within)\s+the\s+(?:last|past)\s+(?:" + NUMBER + r"\s+)?(?P<unit>days?|weeks?|months?)\b"
    r"|(?<!\w)за\s+(?:последн(?:ие|ий|юю|их)|прошедш(?:ие|ий|ую))\s+(?:" + NUMBER.replace("<n>", "<rn>") + r"\s+)?(?P<ru>дн(?:я|ей|ь)|недел(?:и|ю|ь)|месяц(?:а|ев)?)(?!\w)"
)  # fmt: skip
def _last_n(m, today):
    count = group(m, "n", "rn")
    n = number_value(count) if count else 1
    unit = group(m, "unit", "ru").lower()
    days = n * (7 if unit.startswith(("week", "недел")) else RECENT_DAYS if unit.startswith(("month", "месяц")) else 1)
    return today - timedelta(days=days), today


@rule(COUNTED, r"\b(?:from\s+)?(?:the\s+)?past\s+month\b")
def _past_month(m, today):
    return today - timedelta(days=RECENT_DAYS), today


@rule(COUNTED, r"\b(?:a\s+)?couple\s+(?:of\s+)?days\s+ago\b|(?<!\w)пару\s+дней\s+назад(?!\w)")
def _couple_of_days(m, today):
    return today - timedelta(days=3), today - timedelta(days=1)


@rule(COUNTED, r"\b(?:from\s+)?" + NUMBER + r"\s+(?P<unit>days?|weeks?|months?|years?)\s+ago\b")
@rule(COUNTED, r"(?<!\w)(?:" + NUMBER + r"\s+)?(?P<unit>дн(?:я|ей|ь)|день|недел(?:и|ю|ь)|месяц(?:а|ев)?|год(?:а)?|лет)\s+назад(?!\w)")
def _ago(m, today):
    count = group(m, "n")
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


@rule(COUNTED, r"\b(?:the\s+)?week\s+before\s+last\b|(?<!\w)(?:на\s+)?позапрошлой\s+недел[еи](?!\w)")
def _week_before_last(m, today):
    start = week_start(today) - timedelta(days=14)
    return start, start + timedelta(days=6)


@rule(COUNTED, r"\b(?:(?:during|from|in|over)\s+)?(?:the\s+)?(?:last|previous|past)\s+week\b|(?<!\w)(?:на\s+)?прошл(?:ой|ая|ую)\s+недел[еияю](?!\w)")
def _last_week(m, today):
    start = week_start(today) - timedelta(days=7)
    return start, start + timedelta(days=6)


@rule(COUNTED, r"\bthis\s+week\b|(?<!\w)(?:на\s+)?этой\s+неделе(?!\w)")
def _this_week(m, today):
    return week_start(today), today


@rule(COUNTED, r"\b(?:(?:during|from|in)\s+)?(?:the\s+)?(?:last|previous)\s+month\b|(?<!\w)в\s+прошлом\s+месяце(?!\w)")
def _last_month(m, today):
    year, month = months_back(today, 1)
    return date(year, month, 1), month_end(year, month)


@rule(COUNTED, r"\bthis\s+month\b|(?<!\w)в\s+этом\s+месяце(?!\w)")
def _this_month(m, today):
    return date(today.year, today.month, 1), today


@rule(COUNTED, r"\b(?:the\s+)?year\s+before\s+last\b|(?<!\w)в\s+позапрошлом\s+году(?!\w)")
def _year_before_last(m, today):
    return date(today.year - 2, 1, 1), date(today.year - 2, 12, 31)


@rule(COUNTED, r"\b(?:(?:during|from|in)\s+)?(?:the\s+)?(?:last|previous)\s+year\b|(?<!\w)в\s+прошлом\s+году(?!\w)")
def _last_year(m, today):
    return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)


@rule(COUNTED, r"\bthis\s+year\b|(?<!\w)в\s+этом\s+году(?!\w)")
def _this_year(m, today):
    return date(today.year, 1, 1), today


@rule(
    COUNTED,
    r"\b(?:in|during|from|for|throughout)\s+(?:the\s+year\s+)?" + YEAR + r"(?![\w.])",
    r"(?<!\w)(?:в|за)\s+" + YEAR + r"\s*(?:г\.|года|году|год)(?!\w)",
)
def _named_year(m, today):
    year = int(m["year"])
    return None if year > today.year else (date(year, 1, 1), min(date(year, 12, 31), today))


# seasons, weekends, weekdays -----------------------------------------------------------------------------------------
@rule(
    COUNTED,
    r"\b(?:(?:in|during)\s+(?:the\s+)?(?P<which>last|this|past)?\s*|(?P<which2>last|this|past)\s+)(?P<s>winter|spring|summer|autumn|fall)(?:\s+(?:of\s+)?" + YEAR + r")?\b"
    r"|(?<!\w)(?:(?P<rwhich>прошл(?:ой|ым|ую)|эт(?:ой|им|у))\s+)?(?P<rs>зим|весн|лет|осен)(?:ой|ою|ом|ью)(?:\s+" + YEAR.replace("<year>", "<ryear>") + RU_YEAR_WORD + r")?(?!\w)"
)  # fmt: skip
def _named_season(m, today):
    name = group(m, "s", "rs").lower()
    which = (group(m, "which", "which2", "rwhich") or "").lower()
    return season_span(today, SEASON_MONTHS[name], this=which.startswith(("this", "эт")), year=year_of(group(m, "year", "ryear")))


@rule(COUNTED, r"\b(?:over|on|during)\s+the\s+weekend\b|\blast\s+weekend\b|(?<!\w)(?:в|на)\s+(?:прошлые\s+|прошлых\s+)?выходны[ех](?!\w)")
def _weekend(m, today):
    saturday = last_weekday(today, 5)
    return saturday, min(saturday + timedelta(days=1), today)


@rule(
    COUNTED,
    r"\b(?:on|last|from|this\s+past)\s+(?P<w>" + "|".join(WEEKDAYS_EN) + r")\b"
    r"|(?<!\w)(?:в|во)\s+(?:прошл(?:ый|ую|ое)\s+)?(?P<rw>понедельник|вторник|сред[уы]|четверг|пятниц[уы]|суббот[уы]|воскресенье)(?!\w)"
)  # fmt: skip
def _named_weekday(m, today):
    day = last_weekday(today, weekday_number(group(m, "w", "rw")))
    return day, day


# no range, the newest first ------------------------------------------------------------------------------------------
@rule(NEWEST, r"\b(?:(?<!most\s)recently|lately|recent)\b|(?<!\w)(?:недавн(?:о|ие|ий|яя|их)|в\s+последнее\s+время)(?!\w)", newest=True)
def _recently(m, today):
    return today - timedelta(days=RECENT_DAYS), today


@rule(
    NEWEST,
    r"\b(?:the\s+last\s+time|most\s+recently|latest|newest)\b|(?<=\bwhen\s)(?:.{0,40}?\b)?(?P<last>last)\b"
    r"|(?<!\w)(?:в\s+)?последний\s+раз(?!\w)|(?<!\w)последн(?:яя|ие|юю|ий|их)\s+(?:замет|запис)\w*",
    newest=True,
)  # fmt: skip
def last_time(m, today):
    return None
