"""The day a note or a passage is from: what a question about time is matched against (rag/text/periods.py reads the
question's side).

Where a date comes from, most trusted first: the note's frontmatter (`date`, `created`, then `updated`); a date in
its file name or folder path (`Daily/2026-04-28.md`, `2026-03-14 Use SQLite.md`); for a passage, the innermost
heading above it that holds a full date (a daily or log note's `## 2026-04-28`, «## 28 апреля 2026», an imported
chat's `## User · 2026-04-10 14:03`, which is the message's own time); and the file's modification time as the last
resort, marked as such (a copy or a sync tool resets it). Pure: the caller passes what it read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from rag.text import markdown
from rag.text.calendar_words import EN_MONTH, RU_MONTH, month_number

FRONTMATTER_KEYS = ("date", "created", "updated")  # in this order: when it happened before when it was edited
FILE_TIME = "file time"  # the weakest source: a copy or a sync tool resets it
SOURCES = ("frontmatter", "file name", "heading", "message", FILE_TIME)

_ISO = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.](\d\d)[-_.](\d\d)(?!\d)")
_DOTTED = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.((?:19|20)\d\d)(?![\d.])")
_DAY_MONTH_YEAR = re.compile(
    r"(?<!\w)(\d{1,2})\s+"
    + RU_MONTH.format(g="ru")
    + r"\s+((?:19|20)\d\d)(?!\d)|(?<!\w)(\d{1,2})\s+(?:of\s+)?"
    + EN_MONTH.format(g="en")
    + r",?\s+((?:19|20)\d\d)(?!\d)",
    re.IGNORECASE,
)
_MONTH_DAY_YEAR = re.compile(r"\b" + EN_MONTH.format(g="en") + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)(?!\d)", re.IGNORECASE)
# What may stand before an entry's date: indentation, a list marker and checkbox, a table row's bar, emphasis.
# (A number of any length, not `markdown.ORDINAL`'s three digits: a log numbers its entries as it likes.)
_ENTRY_LEAD = re.compile(rf"\s*(?P<marker>{markdown.BULLET}\s+(?:{markdown.TASK_BOX}\s+)?|\d+[.)]\s+|\|\s*)?(?:\*\*|__|\*|_)?")
# …and what follows the date of an entry on a plain line: a separator or the line's end («2 мая 2026 г. — дача»).
_ENTRY_TAIL = re.compile(r"\s*(?:г\.|года|году)?\s*(?:\*\*|__|\*|_)?\s*(?:$|[:—–\-|,;.)])")
_MESSAGE = re.compile(r"\s·\s(?:19|20)\d\d-\d\d-\d\d\b")  # the importers' turn heading: "Speaker · 2026-04-10 14:03"


@dataclass(frozen=True)
class Dated:
    day: date
    source: str  # one of SOURCES


def full_date(text: str) -> date | None:
    """The first date with day, month and year in `text` (2026-04-28, 2026_04_28, 28.04.2026, 28 April 2026, April
    28, 2026, 28 апреля 2026), or None. Partial dates ("28 April") are not a note's date: its year is unknown."""
    found = dates_in(text)
    return found[0] if found else None


def dates_in(text: str) -> list[date]:
    """Every full date in `text` (as `full_date` reads them), in the order they appear; impossible ones (31.02) left out."""
    return [day for _, _, day in _dates_at(text)]


def entry_dates(text: str) -> list[date]:
    """The full dates that begin a list item or a table row, or a line where a separator follows them: a log's entries
    ("| 2026-04-26 | focaccia |", "- [x] 2026-03-14 — storage decision", "2026-04-05: restore tested"). A date in
    prose ("the lease was signed on 2026-03-01", «6 октября 1973 года Сирия и Египет…») is what a passage is about,
    not the day of an entry in it."""
    days = []
    for line in text.split("\n"):
        lead = _ENTRY_LEAD.match(line)
        rest = line[lead.end() :]
        found = _dates_at(rest[:40])
        if not found or found[0][0] != 0:
            continue
        _, end, day = found[0]
        if lead.group("marker") or _ENTRY_TAIL.match(rest, end):
            days.append(day)
    return days


def _dates_at(text: str) -> list[tuple[int, int, date]]:
    """(start, end, date) of every full date in `text`, in order."""
    found: list[tuple[re.Match, tuple[int, int, int]]] = []
    for m in _ISO.finditer(text):
        found.append((m, (int(m[1]), int(m[2]), int(m[3]))))
    for m in _DOTTED.finditer(text):
        found.append((m, (int(m[3]), int(m[2]), int(m[1]))))
    for m in _DAY_MONTH_YEAR.finditer(text):
        if m["ru"]:
            found.append((m, (int(m[3]), month_number(m["ru"]), int(m[1]))))
        else:
            found.append((m, (int(m[6]), month_number(m["en"]), int(m[4]))))
    for m in _MONTH_DAY_YEAR.finditer(text):
        found.append((m, (int(m[3]), month_number(m["en"]), int(m[2]))))
    days = []
    for m, (year, month, day) in sorted(found, key=lambda f: f[0].start()):
        try:
            days.append((m.start(), m.end(), date(year, month, day)))
        except ValueError:
            continue
    return days


def _value_date(value) -> date | None:
    """A frontmatter value as a date: YAML's own dates and datetimes, or text holding one."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return full_date(value)
    return None


def note_date(path: str, frontmatter: dict | None, mtime: float | None) -> Dated | None:
    """The day a note is from, and where that was read."""
    for key in FRONTMATTER_KEYS:
        day = _value_date((frontmatter or {}).get(key))
        if day is not None:
            return Dated(day, "frontmatter")
    day = full_date(path)
    if day is not None:
        return Dated(day, "file name")
    if mtime is not None:
        return Dated(datetime.fromtimestamp(mtime, UTC).date(), FILE_TIME)
    return None


def stated_day(day: str | None, source: str | None) -> date | None:
    """A stored passage day (ISO) as a date when the note states it; None for no day or a file time (not shown or
    trusted as the passage's day)."""
    return date.fromisoformat(day) if day and source != FILE_TIME else None


@dataclass(frozen=True)
class PassageTime:
    """What the index keeps of a passage's time."""

    dated: Dated | None  # the day it is from (`passage_date`)
    entries: tuple[date, ...] = ()  # the days of its log entries and dated sections (`entry_dates`, `section_dates`), each once, sorted


def passage_time(note: Dated | None, headings: tuple[str, ...], text: str) -> PassageTime:
    return PassageTime(passage_date(note, headings), tuple(sorted(set(entry_dates(text)) | set(section_dates(text)))))


def section_dates(text: str) -> list[date]:
    """The days of the dated headings in `text` ("## 2026-11-24", "### 24 ноября 2026"): a passage that holds two
    days' sections is from both, not only from the first heading's (or the file's) day."""
    return [day for line in text.split("\n") if markdown.HEADING.match(line) for day in [full_date(line)] if day is not None]


def passage_date(note: Dated | None, headings: tuple[str, ...]) -> Dated | None:
    """The day a passage is from: the innermost heading above it with a full date (a chat turn's heading gives its
    message time), else the note's."""
    for heading in reversed(headings):
        day = full_date(heading)
        if day is not None:
            return Dated(day, "message" if _MESSAGE.search(heading) else "heading")
    return note
