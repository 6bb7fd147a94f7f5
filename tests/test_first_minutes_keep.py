"""The first minutes, kept: choices made in Settings survive a new session and a restart (on top of rag.toml and
the environment, checked when read back); each browser sees only its own conversations; a person's own vault opens
on a few questions drawn from its newest notes. The browser-level checks are in tests/test_browser.py."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import time

import pytest

from rag.config import load_settings
from rag.errors import VaultError
from rag.web import saved_choices
from rag.web.conversations import KEEP, ChatTurn, Conversation, ConversationFile, is_browser_id, new_browser_id
from rag.web.examples import Example, Note, examples, section_headings, usable
from rag.web.webapp import choices_of
from tests.app_harness import answers, idle, shown, texts, unescaped
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


# --- choices made in Settings --------------------------------------------------------------------------------------


def _choose_vault(at, folder) -> None:
    at.sidebar.text_area[0].input(str(folder))
    at.sidebar.button[0].click().run()  # the form's Apply
    idle(at)
    at.run()


def _tea_vault(tmp_path):
    other = tmp_path / "tea"
    other.mkdir()
    (other / "Tea.md").write_text("# Tea\n\nPu-erh is brewed at 95 degrees for thirty seconds.\n", encoding="utf-8")
    return other


def test_a_vault_chosen_in_settings_is_kept_for_the_next_session_and_the_base_gives_the_rest(app, tmp_path, monkeypatch, vault):
    other = _tea_vault(tmp_path)
    _choose_vault(app(), other)
    path = saved_choices.choices_path()
    assert json.loads(path.read_text(encoding="utf-8"))["choices"] == {"vault": str(other.resolve())}  # only what was chosen
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and vault not in path.parents and other not in path.parents

    monkeypatch.setenv("RAG_CHAT_MODEL", "from-the-environment")  # rag.toml or the environment still lead the rest
    again = app()  # a new session, as after a reload or a restart
    assert again.session_state["rag_app"].settings.vault == other.resolve()
    assert again.session_state["rag_app"].settings.chat_model == "from-the-environment"
    assert "Kept from your choices here: Vault folder." in shown(again.sidebar.caption)


def test_forget_goes_back_to_rag_toml_and_the_environment(app, tmp_path, vault):
    _choose_vault(app(), _tea_vault(tmp_path))
    at = app()
    at.sidebar.button(key="rag_forget_choices").click().run()
    assert at.session_state["rag_app"].settings.vault == vault.resolve() and not saved_choices.choices_path().exists()
    assert app().session_state["rag_app"].settings.vault == vault.resolve()


def test_a_saved_vault_that_is_gone_opens_the_default_and_says_so(app, tmp_path, vault):
    gone = tmp_path / "unplugged-drive" / "Notes"
    path = saved_choices.choices_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": 1, "choices": {"vault": str(gone), "max_notes": 3}}), encoding="utf-8")
    at = app()
    assert not at.exception and at.session_state["rag_app"].settings.vault == vault.resolve()
    assert at.session_state["rag_app"].settings.context_max_notes == 3  # the rest still applies
    warning = shown(at.warning)
    assert "is not there any more" in warning and str(gone) in warning and str(vault.resolve()) in warning


def test_saved_choices_are_checked_like_the_panel_checks_them(tmp_path, vault):
    base = load_settings(vault=vault, db_path=tmp_path / "index.db", env={})
    path = tmp_path / "app-settings.json"
    stored = {"max_notes": 1000, "max_chars": True, "language": "de", "chat_model": "qwen", "embedder": "openai", "later": 1}
    path.write_text(json.dumps({"format": 1, "choices": stored}), encoding="utf-8")
    kept = saved_choices.remembered(base, path)
    assert [n.kind for n in kept.notices] == ["dropped"] * 4  # max_notes, max_chars, language, embedder
    assert "between 1 and 100" in kept.notices[0].values["error"] and "OPENAI_API_KEY" in kept.notices[3].values["error"]
    assert kept.choices is None  # openai embeddings with no endpoint nor key: the choices together are not used

    path.write_text(json.dumps({"format": 1, "choices": {"chat_model": "qwen", "max_notes": 4}}), encoding="utf-8")
    kept = saved_choices.remembered(base, path)
    assert kept.notices == () and kept.fields == ("chat_model", "max_notes") and kept.choices.chat_model == "qwen"

    path.write_text("{not json", encoding="utf-8")
    kept = saved_choices.remembered(base, path)
    assert kept.choices is None and [n.kind for n in kept.notices] == ["unreadable"]


def test_only_what_was_changed_is_saved_and_a_choice_set_back_to_the_base_is_dropped(tmp_path, vault):
    base = load_settings(vault=vault, db_path=tmp_path / "index.db", env={"RAG_CHAT_MODEL": "base-model"})
    path = tmp_path / "app-settings.json"
    chosen = dataclasses.replace(choices_of(base), max_notes=9, vault=str(vault) + "/")
    assert saved_choices.keep(base, before=None, after=chosen, path=path) == ("max_notes",)  # the same folder, typed otherwise
    later = dataclasses.replace(chosen, chat_model="", max_notes=base.context_max_notes)
    assert saved_choices.keep(base, before=chosen, after=later, path=path) == ("chat_model",)  # "" (extractive) is a choice
    assert json.loads(path.read_text(encoding="utf-8"))["choices"] == {"chat_model": ""}


# --- example questions from the vault -----------------------------------------------------------------------------


def _touch(vault, newest_first: list[str]) -> None:
    """Every note old, then the given ones newest first."""
    for note in vault.rglob("*.md"):
        os.utime(note, (1_600_000_000, 1_600_000_000))
    now = time.time()
    for age, name in enumerate(newest_first):
        os.utime(vault / name, (now - age * 60, now - age * 60))


def test_your_own_vault_opens_on_questions_from_its_newest_notes_that_ask_themselves(app, vault):
    _touch(vault, ["Notes/Sourdough.md", "Notes/Байкал.md", "Notes/SQLite.md"])
    at = app()
    assert "A few questions from your latest notes to start with:" in texts(at.info) and "demo vault" not in texts(at.info)
    labels = [unescaped(b.label) for b in at.button if b.key and b.key.startswith("example-")]
    assert labels == [
        "What do my notes say about “Sourdough bread”?",
        "What does my note “Поездка на Байкал” say under “Маршрут”?",
        "What do my notes say about “SQLite notes”?",
    ]
    at.button(key="example-0").click().run()
    at.run()  # the click queued the question; this run answers it
    assert "What do my notes say about “Sourdough bread”?" in shown(at.chat_message[0].markdown)
    assert 'href="#cite-0-S' in answers(at) and "A few questions" not in texts(at.info)


def test_the_questions_are_in_the_interface_language(app, vault, monkeypatch):
    monkeypatch.setenv("RAG_UI_LANGUAGE", "ru")
    _touch(vault, ["Notes/Sourdough.md", "Notes/Байкал.md"])
    at = app()
    labels = [unescaped(b.label) for b in at.button if b.key and b.key.startswith("example-")]
    assert len(labels) == 3 and labels[0] == "Что в моих заметках на тему «Sourdough bread»?"
    assert "в разделе «Маршрут»" in labels[1] and "Для начала" in texts(at.info)


def test_example_questions_pass_over_dates_generic_names_and_headings_in_code():
    notes = [
        Note("Daily/2026-05-02.md", None, "2026-05-02T21:00:00+03:00"),  # a daily note: its name is a date
        Note("INDEX.md", None, "2026-05-02T20:00:00+03:00"),
        Note("Trips/Baikal.md", "Поездка на Байкал", "2026-05-02T19:00:00+03:00"),
        Note("Kitchen/Bread.md", "**Sourdough** [[bread|loaf]]", "2026-05-02T18:00:00+03:00"),
        Note("Notes/Old.md", "Old topic", "2020-01-01T00:00:00+00:00"),
    ]
    headings = {"Kitchen/Bread.md": section_headings("## Notes\n```\n## Not a heading\n```\n## Hydration ##\n")}
    found = examples(notes, lambda path: headings[path] if path in headings else [])
    assert found == [Example("about", "Поездка на Байкал"), Example("section", "Sourdough loaf", "Hydration"), Example("about", "Old topic")]
    assert usable("x" * 61) is None and usable("2026-05-02 Mon") is None and usable("TODO") is None and usable("Tea\u202e") == "Tea"

    def unreadable(path):
        raise VaultError(f"{path} is not a Markdown note")

    later = [Note("Report.pdf", None, "2026-01-02T00:00:00+00:00"), Note("Budget.md", None, "2026-01-01T00:00:00+00:00")]
    assert examples(later, unreadable) == [Example("about", "Report"), Example("points", "Budget")]
