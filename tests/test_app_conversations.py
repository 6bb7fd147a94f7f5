"""Saved conversations: kept per vault in a JSON file next to the index, whole (sources, claims, quotes), reopened
after a reload or from the sidebar's list, deleted from it; a damaged file never blocks the chat."""

from __future__ import annotations

import dataclasses
import json
from datetime import date

from rag.answer.ask import Answer
from rag.answer.context import Dropped, FrozenContext, Source
from rag.answer.extractive import Quote
from rag.answer.grounding import CheckedClaim
from rag.search.results import TimeScope
from rag.web.conversations import FILE_NAME, KEEP, ChatTurn, Conversation, ConversationFile
from tests.app_harness import answers, ask, shown, texts, unescaped

QUESTION = "What hydration do I keep for white bread?"
BROWSER = "0123456789abcdef" * 2  # a browser's id (the app keeps one in each browser's cookie)


def _answer(question: str = "Сколько стоил Байкал?") -> Answer:
    source = Source("S1", "Trips/Baikal.md", "Baikal › Costs", 3, 5, "ab" * 32, "Жильё: 21 600 ₽", 0.8, bm25_rank=1)
    context = FrozenContext((source,), (Dropped("Old.md", "Old", 1, 2, "changed"),), "```", 42)
    claim = CheckedClaim("Жильё стоило 21 600 ₽", 0, 25, ("S1",), "supported", ("S1",))
    quote = Quote("S1", "Жильё: 21 600 ₽", 4, 4, "Baikal › Costs", 0.9)
    return Answer(question, question, "llm", "Жильё стоило 21 600 ₽ [S1].", (), context, ("S9",), False, (quote,), None, (claim,))


def test_a_conversation_comes_back_whole_from_its_file(tmp_path):
    saved = ConversationFile(tmp_path / "index" / "index.db", BROWSER)
    conversation = Conversation(turns=[ChatTurn(_answer(), "qwen", 1.5, 9.0)])
    saved.save(conversation)
    assert saved.path == tmp_path / "index" / FILE_NAME
    again = saved.get(conversation.id)
    assert again is not None and again.turns == conversation.turns  # every nested value, typed as before
    assert again.turns[0].answer.context.get("S1").text == "Жильё: 21 600 ₽" and again.title == "Сколько стоил Байкал?"
    assert "21 600" in saved.path.read_text(encoding="utf-8")  # readable UTF-8, not escapes


def test_an_answer_kept_to_a_time_comes_back_with_its_days(tmp_path):
    saved = ConversationFile(tmp_path / "index" / "index.db", BROWSER)
    scope = TimeScope(date(2026, 4, 27), date(2026, 5, 3), words="на прошлой неделе")
    answer = dataclasses.replace(_answer(), time=scope)
    conversation = Conversation(turns=[ChatTurn(answer, None, 0.1, 0.2)])
    saved.save(conversation)
    assert saved.get(conversation.id).turns[0].answer.time == scope  # the days as dates, not text
    assert '"after": "2026-04-27"' in saved.path.read_text(encoding="utf-8")


def test_only_the_newest_conversations_are_kept_and_an_empty_one_is_not_saved(tmp_path):
    saved = ConversationFile(tmp_path / "index.db", BROWSER)
    for n in range(KEEP + 3):
        saved.save(Conversation(turns=[ChatTurn(_answer(f"question {n}"))]))
    saved.save(Conversation())
    kept = saved.load()
    assert len(kept) == KEEP and kept[0].title == f"question {KEEP + 2}" and kept[-1].title == "question 3"
    saved.delete(kept[0].id)
    assert [c.id for c in saved.load()] == [c.id for c in kept[1:]]


def test_a_damaged_file_is_reported_on_load_and_replaced_on_the_next_save(tmp_path):
    saved = ConversationFile(tmp_path / "index.db", BROWSER)
    saved.path.write_text("{not json", encoding="utf-8")
    try:
        saved.load()
        raise AssertionError("a damaged file must not read as empty")
    except ValueError:
        pass
    saved.save(Conversation(turns=[ChatTurn(_answer())]))
    assert len(saved.load()) == 1 and json.loads(saved.path.read_text(encoding="utf-8"))["format"] == 1


# --- in the app -----------------------------------------------------------------------------------------------------


def _saved(at) -> ConversationFile:
    """The conversations of the browser `at` stands for."""
    return ConversationFile(at.session_state["rag_app"].settings.db_path, at.session_state["rag_browser"])


def test_a_reload_reopens_the_conversation_with_its_citations(app):
    at = ask(app(), QUESTION)
    conversation_id = at.query_params["chat"][0] if isinstance(at.query_params["chat"], list) else at.query_params["chat"]
    assert _saved(at).get(conversation_id).title == QUESTION
    assert _saved(at).path.parent == at.session_state["rag_app"].settings.db_path.parent  # beside the index, not in the vault

    reloaded = app()  # a new session of the same browser (its cookie) on the same address
    reloaded.session_state["rag_browser"] = at.session_state["rag_browser"]
    reloaded.query_params["chat"] = conversation_id
    reloaded.run()
    assert QUESTION in shown(reloaded.chat_message[0].markdown) and 'href="#cite-0-S' in answers(reloaded)
    assert any(b.key == "rag_new_chat" for b in reloaded.button)
    reloaded = ask(reloaded, "And for rye?")
    assert len(_saved(reloaded).get(conversation_id).turns) == 2  # the reopened conversation goes on


def test_new_chat_keeps_the_old_one_in_the_list_to_reopen_or_delete(app):
    at = ask(app(), QUESTION)
    at.button(key="rag_new_chat").click().run()
    assert not at.chat_message and "chat" not in at.query_params
    listed = [b for b in at.sidebar.button if b.key and b.key.startswith("conv-") and not b.key.startswith("conv-del-")]
    assert [unescaped(b.label) for b in listed] == [QUESTION]
    listed[0].click().run()
    assert QUESTION in shown(at.chat_message[0].markdown)
    at.sidebar.button(key=listed[0].key.replace("conv-", "conv-del-")).click().run()
    assert not at.chat_message and _saved(at).load() == []
    assert "No saved conversations yet." in texts(at.sidebar.caption)


def test_a_damaged_conversations_file_is_said_and_the_chat_still_works(app):
    at = app()
    _saved(at).path.write_text("[1, 2", encoding="utf-8")
    at.run()
    assert "could not be read" in texts(at.sidebar.warning)
    at = ask(at, QUESTION)
    assert 'href="#cite-0-S' in answers(at) and len(_saved(at).load()) == 1
