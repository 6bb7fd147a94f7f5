"""This session's settings: defaults → rag.toml → environment → the user's `.streamlit/secrets.toml` (a working
folder's taken back out), then the choices made in the settings panel, saved for the next visits. Apart from the
panel that draws the choices: this is what they come to.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import streamlit as st

from app_pages.common import fail, t
from rag.config import Settings, load_settings
from rag.errors import RagError
from rag.web import saved_choices
from rag.web.webapp import Choices, Secrets, apply_choices, split_secrets

APP_FOLDER = Path(__file__).resolve().parents[1]  # where app.py is: its .streamlit/ is the user's own


LANGUAGE_CHOICE = "rag_language_choice"  # the language clicked, kept for the session


@functools.cache
def _split_secrets() -> Secrets:
    """Which secrets files are the user's; a working folder's values are taken back out of the environment, where
    Streamlit put them at start (once per process)."""
    split = split_secrets([Path(p) for p in st.get_option("secrets.files")], home=Path.home(), app_folder=APP_FOLDER)
    for key, value in split.distrusted().items():
        if os.environ.get(key) == value:
            del os.environ[key]
    return split


def user_secrets() -> dict[str, str]:
    """Top-level values of `.streamlit/secrets.toml` (e.g. OPENAI_API_KEY), without those only a working folder's
    file gives."""
    try:
        loaded = {k: str(v) for k, v in st.secrets.items() if isinstance(v, (str, int, float))}
    except FileNotFoundError:
        return {}
    distrusted = _split_secrets().distrusted()
    return {k: v for k, v in loaded.items() if distrusted.get(k) != v}


def ignored_secrets() -> None:
    """Say once per page that a working folder's secrets file was not read, and why."""
    for path, values in _split_secrets().ignored.items():
        st.warning(t("secrets.ignored", path=path, keys=", ".join(sorted(values))), icon=":material/gpp_maybe:")


def base_settings() -> Settings:
    """Defaults → rag.toml → environment → secrets.toml (which Streamlit also puts in the environment, winning)."""
    secrets = user_secrets()  # first: it takes a working folder's secrets back out of os.environ
    return load_settings(env={**os.environ, **secrets})


def session_settings() -> Settings:
    """The base settings with this session's choices from the settings panel (at a session's start, those the app
    saved from earlier visits: rag/web/saved_choices.py; once the person chooses, saved for the next ones), in the
    language last clicked."""
    try:
        base = base_settings()
        choices = _session_choices(base)
        settings = base if choices is None else apply_choices(base, choices)
    except RagError as exc:
        fail(exc)
    picked = st.session_state.get(LANGUAGE_CHOICE)
    return settings if picked is None else settings.replace(ui_language=picked)


def _session_choices(base: Settings) -> Choices | None:
    """This session's choices. Whatever sets `rag_choices` (the panel, the model picker) is saved on the next run."""
    state = st.session_state
    if "rag_choices_kept" not in state:  # the session's first run: the choices of earlier visits
        start = saved_choices.remembered(base)
        state["rag_choices_kept"], state["rag_saved_fields"], state["rag_saved_notices"] = start.choices, start.fields, start.notices
        state.setdefault("rag_choices", start.choices)
    chosen, kept = state.get("rag_choices"), state["rag_choices_kept"]
    if chosen != kept and chosen is not None:
        state["rag_choices_kept"], state["rag_saved_notices"] = chosen, ()
        try:
            state["rag_saved_fields"] = saved_choices.keep(base, before=kept, after=chosen)
        except OSError as exc:  # a full disk or a read-only data folder: the choice still holds for this visit
            state["rag_saved_notices"] = (saved_choices.Notice("not_written", {"error": str(exc)}),)
    return chosen


def saved_notices() -> None:
    """What the saved choices could not give (a vault folder gone, a value out of range), on every page."""
    for notice in st.session_state.get("rag_saved_notices", ()):
        st.warning(t(f"saved.{notice.kind}", **notice.values), icon=":material/settings_backup_restore:")
