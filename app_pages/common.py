"""Streamlit glue shared by the pages of `app.py` (an adapter: no logic, only widgets over `rag/`).

Objects cached with `st.cache_resource` are shared by every session and thread: only the thread-safe `Knowledge`
over one `LiveIndex` per vault (store, embedder, indexer thread and watcher; closed when Streamlit drops it). Pages
talk to `ctx.knowledge` only, never to the store.
Errors from the library are shown once with `st.error` and the page stops (`fail`).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import streamlit as st

from rag.config import DEMO_VAULT, Settings, load_settings
from rag.errors import RagError
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.search.similar import NoteVectors
from rag.web.ui_render import PASSAGE_CSS, obsidian_url, parse_cite_href, passage, passage_html
from rag.web.webapp import Choices, apply_choices, choices_of, index_key

_CITE_JS = """
export default function(component) {
  window.__ragCite = component.setTriggerValue;
  if (!window.__ragCiteListener) {
    window.__ragCiteListener = (event) => {
      const link = event.target.closest && event.target.closest('a[href^="#cite-"]');
      if (!link || !window.__ragCite) return;
      event.preventDefault();
      window.__ragCite('cite', link.getAttribute('href') + '|' + Date.now());
    };
    document.addEventListener('click', window.__ragCiteListener, true);
  }
}
"""


@dataclass(frozen=True)
class AppContext:
    settings: Settings  # this session's settings
    knowledge: Knowledge  # the index shared by all sessions on the same vault, with this session's answer settings

    @property
    def is_demo(self) -> bool:
        return self.settings.vault == DEMO_VAULT.resolve()


def fail(exc: Exception) -> None:
    """The one way a page reports a library error: the message (it names the fix), then stop."""
    st.error(str(exc), icon=":material/error:")
    st.stop()


def context() -> AppContext:
    return st.session_state["rag_app"]


def _secrets() -> dict[str, str]:
    """Top-level values of `.streamlit/secrets.toml` (e.g. OPENAI_API_KEY); empty if there is no such file."""
    try:
        return {k: str(v) for k, v in st.secrets.items() if isinstance(v, (str, int, float))}
    except FileNotFoundError:
        return {}


def base_settings() -> Settings:
    """Defaults → rag.toml → environment → secrets.toml (which Streamlit also puts in the environment, winning)."""
    return load_settings(env={**os.environ, **_secrets()})


def session_settings() -> Settings:
    """The base settings with this session's choices from the settings panel."""
    try:
        base = base_settings()
        choices = st.session_state.get("rag_choices")
        return base if choices is None else apply_choices(base, choices)
    except RagError as exc:
        fail(exc)


@st.cache_resource(show_spinner="Opening the index…", max_entries=8, on_release=lambda knowledge: knowledge.live.close())
def _shared_knowledge(key: str, _settings: Settings) -> Knowledge:
    live = LiveIndex(_settings)
    live.workspace()  # open now: a broken vault or embedder is reported on this page
    return Knowledge(live.start(), reads_wait=False)  # pages never wait for a check: the indexer looks


def open_context(settings: Settings) -> AppContext:
    try:
        return AppContext(settings, _shared_knowledge(index_key(settings), settings).for_settings(settings))
    except RagError as exc:
        st.caption("Fix the vault folder or the embeddings choice in the sidebar's Settings.")
        fail(exc)


def settings_panel(settings: Settings) -> None:
    """The sidebar's settings form. Applying valid choices reruns the app with them; invalid ones show the fix."""
    defaults = choices_of(settings)
    with st.sidebar.expander("Settings", icon=":material/settings:", expanded=False), st.form("rag_settings", border=False):
        vault = st.text_input("Vault folder", defaults.vault, help="The folder that holds your Markdown notes (an Obsidian vault).")
        endpoint = st.text_input(
            "Chat endpoint (OpenAI-compatible)",
            defaults.endpoint,
            placeholder="http://localhost:11434/v1",
            help="Ollama, LM Studio, vLLM, llama.cpp, LiteLLM or OpenAI. Empty with a model name: api.openai.com.",
        )
        chat_model = st.text_input("Chat model", defaults.chat_model, placeholder="empty → extractive answers")
        embedder = st.radio(
            "Embeddings",
            ["local", "openai"],
            index=["local", "openai"].index(defaults.embedder),
            horizontal=True,
            help="local: the offline model shipped with the app. openai: the endpoint above.",
        )
        embed_model = st.text_input("Embedding model (openai only)", defaults.embed_model)
        notes = st.number_input("Max notes per answer", 1, 50, defaults.max_notes)
        per_note = st.number_input("Max passages per note", 1, 20, defaults.max_chunks_per_note)
        chars = st.number_input("Max characters of context", 500, 200_000, defaults.max_chars, step=1000)
        submitted = st.form_submit_button("Apply", type="primary")
        st.caption(f"API key: {_key_source()}. Keys are read from the environment or `.streamlit/secrets.toml`, never from the vault.")
    if submitted:
        choices = Choices(vault, endpoint, chat_model, embedder, embed_model, int(notes), int(per_note), int(chars))
        try:
            apply_choices(base_settings(), choices)
        except RagError as exc:
            st.sidebar.error(str(exc), icon=":material/error:")
            return
        st.session_state["rag_choices"] = choices
        st.rerun()


def _key_source() -> str:
    if "OPENAI_API_KEY" in _secrets():
        return "from .streamlit/secrets.toml"
    return "from the environment" if os.environ.get("OPENAI_API_KEY") else "none (fine for local servers)"


def index_status(ctx: AppContext) -> None:
    """A small live indexing status in the sidebar; polls only while indexing runs."""
    running = ctx.knowledge.progress().running
    with st.sidebar:
        st.markdown(f"**Vault** · {ctx.settings.vault.name}" + (" (demo)" if ctx.is_demo else ""), help=str(ctx.settings.vault))
        st.fragment(run_every=1.0 if running else None)(_index_status_body)(ctx.knowledge)


def _index_status_body(knowledge: Knowledge) -> None:
    state = knowledge.progress()
    seen = st.session_state.get("rag_seen_changes")
    st.session_state["rag_seen_changes"] = state.changes
    if state.running:
        st.session_state["rag_was_indexing"] = True
        st.progress(state.fraction, text=state.label)
        return
    if st.session_state.pop("rag_was_indexing", False) and (seen != state.changes or state.error):
        st.rerun(scope="app")  # new notes or vectors: redraw the page with them
    if state.error:
        st.caption(f":red[:material/error: Indexing: {state.error}]")
    else:
        st.caption(":green[:material/check_circle:] Index up to date")


@functools.cache
def _cite_component():
    return st.components.v2.component("rag_citation_links", js=_CITE_JS)


def citation_clicks() -> tuple[int, str] | None:
    """Mount the (invisible) catcher of clicks on `#cite-…` links; the clicked (turn, source id), once."""
    try:
        result = _cite_component()(key="rag_cite_links", on_cite_change=lambda: None, height=0)
    except Exception:  # a harness without custom components (AppTest): the Sources panel buttons still work
        return None
    return parse_cite_href(getattr(result, "cite", None))


@st.dialog("Cited passage", width="large")
def passage_dialog(
    vault, *, source_id: str, path: str, heading: str, start: int, end: int, text: str, why: str, quoted=(), outside: tuple[str, ...] = ()
) -> None:
    st.markdown(f"**{source_id}** · `{path}`" if source_id else f"`{path}`")
    st.caption(f"{heading} · lines {start}–{end} · found by {why}")
    shown = passage(vault, path, start, end, text, quoted_lines=quoted, outside=outside)
    if shown.changed:
        st.warning("This note changed since; showing the passage as it was cited.", icon=":material/history:")
    st.html(PASSAGE_CSS + passage_html(shown))
    st.link_button("Open in Obsidian", obsidian_url(vault, path), icon=":material/open_in_new:")


def cached_note_vectors(ctx: AppContext) -> NoteVectors:
    """Note vectors, recomputed only when the index changed (shared and read-only)."""
    return ctx.knowledge.note_vectors()


def titles(ctx: AppContext) -> dict[str, str]:
    return ctx.knowledge.titles()
