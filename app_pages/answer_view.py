"""The Ask page's drawing of a finished answer: its mode badge and the time it searched, the answer with clickable
citations, what the check changed or could not find and every claim's evidence, the sources panel (why each was
found) and the cited passage's dialog. Apart from the page's script, which holds the conversation and streams the
answer as it comes; this draws one answer, again on every rerun.
"""

from __future__ import annotations

import streamlit as st

from app_pages import common
from app_pages.common import t
from app_pages.passage_dialog import passage_dialog
from rag.surface import SUPPORTING, Answer, day_label, shown_name
from rag.web import answer_words, i18n, untrusted
from rag.web.conversations import ChatTurn
from rag.web.ui_render import ANSWER_CSS, answer_html, claim_notes


def show_turn(ctx: common.AppContext, i: int, turn: ChatTurn) -> None:
    with st.chat_message("user"):
        st.markdown(untrusted.text(turn.answer.question))
    with st.chat_message("assistant"):
        show_answer(ctx, i, turn)


def show_answer(ctx: common.AppContext, i: int, turn: ChatTurn) -> None:
    a = turn.answer
    badges = i18n.labels(common.language(), "badge")
    text, claims = answer_words.in_language(a.text, a.claims, common.language())  # the program's lines in the app's language
    if a.mode == "extractive":
        st.badge(t("ask.badge.extractive"), icon=":material/format_quote:", color="gray")
    else:
        st.badge(t("ask.badge.model", model=shown_name(turn.model or "chat")), icon=":material/smart_toy:", color="blue")
    if a.time is not None and common.time_chip(a.time, key=f"time-{i}"):  # the days searched, before the answer from them
        st.session_state["rag_pending_question"] = st.session_state["rag_ask_all_dates"] = a.question
        st.rerun()
    if a.not_found and a.mode == "llm" and a.claims:
        if any(c.status == "unconfirmed" for c in a.claims):  # the sources are in another language: read them
            st.warning(t("ask.unconfirmed"), icon=":material/translate:")
        else:
            st.warning(t("ask.not_found.model"), icon=":material/search_off:")
        st.html(ANSWER_CSS + answer_html(text, a.context.ids, turn=i, vault=ctx.settings.vault, claims=claims, badges=badges))
    elif a.not_found:
        lead = t("ask.not_found") + " " if a.mode != "extractive" and a.context.sources else ""
        st.warning(lead + untrusted.words(text), icon=":material/search_off:")
        st.caption(t("ask.try_other"))
    else:
        st.html(ANSWER_CSS + answer_html(text, a.context.ids, turn=i, vault=ctx.settings.vault, claims=claims, badges=badges))
    _claim_list(a)
    if a.notice:
        st.info(common.notice(a.notice), icon=":material/info:")
    if a.translation:
        st.caption(":material/translate: " + t("ask.translated", query=a.translation))
    if a.truncated:
        st.caption(":orange[:material/content_cut: " + t("ask.truncated") + "]")
    if a.context.left_out and a.window:
        kept = len(a.context.sources)
        st.caption(":orange[:material/width: " + t("ask.window", window=a.window, kept=kept, found=kept + a.context.left_out) + "]")
    if a.removed_citations:
        st.caption(":orange[:material/link_off: " + t("ask.removed", ids=", ".join(a.removed_citations)) + "]")
    if a.context.dropped:
        st.caption(":orange[:material/history: " + t("ask.dropped", n=len(a.context.dropped)) + "]")
    _sources_panel(ctx, i, a)
    if turn.total is not None:
        seconds = lambda value: i18n.decimal(common.language(), value)  # noqa: E731
        first = t("ask.first_words", seconds=seconds(turn.first_token)) if turn.first_token is not None else ""
        st.caption(first + t("ask.answer_in", seconds=seconds(turn.total)))


_NOTE_LABELS = {
    "unsupported": ":red[:material/report: **{}**]",
    "unconfirmed": ":orange[:material/translate: **{}**]",
    "misattributed": ":orange[:material/swap_horiz: **{}**]",
    "uncited": ":blue[:material/add_link: **{}**]",
}


def _claim_list(a: Answer) -> None:
    """What the check changed or could not find, each with its reason ("S1 says 136, not 56"); then, folded, every
    claim with the lines that state it."""
    if a.mode != "llm" or not a.claims:
        return
    notes = claim_notes(a.claims, t)
    counts = a.grounding()
    supported = counts["supported"] + counts["misattributed"] + counts["uncited"]
    st.caption(t("ask.checked", supported=supported, total=len(a.claims)))
    for status, text, reason in notes:
        label = _NOTE_LABELS[status].format(t(f"claim.{status}"))
        st.markdown(f"- {label} · {untrusted.words(text)} · :gray[{untrusted.text(reason)}]")
    with st.expander(t("claim.evidence"), icon=":material/fact_check:"):
        for c in a.claims:
            _claim_evidence(c, a.context)


def _claim_evidence(c, context) -> None:
    """One claim, its status, and the evidence lines quoted (the claim's words they lack marked); a PDF's lines by
    their page."""
    label = (_NOTE_LABELS.get(c.status) or ":green[:material/check: **{}**]").format(t(f"claim.{c.status}"))
    st.markdown(f"{label} · {untrusted.words(c.text)}")
    for e in c.evidence:
        source = context.get(e.source)
        page = source.place_of(e.start_line, e.end_line) if source is not None else None
        if page is not None:
            where = f"{e.source}, {common.lines_label(page, e.start_line, e.end_line)}"
        else:
            key = "claim.line" if e.start_line == e.end_line else "claim.lines"
            where = t(key, source=e.source, start=e.start_line, end=e.end_line)
        lines = "  \n> ".join(untrusted.words(line) for line in e.text.split("\n"))  # a table's rows one to a line
        st.markdown(f"> :gray[{where}] {lines}")
    if c.unmatched and c.status in SUPPORTING:
        st.caption(":orange[" + t("claim.unmatched", words=", ".join(c.unmatched)) + "]")
    if not c.evidence:
        st.caption(t("claim.no_evidence"))


def _sources_panel(ctx: common.AppContext, i: int, a: Answer) -> None:
    """The sources the answer quotes or cites, each with why it was found; the rest of what was searched folded apart
    with its score, so the answer does not seem to rest on passages it never used."""
    supporting = {s for c in a.claims if c.status in SUPPORTING for s in c.sources}
    shown = [s for s in a.context.sources if s.id in a.used]
    rest = [s for s in a.context.sources if s.id not in a.used]
    if shown or not rest:
        label = t("sources", n=len(shown)) if a.context.sources else t("sources.none")
        with st.expander(label, icon=":material/library_books:"):
            for s in shown:
                mark = t("sources.supports") if s.id in supporting else t("sources.cited_only")
                _source_line(ctx, i, a, s, mark)
            _dropped(a)
    if rest:
        with st.expander(t("sources.also", n=len(rest)), icon=":material/manage_search:"):
            for s in rest:
                _source_line(ctx, i, a, s, t("sources.score", score=i18n.decimal(common.language(), s.score, 2)))
            if not shown:
                _dropped(a)


def _dropped(a: Answer) -> None:
    for d in a.context.dropped:
        lines = t("lines", start=d.start_line, end=d.end_line)
        st.markdown(f":orange[{t('sources.left_out')}] {untrusted.text(d.path)} · {lines}: {untrusted.text(d.reason)}")


def _source_line(ctx: common.AppContext, i: int, a: Answer, s, mark: str) -> None:
    text, button = st.columns([5, 1], vertical_alignment="center")
    lines = common.lines_label(s.place, s.start_line, s.end_line)
    if s.dated:  # the day the note says the passage is from, beside its citation
        lines += " · " + day_label(s.dated, common.language())
    text.markdown(
        f"**[{s.id}]** {untrusted.text(s.path)} › {untrusted.words(s.heading)} · {lines}  \n"
        f":gray[{t('sources.found_by', why=common.why(s.bm25_rank, s.dense_rank, s.linked_from))} · {mark}]"
    )
    if button.button(t("show"), key=f"src-{i}-{s.id}", help=t("show.help")):
        open_citation(ctx, a, s.id)


def open_citation(ctx: common.AppContext, a: Answer, source_id: str) -> None:
    s = a.context.get(source_id)
    if s is None:
        return
    quoted = [q.answering_line or q.line for q in a.quotes if q.source_id == source_id]  # the line that answers, marked
    passage_dialog(
        ctx.settings.vault,
        outside=ctx.settings.outside_folders,
        source_id=s.id,
        path=s.path,
        heading=s.heading,
        start=s.start_line,
        end=s.end_line,
        text=s.text,
        why=common.why(s.bm25_rank, s.dense_rank, s.linked_from),
        quoted=quoted,
    )
