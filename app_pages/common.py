"""Streamlit glue shared by the pages of `app.py` (an adapter: no logic, only widgets over `rag/`): the session's
context and language, its words (`t`), and how a page reports a library error.

Objects cached with `st.cache_resource` are shared by every session and thread: only the thread-safe `Knowledge`
over one `LiveIndex` per vault (app_pages/shared_index.py). Pages talk to `ctx.knowledge` only, never to the store.
Errors from the library are shown once with `st.error`, in the app's words (`rag.web.messages`), and the page stops (`fail`).
The sidebar's settings are app_pages/session_settings.py and settings_panel.py; the browser-side scripts
browser_scripts.py; the passage dialog passage_dialog.py.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import streamlit as st

from rag.config import DEMO_VAULT, Settings
from rag.knowledge import Knowledge
from rag.surface import NoteVectors, why_found, wikilinks
from rag.web import i18n, messages, untrusted


@dataclass(frozen=True)
class AppContext:
    settings: Settings  # this session's settings
    knowledge: Knowledge  # the index shared by all sessions on the same vault, with this session's answer settings
    language: str  # "en" or "ru": the words of every page

    @property
    def is_demo(self) -> bool:
        return self.settings.vault == DEMO_VAULT.resolve()


def fail(exc: Exception) -> None:
    """The one way a page reports a library error: the message in the app's words (it names the fix), then stop."""
    st.error(error_text(exc), icon=":material/error:")
    st.stop()


def context() -> AppContext:
    return st.session_state["rag_app"]


def t(key: str, /, **values) -> str:
    """This session's text for a catalogue key (`rag.web.i18n`), its values shown as text: a path, a heading, an
    error that quotes a note are never read as Markdown (`rag.web.untrusted`). A count (an int) stays a number, for
    the words that follow it ("1 note", "5 заметок")."""
    return i18n.text(language(), key, **{k: v if _is_count(v) else untrusted.text(v) for k, v in values.items()})


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def language() -> str:
    """The session's language ("en" or "ru"), chosen when the app opened the index (`open_context`)."""
    return st.session_state.get("rag_language", "en")


def why(bm25_rank: int | None, dense_rank: int | None, linked_from: str | None = None) -> str:
    """Why a passage was found, in the session's language ("keyword #2 · meaning #1", "linked from Garden.md")."""
    return why_found(bm25_rank, dense_rank, linked_from=linked_from, names=i18n.labels(language(), "why"))


def time_chip(scope, *, key: str) -> bool:
    """The time a search kept to, as a line with an "All dates" button when the question's words named it; True when
    that button was clicked (search again without reading the time)."""
    lang = language()
    if not scope.ranged:
        line, icon = t("time.newest", words=scope.words), ":material/history:"
    elif not scope.applied:
        st.info(t("time.none", range=scope.label(lang), words=scope.words), icon=":material/event_busy:")
        return False
    else:
        message = "time.searching" if scope.words else "time.searching.filter"
        line, icon = t(message, range=scope.label(lang), words=scope.words), ":material/calendar_month:"
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.caption(f"{icon} {line}")
    return bool(scope.words) and right.button(t("time.remove"), key=key, icon=":material/close:", help=t("time.remove.help", words=scope.words))


def lines_label(where, start: int, end: int) -> str:
    """ "lines 12–18", or for a PDF's passage (`where`: its rag/notes/pdf.py Place) "p. 3, lines 12–18"."""
    if where is None:
        return t("lines", start=start, end=end)
    if where.end_page != where.page:
        return t("page_span", page=where.page, start=where.line, end_page=where.end_page, end=where.end_line)
    return t("page_lines", page=where.page, start=where.line, end=where.end_line)


def titles(ctx: AppContext) -> dict[str, str]:
    """Each note's title as a person reads it: a wikilink in it shows as its alias or the note's name."""
    return {path: wikilinks.readable(title) for path, title in ctx.knowledge.titles().items()}


def cached_note_vectors(ctx: AppContext) -> NoteVectors:
    """Note vectors, recomputed only when the index changed (shared and read-only)."""
    return ctx.knowledge.note_vectors()


def closeness_text(language: str, label: str, percentile: float | None) -> str:
    """ "very similar · closer than 98.7% of pairs" (the rank left out in a vault too small to rank against)."""
    words = i18n.text(language, f"closeness.{label}")
    if percentile is None:
        return words
    return i18n.text(language, "similar.closer_than", label=words, percent=i18n.percent(language, percentile / 100, places=1))


def localized_table(rows: list[dict], *, decimals: dict[str, int], percents: dict[str, int]):
    """Rows for `st.dataframe` whose numbers read the session's language's way ("0,941", "6 %") and still sort as
    numbers: a pandas Styler's display text (pandas is Streamlit's own dependency). A column's own `format` would
    not do: "percent" and "localized" follow the browser's locale, a printf format always writes a decimal point."""
    import pandas as pd

    lang = language()
    formats = {column: functools.partial(i18n.decimal, lang, places=places) for column, places in decimals.items()}
    formats |= {column: functools.partial(i18n.percent, lang, places=places) for column, places in percents.items()}
    table = pd.DataFrame(rows)
    return table.style.format({column: shown for column, shown in formats.items() if column in table.columns})


def notice(text: str) -> str:
    """A notice from the library in the session's language (its own wording when it is not one of the known ones)."""
    return messages.shown(language(), text)


def error_text(exc: Exception | str) -> str:
    """A library error in the app's words and the session's language: the fix is made in Settings, not with a flag."""
    return messages.shown(language(), exc)
