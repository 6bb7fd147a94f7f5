"""Similar notes: pick a note, see the notes nearest in meaning (mean of each note's chunk vectors) with scores."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from app_pages.common import t
from rag.errors import RagError
from rag.web.ui_render import obsidian_url


def main() -> None:
    ctx = common.context()
    st.title(t("similar.title"))
    vectors = common.cached_note_vectors(ctx)
    if len(vectors) < 2:
        st.info(t("similar.wait"), icon=":material/hourglass:")
        return
    titles = common.titles(ctx)
    paths = list(vectors.paths)
    wanted = st.session_state.pop("rag_similar_note", None)
    if wanted in paths:
        st.session_state["rag_similar_pick"] = wanted
    note = st.selectbox(t("similar.note"), paths, key="rag_similar_pick", format_func=lambda p: f"{titles.get(p, p)} — {p}")
    limit = st.slider(t("similar.how_many"), 3, 30, 8)
    try:
        neighbours = ctx.knowledge.similar(note, limit)
    except RagError as exc:
        common.fail(exc)
    st.link_button(t("similar.open"), obsidian_url(ctx.settings.vault, note), icon=":material/open_in_new:")
    language = common.language()
    names = {key: t(f"similar.col.{key}") for key in ("note", "path", "closeness", "score", "overlap", "open")}
    rows = [
        {
            names["note"]: titles.get(n.path, n.path),
            names["closeness"]: common.closeness_text(language, n.closeness, n.percentile),
            names["score"]: n.score,
            names["overlap"]: n.overlap,
            names["path"]: n.path,
            names["open"]: obsidian_url(ctx.settings.vault, n.path),
        }
        for n in neighbours
    ]
    st.dataframe(
        common.localized_table(rows, decimals={names["score"]: 3}, percents={names["overlap"]: 0}),  # 0,941 in Russian
        hide_index=True,
        width="stretch",
        column_config={names["open"]: st.column_config.LinkColumn(display_text=t("obsidian.short"))},
    )
    st.caption(t("similar.caption"))


main()
