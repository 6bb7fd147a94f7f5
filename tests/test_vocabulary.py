"""The vault's vocabulary embedded word by word, and passages of the other script scored by their words' meaning
against the question's: «шаблон» finds the English note about templates, which neither stems nor sounds can reach."""

from __future__ import annotations

import pytest

from rag.config import load_settings
from rag.devtools.index_checks import consistency
from rag.index import vocabulary
from rag.workspace import Workspace

NOTES = {
    "Notes/Templates.md": "# Templates\n\nA template sets out the sections of a note in advance.\n",
    "Notes/Bread.md": "# Bread\n\nSourdough bread rises overnight and bakes for forty minutes.\n",
    "Заметки/Хлеб.md": "# Хлеб\n\nЗакваска поднимается за ночь.\n",
}


def _vault(tmp_path, notes=NOTES):
    vault = tmp_path / "vault"
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return vault


def test_content_words_are_letters_of_either_script_without_stop_words():
    assert vocabulary.content_words("The 2015 Ёлка: a tree, the TREE and ИИ!") == ["елка", "tree"]


@pytest.mark.both_backends
def test_sync_embeds_the_vocabulary_and_follows_the_vault(tmp_path, backend, index_location, fake_embedder, monkeypatch):
    vault = _vault(tmp_path)
    settings = load_settings(vault=vault, db_path=index_location, env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        words, matrix = vocabulary.word_vectors(ws.store, fake_embedder)
        assert {"templat", "sourdough", "закваск"} <= set(words) and matrix.shape == (len(words), fake_embedder.dim)  # a row per stem
        assert "the" not in words  # stop words are not the vocabulary
        embedded = len(fake_embedder.embedded)
        ws.sync()  # nothing changed: nothing embedded, not even the words
        assert len(fake_embedder.embedded) == embedded

        (vault / "Notes/Bread.md").unlink()
        (vault / "Notes/Rye.md").write_text("# Rye\n\nRye flour ferments slowly.\n", encoding="utf-8")
        ws.sync()  # a small change adds the new words only
        assert sorted(fake_embedder.embedded[embedded + 1 :]) == ["ferments", "flour", "rye", "slowly"]  # after the chunk itself
        words, _ = vocabulary.word_vectors(ws.store, fake_embedder)
        assert {"ferment", "sourdough"} <= set(words)

        monkeypatch.setattr(vocabulary, "RECOUNT_ABOVE", 0)  # a large change re-reads the vault
        (vault / "Notes/Rye.md").write_text("# Rye\n\nRye flour ferments slowly overnight.\n", encoding="utf-8")
        ws.sync()
        words, _ = vocabulary.word_vectors(ws.store, fake_embedder)
        assert "sourdough" not in words and {"overnight", "ferment", "templat"} <= set(words)
        assert "template" not in fake_embedder.embedded[embedded:]  # a known word is not embedded again
        ws.store.drop_orphan_vectors()  # the words are no chunk's vectors, yet not orphans
        assert "ferment" in vocabulary.word_vectors(ws.store, fake_embedder)[0]
        assert consistency(index_location)["orphan_vectors"] == 0


def test_a_failed_embedding_leaves_the_vocabulary_to_the_next_sync(tmp_path, fake_embedder):
    settings = load_settings(vault=_vault(tmp_path), db_path=tmp_path / "index.db", env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        fake_embedder.fail = True
        report = ws.sync()
        assert report.embed_error and vocabulary.stamp(ws.store, fake_embedder.name) is None
        fake_embedder.fail = False
        assert ws.sync().embed_error is None
        assert vocabulary.stamp(ws.store, fake_embedder.name) is not None  # the next sync finishes the vocabulary


def test_with_the_real_model_a_russian_word_finds_the_english_note_by_meaning(tmp_path, real_embedder):
    settings = load_settings(vault=_vault(tmp_path), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        every = [r for r, _ in ws.retriever.dense_ranking("bread", 10)]
        ranking = ws.retriever.lexicon_ranking("Что задаёт шаблон?", every)
        chunks = ws.store.chunks_by_rowid([r for r, _ in ranking])
        assert chunks[ranking[0][0]].path == "Notes/Templates.md"
        assert all(chunks[r].path != "Заметки/Хлеб.md" for r, _ in ranking)  # own-script passages are BM25's
        assert ws.retriever.crossing_ranking("Что задаёт шаблон?", 10) == []  # no name or number to share by sound
        # and back: an English question scores the Russian note only
        ranking = ws.retriever.lexicon_ranking("When does the leaven rise?", every)
        assert [ws.store.chunks_by_rowid([r])[r].path for r, _ in ranking] == ["Заметки/Хлеб.md"]


def test_without_the_vocabulary_or_the_embedder_words_match_nothing(tmp_path, fake_embedder):
    settings = load_settings(vault=_vault(tmp_path), db_path=tmp_path / "index.db", env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync(embed=False)
        every = [r for r, _ in ws.retriever.keyword_ranking("template bread sourdough", 10)]
        assert every and ws.retriever.lexicon_ranking("Что задаёт шаблон?", every) == []  # not embedded yet
        ws.sync()
        fake_embedder.fail = True
        assert ws.retriever.lexicon_ranking("Что задаёт шаблон?", every) == []
        fake_embedder.fail = False  # a failure is not remembered: the next search matches
        assert ws.retriever.lexicon_ranking("Что задаёт шаблон?", every) != []


SEASON = {
    "Football/Defense.md": "# Panthers season\n\nThe defense intercepted the ball 24 times and recovered 11 fumbles.\n",
    "Football/Offense.md": "# Panthers season\n\nThe offense scored 500 points, the most in the league.\n",
    "Football/Coach.md": "# Panthers season\n\nThe head coach signed a new contract before the playoffs.\n",
}


def test_with_the_real_model_a_russian_question_finds_the_english_paragraph_that_answers_it(tmp_path, real_embedder):
    settings = load_settings(vault=_vault(tmp_path, SEASON), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        question = "Сколько раз защита перехватила мяч?"
        every = [r for r, _ in ws.retriever.dense_ranking(question, 10)]
        chunks = ws.store.chunks_by_rowid(every)
        assert chunks[ws.retriever.lexicon_ranking(question, every)[0][0]].path == "Football/Defense.md"
        assert ws.retriever.hybrid(question, 3).hits[0].chunk.path == "Football/Defense.md"


def test_a_passages_words_are_read_once_and_again_when_its_text_or_the_vocabulary_changes(tmp_path, fake_embedder, monkeypatch):
    settings = load_settings(vault=_vault(tmp_path), db_path=tmp_path / "index.db", env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        read = []
        content_words = vocabulary.content_words
        monkeypatch.setattr(vocabulary, "content_words", lambda text: read.append(text) or content_words(text))
        passages = {1: "Sourdough bread rises overnight.", 2: "A template sets out the sections."}
        first = ws.retriever.lexicon.match_scores("Что задаёт шаблон?", passages)
        assert ws.retriever.lexicon.match_scores("Когда поднимается хлеб?", passages) and len(read) == 4  # 2 questions, 2 passages
        assert ws.retriever.lexicon.match_scores("Что задаёт шаблон?", passages) == first
        ws.retriever.lexicon.match_scores("Что задаёт шаблон?", {**passages, 2: "A template lists the headings."})
        assert read[-1] == "A template lists the headings."  # a changed text is read again
        (settings.vault / "Notes" / "Knots.md").write_text("# Knots\n\nA bowline makes a fixed loop.\n", encoding="utf-8")
        ws.sync()  # a new word: another vocabulary
        ws.retriever.lexicon.match_scores("Что задаёт шаблон?", passages)
        assert read.count(passages[1]) == 2


def test_a_question_word_asked_before_is_not_embedded_again(tmp_path, fake_embedder):
    settings = load_settings(vault=_vault(tmp_path), db_path=tmp_path / "index.db", env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        passages = {1: "Sourdough bread rises overnight.", 2: "A template sets out the sections."}
        fake_embedder.embedded.clear()
        first = ws.retriever.lexicon.match_scores("Что задаёт шаблон?", passages)
        assert sorted(fake_embedder.embedded) == ["задает", "шаблон"]
        ws.retriever.lexicon.match_scores("Какой шаблон у заметки?", passages)
        assert sorted(fake_embedder.embedded) == ["задает", "заметки", "шаблон"]  # «шаблон» once
        ws.retriever.lexicon._questions.clear()
        assert ws.retriever.lexicon.match_scores("Что задаёт шаблон?", passages) == first  # the same vectors
