"""Duplicates: near-duplicate note pairs side by side. Only shown; nothing is ever merged or deleted."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from rag.errors import NoteError
from rag.index.vault import read_note
from rag.search.similar import DUPLICATE_THRESHOLD
from rag.web.ui_render import obsidian_url

SHOWN = 25  # pairs drawn at once
PREVIEW_CHARS = 1500


def main() -> None:
    ctx = common.context()
    st.title("Duplicates")
    st.caption("Pairs of notes that say nearly the same thing. Nothing is merged or deleted here — open both in Obsidian and decide.")
    threshold = st.slider("Similarity threshold (cosine)", 0.80, 1.0, DUPLICATE_THRESHOLD, 0.005, format="%.3f")
    vectors = common.cached_note_vectors(ctx)
    pairs = ctx.knowledge.duplicates(threshold)
    if not pairs:
        st.success(f"No near-duplicate notes at similarity ≥ {threshold:.3f} among {len(vectors)} notes.", icon=":material/check_circle:")
        return
    st.write(f"{len(pairs)} pair(s) at similarity ≥ {threshold:.3f}" + (f"; the {SHOWN} closest are shown." if len(pairs) > SHOWN else "."))
    titles = common.titles(ctx)
    for n, pair in enumerate(pairs[:SHOWN]):
        with st.container(border=True):
            st.markdown(f"**Similarity {pair.score:.4f}**")
            for column, path in zip(st.columns(2), (pair.a, pair.b)):
                with column:
                    _side(ctx, n, path, titles.get(path, path))


def _side(ctx: common.AppContext, n: int, path: str, title: str) -> None:
    st.markdown(f"**{title}**")
    st.caption(path)
    try:
        text = read_note(ctx.settings.vault, path).text
    except NoteError as exc:
        st.warning(str(exc))
        return
    st.code(text[:PREVIEW_CHARS] + ("\n…" if len(text) > PREVIEW_CHARS else ""), language="markdown", wrap_lines=True, height=260)
    st.link_button("Open in Obsidian", obsidian_url(ctx.settings.vault, path), icon=":material/open_in_new:")


main()
