"""Citation checking: every `[Sx]` is checked against the context ids, odd forms are normalised, phantoms and links
removed — on whole answers and on streams cut at every possible place."""

from __future__ import annotations

import random

import pytest

from rag.citations import CitationFilter, clean, defang, phantoms

IDS = ("S1", "S2", "S3")


@pytest.mark.parametrize(
    "raw, shown, removed",
    [
        ("72% [S1].", "72% [S1].", ()),
        ("Flights cost 38 000 [S99].", "Flights cost 38 000.", ("S99",)),
        ("Both [S1, S2] and [S1; S3].", "Both [S1][S2] and [S1][S3].", ()),
        ("Lower case [s1] and (S2) and (S1, S3).", "Lower case [S1] and [S2] and [S1][S3].", ()),
        ("Spaced [ S 2 ] and ranged [S1-S3].", "Spaced [S2] and ranged [S1][S2][S3].", ()),
        ("Mixed [S2, S99] and [S7 and S8].", "Mixed [S2] and.", ("S99", "S7", "S8")),
        ("Bare [S1, 2].", "Bare [S1][S2].", ()),
        ("A link [S1](http://evil.example) here.", "A link [S1] here.", ()),
        ("Twice [S1](http://a)(http://b).", "Twice [S1].", ()),
        ("Text [S1][x]\n[x]: http://evil.example\n[S9]: http://x\nend", "Text [S1][x]\nend", ("S9",)),
        ("Not a citation (see above) or [a note].", "Not a citation (see above) or [a note].", ()),
    ],
)
def test_citations_are_normalised_and_unknown_ids_removed(raw, shown, removed):
    result = clean(raw, IDS)
    assert (result.text, result.removed) == (shown, removed)
    assert phantoms(result.text, IDS) == []


def test_cited_ids_are_listed_once_in_order_of_first_appearance():
    assert clean("b [S2] a [S1] b [S2] [S99]", IDS).cited == ("S2", "S1")


def test_phantoms_finds_citation_like_ids_outside_the_context():
    assert phantoms("ok [S1], bad [S4] and (s5) [S1, S6]", IDS) == ["S4", "S5", "S6"]


def test_quoted_note_text_is_defanged_so_it_cannot_cite():
    assert defang("see [S3] and (S1) and [S2](http://x)") == "see S3 and S1 and S2(http://x)"
    assert phantoms(defang("[S99] [s7, S8]"), IDS) == []


REPLIES = [
    "Hydration is 72% [S1]. Whole wheat is 80% [S2, S99].",
    "Odd [s1] and (S2) and [S1; S3] and [S1-S3] and [S 2].\n[S1]: http://evil\nmore [S2](http://x) end (see above) [",
    "[S1] starts a line, (so it) goes [S4–S5] on (S",
    "Ответ: 38 000 рублей [S1]. Фантом [S7] (см. выше).",
    "x [S1]\n   [S2]: y\n[S3] (S1)(S2) [[S99]] [x](S1) ([S1]) [S2 и S3]",
]


@pytest.mark.parametrize("reply", REPLIES)
def test_a_stream_cut_anywhere_shows_exactly_the_cleaned_answer(reply):
    expected = clean(reply, IDS).text
    rng = random.Random(reply)
    for _ in range(200):
        stream, shown, i = CitationFilter(IDS), [], 0
        while i < len(reply):
            j = i + rng.randint(1, 6)
            shown.append(stream.feed(reply[i:j]))
            i = j
        shown.append(stream.tail())
        assert "".join(shown) == expected
        assert all(phantoms("".join(shown[: k + 1]), IDS) == [] for k in range(len(shown)))


def test_a_stream_holds_back_only_a_possible_citation():
    stream = CitationFilter(IDS)
    assert stream.feed("The answer is 72% ") == "The answer is 72%"
    assert stream.feed("[S") == ""
    assert stream.feed("99") == ""
    assert stream.feed("] and more") == " and more"
    assert stream.feed(" (like this") == " (like this"
