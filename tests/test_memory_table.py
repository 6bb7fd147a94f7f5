"""Agent memory's fact table kept in the index (both backends): the next process reads it instead of re-reading and
re-embedding every fact note; changed and removed notes are followed; the background indexer builds it; facts the
embedder could not embed are found by their words and embedded later; each fact's reading by the aligned model is kept
and weighs in recall. And the optional chat-model rewrite of the question. Real files and SQLite / PostgreSQL; fakes
only at the model seams (embedder, aligned model, chat model)."""

from __future__ import annotations

import json
import sqlite3
from types import SimpleNamespace

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed import aligned
from rag.errors import ChatError, EmbedderError
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.memory import facts, meaning, rewrite, table
from rag.memory import recall as recall_module
from rag.memory.meaning import fact_text
from tests.old_schema import as_schema_12


@pytest.fixture
def opened(tmp_path, index_location, monkeypatch, fake_embedder):
    """A function giving a fresh LiveIndex + Knowledge over the same vault and index: one per 'process'."""
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: fake_embedder)
    vault = tmp_path / "vault"
    vault.mkdir()
    lives = []

    def open_(**overrides):
        live = LiveIndex(load_settings(vault=vault, db_path=index_location, env={}, **overrides))
        lives.append(live)
        return Knowledge(live)

    yield open_
    for live in lives:
        live.close()


def _embedded_facts(fake_embedder, fact) -> int:
    """How often the fact was embedded as a fact (its chunk, embedded by the indexer, is another text)."""
    return fake_embedder.embedded.count(fact_text(fact))


@pytest.mark.both_backends
def test_the_next_process_reads_the_fact_table_from_the_index(opened, fake_embedder, monkeypatch):
    first = opened()
    tea = first.memory.remember("Anna prefers green tea in the morning.", category="preferences", tags=["drinks"])
    first.memory.remember("nginx on server-a listens on port 8080.", category="config")
    first.index()
    assert _embedded_facts(fake_embedder, tea) == 1 and fact_text(tea) == f"{tea.content} (preferences, drinks)"
    assert len(first.live.workspace().store.fact_rows()) == 2
    first.live.close()

    def no_reads(*args):
        raise AssertionError("a fact note was read again")

    monkeypatch.setattr(table, "_read_entry", no_reads)
    second = opened()
    found = second.memory.recall("Anna prefers green tea in the morning", 3)
    assert found[0].fact.id == tea.id and found[0].channels["semantic"] > 0
    assert _embedded_facts(fake_embedder, tea) == 1  # not embedded again


@pytest.mark.both_backends
def test_a_changed_note_is_read_again_and_a_removed_one_leaves_the_table(opened, tmp_path):
    knowledge = opened()
    memory = knowledge.memory
    fact = memory.remember("Max likes espresso.", category="people")
    other = memory.remember("Dina likes hiking.", category="people")
    knowledge.index()
    note = tmp_path / "vault" / fact.path
    note.write_text(note.read_text(encoding="utf-8").replace("espresso", "ristretto"), encoding="utf-8")
    knowledge.index()
    rows = {r.path: r for r in knowledge.live.workspace().store.fact_rows()}
    assert "ristretto" in rows[fact.path].record and memory.recall("ristretto", 2)[0].fact.id == fact.id
    memory.forget(other.id)
    knowledge.index()
    assert set(r.path for r in knowledge.live.workspace().store.fact_rows()) == {fact.path}
    reopened = opened()
    assert [f.id for f in reopened.memory.facts()] == [fact.id] and reopened.memory.get(fact.id).content == "Max likes ristretto."


def test_the_background_indexer_builds_the_table_before_anyone_recalls(opened, fake_embedder, tmp_path):
    folder = tmp_path / "vault" / facts.FACTS_FOLDER / "config"
    folder.mkdir(parents=True)
    fact = facts.Fact("f-1", "PostgreSQL 16 runs on server-b.", "config", created="2025-01-01T00:00:00Z")
    (folder / "2025-01-01 PostgreSQL.md").write_text(facts.render(fact), encoding="utf-8")  # as a sync or a copy would
    knowledge = opened()
    knowledge.live.start()
    knowledge.live.wait_idle(60)
    assert _embedded_facts(fake_embedder, fact) == 1
    assert [r.path for r in knowledge.live.workspace().store.fact_rows()] == ["Memory/Facts/config/2025-01-01 PostgreSQL.md"]


def test_facts_the_embedder_could_not_embed_are_found_by_words_then_embedded(opened, fake_embedder, monkeypatch):
    monkeypatch.setattr(table, "EMBED_RETRY_SECONDS", 0.0)
    knowledge = opened()
    fact = knowledge.memory.remember("Backups of the NAS run nightly at 02:30.", category="config")
    fake_embedder.fail = True
    knowledge.index()
    assert knowledge.live.workspace().store.fact_rows()[0].meaning is None
    down = knowledge.memory.recall("NAS backups", 3)
    assert down[0].fact.id == fact.id and "semantic" not in down[0].found_by  # by its words
    fake_embedder.fail = False
    found = knowledge.memory.recall("Backups of the NAS run nightly", 3)
    assert found[0].fact.id == fact.id and found[0].channels["semantic"] > 0  # embedded once the embedder is back
    assert knowledge.live.workspace().store.fact_rows()[0].meaning is not None


@pytest.mark.both_backends
def test_each_fact_is_read_by_the_aligned_model_once_and_the_next_process_reuses_it(opened, monkeypatch):
    first = opened()
    fact = first.memory.remember("Anna prefers green tea in the morning.", category="preferences")
    first.index()
    row = first.live.workspace().store.fact_rows()[0]
    reading = np.frombuffer(row.reading, np.float32)
    assert reading.shape == (aligned.DIM,) and abs(np.linalg.norm(reading) - 1) < 1e-4  # the real model's, kept
    assert np.allclose(reading, aligned.shared().texts([fact_text(fact)])[0], atol=1e-5)
    first.live.close()

    def no_reading(facts):
        raise AssertionError("a fact was read by the aligned model again")

    monkeypatch.setattr(table, "fact_readings", no_reading)
    second = opened()
    assert second.memory.recall("What does Anna drink?", 1)[0].fact.id == fact.id
    assert second.memory.table().read.tolist() == [True]


class OneTopicReader:
    """The aligned model at its seam: texts naming `topic` read alike, every other text elsewhere."""

    def __init__(self, topic: str) -> None:
        self.topic, self.down = topic, False

    def texts(self, texts):
        if self.down:
            raise EmbedderError("the aligned model is unavailable")
        return np.array([[1.0, 0.0] if self.topic in t else [0.0, 1.0] for t in texts], np.float32) @ np.eye(2, aligned.DIM, dtype=np.float32)

    def question(self, text):
        return self.texts([self.topic])[0]


def test_the_aligned_reading_decides_where_e5_cannot_and_recall_goes_on_without_it(opened, monkeypatch, caplog):
    reader = OneTopicReader("kayak")
    seam = SimpleNamespace(shared=lambda: reader, DIM=aligned.DIM)  # memory's use of the model, not the index's
    monkeypatch.setattr(meaning, "aligned", seam)
    monkeypatch.setattr(recall_module, "aligned", seam)
    knowledge = opened()
    canoe = knowledge.memory.remember("Red kayak hangs in the garage.", category="things")
    bike = knowledge.memory.remember("Red bicycle hangs in the garage.", category="things")
    knowledge.index()
    question = "What red thing hangs in the garage?"  # the fake embedder rates both facts alike
    ranked = knowledge.memory.recall(question, 2)
    assert [r.fact.id for r in ranked] == [canoe.id, bike.id]
    assert ranked[0].channels["semantic"] > ranked[1].channels["semantic"] + recall_module.READING_WEIGHT
    reader.down = True
    alike = knowledge.memory.recall(question, 2)
    assert alike[0].channels["semantic"] > 0 and alike[0].channels["semantic"] == pytest.approx(alike[1].channels["semantic"])  # e5 alone
    assert "without the aligned model" in caplog.text
    late = knowledge.memory.remember("The blue kayak paddle is in the attic.", category="things")
    knowledge.index()  # embedded by e5; its reading waits for the model
    assert {r.path: r.reading for r in knowledge.live.workspace().store.fact_rows()}[late.path] is None
    reader.down = False
    knowledge.index()
    assert all(r.reading is not None for r in knowledge.live.workspace().store.fact_rows())


def test_an_index_from_before_facts_were_read_gets_their_readings_and_keeps_its_facts(opened, index_location, fake_embedder):
    if not str(index_location).endswith(".db"):
        pytest.skip("an SQLite index's schema")
    first = opened()
    fact = first.memory.remember("Backups of the NAS run nightly at 02:30.", category="config")
    first.index()
    first.live.close()
    as_schema_12(index_location)
    with sqlite3.connect(index_location) as db:
        assert "reading" not in {r[1] for r in db.execute("PRAGMA table_info(memory_facts)")}
    second = opened()  # migrations 13 and 14 run on open
    assert [r.reading for r in second.live.workspace().store.fact_rows()] == [None]
    second.index()  # `rag index`: the facts without a reading are read, their meaning vectors kept
    assert second.live.workspace().store.fact_rows()[0].reading is not None
    assert _embedded_facts(fake_embedder, fact) == 1
    assert second.memory.recall("When do the NAS backups run?", 1)[0].fact.id == fact.id


# --- the optional rewrite -------------------------------------------------------------------------------------


class ScriptedChat:
    name = "scripted@test"

    def __init__(self, reply: str | None = None, error: str | None = None) -> None:
        self.reply, self.error, self.prompts = reply, error, []

    def complete(self, messages):
        self.prompts.append(messages[-1]["content"])
        if self.error:
            raise ChatError(self.error)
        return self.reply

    def close(self) -> None:
        pass


def test_a_rewrite_finds_a_fact_in_the_other_language_and_a_failed_one_changes_nothing(opened, monkeypatch):
    chat = ScriptedChat("Что пьёт Анна по утрам?\nAnna's morning drink\nАнна пьёт по утрам")
    monkeypatch.setattr("rag.chat.configured.make_chat_model", lambda settings: chat)
    on = opened(memory_rewrite=True, chat_model="scripted", openai_base_url="http://127.0.0.1:9/v1")
    fact = on.memory.remember("Анна пьёт зелёный чай по утрам.", category="preferences")
    other = on.memory.remember("Anna's laptop is a ThinkPad.", category="config")
    on.index()
    question = "What does Anna drink in the morning?"
    found = on.memory.recall(question, 2)
    assert found[0].fact.id == fact.id and found[0].channels["semantic"] > 0
    assert question in chat.prompts[0].split("```text\n", 1)[1]  # fenced as data
    off = on.for_settings(on.settings.__class__(**{**on.settings.__dict__, "memory_rewrite": False}))
    assert off.memory.recall(question, 2)[0].channels["semantic"] == 0  # the fake embedder shares no Russian word
    failing = ScriptedChat(error="The chat endpoint is down")
    monkeypatch.setattr("rag.chat.configured.make_chat_model", lambda settings: failing)
    assert {r.fact.id for r in on.memory.recall("Anna's laptop", 2)} >= {other.id} and failing.prompts


def test_a_rewrite_reply_is_trimmed_to_three_short_lines_of_text():
    reply = "1. \x07one\n\n(2) two\n- one\n" + "x" * 500 + "\nfour\nfive"
    got = rewrite.rewrites(ScriptedChat(reply), "the question")
    assert got == ("one", "two", "x" * rewrite.MAX_CHARS)
    assert rewrite.rewrites(ScriptedChat("The question"), "the question") == ()  # an echo is no rewrite
    assert rewrite.rewrites(ScriptedChat(error="down"), "the question") is None


def test_a_bulk_import_is_found_by_words_at_once_and_by_meaning_once_indexed(opened, fake_embedder, monkeypatch, tmp_path):
    monkeypatch.setattr(table, "EMBED_NOW", 1)  # more new facts than a reader embeds itself
    knowledge = opened()
    source = tmp_path / "facts.jsonl"
    lines = [{"id": f"f-{i}", "content": f"Server number {i} runs Debian 12 with backups at 0{i}:00."} for i in range(3)]
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    assert knowledge.memory.import_file(source)[0] == 3
    early = knowledge.memory.recall("Server number 2 backups", 3)
    assert early[0].fact.id == "f-2" and "semantic" not in early[0].found_by  # by its words and identifiers
    assert not any(t.startswith("Server number") for t in fake_embedder.embedded if t.endswith(":00."))
    knowledge.index()  # `rag index`, and the indexer after each pass: embed_missing, with progress
    late = knowledge.memory.recall("Server number 2 runs Debian 12 with backups at 02:00", 3)
    assert late[0].fact.id == "f-2" and late[0].channels["semantic"] > 0
