"""Citation checking: every `[Sx]` is checked against the context ids, odd forms are normalised, phantoms and links
removed — on whole answers and on streams cut at every possible place."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.answer.citations import CitationFilter, clean, defang
from rag.answer.phantoms import phantoms

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
    wj = "\u2060"  # a word joiner: reads the same, is not citation-shaped
    assert defang("see [S3] and (S1) and [S2](http://x)") == f"see S{wj}3 and S{wj}1 and S{wj}2(http://x)"
    assert phantoms(defang("[S99] [s7, S8] Season S9: 【S7】"), IDS) == []
    assert clean(defang("[S99] [s7, S8] Season S9: 【S7】"), IDS).removed == ()
    # «(с 1525 года)»: Cyrillic «с» ("since"), a space and a year read as a cited S1525 to anyone checking
    quoted = "английскую Библию Вильяма Тиндейла (с 1525 года), ставшую предшественницей"
    assert phantoms(quoted, IDS) == ["S1525"]
    assert phantoms(defang(quoted), IDS) == [] and defang(quoted).replace(wj, "") == quoted


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


# --- property: whatever citation-shaped text a model streams, cut wherever, no phantom reaches the person --------

_TEMPLATES = (
    "[S{n}]",
    "[С{n}]",
    "【S{n}】",
    "[^S{n}]",
    "[S{n}†L{k}]",
    "[[S{n}]]",
    "(source S{n})",
    "(S{n}, S{k})",
    "[S{n}, S{k}]",
    "[S{n}-S{k}]",
    " Source: S{n}",
    " according to S{n}",
    "\nS{n}: ",
    "[Source: S{n}]",
    "(см. С{n})",
    "[S {n}]",
    "[s{n}; S{k}]",
    "【S{n}†source】",
    " согласно С{n}",
    "[S{n} and S{k}]",
)
_PROSE = ("The trip", " cost 38 000 roubles", ".", "\n", " ", "- ", "Байкал", " in March", ", ", "**bold** ", "1. ")
_citation = st.builds(lambda t, n, k: t.format(n=n, k=k), st.sampled_from(_TEMPLATES), st.integers(1, 12), st.integers(1, 12))
_reply = st.lists(st.one_of(_citation, st.sampled_from(_PROSE)), min_size=1, max_size=14).map("".join)


@settings(max_examples=400, deadline=None)
@given(reply=_reply, cuts=st.lists(st.integers(1, 8), min_size=1, max_size=60))
def test_any_citation_shaped_reply_cut_anywhere_shows_no_phantom(reply, cuts):
    stream, shown, i, step = CitationFilter(IDS), [], 0, 0
    while i < len(reply):
        j = i + cuts[step % len(cuts)]
        shown.append(stream.feed(reply[i:j]))
        i, step = j, step + 1
    shown.append(stream.tail())
    text = "".join(shown)
    assert text == clean(reply, IDS).text
    assert phantoms(text, IDS) == [], text  # the independent detector (rag/answer/phantoms.py) agrees: nothing leaked
