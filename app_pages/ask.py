"""Ask: a chat over the vault. Answers stream, then are drawn once as Markdown with clickable citations; each answer
has its sources panel (why each was found), its mode badge, and says what was removed or left out."""

from __future__ import annotations

import threading
import time

import streamlit as st

from app_pages import answer_view, browser_scripts, common
from app_pages.common import t
from rag.errors import RagError
from rag.surface import CHECKING, GENERATING, ModelReading, Turn, shown_name
from rag.web import answer_words, i18n, untrusted
from rag.web.conversations import UNREADABLE, ChatTurn, Conversation, ConversationFile
from rag.web.examples import Note, examples, section_headings
from rag.web.ui_render import ANSWER_CSS, answer_html
from rag.web.ui_stream import StreamedCall

DEMO_QUESTIONS = ("ask.demo.1", "ask.demo.2", "ask.demo.3")
LISTED = 10  # saved conversations listed in the sidebar
NOTES_SCANNED = 1_000_000  # the note list the example questions are drawn from: all of it (they sort by time)


def main() -> None:
    ctx = common.context()
    saved = ConversationFile(ctx.settings.db_path, browser_scripts.browser_id())  # this browser's conversations only
    conversation = _conversation(saved)
    turns = conversation.turns
    _history(saved, conversation)
    new_chat = _header(ctx, turns)
    hints = st.empty()
    if ctx.is_demo and not turns:
        _demo_hints(hints.container())
    elif not turns:
        _vault_hints(ctx, hints.container())
    clicked = browser_scripts.citation_clicks()
    for i, turn in enumerate(turns):
        answer_view.show_turn(ctx, i, turn)
    if clicked and clicked[0] < len(turns):
        answer_view.open_citation(ctx, turns[clicked[0]].answer, clicked[1])
    question = (st.chat_input(t("ask.input")) or "").strip() or st.session_state.pop("rag_pending_question", None)
    if question:
        hints.empty()
        shown = bool(turns)
        _answer(ctx, question, turns)
        saved.save(conversation)
        st.query_params["chat"] = conversation.id  # a reload of the page reopens this conversation
        if not shown:  # the first answer: offer a new chat at once, not only after the next question
            _new_chat_button(new_chat, turns)


def _conversation(saved: ConversationFile) -> Conversation:
    """This session's conversation: the one it has, else the one named in the URL (a reload), else a new one."""
    current = st.session_state.get("rag_conversation")
    if current is None or current.id != st.query_params.get("chat", current.id):
        wanted = st.query_params.get("chat")
        try:
            current = saved.get(wanted) if wanted else None
        except UNREADABLE as exc:
            st.warning(t("history.unreadable", error=exc), icon=":material/warning:")
            current = None
        if current is None and wanted:  # gone, or another browser's: this one starts afresh
            st.query_params.pop("chat", None)
        current = current or Conversation()
        st.session_state["rag_conversation"] = current
    return current


def _history(saved: ConversationFile, current: Conversation) -> None:
    """This browser's saved conversations of this vault in the sidebar, newest first, each to reopen or delete."""
    try:
        conversations = saved.load()[:LISTED]
    except UNREADABLE as exc:
        st.sidebar.warning(t("history.unreadable", error=exc), icon=":material/warning:")
        return
    with st.sidebar.expander(t("history.title"), icon=":material/history:", expanded=bool(conversations)):
        if not conversations:
            st.caption(t("history.empty"))
        for c in conversations:
            title, delete = st.columns([5, 1], vertical_alignment="center")
            mark = " " + t("history.current") if c.id == current.id else ""
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.updated))
            if title.button(
                untrusted.text(c.title[:60]) + mark, key=f"conv-{c.id}", help=t("history.turns", n=len(c.turns), when=when), width="stretch"
            ):
                st.session_state["rag_conversation"] = c
                st.query_params["chat"] = c.id
                st.rerun()
            if delete.button("", key=f"conv-del-{c.id}", icon=":material/delete:", help=t("history.delete")):
                saved.delete(c.id)
                if c.id == current.id:
                    _start_new_chat()
                st.rerun()


def _start_new_chat() -> None:
    st.session_state["rag_conversation"] = Conversation()
    st.query_params.pop("chat", None)


def _header(ctx: common.AppContext, turns: list[ChatTurn]):
    """The title, the "New chat" slot (returned, so the first answer can fill it), mode and indexing state."""
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    left.title(t("ask.title"))
    slot = right.empty()
    _new_chat_button(slot, turns)
    model = ctx.settings.chat_model and shown_name(ctx.settings.chat_model)  # it may be a name a found server gave
    mode = t("ask.mode.model", model=model) if model else t("ask.mode.extractive")
    st.caption(f"{mode} · {t('ask.vault', name=ctx.settings.vault.name)}")
    state = ctx.knowledge.progress()
    status = ctx.knowledge.status()
    if state.running and (status["vectors_missing"] or not status["notes"]):
        st.info(t("ask.indexing"), icon=":material/sync:")
    elif not status["notes"]:
        st.warning(t("ask.no_notes", vault=ctx.settings.vault), icon=":material/folder_off:")
    return slot


def _new_chat_button(slot, turns: list[ChatTurn]) -> None:
    if turns and slot.button(t("ask.new_chat"), icon=":material/add_comment:", key="rag_new_chat"):
        _start_new_chat()
        st.rerun()


def _demo_hints(box) -> None:
    box.info(t("ask.demo"), icon=":material/lightbulb:")
    for key in DEMO_QUESTIONS:
        q = t(key)
        if box.button(q, key=f"demo-{key}", icon=":material/chat_bubble:"):
            st.session_state["rag_pending_question"] = q
            st.rerun()


def _vault_hints(ctx: common.AppContext, box) -> None:
    """A few questions drawn from this vault's newest notes (rag/web/examples.py), each a button that asks it."""
    found = _vault_examples(ctx)
    if not found:
        return
    box.info(t("ask.examples"), icon=":material/lightbulb:")
    for i, example in enumerate(found):
        values = {"title": example.title, "heading": example.heading}
        if box.button(t(f"ask.example.{example.form}", **values), key=f"example-{i}", icon=":material/chat_bubble:"):
            st.session_state["rag_pending_question"] = i18n.text(common.language(), f"ask.example.{example.form}", **values)
            st.rerun()


def _vault_examples(ctx: common.AppContext) -> list:
    """The example questions, found again only when the index changed (or the vault did)."""
    key = (str(ctx.settings.vault), ctx.knowledge.progress().changes)
    cached = st.session_state.get("rag_examples")
    if cached is None or cached[0] != key:
        try:
            notes = [Note(n.path, n.title, n.modified) for n in ctx.knowledge.list_notes(limit=NOTES_SCANNED).notes]
        except (RagError, OSError):  # the vault went away: the page says so elsewhere
            notes = []
        cached = (key, examples(notes, lambda path: section_headings(ctx.knowledge.read(path).content)))
        st.session_state["rag_examples"] = cached
    return cached[1]


def _answer(ctx: common.AppContext, question: str, turns: list[ChatTurn]) -> None:
    with st.chat_message("user"):
        st.markdown(untrusted.text(question))
    with st.chat_message("assistant"):
        history = [Turn(t.answer.question, t.answer.text) for t in turns]
        slot = st.empty()
        with slot.container():
            waiting = st.empty()
            waiting.caption(":material/search: " + t("ask.searching"))
            read_time = st.session_state.pop("rag_ask_all_dates", None) != question  # "All dates" asked it again
            progress, stop = _Progress(waiting), threading.Event()
            call = StreamedCall(
                lambda emit, stage: ctx.knowledge.ask(question, turns=history, on_text=emit, on_stage=stage, read_time=read_time, stop=stop),
                on_stage=progress.stage,
                on_wait=progress.wait,
            )
            try:
                _stream(call, waiting, len(turns), ctx.settings.vault)
            except BaseException:  # Stop, or a new question: Streamlit ends this run here; the model's request closes too
                stop.set()
                raise
        try:
            answer = call.result()
        except RagError as exc:
            slot.empty()
            common.fail(exc)
        turn = ChatTurn(answer, ctx.settings.chat_model if answer.mode == "llm" else None, call.first_piece, call.finished)
        turns.append(turn)
        with slot.container():
            answer_view.show_answer(ctx, len(turns) - 1, turn)


_READING_ICON = ":material/hourglass_top:"
_STAGES = {GENERATING: (":material/hourglass_top:", "ask.generating"), CHECKING: (":material/fact_check:", "ask.checking")}


class _Progress:
    """What the answer is waiting for, redrawn each second: "The model is reading 6 sources (~45 s) · 12 s"."""

    def __init__(self, waiting) -> None:
        self.waiting, self.reading, self.since = waiting, None, None

    def stage(self, name: str) -> None:
        self.reading = name if isinstance(name, ModelReading) else None
        self.since = time.perf_counter()
        if self.reading is not None:
            self._draw()
        elif name in _STAGES:
            icon, key = _STAGES[name]
            self.waiting.caption(f"{icon} {t(key)}")

    def wait(self, _elapsed: float) -> None:
        if self.reading is not None:
            self._draw()

    def _draw(self) -> None:
        r, lang = self.reading, common.language()
        so_far = i18n.decimal(lang, time.perf_counter() - self.since, 0)
        key = "ask.reading" if r.seconds is not None else "ask.reading.unknown"
        expected = i18n.decimal(lang, r.seconds or 0, 0)
        self.waiting.caption(f"{_READING_ICON} {t(key, n=r.sources, seconds=expected, so_far=so_far)}")


def _stream(call: StreamedCall, waiting, turn: int, vault, every: float = 0.15) -> None:
    """The answer as it arrives, through the same rendering as the finished one (a reply is untrusted: an image in
    it must not load even for the seconds it is on screen); redrawn at most every `every` seconds."""
    shown, text, drawn = st.empty(), "", 0.0
    for i, piece in enumerate(call):
        if i == 0:
            waiting.empty()
        text += piece
        if time.perf_counter() - drawn >= every:
            shown.html(ANSWER_CSS + answer_html(_in_language(text), (), turn=turn, vault=vault))
            drawn = time.perf_counter()
    if text:
        shown.html(ANSWER_CSS + answer_html(_in_language(text), (), turn=turn, vault=vault))


def _in_language(text: str) -> str:
    return answer_words.in_language(text, (), common.language())[0]


main()
