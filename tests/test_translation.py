"""`translate_questions`: with a chat model, a question in another language than the vault's is also searched as
the model translates it. A real local OpenAI-compatible server scripts the replies (including the wrong ones weak
models give); the index is real SQLite over real files (fake embedder at the model seam)."""

from __future__ import annotations

import pytest

from rag.answer.ask import ask
from rag.answer.translation import target_script
from rag.chat.openai_chat import OpenAIChat
from rag.config import load_settings
from rag.workspace import Workspace

NOTES = {
    "Baking/Sourdough.md": "# Sourdough\n\nThe levain needs 50 grams of rye flour and a warm kitchen overnight.\n",
    "Travel/Lisbon.md": "# Lisbon\n\nThe tram to Belem leaves every twelve minutes from the river square.\n",
}
QUESTION = "Сколько ржаной муки нужно для закваски?"
TRANSLATION = "How much rye flour does the levain need?"


@pytest.fixture
def english(tmp_path, fake_embedder):
    vault = tmp_path / "vault"
    for path, text in NOTES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    settings = load_settings(vault=vault, db_path=tmp_path / "index.db", env={}, sentence_vectors=False, translate_questions=True)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        yield ws


@pytest.fixture
def chat(srv, english):
    model = OpenAIChat(english.settings.replace(chat_model="fake-chat", openai_base_url=srv.base_url, request_timeout=5.0, max_retries=0))
    yield model
    model.close()


def test_the_target_is_a_language_the_vault_is_written_in_other_than_the_questions():
    assert target_script(QUESTION, {"latin": 9000}) == "latin"
    assert target_script(TRANSLATION, {"latin": 9000}) is None  # same language: nothing to translate
    assert target_script(TRANSLATION, {"latin": 6000, "cyrillic": 4000}) == "cyrillic"  # a mixed vault
    assert target_script(QUESTION, {"cyrillic": 9000, "latin": 500}) is None  # a few English lines are no language
    assert target_script("2024?", {"latin": 100}) is None


def test_a_russian_question_over_english_notes_is_also_searched_in_english(english, srv, chat):
    srv.script_chat(TRANSLATION, "The levain needs 50 grams of rye flour [S1].")
    answer = ask(english, QUESTION, chat=chat)
    translate = srv.requests[-2]["json"]["messages"][0]["content"]
    assert "English" in translate and QUESTION in translate
    fence = translate.split(QUESTION)[0].splitlines()[-1].removesuffix("text")
    assert fence.startswith("```") and f"{fence}text\n{QUESTION}\n{fence}" in translate, "the question is inside a fence"
    assert answer.translation == TRANSLATION
    assert answer.context.sources[0].path == "Baking/Sourdough.md"
    assert [c.path for c in answer.citations] == ["Baking/Sourdough.md"]


@pytest.mark.parametrize(
    "reply",
    [
        "Для закваски нужно 50 граммов ржаной муки.",  # answered in the question's language instead of translating
        "",  # nothing
        "x" * 600,  # not a question
    ],
)
def test_a_reply_that_is_no_translation_is_not_searched(english, srv, chat, reply):
    srv.script_chat(reply, "Not in the notes.")
    answer = ask(english, QUESTION, chat=chat)
    assert answer.translation is None


def test_a_failing_model_costs_only_the_translation(english, srv, chat):
    srv.fail_next(500)
    srv.script_chat("The levain needs 50 grams of rye flour [S1].")
    answer = ask(english, QUESTION, chat=chat)
    assert answer.translation is None and answer.text


def test_off_by_default_no_translation_is_asked(english, srv, chat):
    english.settings = english.settings.replace(translate_questions=False)
    srv.script_chat("Not in the notes.")
    ask(english, QUESTION, chat=chat)
    assert len([r for r in srv.requests if r["path"].endswith("/chat/completions")]) == 1
