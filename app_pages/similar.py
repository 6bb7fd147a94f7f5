"""Similar notes: pick a note, see the notes nearest in meaning (mean of each note's chunk vectors) with scores."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from app_pages.common import t
from rag.errors import RagError
from rag.web import table_fit
from rag.web.ui_render import obsidian_url

# px per column, in the order shown: together the width of the page's column (704 px), so nothing scrolls out of sight
WIDTHS = {"note": 118, "path": 188, "closeness": 132, "score": 82, "overlap": 98, "open": 82}


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
    names = {key: t(f"similar.col.{key}") for key in WIDTHS}
    rows = [
        {
            names["note"]: titles.get(n.path, n.path),
            names["path"]: f"{n.path} · {t('page_short', page=n.page)}" if n.page else n.path,
            names["closeness"]: common.closeness_text(language, n.closeness, n.percentile),
            names["score"]: n.score,
            names["overlap"]: n.overlap,
            names["open"]: obsidian_url(ctx.settings.vault, n.path, n.page),
        }
        for n in neighbours
    ]
    # Fixed widths that fit the page, and rows tall enough to wrap the longest title, path and label whole: the grid
    # cuts what does not fit, and a path cut short names no note.
    row = table_fit.row_px([(r[names[key]], WIDTHS[key]) for r in rows for key in ("note", "path", "closeness")])
    st.dataframe(
        common.localized_table(rows, decimals={names["score"]: 3}, percents={names["overlap"]: 0}),  # 0,941 in Russian
        hide_index=True,
        width="stretch",
        height=table_fit.table_px(len(rows), row),
        row_height=row,
        column_config={  # widths only for the numbers: the Styler writes them the interface's way (0,941 in Russian)
            names["note"]: st.column_config.TextColumn(width=WIDTHS["note"]),
            names["path"]: st.column_config.TextColumn(width=WIDTHS["path"]),
            names["closeness"]: st.column_config.TextColumn(width=WIDTHS["closeness"]),
            names["score"]: st.column_config.Column(width=WIDTHS["score"]),
            names["overlap"]: st.column_config.Column(width=WIDTHS["overlap"]),
            names["open"]: st.column_config.LinkColumn(display_text=t("obsidian.short"), width=WIDTHS["open"]),
        },
    )
    st.caption(t("similar.caption"))


if __name__ == "__main__":  # as Streamlit runs a page; a test imports WIDTHS without drawing it
    main()
