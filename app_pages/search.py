"""Search: hybrid search grouped by note, each note with its best passages, line ranges and days; filters by folder,
tag, project, tier and dates. A time the query names ("last week") narrows it and is shown, removable in a click."""

from __future__ import annotations

import streamlit as st

from app_pages import common
from app_pages.common import t
from app_pages.passage_dialog import passage_dialog
from rag.errors import RagError
from rag.surface import NoteFilters as Filters
from rag.surface import NoteMatch, day_label, heading_without_title, hit_day, pdf_place, snippet, stemming
from rag.web import i18n, untrusted
from rag.web.ui_render import highlighted, obsidian_url


def main() -> None:
    ctx = common.context()
    st.title(t("search.title"))
    query = st.text_input(t("search.input"), key="rag_search_query", placeholder=t("search.placeholder"))
    filters = _filters(ctx)
    if not query.strip():
        st.caption(t("search.empty_query") if query else t("search.hint"))
        return
    everything = st.session_state.get("rag_search_everything", False)
    read_time = st.session_state.get("rag_search_all_dates") != query  # "All dates" was clicked for this query
    try:
        results = ctx.knowledge.search_notes(query, filters, everything=everything, read_time=read_time)
    except RagError as exc:
        common.fail(exc)
    if results.notice:
        st.info(common.notice(results.notice), icon=":material/info:")
    if results.time is not None and common.time_chip(results.time, key="rag_search_time"):
        st.session_state["rag_search_all_dates"] = query
        st.rerun()
    if not results.notes:
        st.warning(t("search.none.filtered") if filters.active else t("search.none"), icon=":material/search_off:")
    else:
        channels = " + ".join(t(f"channel.{c}") for c in results.channels)
        st.caption(t("search.summary", n=len(results.notes), channels=channels))
        words = query.replace(results.time.words, " ") if results.time and results.time.applied and results.time.words else query
        for n, match in enumerate(results.notes):
            _note(ctx, n, match, words)  # the time's words are not what the passages are marked for
    if results.hidden or everything:
        # Results stop where matches stop standing out (bench/search_cutoff.py); the weaker ones are a click away.
        st.toggle(t("search.weaker", n=results.hidden) if results.hidden else t("search.weaker.shown"), key="rag_search_everything")


def _filters(ctx: common.AppContext) -> Filters:
    choices = ctx.knowledge.filter_choices()
    with st.expander(t("filters"), icon=":material/filter_list:"):
        left, right = st.columns(2)
        folders = left.multiselect(t("filters.folder"), choices.folders, key="rag_filter_folder", placeholder=_any("folder", choices.folders))
        tags = right.multiselect(t("filters.tag"), choices.tags, key="rag_filter_tag", placeholder=_any("tag", choices.tags))
        projects = left.multiselect(t("filters.project"), choices.projects, key="rag_filter_project", placeholder=_any("project", choices.projects))
        tiers = right.multiselect(
            t("filters.tier"), choices.tiers, key="rag_filter_tier", format_func=_tier_name, placeholder=_any("tier", choices.tiers)
        )
        date_format = i18n.DATE_FORMATS[common.language()]  # the order the language writes a date in
        days = left.date_input(t("filters.dates"), value=(), key="rag_filter_dates", help=t("filters.dates.help"), format=date_format)
    after, before = (tuple(days) + (None, None))[:2] if isinstance(days, (tuple, list)) else (days, days)
    return Filters(tuple(folders), tuple(tags), tuple(projects), tuple(tiers), after=after, before=before or after)


def _any(name: str, options) -> str:
    """What an empty filter says: "Any folder" (or that the notes have none to choose)."""
    return t(f"filters.{name}.any") if options else t("filters.empty")


def _tier_name(tier: int) -> str:
    return t(f"tier.{tier}") if tier in (1, 2) else t("tier.other", tier=tier)


def _note(ctx: common.AppContext, n: int, match: NoteMatch, query: str) -> None:
    info = match.info
    with st.container(border=True):
        head, actions = st.columns([4, 1], vertical_alignment="top")
        head.markdown(f"**{untrusted.words(info.title or info.path)}**  \n:gray[{untrusted.text(info.path)}]")
        project = [t("search.project", name=info.project)] if info.project else []
        meta = [f"#{tag}" for tag in info.tags] + project + ([t("search.curated")] if info.tier == 1 else [])
        if meta:
            head.caption(untrusted.text(" · ".join(meta)))
        actions.link_button(t("obsidian.short"), obsidian_url(ctx.settings.vault, info.path), icon=":material/open_in_new:")
        if actions.button(t("search.similar"), key=f"sim-{n}", icon=":material/hub:"):
            st.session_state["rag_similar_note"] = info.path
            st.switch_page("app_pages/similar.py")
        for h, hit in enumerate(match.hits):
            _passage(ctx, n, h, hit, info.title, query)


def _passage(ctx: common.AppContext, n: int, h: int, hit, title: str | None, query: str) -> None:
    c = hit.chunk
    why = common.why(hit.bm25_rank, hit.dense_rank, hit.linked_from)
    text, button = st.columns([5, 1], vertical_alignment="center")
    place = heading_without_title(c.heading_path, title, c.path)
    shown, spans = snippet(c.text, stemming.query_terms(query))
    where = f"{untrusted.words(place)} · " if place else ""
    day = hit_day(hit)
    when = f" · {day_label(day, common.language())}" if day else ""
    page = pdf_place(ctx.settings.vault, c.path, c.start_line, c.end_line, outside=ctx.settings.outside_folders)
    lines = common.lines_label(page, c.start_line, c.end_line)
    text.markdown(f":gray[{where}{lines}{when} · {why}]  \n{highlighted(shown, spans)}")
    if button.button(t("show"), key=f"hit-{n}-{h}", help=t("show.help")):
        passage_dialog(
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
