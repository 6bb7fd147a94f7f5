"""Days and day ranges as a person reads them, in English and Russian: "28 April 2026", «1–31 марта 2026», "since 1 May
2026". Beside citations and in the "searching notes from …" line. Pure."""

from __future__ import annotations

from datetime import date

_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
_RU = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря")
_WORDS = {"en": {"since": "since {}", "until": "until {}"}, "ru": {"since": "с {}", "until": "по {}"}}


def day_label(day: date, lang: str = "en") -> str:
    return f"{day.day} {_month(day.month, lang)} {day.year}"


def range_label(after: date | None, before: date | None, lang: str = "en") -> str:
    """A range of days, inclusive: the shared month and year written once ("1–31 March 2026", «28 апреля – 3 мая
    2026»); an open end reads "since …" / "until …". Empty when both ends are open."""
    lang = lang if lang in _WORDS else "en"
    if after is None and before is None:
        return ""
    if after is None:
        return _WORDS[lang]["until"].format(day_label(before, lang))
    if before is None:
        return _WORDS[lang]["since"].format(day_label(after, lang))
    if after == before:
        return day_label(after, lang)
    if after.year != before.year:
        return f"{day_label(after, lang)} – {day_label(before, lang)}"
    if after.month != before.month:
        return f"{after.day} {_month(after.month, lang)} – {day_label(before, lang)}"
    return f"{after.day}–{day_label(before, lang)}"


def range_phrase(after: date | None, before: date | None, lang: str = "en") -> str:
    """The range as it follows "searching notes": "from 1–31 March 2026", "on 3 May 2026", "since 1 May 2026";
    «за 1–31 марта 2026», «с 1 мая 2026», «по 31 марта 2026»."""
    label = range_label(after, before, lang)
    if after is None or before is None or not label:
        return label
    if lang == "ru":
        return f"за {label}"
    return f"on {label}" if after == before else f"from {label}"


def _month(month: int, lang: str) -> str:
    return (_RU if lang == "ru" else _EN)[month - 1]
