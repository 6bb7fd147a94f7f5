"""The index every session on one vault shares (one `Knowledge` over one `LiveIndex`, cached with `st.cache_resource`
and closed when Streamlit drops it), opened for this session with its language chosen; and its indexing status in
the sidebar, polled only while indexing runs.
"""

from __future__ import annotations

import streamlit as st

from app_pages.common import AppContext, error_text, fail, language, t
from app_pages.session_settings import saved_notices
from app_pages.settings_panel import settings_panel
from rag.config import Settings
from rag.errors import RagError
from rag.knowledge import Knowledge
from rag.live import LiveIndex, Progress
from rag.web import i18n, untrusted
from rag.web.webapp import index_key


def _choose_language(settings: Settings, knowledge: Knowledge | None) -> str:
    try:
        browser = st.context.locale
    except Exception:  # no browser behind this run (the test harness)
        browser = None
    needs_vault = settings.ui_language == "auto" and i18n.browser_language(browser) is None
    shares = knowledge.script_shares() if needs_vault and knowledge is not None else {}
    return i18n.choose_language(settings.ui_language, browser, shares)


@st.cache_resource(show_spinner=False, max_entries=8, on_release=lambda knowledge: knowledge.live.close())
def _shared_knowledge(key: str, _settings: Settings) -> Knowledge:
    live = LiveIndex(_settings)
    live.workspace()  # open now: a broken vault or embedder is reported on this page
    return Knowledge(live.start(), reads_wait=False)  # pages never wait for a check: the indexer looks


def open_context(settings: Settings, settings_box) -> AppContext:
    """Open this session's view of the shared index and choose its language; then draw the settings panel into
    `settings_box` (also when opening fails: the panel is where the fix is made)."""
    if settings.ui_language != "auto" or "rag_language" not in st.session_state:  # the words while the index opens
        st.session_state["rag_language"] = _choose_language(settings, None)
    saved_notices()
    try:
        with st.spinner(t("progress.opening")):
            knowledge = _shared_knowledge(index_key(settings), settings).for_settings(settings)
    except RagError as exc:
        settings_panel(settings, settings_box, expanded=True)  # open where the fix is made
        st.caption(t("open.fix"))
        fail(exc)
    ctx = AppContext(settings, knowledge, _choose_language(settings, knowledge))
    st.session_state["rag_language"] = ctx.language
    st.session_state["rag_app"] = ctx
    settings_panel(settings, settings_box)
    return ctx


def index_status(ctx: AppContext) -> None:
    """A small live indexing status in the sidebar; polls only while indexing runs."""
    running = ctx.knowledge.progress().running
    with st.sidebar:
        name = ctx.settings.vault.name + (t("sidebar.demo") if ctx.is_demo else "")
        st.markdown(t("sidebar.vault", name=name), help=untrusted.text(ctx.settings.vault))
        st.fragment(run_every=1.0 if running else None)(_index_status_body)(ctx.knowledge)


def progress_label(state: Progress) -> str:
    """What the indexer is doing, in the session's language."""
    if state.state == "reading notes":
        return t("progress.reading", done=state.done, total=state.total) if state.total else t("progress.checking")
    if state.state == "embedding":
        return t("progress.embedding", percent=i18n.percent(language(), state.fraction))
    return t("progress.opening") if state.state == "opening" else t("progress.other", state=state.state)


def _index_status_body(knowledge: Knowledge) -> None:
    state = knowledge.progress()
    seen = st.session_state.get("rag_seen_changes")
    st.session_state["rag_seen_changes"] = state.changes
    if state.running:
        st.session_state["rag_was_indexing"] = True
        st.progress(state.fraction, text=progress_label(state))
        return
    if st.session_state.pop("rag_was_indexing", False) and (seen != state.changes or state.error):
        st.rerun(scope="app")  # new notes or vectors: redraw the page with them
    if state.error:
        st.caption(":red[:material/error: " + i18n.text(language(), "status.error", error=error_text(state.error)) + "]")
    else:
        st.caption(":green[:material/check_circle:] " + t("status.up_to_date"))
