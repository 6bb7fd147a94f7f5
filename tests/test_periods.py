"""Time words in a question → a range of days against a fixed today (rag/text/periods.py), EN and RU. The bench
(bench/time_parser.py) measures the parser on sets it was not written from; these pin the conventions."""

from __future__ import annotations

from datetime import date

import pytest

from rag.text.periods import read_period

WEDNESDAY = date(2026, 4, 15)


def span(question: str, today: date = WEDNESDAY):
    found = read_period(question, today)
    return None if found is None else (found.after, found.before, found.newest_first, found.words)


@pytest.mark.parametrize(
    ("question", "after", "before"),
    [
        ("what did we decide about the greenhouse last week?", date(2026, 4, 6), date(2026, 4, 12)),
        ("что я писал про переезд в марте", date(2026, 3, 1), date(2026, 3, 31)),
        ("что было на прошлой неделе у Анны", date(2026, 4, 6), date(2026, 4, 12)),
        ("plans since May", date(2025, 5, 1), WEDNESDAY),  # May 2026 is still to come
        ("заметки с 3 мая", date(2025, 5, 3), WEDNESDAY),
        ("in April", date(2026, 4, 1), WEDNESDAY),  # the month under way: up to today
        ("в прошлом году", date(2025, 1, 1), date(2025, 12, 31)),
        ("за последние две недели", date(2026, 4, 1), WEDNESDAY),
        ("two weeks ago", date(2026, 3, 30), date(2026, 4, 5)),
        ("в конце марта", date(2026, 3, 21), date(2026, 3, 31)),
        ("before 2025", None, date(2024, 12, 31)),
        ("до 10 марта", None, date(2026, 3, 9)),
        ("between 2025-11-01 and 2025-11-15", date(2025, 11, 1), date(2025, 11, 15)),
        ("с 1 по 15 февраля", date(2026, 2, 1), date(2026, 2, 15)),
        # the day first, the month once, in English: was read as the second day alone
        ("what did we do between 1 and 10 March", date(2026, 3, 1), date(2026, 3, 10)),
        ("from the 1st to the 10th of March", date(2026, 3, 1), date(2026, 3, 10)),
        ("between 1 March and 10 March", date(2026, 3, 1), date(2026, 3, 10)),
        # since a part of a month runs up to today: «с начала марта» was no time at all, "since the beginning of
        # April" only its first ten days
        ("Что нового с ванной с начала марта?", date(2026, 3, 1), WEDNESDAY),
        ("since the beginning of April", date(2026, 4, 1), WEDNESDAY),
        ("с середины марта", date(2026, 3, 11), WEDNESDAY),
        ("прошлой зимой", date(2025, 12, 1), date(2026, 2, 28)),
        ("on Monday", date(2026, 4, 13), date(2026, 4, 13)),
        ("в выходные", date(2026, 4, 11), date(2026, 4, 12)),
    ],
)
def test_a_time_in_the_question_is_a_range_of_days(question, after, before):
    assert span(question)[:2] == (after, before)


def test_calendar_edges_weeks_months_and_leap_days():
    assert span("last week", date(2026, 1, 3))[:2] == (date(2025, 12, 22), date(2025, 12, 28))  # across the year
    assert span("вчера", date(2024, 3, 1))[:2] == (date(2024, 2, 29), date(2024, 2, 29))
    assert span("last month", date(2026, 1, 10))[:2] == (date(2025, 12, 1), date(2025, 12, 31))
    assert span("this week", date(2026, 4, 13))[:2] == (date(2026, 4, 13), date(2026, 4, 13))  # a Monday


def test_last_time_and_recently_order_by_date_and_the_words_are_kept_apart():
    assert span("When did I last change the oil?") == (None, None, True, "last")
    assert span("когда я последний раз менял масло?") == (None, None, True, "последний раз")
    recent = read_period("what did I write recently about sleep", WEDNESDAY)
    assert recent.newest_first and recent.after == date(2026, 3, 16) and "recently" == recent.words
    latest = read_period("Какая последняя запись про теплицу?", WEDNESDAY)  # "the latest entry": the note, not the topic
    assert latest.newest_first and latest.after is None and latest.words == "последняя запись"
    found = read_period("Что я решил вчера вечером про сад?", WEDNESDAY)
    assert found.words == "вчера вечером" and "Что я решил вчера вечером про сад?"[found.start : found.end] == found.words


@pytest.mark.parametrize(
    "question",
    [
        "Что любит Марта?",  # a name, not «марта» (of March)
        "What did April say about the roof?",
        "Which service listens on port 2020?",
        "What is new in version 2025.1?",
        "cron job every Monday",
        "отчёт по пятницам",
        "Google Summer of Code ideas",
        "Осенний марафон — кто режиссёр?",
        "how many hours in a day",
    ],
)
def test_words_that_only_look_like_time_are_not_a_filter(question):
    assert read_period(question, WEDNESDAY) is None


RELATIVE = [
    "the year before last", "next year", "last week", "позапрошлый год", "в позапрошлом году", "через неделю",
    "in 3 days", "last month", "yesterday", "tomorrow", "the day before yesterday", "позавчера", "вчера", "today",
    "since yesterday", "this week", "this month", "this year", "last year", "в прошлом году", "в этом году",
    "2 years ago", "3 months ago", "5 weeks ago", "10 days ago", "год назад", "месяц назад", "неделю назад",
    "the week before last", "на позапрошлой неделе", "на прошлой неделе", "в прошлом месяце", "over the weekend",
    "on Monday", "в понедельник", "since Monday", "last winter", "this summer", "прошлой зимой", "in March", "в марте",
    "last March", "в прошлом марте", "in March last year", "since March", "since March 3", "before March",
    "before last week", "in the last 3 days", "за последние две недели", "in the past 24 hours", "recently",
    "недавно", "when did I last bake", "early March", "в начале марта", "a couple of days ago", "пару дней назад",
    "from March to May", "с марта по май", "since the start of the year", "с начала года", "since last week",
    "с прошлой недели", "on 3 March", "3 марта", "the past month",
]  # fmt: skip


@pytest.mark.parametrize("today", [date.min, date.max, date(1, 1, 6), date(9999, 12, 27)], ids=str)
def test_relative_times_at_the_calendars_ends_give_a_period_within_it_or_none(today):
    """`today` from RAG_TODAY may be 0001-01-01 or 9999-12-31: a time past the calendar's ends is no range, never an
    error, and a range read is a real one."""
    for question in RELATIVE:
        found = read_period(question, today)
        if found is not None and found.ranged:
            assert found.after is None or found.after <= found.before, question


@pytest.mark.parametrize(
    "question", ["с 31 по 35 марта", "between 31 and 35 March", "between March 31 and March 35", "between 2026-03-31 and 2026-03-35"]
)
def test_a_range_with_an_impossible_day_is_no_open_range(question):
    # it was read as "from 31 March on", with no end: now the range names no time, at most its one real day
    period = read_period(question, date(2026, 4, 23))
    assert period is None or (period.after == period.before == date(2026, 3, 31))
