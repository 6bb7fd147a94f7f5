"""Hostile input on the app's screen: a link in a note or a reply is live only when it opens a note of this vault in
Obsidian (or a citation in the page); bare web and e-mail addresses in a heading, a title or a path stay text in
Streamlit's Markdown; a context window a server states is believed only inside the range the setting allows, and the
settings panel's numbers keep to the same ranges. The browser's side (the note link's href, no autolinks, no
horizontal overflow) is in tests/test_browser.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rag.answer.ask import ask
from rag.chat import openai_chat as chat_module
from rag.chat import servers
from rag.chat.configured import make_chat_model
from rag.chat.servers import describe, window_in_error
from rag.config import allowed_range
from rag.errors import ChatError, ConfigError
from rag.web import untrusted
from rag.web.ui_render import answer_html, obsidian_url
from rag.web.webapp import Choices, apply_choices, choices_of
from tests.app_harness import texts
from tests.openai_server import FakeOpenAI

NOTE = "obsidian://open?vault=vault&file=Notes%2FSourdough.md"


@pytest.fixture
def vault_dir(tmp_path) -> Path:
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes" / "Sourdough.md").write_text("# Sourdough\n\n72% hydration.\n", encoding="utf-8")
    (tmp_path / "secret.md").write_text("outside\n", encoding="utf-8")
    (vault / "Notes" / "escape.md").symlink_to(tmp_path / "secret.md")  # a link inside that resolves outside
    return vault


def _links(html: str) -> list[dict[str, str]]:
    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "a":
                found.append(dict(attrs))

    Collect().feed(html)
    return found


@pytest.mark.parametrize(
    "href",
    [
        "obsidian://new?vault=vault&file=Notes%2FSourdough&content=gone&overwrite=true",  # overwrites a note
        "obsidian://advanced-uri?vault=vault&commandid=workspace%253Aclose",  # a plugin runs a command
        "obsidian://advanced-uri?vault=vault&eval=require('child_process')",
        "obsidian://open?vault=other&file=Notes%2FSourdough.md",  # another vault
        "obsidian://open?vault=vault&file=..%2F..%2F.ssh%2Fid_rsa",  # climbs out, encoded
        "obsidian://open?vault=vault&file=Notes/../../secret.md",
        "obsidian://open?vault=vault&file=%2Fetc%2Fpasswd",  # absolute
        "obsidian://open?vault=vault&file=C%3A%5CUsers%5Cme",
        "obsidian://open?vault=vault&file=Notes%2Fescape.md",  # a symbolic link out of the vault
        "obsidian://open?vault=vault&file=Notes%2FSourdough.md&path=%2Fetc%2Fpasswd",  # a third parameter
        "obsidian://open?vault=vault&vault=other&file=Notes%2FSourdough.md",  # a parameter twice
        "obsidian://open?path=%2Fhome%2Fme%2Fvault%2FNotes%2FSourdough.md",  # by absolute path
        "obsidian://open?file=Notes%2FSourdough.md",  # no vault: Obsidian picks one
        "obsidian://open?vault=vault&file=%FF%FE.md",  # not UTF-8
        "obsidian://open?vault=vault&file=",
        "obsidian://vault/vault/Notes/Sourdough.md",  # the short form
        "obsidian://open?vault=vault&file=Notes%2FSourdough.md#x",
        "#/search",  # a Streamlit page, not a citation
        "#top",
    ],
)
def test_no_obsidian_action_but_opening_a_note_of_this_vault_is_a_live_link(vault_dir, href):
    html = untrusted.markdown_html(f"See [the note]({href}) and <{href}>.", vault=vault_dir)
    assert _links(html) == []
    assert html.count("the note") == 1 and "(" + href.replace("&", "&amp;")[:30] in html  # the address shown as text


def test_opening_a_note_of_this_vault_and_a_citation_stay_live_links(vault_dir):
    russian = "obsidian://open?vault=vault&file=Notes%2F%D0%9F%D0%BE%D0%B5%D0%B7%D0%B4%D0%BA%D0%B0.md"  # not written yet
    html = answer_html(f"72% [S1]. [Sourdough]({NOTE}), [Поездка]({russian}).", ["S1"], turn=0, vault=vault_dir)
    links = _links(html)
    assert links == [
        {"href": "#cite-0-S1"},
        {"href": NOTE, "data-obsidian": NOTE},  # st.html drops the href; the page's script puts it back from here
        {"href": russian, "data-obsidian": russian},
    ]
    assert _links(answer_html(f"[Sourdough]({NOTE})", [], turn=0)) == []  # no vault given: no note link
    assert untrusted.opens_vault_note(obsidian_url(vault_dir, "Notes/Sourdough.md"), vault_dir)  # the app's own links


def test_the_cleaner_holds_to_the_link_rule_even_for_html_the_caller_adds(vault_dir):
    forged = '<a href="obsidian://new?vault=vault&amp;file=x&amp;overwrite=true" data-obsidian="obsidian://new?x">y</a>'
    html = untrusted.markdown_html("Fine \ue000.", vault=vault_dir, replace={"\ue000": forged})
    assert _links(html) == [{}]


# GFM's autolink literals as Streamlit's Markdown finds them in text (mdast-util-gfm-autolink-literal), ASCII \w.
_WEB = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.I | re.A)
_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.A)


@pytest.mark.parametrize(
    "value",
    [
        "Booking: https://hotel.example/x",
        "see www.hotel.example today",
        "WWW.HOTEL.EXAMPLE",
        "desk@hotel.example",
        "mailto:a@b.example",
        "HTTP://X.EXAMPLE",
    ],
)
def test_a_bare_address_in_text_is_not_read_as_a_link(value):
    shown = untrusted.text(value)
    read = re.sub(r"\\(.)", r"\1", shown)  # the text Streamlit's autolinker looks at, escapes resolved
    assert not _WEB.search(read) and not _EMAIL.search(read), read
    assert read.replace("\u2060", "") == value  # the same characters to a reader: the joiner is invisible


# --- windows ------------------------------------------------------------------------------------------------------


@pytest.fixture
def ws(workspace):
    workspace.sync()
    servers._windows.clear()  # what servers said in other tests
    return workspace


@pytest.mark.parametrize("window", [-5, 0, 3, True])
def test_a_window_a_server_states_outside_the_settings_range_is_not_believed(ws, settings, window):
    with FakeOpenAI(models=("local",)) as server:
        server.kind, server.context_tokens = "vllm", window  # its /v1/models says max_model_len is `window`
        server.script_chat("White bread at 72% [S1].")
        assert describe(server.base_url).models[0].context_tokens is None
        chat = make_chat_model(settings.replace(chat_model="local", openai_base_url=server.base_url))
        server.kind = None  # …and it serves prompts of any length all the same
        answer = ask(ws, "What hydration do I keep for white bread?", chat=chat)
    assert chat.context_tokens == chat_module.DEFAULT_CONTEXT_TOKENS and answer.window == chat_module.DEFAULT_CONTEXT_TOKENS
    assert "72%" in answer.text
    assert window_in_error("This model's maximum context length is 100 tokens.") is None  # nor one its error names


def test_a_window_too_small_for_the_answer_blames_the_settings_not_the_question(ws, settings):
    with FakeOpenAI(models=("local",)) as server:
        server.kind, server.context_tokens = "llama.cpp", 512  # believable, but the answer's 600 tokens do not fit
        chat = make_chat_model(settings.replace(chat_model="local", openai_base_url=server.base_url))
        with pytest.raises(ChatError) as raised:
            ask(ws, "Hydration?", chat=chat)
    message = str(raised.value)
    assert "Shorten the question" not in message
    assert "512" in message and "max_answer_tokens (600)" in message and "chat_context_tokens" in message


def test_the_settings_panel_refuses_a_number_outside_the_settings_range_naming_it(settings):
    base = choices_of(settings).__dict__
    with pytest.raises(ConfigError, match=r"context_max_notes must be between 1 and 100, got -5"):
        apply_choices(settings, Choices(**{**base, "max_notes": -5}))
    with pytest.raises(ConfigError, match=r"context_max_chars must be between 200 and 10000000"):
        apply_choices(settings, Choices(**{**base, "max_chars": 10**9}))
    assert allowed_range("context_max_notes") == (1, 100)


def test_a_configured_number_the_old_form_bounds_left_out_does_not_break_the_settings_panel(app, monkeypatch):
    monkeypatch.setenv("RAG_CONTEXT_MAX_NOTES", "80")  # allowed in rag.toml (1-100); the form used to stop at 50
    monkeypatch.setenv("RAG_CONTEXT_MAX_CHARS", "300")  # and to start at 500
    at = app()
    assert not at.exception, texts(at.exception)
    fields = {n.label: n.value for n in at.number_input}
    assert 80 in fields.values() and 300 in fields.values()
