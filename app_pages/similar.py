"""Similar notes: pick a note, see the notes nearest in meaning (mean of each note's chunk vectors) with scores."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from rag.errors import RagError
from rag.web.ui_render import obsidian_url


def main() -> None:
    ctx = common.context()
    st.title("Similar notes")
    vectors = common.cached_note_vectors(ctx)
    if len(vectors) < 2:
        st.info("Similar notes need at least two notes with vectors. Wait for indexing to finish (see the Index page).", icon=":material/hourglass:")
        return
    titles = common.titles(ctx)
    paths = list(vectors.paths)
    wanted = st.session_state.pop("rag_similar_note", None)
    if wanted in paths:
        st.session_state["rag_similar_pick"] = wanted
    note = st.selectbox("Note", paths, key="rag_similar_pick", format_func=lambda p: f"{titles.get(p, p)} — {p}")
    limit = st.slider("How many", 3, 30, 8)
    try:
        neighbours = ctx.knowledge.similar(note, limit)
    except RagError as exc:
        common.fail(exc)
    st.link_button("Open this note in Obsidian", obsidian_url(ctx.settings.vault, note), icon=":material/open_in_new:")
    rows = [
        {"Note": titles.get(n.path, n.path), "Path": n.path, "Similarity": n.score, "Open": obsidian_url(ctx.settings.vault, n.path)}
        for n in neighbours
    ]
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        column_config={
            "Similarity": st.column_config.ProgressColumn(min_value=0.0, max_value=1.0, format="%.3f"),
            "Open": st.column_config.LinkColumn(display_text="Obsidian"),
        },
    )
    st.caption("Similarity is the cosine between note vectors (the mean of each note's passage vectors); 1.0 = same meaning.")


main()
