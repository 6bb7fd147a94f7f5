"""Search: hybrid search grouped by note, each note with its best passages and line ranges; filters by folder,
tag, project and tier."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from rag.errors import RagError
from rag.index import stemming
from rag.search.by_note import Filters, NoteMatch
from rag.search.presentation import heading_without_title, snippet, why_found
from rag.web.ui_render import escape_markdown, highlighted, obsidian_url

CHANNEL_NAMES = {"bm25": "keyword", "dense": "meaning"}
TIER_NAMES = {1: "Curated (profile, memory, overviews)", 2: "Other notes"}


def main() -> None:
    ctx = common.context()
    st.title("Search")
    query = st.text_input("Search your notes", key="rag_search_query", placeholder="sqlite wal · когда я ездил на Байкал")
    filters = _filters(ctx)
    if not query.strip():
        st.caption("Keyword and meaning search together; results are grouped by note.")
        return
    try:
        results = ctx.knowledge.search_notes(query, filters)
    except RagError as exc:
        common.fail(exc)
    if results.notice:
        st.info(results.notice, icon=":material/info:")
    if not results.notes:
        st.warning("No matches in your notes" + (" with these filters." if filters.active else "."), icon=":material/search_off:")
        return
    channels = " + ".join(CHANNEL_NAMES.get(c, c) for c in results.channels)
    st.caption(f"{len(results.notes)} notes, best first · found by {channels}")
    for n, match in enumerate(results.notes):
        _note(ctx, n, match, query)


def _filters(ctx: common.AppContext) -> Filters:
    choices = ctx.knowledge.filter_choices()
    with st.expander("Filters", icon=":material/filter_list:"):
        left, right = st.columns(2)
        folders = left.multiselect("Folder", choices.folders, key="rag_filter_folder")
        tags = right.multiselect("Tag", choices.tags, key="rag_filter_tag")
        projects = left.multiselect("Project", choices.projects, key="rag_filter_project")
        tiers = right.multiselect("Tier", choices.tiers, key="rag_filter_tier", format_func=lambda t: TIER_NAMES.get(t, f"Tier {t}"))
    return Filters(tuple(folders), tuple(tags), tuple(projects), tuple(tiers))


def _note(ctx: common.AppContext, n: int, match: NoteMatch, query: str) -> None:
    info = match.info
    with st.container(border=True):
        head, actions = st.columns([4, 1], vertical_alignment="top")
        head.markdown(f"**{escape_markdown(info.title or info.path)}**  \n:gray[{escape_markdown(info.path)}]")
        meta = [f"#{t}" for t in info.tags] + ([f"project {info.project}"] if info.project else []) + (["curated"] if info.tier == 1 else [])
        if meta:
            head.caption(escape_markdown(" · ".join(meta)))
        actions.link_button("Obsidian", obsidian_url(ctx.settings.vault, info.path), icon=":material/open_in_new:")
        if actions.button("Similar", key=f"sim-{n}", icon=":material/hub:"):
            st.session_state["rag_similar_note"] = info.path
            st.switch_page("app_pages/similar.py")
        for h, hit in enumerate(match.hits):
            _passage(ctx, n, h, hit, info.title, query)


def _passage(ctx: common.AppContext, n: int, h: int, hit, title: str | None, query: str) -> None:
    c = hit.chunk
    why = why_found(hit.bm25_rank, hit.dense_rank)
    text, button = st.columns([5, 1], vertical_alignment="center")
    place = heading_without_title(c.heading_path, title, c.path)
    shown, spans = snippet(c.text, stemming.query_terms(query))
    where = f"{escape_markdown(place)} · " if place else ""
    text.markdown(f":gray[{where}lines {c.start_line}–{c.end_line} · {why}]  \n{highlighted(shown, spans)}")
    if button.button("Show", key=f"hit-{n}-{h}", help="Show the passage in its note"):
        common.passage_dialog(
            ctx.settings.vault,
            outside=ctx.settings.outside_folders,
            source_id="",
            path=c.path,
            heading=c.heading_path,
            start=c.start_line,
            end=c.end_line,
            text=c.text,
            why=why,
        )


main()
