"""The pure rendering helpers shared by all importers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml

from rag.importers.markdown import Conversation, Turn, callout, fence, frontmatter, inline_code, one_line, parse_time, render_note

TRICKY = {
    "title": "yes",
    "created": "2024-01-01",
    "project": "a: b # c",
    "updated": None,
    "messages": 3,
    "source": 'Привет \x85 \u2028 \x7f \x00 "q" \\ \ufeff 🍲',
}


def test_frontmatter_round_trips_through_yaml_as_strings():
    text = frontmatter(TRICKY)
    assert yaml.safe_load(text.removeprefix("---\n").removesuffix("---")) == TRICKY


def test_fence_is_longer_than_any_backtick_run_inside():
    assert fence("a ```` b", "py") == "`````py\na ```` b\n`````"
    assert inline_code("x `y` z") == "``x `y` z``"


def test_callout_quotes_every_line_and_keeps_blank_lines():
    assert callout("thinking", "Thinking", "a\n\nb") == "> [!thinking]- Thinking\n> a\n>\n> b"


def test_one_line_shortens_and_marks_more_lines():
    assert one_line("\n  first  \nsecond", 80) == "first …"
    assert one_line("abcdefghij", 5) == "abcd…"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2024-10-17T03:28:33.480257Z", datetime(2024, 10, 17, 3, 28, 33, 480257, tzinfo=UTC)),
        (1736935200.0, datetime(2025, 1, 15, 10, 0, tzinfo=UTC)),
        ("2024-10-17T05:28:33+02:00", datetime(2024, 10, 17, 3, 28, 33, tzinfo=UTC)),
        ("yesterday", None),
        (None, None),
        (True, None),
    ],
)
def test_times_are_read_as_utc(value, expected):
    assert parse_time(value) == expected


def test_consecutive_turns_of_one_speaker_share_a_heading():
    at = datetime(2025, 1, 1, 9, 30, tzinfo=UTC)
    conv = Conversation("chatgpt", "c1", "T", at, at, None, (Turn("User", at, ("q",)), Turn("ChatGPT", at, ("a1",)), Turn("ChatGPT", None, ("a2",))))
    body = render_note(conv, project="General").split("---\n\n", 1)[1]
    assert body == "# T\n\n## User · 2025-01-01 09:30\n\nq\n\n## ChatGPT · 2025-01-01 09:30\n\na1\n\na2\n"
