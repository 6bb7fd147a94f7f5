"""The sidebar's settings panel: the language, switched at a click; the form of the other choices (vault, chat
endpoint and model, embeddings, the answer's caps); which choices are saved from earlier visits; the chat models
found on this machine, to pick and test one.
"""

from __future__ import annotations

import dataclasses
import os

import streamlit as st

from app_pages.common import error_text, language, t
from app_pages.session_settings import LANGUAGE_CHOICE, base_settings, user_secrets
from rag.config import Settings, allowed_range
from rag.errors import RagError
from rag.surface import find_servers, kinds, shown_name, try_model
from rag.web import i18n, saved_choices, untrusted
from rag.web.webapp import NUMBERS, Choices, apply_choices, choices_of

LANGUAGE_PICK = "rag_language_pick"  # the Settings language control's state (Streamlit drops it with the control)


# The settings panel's label of each field of `Choices`, to name the fields the app saved.
_FIELD_LABELS = {
    "vault": "settings.vault",
    "endpoint": "settings.endpoint",
    "chat_model": "settings.chat_model",
    "embedder": "settings.embeddings",
    "embed_model": "settings.embed_model",
    "max_notes": "settings.max_notes",
    "max_chunks_per_note": "settings.max_per_note",
    "max_chars": "settings.max_chars",
    "language": "settings.language",
}


def settings_panel(settings: Settings, box, *, expanded: bool = False) -> None:
    """The sidebar's settings: the language, switched at a click; then the form of the other choices. Applying
    valid choices reruns the app with them; invalid ones show the fix under the button that applied them."""
    defaults = choices_of(settings)
    # A click on a language redraws the panel under its new title: it stays open where the click was. (The flag
    # stays set: a change of `expanded` alone would fold the panel on the next run, whatever the person did.)
    expanded = expanded or st.session_state.get("rag_language_clicked", False) or bool(st.session_state.get("rag_found_models"))
    expander = box.expander(t("settings.title"), icon=":material/settings:", expanded=expanded)
    st.session_state.setdefault(LANGUAGE_PICK, defaults.language)
    with expander:
        st.segmented_control(
            t("settings.language"),
            i18n.CHOICES,
            key=LANGUAGE_PICK,
            format_func=lambda choice: t(f"settings.language.{choice}"),
            help=t("settings.language.help"),
            on_change=_language_picked,
            args=(settings,),
        )
    with expander, st.form("rag_settings", border=False):
        # A text area wraps a long path instead of cutting it off in the narrow sidebar.
        vault = st.text_area(t("settings.vault"), defaults.vault, height=68, help=t("settings.vault.help"))
        endpoint = st.text_input(t("settings.endpoint"), defaults.endpoint, placeholder="http://localhost:11434/v1", help=t("settings.endpoint.help"))
        chat_model = st.text_input(t("settings.chat_model"), defaults.chat_model, placeholder=t("settings.chat_model.placeholder"))
        embedder = st.radio(
            t("settings.embeddings"),
            ["local", "openai"],
            index=["local", "openai"].index(defaults.embedder),
            horizontal=True,
            help=t("settings.embeddings.help"),
        )
        embed_model = st.text_input(t("settings.embed_model"), defaults.embed_model)
        # Bounds are the settings' own ranges: a value rag.toml may hold is one the form can show.
        notes = st.number_input(t("settings.max_notes"), *allowed_range(NUMBERS["max_notes"]), defaults.max_notes)
        per_note = st.number_input(t("settings.max_per_note"), *allowed_range(NUMBERS["max_chunks_per_note"]), defaults.max_chunks_per_note)
        chars = st.number_input(t("settings.max_chars"), *allowed_range(NUMBERS["max_chars"]), defaults.max_chars, step=1000)
        submitted = st.form_submit_button(t("settings.apply"), type="primary")
        problem = st.empty()  # what is wrong with the choices, right under the button that applied them
        st.caption(t("settings.key", source=_key_source()))
    with expander:
        _saved_line()
        _model_picker(settings)
    if submitted:
        vault = " ".join(vault.splitlines()).strip()  # a path pasted with a line break
        choices = Choices(vault, endpoint, chat_model, embedder, embed_model, int(notes), int(per_note), int(chars), defaults.language)
        try:
            apply_choices(base_settings(), choices)
        except RagError as exc:
            problem.error(error_text(exc), icon=":material/error:")
            return
        st.session_state["rag_choices"] = choices
        st.rerun()


def _language_picked(settings: Settings) -> None:
    """The language clicked becomes this session's at once: the run that follows draws every word in it. It is
    kept apart from the form's choices (applying them later keeps it) and in them, so it is saved for the next
    visits like any choice (rag/web/saved_choices.py)."""
    picked = st.session_state[LANGUAGE_PICK]
    if picked is None:  # a click on the chosen language clears the control: the language stays
        st.session_state[LANGUAGE_PICK] = settings.ui_language
        return
    st.session_state[LANGUAGE_CHOICE] = picked
    chosen = st.session_state.get("rag_choices") or choices_of(settings)
    st.session_state["rag_choices"] = dataclasses.replace(chosen, language=picked)
    st.session_state["rag_language_clicked"] = True


def _saved_line() -> None:
    """Which settings come from earlier choices in this panel rather than rag.toml and the environment, and a way
    to go back to those."""
    fields = st.session_state.get("rag_saved_fields") or ()
    if not fields:
        return
    st.caption(t("saved.fields", fields=", ".join(t(_FIELD_LABELS[f]) for f in fields)))
    if st.button(t("saved.forget"), key="rag_forget_choices", icon=":material/restart_alt:", help=t("saved.forget.help")):
        saved_choices.forget()
        for key in ("rag_choices", "rag_choices_kept", "rag_saved_fields", "rag_saved_notices"):
            st.session_state.pop(key, None)
        st.rerun()


def _model_picker(settings: Settings) -> None:
    """Chat models found on this machine's usual ports (loopback only), to pick one and test it with one request."""
    if st.button(t("models.find"), key="rag_find_models", icon=":material/radar:", help=t("models.find.help", servers=kinds.listed())):
        st.session_state["rag_found_models"] = find_servers()
    found = st.session_state.get("rag_found_models")
    if found is None:
        return
    options = [(server, model) for server in found for model in server.models]
    if not options:
        st.caption(t("models.none"))
        return

    def label(i: int) -> str:  # a select box shows plain text, not Markdown: the name cut, control characters out
        server, model = options[i]
        return f"{shown_name(model.id)} · {server.kind}"

    pick = st.selectbox(t("models.pick"), range(len(options)), format_func=label, key="rag_model_pick")
    server, model = options[pick]
    window = t("models.window", n=model.context_tokens) if model.context_tokens else t("models.window.unknown")
    st.caption(f"{window} · {untrusted.text(server.base_url)}")
    use, test = st.columns(2)
    if test.button(t("models.test"), key="rag_model_test", icon=":material/speed:"):
        try:
            tried = try_model(settings, base_url=server.base_url, model=model.id)
            st.success(t("models.tested", seconds=i18n.decimal(language(), tried.seconds), reply=tried.reply), icon=":material/check:")
        except RagError as exc:
            st.error(error_text(exc), icon=":material/error:")
    if use.button(t("models.use"), key="rag_model_use", type="primary"):
        current = st.session_state.get("rag_choices") or choices_of(settings)
        st.session_state["rag_choices"] = dataclasses.replace(current, endpoint=server.base_url, chat_model=model.id)
        st.rerun()


def _key_source() -> str:
    if "OPENAI_API_KEY" in user_secrets():
        return t("settings.key.secrets")
    return t("settings.key.env") if os.environ.get("OPENAI_API_KEY") else t("settings.key.none")
