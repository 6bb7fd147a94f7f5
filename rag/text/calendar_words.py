"""The calendar's words and arithmetic, EN and RU: month, weekday and number words as patterns and values, and the
spans time questions name (a month up to today, an ISO week, the most recent season, a day without its year). Pure;
`periods` reads questions with it, `rag.notes.dates` notes' dates.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

# --- words -------------------------------------------------------------------------------------------------

_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december")
_EN_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_RU_MONTH_STEMS = ("январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр")
EN_MONTH = r"(?P<{g}>" + "|".join(_EN_MONTHS) + "|" + "|".join(_EN_MONTH_ABBR) + r")\.?"
RU_MONTH = r"(?P<{g}>январ[ьяею]|феврал[ьяею]|март[ае]?|апрел[ьяею]|ма[йяею]|июн[ьяею]|июл[ьяею]|август[ае]?|сентябр[ьяею]|октябр[ьяею]|ноябр[ьяею]|декабр[ьяею])"
WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS_RU = (r"понедельник[а]?", r"вторник[а]?", r"сред[уы]", r"четверг[а]?", r"пятниц[уы]", r"суббот[уы]", r"воскресень[ея]")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "один": 1, "одну": 1, "одна": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10,
}  # fmt: skip
NUMBER = r"(?P<n>\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r")"
SEASON_MONTHS = {"winter": 12, "spring": 3, "summer": 6, "autumn": 9, "fall": 9, "зим": 12, "весн": 3, "лет": 6, "осен": 9}


def month_number(word: str) -> int:
    """A month name (English, any case and abbreviation; Russian, any case form) → 1–12."""
    word = word.lower().rstrip(".")
    if word in _EN_MONTHS:
        return _EN_MONTHS.index(word) + 1
    if word in _EN_MONTH_ABBR:
        return _EN_MONTH_ABBR[word]
    if word.startswith("ма") and len(word) <= 3:  # май, мая, мае, маю
        return 5
    return next(i for i, stem in enumerate(_RU_MONTH_STEMS, 1) if stem != "ма" and word.startswith(stem))


def number_value(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def weekday_number(word: str) -> int:
    word = word.lower()
    if word in WEEKDAYS_EN:
        return WEEKDAYS_EN.index(word)
    return next(i for i, pattern in enumerate(WEEKDAYS_RU) if re.fullmatch(pattern, word))


# --- calendar arithmetic ----------------------------------------------------------------------------------------


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def months_back(today: date, n: int) -> tuple[int, int]:
    index = today.year * 12 + today.month - 1 - n
    return index // 12, index % 12 + 1


def recent_month_year(today: date, month: int) -> int:
    """The year of the most recent `month` that has begun."""
    return today.year if month <= today.month else today.year - 1


def month_span(today: date, year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), min(month_end(year, month), today)


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def last_weekday(today: date, weekday: int) -> date:
    """The most recent `weekday` strictly before today."""
    return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def season_span(today: date, first_month: int, *, this: bool = False, year: int | None = None) -> tuple[date, date]:
    """A season (Dec–Feb winter, …): of `year` (winter: the one that ends in it), else the most recent one that has
    ended, or with `this` the one under way or just ended."""

    def span(start_year: int) -> tuple[date, date]:
        end_year, end_month = (start_year + 1, 2) if first_month == 12 else (start_year, first_month + 2)
        return date(start_year, first_month, 1), month_end(end_year, end_month)

    if year is not None:
        return span(year - 1 if first_month == 12 else year)
    start_year = today.year
    while span(start_year)[0] > today:
        start_year -= 1
    start, end = span(start_year)
    if end >= today and not this:
        start, end = span(start_year - 1)
    return start, min(end, today)


def day_of(today: date, day: int, month: int, year: int | None) -> date | None:
    """A day and month, in `year` or the most recent one not in the future."""
    try:
        found = date(year or today.year, month, day)
        if year is None and found > today:
            found = date(today.year - 1, month, day)
    except ValueError:
        return None
    return found
