"""The cited passage in a dialog: its note's lines with the quoted ones marked (or a PDF's page lines and the page
as drawn), a warning when the note changed since the answer, and a link to open it in Obsidian.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_pages.common import lines_label, t
from rag.errors import NoteError
from rag.surface import pdf_page_image
from rag.web import untrusted
from rag.web.ui_render import PASSAGE_CSS, obsidian_url, passage, passage_html


@st.cache_data(max_entries=8, show_spinner=False)
def _page_image(vault: str, path: str, page: int, outside: tuple[str, ...]):
    """A PDF's page as drawn (a few of them kept: the dialog is drawn again on every rerun)."""
    return pdf_page_image(Path(vault), path, page, outside=outside)


def passage_dialog(vault, **passage_args) -> None:
    """The cited passage in a dialog (its title in the session's language)."""
    st.dialog(t("passage.title"), width="large")(_passage_body)(vault, **passage_args)


def _passage_body(
    vault, *, source_id: str, path: str, heading: str, start: int, end: int, text: str, why: str, quoted=(), outside: tuple[str, ...] = ()
) -> None:
    st.markdown(f"**{untrusted.text(source_id)}** · {untrusted.text(path)}" if source_id else untrusted.text(path))
    shown = passage(vault, path, start, end, text, quoted_lines=quoted, outside=outside)
    if shown.place is not None:
        st.caption(t("passage.where_page", heading=heading, lines=lines_label(shown.place, start, end), why=why))
    else:
        st.caption(t("passage.where", heading=heading, start=start, end=end, why=why))
    if shown.changed:
        st.warning(t("passage.changed"), icon=":material/history:")
    st.html(PASSAGE_CSS + passage_html(shown))
    if shown.place is not None:
        with st.expander(t("passage.page_image", page=shown.place.page), icon=":material/picture_as_pdf:"):
            try:
                st.image(_page_image(str(vault), path, shown.place.page, tuple(outside)), width="stretch")
            except NoteError as exc:
                st.caption(untrusted.text(str(exc)))
    page = shown.place.page if shown.place else None
    st.link_button(t("obsidian.open"), obsidian_url(vault, path, page), icon=":material/open_in_new:")
