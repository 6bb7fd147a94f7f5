"""Driving the browser app through Streamlit's own harness (`AppTest`): the `app` fixture (in conftest) starts it on
a copy of the fixture vault with a real SQLite index; these helpers wait for its indexer, ask, and read its text.

What the app shows of a string it did not write reaches Streamlit Markdown with every ASCII punctuation character
backslash-escaped (`rag.web.untrusted.text`): `texts` gives that Markdown source (for checking markup and escaping),
`shown` the text a reader sees. Answers are HTML (`st.html`): `answers` gives it."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ENV_VARS = (
    "RAG_VAULT",
    "RAG_DB",
    "RAG_CHAT_MODEL",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "RAG_EMBEDDER",
    "RAG_CONFIG",
    "RAG_EMBED_MODEL",
    "RAG_UI_LANGUAGE",
)


def idle(at: AppTest) -> None:
    """Wait for the shared background indexer of this app's index to finish its run."""
    ctx = at.session_state["rag_app"] if "rag_app" in at.session_state else None
    if ctx is not None:
        ctx.knowledge.live.wait_idle(60)


def ask(at: AppTest, question: str) -> AppTest:
    return at.chat_input[0].set_value(question).run()


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # a CommonMark backslash escape: `\` before ASCII punctuation
_STYLE = re.compile(r"<style>.*?</style>\s*", re.S)


def unescaped(markdown: str) -> str:
    """Markdown source with its backslash escapes removed: the characters a reader sees (markup is left as it is)."""
    return _ESCAPE.sub(r"\1", markdown)


def shown(elements) -> str:
    """The elements' text as a reader sees it (`texts`, backslash escapes and the invisible word joiners that keep
    addresses from becoming links removed)."""
    return unescaped(texts(elements)).replace("\u2060", "")


def answers(at) -> str:
    """The HTML of every answer on the page (`st.html` blocks holding a `rag-answer`), without their style sheet."""
    html = (str(e.value) for e in at.get("html"))
    return "\n".join(_STYLE.sub("", h) for h in html if 'class="rag-answer"' in h)
