"""The first minutes, kept: each browser sees only its own conversations. The browser-level checks are in
tests/test_browser.py."""

from __future__ import annotations

import json
import os

import pytest

from rag.web.conversations import KEEP, ChatTurn, Conversation, ConversationFile, is_browser_id, new_browser_id
from tests.app_harness import texts
from tests.test_app_conversations import _answer

MINE, THEIRS = "a" * 32, "b" * 32


# --- conversations belong to a browser -----------------------------------------------------------------------------


def test_each_browser_lists_opens_and_deletes_only_its_own_conversations(tmp_path):
    mine, theirs = ConversationFile(tmp_path / "index.db", MINE), ConversationFile(tmp_path / "index.db", THEIRS)
    conversation = Conversation(turns=[ChatTurn(_answer())])
    mine.save(conversation)
    assert [c.id for c in mine.load()] == [conversation.id]
    assert theirs.load() == [] and theirs.get(conversation.id) is None  # not even by its id (a link to it)
    theirs.delete(conversation.id)
    assert mine.get(conversation.id) is not None
    for n in range(KEEP + 2):  # one browser's many chats do not push out another's
        theirs.save(Conversation(turns=[ChatTurn(_answer(f"question {n}"))]))
    assert len(theirs.load()) == KEEP and [c.id for c in mine.load()] == [conversation.id]


def test_conversations_saved_before_browsers_had_ids_go_to_the_first_browser_that_lists_them(tmp_path):
    older = ConversationFile(tmp_path / "index.db", MINE)
    older.save(Conversation(turns=[ChatTurn(_answer("Сколько стоил Байкал?"))]))
    data = json.loads(older.path.read_text(encoding="utf-8"))
    for c in data["conversations"]:
        del c["browser"]  # as the app wrote them before
    older.path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    first, second = ConversationFile(tmp_path / "index.db", THEIRS), ConversationFile(tmp_path / "index.db", MINE)
    assert [c.title for c in first.load()] == ["Сколько стоил Байкал?"]
    assert second.load() == [] and json.loads(first.path.read_text(encoding="utf-8"))["conversations"][0]["browser"] == THEIRS


def test_a_browser_id_is_random_and_a_cookie_of_another_form_is_not_one():
    assert is_browser_id(new_browser_id()) and new_browser_id() != new_browser_id()
    for cookie in (None, "", "a" * 31, "A" * 32, "../" + "a" * 29, "a" * 32 + "\n", 42):
        assert not is_browser_id(cookie)
    with pytest.raises(ValueError):
        ConversationFile(os.devnull, "")


def test_another_browser_gets_its_own_empty_list_even_with_the_link_to_a_conversation(app):
    at = app()
    at.chat_input[0].set_value("What hydration do I keep for white bread?").run()
    chat = at.query_params["chat"]
    chat = chat[0] if isinstance(chat, list) else chat

    other = app()  # a session of another browser (no cookie: a new id)
    assert other.session_state["rag_browser"] != at.session_state["rag_browser"]
    other.query_params["chat"] = chat
    other.run()
    assert not other.chat_message and "No saved conversations yet." in texts(other.sidebar.caption)
    assert "chat" not in other.query_params  # the link is dropped: a question here starts this browser's own chat
