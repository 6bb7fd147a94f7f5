"""Questions about time, end to end on real files and a real index: the day each passage is stored with, a period
the question names filtering both channels (its words left out of the keyword query), "when did I last" newest
first, a range nothing is from searching all dates, explicit ranges, and the same through the CLI and MCP."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client

from rag.agents.mcp_server import build_server
from rag.answer.ask import ask
from rag.chat.openai_chat import OpenAIChat
from rag.cli import cli
from rag.config import load_settings
from rag.errors import ConfigError
from rag.index import sync as sync_module
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.search.filters import Filters
from rag.search.when import timed_hybrid
from rag.workspace import Workspace
from tests.openai_server import FakeOpenAI

TODAY = date(2026, 5, 8)  # a Friday: "last week" is 27 April – 3 May 2026
NOTES = {
    "Daily/2026-04-28.md": "# Tuesday\n\nFlashed firmware v0.3 to the greenhouse controller on the bench. The valve relay clicked"
    " after exactly ten minutes.\n",
    "Daily/2026-05-02.md": "# Saturday\n\nPlanted 24 tomatoes in the greenhouse.\n",
    "Daily/2026-03-10.md": "# March day\n\nRepaired the greenhouse door hinge.\n",
    "Notes/Weekly review.md": "# Weekly review\n\nEvery week the review of the week: week goals, week habits.\n",
    "Notes/Bread.md": "---\ncreated: 2021-11-20\n---\n# Sourdough bread\n\nMy everyday sourdough bread, baked on Sundays.\n\n"
    "## Bake log\n\nEvery loaf I baked, and how it turned out.\n\n| Date | Loaf | Result |\n|---|---|---|\n"
    "| 2026-03-29 | everyday loaf | flat, the kitchen was cold |\n| 2026-04-26 | focaccia | cherry tomatoes |\n"
    "| 2026-06-01 | rye, planned | |\n",
    "Notes/Football.md": "# Football\n\nIn 2015 the Panthers defence made 24 interceptions, the most in the league.\n",
    "Conversations/claude-ai/General/2026-04-10 Oven.md": "---\ncreated: 2026-04-10T09:12:00+03:00\n---\n# Oven\n\n"
    "## User · 2026-04-10 09:12\n\nHow warm is my oven with the light on?\n",
}


def write_notes(root: Path, notes: dict[str, str]) -> Path:
    """A vault folder at `root` holding `notes` (path → text)."""
    for path, text in notes.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def dated_vault(tmp_path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


@pytest.fixture
def dated_settings(dated_vault, index_location):
    return load_settings(vault=dated_vault, db_path=index_location, env={}, sentence_vectors=False)


@pytest.fixture
def dated_ws(dated_settings, fake_embedder):
    with Workspace.open(dated_settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        yield ws


def days(ws, path: str) -> list[tuple]:
    chunks = ws.store.chunks_of(path)
    entries = ws.store.latest_entry_days([c.rowid for c in chunks], "9999-12-31")
    return [(c.day, c.day_source, entries.get(c.rowid)) for c in chunks]


@pytest.mark.both_backends
def test_each_passage_keeps_the_day_its_note_says_and_its_log_entries(dated_ws):
    assert days(dated_ws, "Daily/2026-04-28.md") == [("2026-04-28", "file name", None)]
    assert {d[:2] for d in days(dated_ws, "Conversations/claude-ai/General/2026-04-10 Oven.md")} <= {
        ("2026-04-10", "frontmatter"),
        ("2026-04-10", "message"),
    }
    bread = days(dated_ws, "Notes/Bread.md")
    assert {(d, s) for d, s, _ in bread} == {("2021-11-20", "frontmatter")}  # the note's own day, trusted first
    assert "2026-06-01" in {last for _, _, last in bread}  # the log's latest row, kept for "when did I last"
    (football,) = days(dated_ws, "Notes/Football.md")
    assert football[1] == "file time" and football[2] is None  # "In 2015" in prose is not an entry's day


@pytest.mark.both_backends
def test_a_period_in_the_question_filters_both_channels_and_its_words_are_not_keywords(dated_ws):
    result = timed_hybrid(dated_ws.retriever, "what did I do in the greenhouse last week", 10, today=TODAY)
    assert result.time.words == "last week" and (result.time.after, result.time.before) == (date(2026, 4, 27), date(2026, 5, 3))
    paths = [h.chunk.path for h in result.hits]
    assert set(paths) <= {"Daily/2026-04-28.md", "Daily/2026-05-02.md", "Notes/Bread.md"}  # Bread: its 26 April row
    assert "Daily/2026-03-10.md" not in paths  # a greenhouse note from March is outside the week
    # "week" was not searched as a word: the note full of it is not in the range, and no keyword hit came from it
    assert all(h.chunk.path != "Notes/Weekly review.md" for h in result.hits)
    unfiltered = timed_hybrid(dated_ws.retriever, "what did I do in the greenhouse last week", 10, today=None)
    assert unfiltered.time is None and "Daily/2026-03-10.md" in [h.chunk.path for h in unfiltered.hits]


def test_a_period_no_note_is_from_searches_all_dates_with_every_word(dated_ws):
    result = timed_hybrid(dated_ws.retriever, "Panthers interceptions in 2015", 5, today=TODAY)
    assert result.time.words == "in 2015" and not result.time.applied
    top = result.hits[0]
    assert top.chunk.path == "Notes/Football.md" and top.bm25_rank == 1  # "2015" still counted as a word


def test_an_explicit_range_wins_over_the_question_and_admits_log_rows(dated_ws):
    filters = Filters(after=date(2026, 4, 20), before=date(2026, 4, 30))
    result = timed_hybrid(dated_ws.retriever, "bread focaccia yesterday", 10, today=TODAY, filters=filters)
    assert result.time.words == "" and result.time.after == date(2026, 4, 20)
    assert {h.chunk.path for h in result.hits} == {"Daily/2026-04-28.md", "Notes/Bread.md"}  # a row of 26 April


def test_the_period_is_read_against_the_settings_today_and_can_be_switched_off(dated_settings, fake_embedder):
    live = LiveIndex(dated_settings.replace(today="2026-05-08"), embedder=fake_embedder, create=True)
    try:
        live.workspace().sync()
        found = Knowledge(live).search("greenhouse last week", 5)
        assert found.time.before == date(2026, 5, 3)
        assert Knowledge(live).search("greenhouse last week", 5, read_time=False).time is None
        off = Knowledge(LiveIndex(dated_settings.replace(time_questions=False), embedder=fake_embedder))
        try:
            assert off.search("greenhouse last week", 5).time is None
        finally:
            off.live.close()
    finally:
        live.close()


def test_when_did_i_last_quotes_the_latest_log_row_up_to_today_and_dates_citations(dated_vault, tmp_path, real_embedder):
    settings = load_settings(vault=dated_vault, db_path=tmp_path / "real" / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        answer = ask(ws, "When did I last bake bread?", today=TODAY)
        assert answer.time.newest_first and answer.time.words == "last"
        assert "2026-04-26 | focaccia" in answer.text  # the last row up to today, not June's plan nor an older row
        assert "2026-03-29" not in answer.text and "2026-06-01" not in answer.text
        dated = ask(ws, "Which firmware did I flash to the greenhouse controller?", today=TODAY)
        assert "· 28 April 2026 [S" in dated.text  # the day beside the citation of a dated note
        cited = next(c for c in dated.citations if c.path == "Daily/2026-04-28.md")
        assert cited.day == "2026-04-28"


@pytest.mark.xfail(
    strict=True,
    reason="issue 53: after the refit of stop 62 this Russian question about an English note reads at 0.40 against the "
    "across-languages threshold 0.48 (the answerability model's across features moved: xquad-en2ru +0.11 key, this case lost)",
)
def test_a_question_in_the_other_language_dates_its_citation_in_the_questions_language(dated_vault, tmp_path, real_embedder):
    settings = load_settings(vault=dated_vault, db_path=tmp_path / "real" / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        assert ask(ws, "Какую прошивку я залил в контроллер теплицы на столе?", today=TODAY).text.count("· 28 апреля 2026") >= 1


def test_a_time_question_is_answered_from_the_passage_its_period_selected(dated_vault, tmp_path, real_embedder):
    """The period, the act and a day in range are the answer's evidence: the reader reads the question without its
    time words and knows which units are from then, instead of turning the dated passage down as "not found"."""
    settings = load_settings(vault=dated_vault, db_path=tmp_path / "real" / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        answer = ask(ws, "What did I flash on 28 April?", today=TODAY)
        assert answer.time.narrows and answer.time.after == date(2026, 4, 28)
        assert not answer.not_found and "firmware v0.3" in answer.text
        loaf = ask(ws, "Which loaf did I bake in late April?", today=TODAY)
        assert "focaccia" in loaf.text and "2026-03-29" not in loaf.text  # the row from then, not the log's other rows


# A month of a person's journal and chats (EN and RU), for questions whose period holds passages about other things.
JOURNAL = {
    "Journal/2026-03-02.md": "# 2 March 2026\n\n- Put the Golf up for sale, asking 6300 euros.\n"
    "- Decided to cycle to work from now on: it is faster than driving in town.\n",
    "Journal/2026-03-14.md": "# 14 March 2026\n\n- Decided to renew the flat lease for another year; the rent stays at 650.\n"
    "- Finished reading Klara and the Sun.\n",
    "Journal/2026-03-21.md": "# 21 March 2026\n\n- Sold the Golf for 5,800 euros to a buyer from Novi Sad.\n",
    "Chats/2026-03-09 Аня.md": "# Переписка с Аней, 9 марта 2026\n\n**Аня:** Как выходные?\n"
    "**Я:** В субботу лазил на Овчаре, пролез первую 6a.\n**Аня:** Поздравляю!\n",
    "Journal/2026-04-04.md": "# 4 April 2026\n\n- Planted cherry tomatoes and basil on the balcony.\n",
}


@pytest.mark.xfail(
    strict=True,
    reason="issue 54 item 1: the reader quotes the period's passage about something else (the Golf for the boat); "
    "topic features gated by the period got near-zero weights from bench/reader_fit.py (13 near-topic negatives)",
)
def test_a_period_question_whose_topic_the_period_lacks_is_not_found(tmp_path, real_embedder):
    """The period chooses the passages, the topic decides whether they answer: March's notes about the car, the flat
    and a climb do not say what I decided about a boat, bought for the cat or baked then, in either language; March's
    own questions, and one whose only topic is its time, are answered from the period."""
    root = tmp_path / "vault"
    write_notes(root, JOURNAL)
    settings = load_settings(vault=root, db_path=tmp_path / "index.db", env={})
    today = date(2026, 4, 10)
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        for question in ("What did I decide about the boat in March?", "What did I bake in March?", "Что я купил для кошки в марте?"):
            answer = ask(ws, question, today=today)
            assert answer.time.narrows, question
            assert answer.not_found, (question, answer.text)
        assert "flat lease" in ask(ws, "What did I decide about the flat in March?", today=today).text
        assert "5,800" in ask(ws, "How much did I sell the Golf for in March?", today=today).text
        assert "6a" in ask(ws, "Что я пролез в марте?", today=today).text
        assert "tomatoes" in ask(ws, "What did I do on 4 April?", today=today).text


def test_a_question_about_a_span_of_days_quotes_each_days_part_and_a_logs_rows_from_then_as_one(tmp_path, real_embedder):
    """ "What happened with the Golf in March?" is two days of the journal, not the best one; a log's rows from the
    span are one quote under the table's header, not one quote a row; a question about one day stays one quote."""
    root = tmp_path / "vault"
    write_notes(root, {**JOURNAL, "Notes/Bread.md": NOTES["Notes/Bread.md"]})
    settings = load_settings(vault=root, db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        golf = ask(ws, "What happened with the Golf in March?", today=date(2026, 4, 10))
        assert "5,800 euros" in golf.text and "asking 6300 euros" in golf.text, golf.text
        assert "tomatoes" not in golf.text  # April's note is outside the span
        paths = [golf.context.get(q.source_id).path for q in golf.quotes]
        assert {"Journal/2026-03-02.md", "Journal/2026-03-21.md"} <= set(paths)
        loaves = ask(ws, "Which loaves did I bake between March 1 and April 30?", today=date(2026, 5, 8))
        (table,) = [q for q in loaves.quotes if "| Date | Loaf |" in q.text]
        assert "2026-03-29 | everyday loaf" in table.text and "2026-04-26 | focaccia" in table.text
        assert "2026-06-01" not in loaves.text and loaves.text.count("| Date | Loaf |") == 1
        one_day = ask(ws, "How much did I sell the Golf for on 21 March?", today=date(2026, 4, 10))
        assert len(one_day.quotes) == 1 and "5,800" in one_day.text and "6300" not in one_day.text


def test_a_note_of_one_sentence_is_read_by_its_own_vector_and_quoted(dated_vault, tmp_path, real_embedder):
    # "Planted 24 tomatoes in the greenhouse." is all of 2 May's note: its sentence had no vector of its own (the
    # chunk's stood for it), the reader read its cosine as 0 and never quoted it, though it was the best passage
    settings = load_settings(vault=dated_vault, db_path=tmp_path / "real" / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        answer = ask(ws, "What did I do on the greenhouse last week?", today=TODAY)
        assert "Planted 24 tomatoes" in answer.text and "firmware v0.3" in answer.text, answer.text


def test_recently_is_the_newest_line_about_what_is_asked_not_the_newest_line(tmp_path, real_embedder):
    # "What has Kostya been involved in recently?" quoted 3 May's plan for the next day (newer, within the margin,
    # no word of the question) instead of 28 April's code review from Kostya
    root = tmp_path / "vault"
    notes = {
        "Daily/2026-04-28.md": "# Tuesday, 28 April 2026\n\n## Log\n\n- 10:00 — Work: finished the retry logic for the carrier"
        " API.\n  Code review from Kostya tomorrow.\n- 18:00 — Genki I, chapter 8.\n",
        "Daily/2026-05-03.md": "# Sunday, 3 May 2026\n\n## Tomorrow\n\n1. Work: deploy the carrier API retry change.\n"
        "2. Lead session with Slava.\n3. Buy tape.\n",
    }
    write_notes(root, notes)
    settings = load_settings(vault=root, db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        answer = ask(ws, "What has Kostya been involved in recently?", today=date(2026, 5, 6))
        assert answer.time.newest_first and "Code review from Kostya" in answer.text, answer.text
        assert "Lead session" not in answer.text


def test_an_index_from_before_dates_gets_them_on_the_next_sync_without_embedding_again(dated_settings, fake_embedder):
    with Workspace.open(dated_settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        rules = json.loads(ws.store.get_meta("rules"))
        ws.store.set_meta("rules", json.dumps(rules[:-1], ensure_ascii=False))  # the rules as they were without dates
        with ws.store.transaction() as db:
            db.execute("UPDATE chunks SET day = NULL, day_source = NULL")
            db.execute("DELETE FROM chunk_days")
        report = ws.sync()
        assert report.files_updated == len(NOTES) and report.chunks_embedded == 0  # re-derived, vectors reused
        assert days(ws, "Daily/2026-05-02.md") == [("2026-05-02", "file name", None)]
        assert json.loads(ws.store.get_meta("rules"))[-1] == sync_module.DATES_VERSION


def test_cli_search_says_which_days_it_searched_and_gives_each_hit_its_day(dated_vault, tmp_path):
    place = ["--vault", str(dated_vault), "--db", str(tmp_path / "cli" / "index.db")]
    assert CliRunner().invoke(cli, ["index", *place], catch_exceptions=False).exit_code == 0  # the real local model
    base = ["search", "greenhouse last week", *place]
    env = {"RAG_TODAY": "2026-05-08"}
    run = CliRunner().invoke(cli, base, env=env, catch_exceptions=False)
    assert run.exit_code == 0, run.output
    assert "searching notes from 27 April – 3 May 2026 (“last week”; --no-time searches all dates)" in run.stderr
    assert "Daily/2026-05-02.md" in run.stdout and "· 2 May 2026" in run.stdout
    hits = json.loads(CliRunner().invoke(cli, [*base, "--json"], env=env, catch_exceptions=False).stdout)
    assert hits and all(h["day"] and h["day_source"] for h in hits)
    plain = CliRunner().invoke(cli, [*base, "--no-time"], env=env, catch_exceptions=False)
    assert "searching notes" not in plain.stderr and "Daily/2026-03-10.md" in plain.stdout
    ranged = CliRunner().invoke(cli, [*base[:1], "greenhouse", *base[2:], "--after", "2026-03-01", "--before", "2026-03-31"], env=env)
    assert "Daily/2026-03-10.md" in ranged.stdout and "Daily/2026-05-02.md" not in ranged.stdout
    assert "searching notes from 1–31 March 2026" in ranged.stderr
    bad = CliRunner().invoke(cli, [*base, "--after", "March"], env=env)
    assert bad.exit_code == 2 and "YYYY-MM-DD" in bad.output.replace("%Y-%m-%d", "YYYY-MM-DD")
    backwards = CliRunner().invoke(cli, [*base, "--after", "2026-05-10", "--before", "2026-05-01"], env=env)
    assert backwards.exit_code == 1 and "ends before it starts (2026-05-10 to 2026-05-01): swap after and before" in backwards.output


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_search_and_ask_take_a_range_and_say_the_time_they_kept_to(dated_settings, fake_embedder):
    with Workspace.open(dated_settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    live = LiveIndex(dated_settings.replace(today="2026-05-08"), embedder=fake_embedder)
    try:
        async with Client(build_server(Knowledge(live)), mode="legacy") as client:
            found = (await client.call_tool("knowledge_search", {"query": "greenhouse last week"})).structured_content
            assert found["time"]["words"] == "last week" and found["time"]["after"] == "2026-04-27"
            assert found["results"] and all(r["day"] for r in found["results"])
            ranged = await client.call_tool("knowledge_search", {"query": "greenhouse", "after": "2026-03-01", "before": "2026-03-31"})
            # the March daily note, and the bread log for its row of 29 March
            assert {r["path"] for r in ranged.structured_content["results"]} == {"Daily/2026-03-10.md", "Notes/Bread.md"}
            plain = await client.call_tool("knowledge_search", {"query": "greenhouse last week", "read_time": False})
            assert plain.structured_content["time"] is None
            asked = (await client.call_tool("knowledge_ask", {"question": "What did I plant in the greenhouse last week?"})).structured_content
            assert asked["time"]["before"] == "2026-05-03"
            assert any(c["day"] == "2026-05-02" for c in asked["citations"])
            wrong = await client.call_tool("knowledge_search", {"query": "greenhouse", "after": "last week"})
            assert wrong.is_error
            backwards = await client.call_tool("knowledge_ask", {"question": "greenhouse", "after": "2026-05-10", "before": "2026-05-01"})
            assert backwards.is_error and "ends before it starts" in backwards.content[0].text
    finally:
        live.close()
    await anyio.sleep(0)


def test_a_fixed_today_that_is_not_a_date_is_a_clear_error(dated_settings, fake_embedder):
    live = LiveIndex(dated_settings.replace(today="tomorrow"), embedder=fake_embedder, create=True)
    try:
        with pytest.raises(ConfigError, match=r"today = 'tomorrow' is not a date \(YYYY-MM-DD\)"):
            Knowledge(live).search("greenhouse last week", 5)
    finally:
        live.close()


def test_a_model_reads_each_source_with_its_day_and_its_answer_cites_it_with_that_day(dated_ws):
    with FakeOpenAI() as server:
        server.script_chat("You planted 24 tomatoes [S1].")
        chat = OpenAIChat(dated_ws.settings.replace(chat_model="fake-chat", openai_base_url=server.base_url, request_timeout=5.0, max_retries=0))
        try:
            answer = ask(dated_ws, "What did I plant in the greenhouse last week?", chat=chat, today=TODAY)
        finally:
            chat.close()
        prompt = "\n".join(m["content"] for m in server.requests[-1]["json"]["messages"])
    assert "Daily/2026-05-02.md › Saturday, lines 1-3 (2026-05-02)" in prompt  # inside the fence, with the sources
    assert answer.citations[0].path == "Daily/2026-05-02.md" and answer.citations[0].day == "2026-05-02"
    assert answer.time.words == "last week"


def test_a_dated_heading_that_shares_a_passage_gives_it_its_day(tmp_path, index_location, fake_embedder):
    """«Что обсуждали на планёрке 24 ноября?»: the 24 November section sits in one passage with the 23rd's; the
    passage is from both days, so the period finds it instead of saying no note is from then."""
    vault = tmp_path / "vault"
    (vault / "Work").mkdir(parents=True)
    (vault / "Work" / "Планёрки.md").write_text(
        "# Планёрки\n\n## 2026-11-23\n\nНа планёрке обсуждали дорожную карту.\n\n"
        "## 2026-11-24\n\nНа планёрке обсуждали чек-лист релиза и доску задач.\n",
        encoding="utf-8",
    )
    (vault / "Other.md").write_text("# Другое\n\nСписок покупок: хлеб, молоко.\n", encoding="utf-8")
    settings = load_settings(vault=vault, db_path=index_location, env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        (chunk,) = ws.store.chunks_of("Work/Планёрки.md")  # one passage holds both days
        assert ws.store.latest_entry_days([chunk.rowid], "9999-12-31")[chunk.rowid] == "2026-11-24"
        result = timed_hybrid(ws.retriever, "Что обсуждали на планёрке 24 ноября?", 5, today=date(2026, 12, 6))
        assert result.time.applied and result.time.after == date(2026, 11, 24)
        assert [h.chunk.path for h in result.hits] == ["Work/Планёрки.md"]


def test_a_period_is_a_preference_an_event_written_down_days_later_is_found(tmp_path, index_location, fake_embedder):
    """Saturday's climb is written in Monday's note: the period (Saturday) ranks its own passages first but searches
    the days after it too, instead of hiding the note that answers."""
    vault = tmp_path / "vault"
    (vault / "Daily").mkdir(parents=True)
    (vault / "Daily" / "2026-05-02.md").write_text("# Saturday\n\nPlanted 24 tomatoes in the greenhouse.\n", encoding="utf-8")
    (vault / "Daily" / "2026-05-04.md").write_text("# Monday\n\nOn Saturday we climbed the north wall with Slava.\n", encoding="utf-8")
    (vault / "Daily" / "2026-04-20.md").write_text("# Monday\n\nClimbed the north wall alone in the rain.\n", encoding="utf-8")
    settings = load_settings(vault=vault, db_path=index_location, env={}, sentence_vectors=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        result = timed_hybrid(ws.retriever, "Where did I climb on Saturday?", 5, today=date(2026, 5, 8))
    assert result.time.applied and (result.time.after, result.time.before) == (date(2026, 5, 2), date(2026, 5, 2))
    paths = [h.chunk.path for h in result.hits]
    assert "Daily/2026-05-04.md" in paths  # two days after the range: written down later
    assert "Daily/2026-04-20.md" not in paths  # a climb from another week is not what was asked


def _unit_in(text: str, day: str | None = None):
    """A candidate unit of a passage with `text`, from a note dated `day` (or undated)."""
    from rag.answer.context import Source
    from rag.answer.quotable import LIST, Unit
    from rag.answer.reader import Candidate

    source = Source("S1", "Projects/Garden.md", "Garden", 1, 9, "", text, 1.0, day=day, day_source="frontmatter" if day else None)
    return Candidate(Unit(text, text, 1, text.count("\n") + 1, "Milestones", LIST, 0, 0), source, 0)


def test_a_log_unit_is_from_a_period_by_the_share_of_its_entries_in_it():
    """A year's milestones, one of them in March, are not "from March" as March's own line is: the reader sees a log
    list by the share of its entries from the period, so it quotes the entry (or March's note), not the whole list."""
    from rag.answer.reader import in_period

    march = (date(2026, 3, 1), date(2026, 3, 31))
    milestones = "- [x] 2025-09-14 — project started\n- [x] 2025-11-30 — sensors on the bench\n- [x] 2026-03-14 — storage decided\n- [ ] 2026-06-01 — first month"
    assert in_period(_unit_in(milestones), march) == -0.5  # 1 of 4: 2 × ¼ − 1
    assert in_period(_unit_in("- [x] 2026-03-14 — storage decided"), march) == 1.0
    assert in_period(_unit_in("- [x] 2025-09-14 — project started"), march) == -1.0
    assert in_period(_unit_in("Decided to use SQLite.", "2026-03-14"), march) == 1.0  # no entries: the passage's day
    assert in_period(_unit_in("Decided to use SQLite."), march) == 0.0


def test_a_period_question_is_read_without_its_time_words_nor_their_possessive():
    """ "yesterday's note" read without "yesterday" is "note": a stray "'s" is not a word of the question."""
    from rag.answer.ask import read_in_period
    from rag.search.results import TimeScope

    day = date(2026, 5, 3)
    scope = TimeScope(day, day, words="yesterday")
    assert read_in_period("What climbing did I plan in yesterday's note?", scope) == ("What climbing did I plan in note?", (day, day))
    assert read_in_period("What did I plan yesterday?", scope)[0] == "What did I plan ?"


def test_a_when_did_i_last_question_is_read_without_its_time_words_and_no_period():
    """ "когда я последний раз …" orders the search newest first; the reader reads what was done, not «последний раз»
    (two words no note says, which counted against the answer and turned the right day down as "not found")."""
    from rag.answer.ask import read_in_period
    from rag.search.results import TimeScope

    newest = TimeScope(None, None, newest_first=True, words="последний раз")
    assert read_in_period("Когда я последний раз кормил закваску?", newest) == ("Когда я кормил закваску?", None)
    assert read_in_period("When did I last bake bread?", TimeScope(None, None, newest_first=True, words="last")) == ("When did I bake bread?", None)


@pytest.mark.parametrize(
    "question, keys",
    [
        ("Когда я последний раз кормил закваску?", ("Покормил Бублика", "2 мая")),  # Бублик is the starter: Daily/2026-05-02
        ("Когда я последний раз ездил на дачу?", ("Высокую Гору", "2 мая")),
    ],
)
def test_when_did_i_last_on_the_demo_answers_with_the_day_it_was_done(demo, question, keys):
    answer = ask(demo, question, today=date(2026, 5, 6))
    assert answer.time.newest_first and not answer.not_found, answer.text
    assert all(k in answer.text for k in keys), answer.text
