"""Driving the browser app through Streamlit's own harness (`AppTest`): the `app` fixture (in conftest) starts it on
a copy of the fixture vault with a real SQLite index; these helpers wait for its indexer, ask, and read its text."""

from __future__ import annotations

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
