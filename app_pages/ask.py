"""Ask: a chat over the vault. Answers stream, then are drawn once as Markdown with clickable citations; each answer
has its sources panel (why each was found), its mode badge, and says what was removed or left out."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app_pages import common
from rag.answer.ask import CHECKING, GENERATING, Answer, Turn
from rag.errors import RagError
from rag.search.presentation import why_found
from rag.web.ui_render import answer_markdown, claim_notes, escape_markdown
from rag.web.ui_stream import StreamedCall

DEMO_QUESTIONS = (
    "What hydration do I use for my sourdough?",
    "Когда я ездил на Байкал и сколько это стоило?",
    "Which internet provider did we choose for the new flat, and how fast is it?",
)


@dataclass(frozen=True)
class ChatTurn:
    answer: Answer
    model: str | None  # the chat model's name, None for extractive answers
    first_token: float | None  # seconds from the question to the first streamed text
    total: float | None  # seconds to the final answer


def main() -> None:
    ctx = common.context()
    turns: list[ChatTurn] = st.session_state.setdefault("rag_turns", [])
    new_chat = _header(ctx, turns)
    hints = st.empty()
    if ctx.is_demo and not turns:
        _demo_hints(hints.container())
    clicked = common.citation_clicks()
    for i, turn in enumerate(turns):
        _show_turn(ctx, i, turn)
    if clicked and clicked[0] < len(turns):
        _open_citation(ctx, turns[clicked[0]].answer, clicked[1])
    question = (st.chat_input("Ask your notes — in English or Russian") or "").strip() or st.session_state.pop("rag_pending_question", None)
    if question:
        hints.empty()
        shown = bool(turns)
        _answer(ctx, question, turns)
        if not shown:  # the first answer: offer a new chat at once, not only after the next question
            _new_chat_button(new_chat, turns)


def _header(ctx: common.AppContext, turns: list[ChatTurn]):
    """The title, the "New chat" slot (returned, so the first answer can fill it), mode and indexing state."""
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    left.title("Ask your vault")
    slot = right.empty()
    _new_chat_button(slot, turns)
    mode = f"Answers by {ctx.settings.chat_model}" if ctx.settings.chat_model else "Extractive answers (quotes from your notes; no chat model set)"
    st.caption(f"{mode} · vault `{ctx.settings.vault.name}`")
    state = ctx.knowledge.progress()
    status = ctx.knowledge.status()
    if state.running and (status["vectors_missing"] or not status["notes"]):
        st.info("Indexing is running: keyword search works on what is indexed now, meaning search as vectors arrive.", icon=":material/sync:")
    elif not status["notes"]:
        st.warning(
            f"There are no Markdown notes in {ctx.settings.vault}. Add notes, or choose another vault folder in Settings.",
            icon=":material/folder_off:",
        )
    return slot


def _new_chat_button(slot, turns: list[ChatTurn]) -> None:
    if turns and slot.button("New chat", icon=":material/add_comment:", key="rag_new_chat"):
        turns.clear()
        st.rerun()


def _demo_hints(box) -> None:
    box.info("This is the demo vault. Set your own vault folder in the sidebar's Settings. Try one of these:", icon=":material/lightbulb:")
    for q in DEMO_QUESTIONS:
        if box.button(q, key=f"demo-{q}", icon=":material/chat_bubble:"):
            st.session_state["rag_pending_question"] = q
            st.rerun()


def _answer(ctx: common.AppContext, question: str, turns: list[ChatTurn]) -> None:
    with st.chat_message("user"):
        st.markdown(escape_markdown(question))
    with st.chat_message("assistant"):
        history = [Turn(t.answer.question, t.answer.text) for t in turns]
        slot = st.empty()
        with slot.container():
            waiting = st.empty()
            waiting.caption(":material/search: Searching your notes…")
            call = StreamedCall(
                lambda emit, stage: ctx.knowledge.ask(question, turns=history, on_text=emit, on_stage=stage),
                on_stage=lambda name: _show_stage(waiting, name),
            )
            st.write_stream(_after_first(call, waiting))
        try:
            answer = call.result()
        except RagError as exc:
            slot.empty()
            common.fail(exc)
        turn = ChatTurn(answer, ctx.settings.chat_model if answer.mode == "llm" else None, call.first_piece, call.finished)
        turns.append(turn)
        with slot.container():
            _show_answer(ctx, len(turns) - 1, turn)


_STAGES = {
    GENERATING: ":material/hourglass_top: Found passages in your notes; waiting for the model…",
    CHECKING: ":material/fact_check: Checking every sentence against your notes…",
}


def _show_stage(waiting, name: str) -> None:
    if name in _STAGES:
        waiting.caption(_STAGES[name])


def _after_first(pieces, waiting):
    """The pieces, clearing the "searching" line when the first one arrives."""
    for i, piece in enumerate(pieces):
        if i == 0:
            waiting.empty()
        yield piece


def _show_turn(ctx: common.AppContext, i: int, turn: ChatTurn) -> None:
    with st.chat_message("user"):
        st.markdown(escape_markdown(turn.answer.question))
    with st.chat_message("assistant"):
        _show_answer(ctx, i, turn)


def _show_answer(ctx: common.AppContext, i: int, turn: ChatTurn) -> None:
    a = turn.answer
    if a.mode == "extractive":
        st.badge("Extractive", icon=":material/format_quote:", color="gray")
    else:
        st.badge(f"Model · {turn.model or 'chat'}", icon=":material/smart_toy:", color="blue")
    if a.not_found and a.mode == "llm" and a.claims:
        st.warning("**Not found in your notes.** No sentence of the model's answer below is supported by them.", icon=":material/search_off:")
        st.markdown(answer_markdown(a.text, a.context.ids, turn=i, claims=a.claims))
    elif a.not_found:
        st.warning(
            ("**Not found in your notes.** " if a.mode != "extractive" and a.context.sources else "") + escape_markdown(a.text),
            icon=":material/search_off:",
        )
        st.caption("Try other words, or look on the Search page.")
    else:
        st.markdown(answer_markdown(a.text, a.context.ids, turn=i, claims=a.claims))
    _claim_list(a)
    if a.notice:
        st.info(a.notice, icon=":material/info:")
    if a.truncated:
        st.caption(":orange[:material/content_cut: The model stopped at its length limit (max_answer_tokens); the answer may be cut short.]")
    if a.removed_citations:
        st.caption(f":orange[:material/link_off: Removed citations that matched no source: {', '.join(a.removed_citations)}]")
    if a.context.dropped:
        st.caption(f":orange[:material/history: Left out {len(a.context.dropped)} passage(s) whose note changed since indexing — see Sources.]")
    _sources_panel(ctx, i, a)
    if turn.total is not None:
        first = f"first words after {turn.first_token:.1f} s · " if turn.first_token is not None else ""
        st.caption(f"{first}answer in {turn.total:.1f} s")


_NOTE_LABELS = {
    "unsupported": ":red[:material/report: **Not in your notes**]",
    "misattributed": ":orange[:material/swap_horiz: **Re-cited**]",
    "uncited": ":blue[:material/add_link: **Citation added**]",
}


def _claim_list(a: Answer) -> None:
    """What the check changed or could not find, each with its reason ("S1 says 136, not 56")."""
    notes = claim_notes(a.claims)
    if not notes or a.mode != "llm":
        return
    counts = a.grounding()
    st.caption(
        f"Checked against your notes: {counts['supported'] + counts['misattributed'] + counts['uncited']} of {len(a.claims)} sentences supported."
    )
    for status, text, reason in notes:
        st.markdown(f"- {_NOTE_LABELS[status]} · {escape_markdown(text)} · :gray[{escape_markdown(reason)}]")


def _sources_panel(ctx: common.AppContext, i: int, a: Answer) -> None:
    supporting = {s for c in a.claims if c.status != "unsupported" for s in c.sources}
    cited = {c.id for c in a.citations}
    label = f"Sources ({len(a.context.sources)})" if a.context.sources else "Sources (none matched)"
    with st.expander(label, icon=":material/library_books:"):
        for s in a.context.sources:
            text, button = st.columns([5, 1], vertical_alignment="center")
            mark = "**supports the answer**" if s.id in supporting else "cited, but does not say it" if s.id in cited else "not cited"
            text.markdown(
                f"**[{s.id}]** {escape_markdown(s.path)} › {escape_markdown(s.heading)} · lines {s.start_line}–{s.end_line}  \n"
                f":gray[found by {why_found(s.bm25_rank, s.dense_rank)} · {mark}]"
            )
            if button.button("Show", key=f"src-{i}-{s.id}", help="Show the passage"):
                _open_citation(ctx, a, s.id)
        for d in a.context.dropped:
            st.markdown(f":orange[Left out] {escape_markdown(d.path)} · lines {d.start_line}–{d.end_line}: {escape_markdown(d.reason)}")


def _open_citation(ctx: common.AppContext, a: Answer, source_id: str) -> None:
    s = a.context.get(source_id)
    if s is None:
        return
    quoted = [q.line for q in a.quotes if q.source_id == source_id]
    common.passage_dialog(
        ctx.settings.vault,
        outside=ctx.settings.outside_folders,
        source_id=s.id,
        path=s.path,
        heading=s.heading,
        start=s.start_line,
        end=s.end_line,
        text=s.text,
        why=why_found(s.bm25_rank, s.dense_rank),
        quoted=quoted,
    )


main()
