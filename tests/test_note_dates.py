"""The day a note or passage is from (rag/notes/dates.py): frontmatter, file name, dated headings, chat message
times, file time last and marked."""

from __future__ import annotations

from datetime import date, datetime

from rag.notes.dates import Dated, entry_dates, full_date, note_date, passage_date
from rag.text.date_labels import day_label, range_phrase


def test_a_full_date_is_read_in_either_language_and_a_partial_one_is_not():
    assert full_date("Tuesday, 28 April 2026") == date(2026, 4, 28)
    assert full_date("## 28 апреля 2026 г.") == date(2026, 4, 28)
    assert full_date("April 28th, 2026") == date(2026, 4, 28)
    assert full_date("Daily/2026_04_28.md") == date(2026, 4, 28)
    assert full_date("встреча 28.04.2026 в 10:00") == date(2026, 4, 28)
    assert full_date("28 April") is None and full_date("v2.0.2026") is None and full_date("2026-02-30 typo") is None


def test_the_note_date_comes_from_frontmatter_then_the_name_then_the_file_time():
    assert note_date("Notes/x.md", {"date": date(2025, 3, 1), "updated": "2026-01-01"}, 0.0) == Dated(date(2025, 3, 1), "frontmatter")
    assert note_date("Notes/x.md", {"created": datetime(2025, 3, 1, 10, 0)}, None) == Dated(date(2025, 3, 1), "frontmatter")
    assert note_date("Decisions/2026-03-14 Use SQLite.md", {"title": "x"}, 0.0) == Dated(date(2026, 3, 14), "file name")
    assert note_date("Notes/x.md", {"date": "someday"}, 1_767_225_600.0) == Dated(date(2026, 1, 1), "file time")
    assert note_date("Notes/x.md", None, None) is None


def test_a_passage_takes_its_nearest_dated_heading_and_a_chat_turn_its_message_time():
    note = Dated(date(2026, 1, 1), "frontmatter")
    assert passage_date(note, ("Log", "2026-04-28", "Garden")) == Dated(date(2026, 4, 28), "heading")
    assert passage_date(note, ("Sourdough", "User · 2026-04-10 14:03")) == Dated(date(2026, 4, 10), "message")
    assert passage_date(note, ("Log", "Garden")) == note


def test_a_log_entry_is_a_date_that_begins_a_line_item_or_row_and_prose_dates_are_not():
    text = (
        "| 2026-04-26 | focaccia | 5/5 |\n- [x] 2026-03-14 — storage decided\n1. 05.03.2026 call\n"
        "  * **28 April 2026** lead session\nThe lease was signed on 2026-03-01.\nIn 2015 the Panthers won.\n"
        "2026-04-05: restore tested\n2 мая 2026 г. — дача\n6 октября 1973 года Сирия и Египет напали на Израиль.\n"
    )
    assert entry_dates(text) == [date(2026, 4, 26), date(2026, 3, 14), date(2026, 3, 5), date(2026, 4, 28), date(2026, 4, 5), date(2026, 5, 2)]


def test_days_and_ranges_read_as_a_person_writes_them():
    assert day_label(date(2026, 5, 3)) == "3 May 2026" and day_label(date(2026, 5, 3), "ru") == "3 мая 2026"
    assert range_phrase(date(2026, 3, 1), date(2026, 3, 31)) == "from 1–31 March 2026"
    assert range_phrase(date(2026, 3, 1), date(2026, 3, 31), "ru") == "за 1–31 марта 2026"
    assert range_phrase(date(2026, 4, 27), date(2026, 5, 3)) == "from 27 April – 3 May 2026"
    assert range_phrase(date(2025, 12, 1), date(2026, 2, 28), "ru") == "за 1 декабря 2025 – 28 февраля 2026"
    assert range_phrase(date(2026, 5, 2), date(2026, 5, 2)) == "on 2 May 2026"
    assert range_phrase(date(2026, 5, 1), None) == "since 1 May 2026" and range_phrase(None, date(2024, 12, 31), "ru") == "по 31 декабря 2024"
