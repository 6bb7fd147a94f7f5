"""Text a new user must not be misled by: where a passage and a quote are in their note (two sibling sections are
never shown one inside the other), wikilinks read as a person reads them, not as `[[…]]`."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from rag.answer import quotable
from rag.answer.context import build_context
from rag.answer.extractive import extract
from rag.cli import cli
from rag.index.chunking import chunk_note
from rag.search.results import Hit
from rag.text import wikilinks
from rag.web import untrusted

from .app_harness import answers, ask, shown, texts
from .openai_server import FakeOpenAI

DECISION = """---
title: Storage decision
---

# 2026-03-14 Use SQLite instead of Postgres

## Options considered

| Option | Pros | Cons |
|---|---|---|
| PostgreSQL | great for time series, used at work | another service to run and upgrade |
| SQLite | single file, zero operations | one writer at a time |

## Decision

Use SQLite in WAL mode, as described in [[Notes/SQLite WAL|the WAL note]]. There is exactly one writer process.

## When to revisit

- If a second process needs to write.
- If the database grows beyond 5 GB.
"""

DAY = """---
title: "2026-05-02"
---

# Суббота, 2 мая 2026

## Утро: переезд

- Отвезли на Ершова первые шесть коробок книг на машине Марата.

## День: дача

Ездили в Высокую Гору проверить теплицу. Посадили рассаду: 24 куста томатов и 10 огурцов.
"""


def words(text: str) -> int:
    return len(text.split()) + 2


def test_a_chunk_over_two_sibling_sections_is_under_their_parent_and_its_headings_read_as_shown():
    text = "# Plan\n\n## Costs in [[Budget|the budget]]\n\nFlights cost 400.\n\n## **Dates**\n\nWe leave on 3 May.\n"
    (chunk,) = chunk_note("Trip.md", text, count_tokens=words, target=200, hard=400, min_tokens=100)
    assert chunk.heading_path == "Plan", "a chunk over two sibling sections is under their parent"
    small = chunk_note("Trip.md", text, count_tokens=words, target=6, hard=400, min_tokens=1)
    paths = {c.text.split("\n")[-1]: c.heading_path for c in small}
    assert paths["Flights cost 400."] == "Plan › Costs in the budget", "no [[…]] in a heading path"
    assert paths["We leave on 3 May."] == "Plan › Dates", "no ** in a heading path"


def test_a_section_nested_in_a_passage_that_also_holds_its_parents_sibling_keeps_that_parent():
    text = "## Plan\n\nWe go in May.\n\n### Costs\n\nFlights cost 400.\n\n## Packing\n\nTake boots.\n"
    sections = {u.text: u.section for u in quotable.units(text, 10)}
    assert sections == {"We go in May.": "Plan", "Flights cost 400.": "Plan › Costs", "Take boots.": "Packing"}
    inside = "# Суббота\n\n## Утро\n\n- Коробки книг.\n"  # every line is under "Суббота › Утро": the leaf names it
    assert {u.section for u in quotable.units(inside)} == {"Утро"}


def _source_over_all_chunks(workspace, vault, name: str, text: str):
    (vault / name).write_text(text, encoding="utf-8")
    workspace.sync()
    chunks = workspace.store.chunks_of(name)
    assert len(chunks) >= 2, "the test needs a passage of several chunks"
    ctx = build_context([Hit(c, 1.0 - i / 100) for i, c in enumerate(chunks)], vault=vault)
    assert len(ctx.sources) == 1, "neighbouring chunks of one note make one source"
    return chunks, ctx


@pytest.mark.parametrize(
    "name, text, question, shown_under, heading",
    [
        (
            "Storage decision.md",
            DECISION,
            "When should I revisit the storage decision, how big may the database grow?",
            "Storage decision › 2026-03-14 Use SQLite instead of Postgres › When to revisit",
            "Storage decision › 2026-03-14 Use SQLite instead of Postgres",
        ),
        (
            "Daily/2026-05-02.md",
            DAY,
            "Сколько кустов томатов посадили на даче?",
            "2026-05-02 › Суббота, 2 мая 2026 › День: дача",
            "2026-05-02 › Суббота, 2 мая 2026",
        ),
    ],
)
def test_a_quote_is_labelled_with_its_own_section_and_real_ancestors_not_the_passages_first_section(
    workspace, vault, name, text, question, shown_under, heading
):
    (vault / "Daily").mkdir(exist_ok=True)
    chunks, ctx = _source_over_all_chunks(workspace, vault, name, text)
    (source,) = ctx.sources
    assert source.heading == heading, f"the passage starts under {chunks[0].heading_path!r} but holds its siblings too"
    found = extract(question, ctx)
    assert not found.not_found and found.quotes
    assert found.quotes[0].label == shown_under
    assert all(q.label.count(" › ") <= shown_under.count(" › ") for q in found.quotes), [q.label for q in found.quotes]


def test_an_index_with_heading_paths_of_the_old_rule_re_derives_them_without_embedding_again(workspace, vault, monkeypatch):
    from rag.index import sync

    (vault / "Trip.md").write_text("# Plan\n\n## Costs in [[Budget|the budget]]\n\nFlights cost 400 euros each way.\n", encoding="utf-8")
    rule = sync.HEADING_PATH_VERSION
    monkeypatch.setattr(sync, "HEADING_PATH_VERSION", rule - 1)  # the index as the rule before it wrote it
    workspace.sync()
    with workspace.store.transaction() as db:
        db.execute("UPDATE chunks SET heading_path = 'Plan › Costs in [[Budget|the budget]]' WHERE path = 'Trip.md'")
    monkeypatch.setattr(sync, "HEADING_PATH_VERSION", rule)
    report = workspace.sync()
    assert report.files_updated >= 1 and report.chunks_embedded == 0, "re-derived, vectors reused"
    assert [c.heading_path for c in workspace.store.chunks_of("Trip.md")] == ["Plan › Costs in the budget"]


# --- Wikilinks read as a person reads them ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written, shown",
    [
        ("See [[SQLite WAL]].", "See SQLite WAL."),
        ("See [[Notes/SQLite WAL|the WAL settings]].", "See the WAL settings."),
        ("See [[Home lab#Network]] and [[#Costs]].", "See Home lab › Network and Costs."),
        ("See [[Home lab.md#^a1b2]].", "See Home lab."),
        ("![[Attachments/greenhouse.png|300]] ![[Plan]]", "greenhouse.png Plan"),
        ("| [[Notes/SQLite WAL\\|WAL]] | on |", "| WAL | on |"),
    ],
)
def test_a_wikilink_reads_as_its_alias_or_the_notes_name(written, shown):
    assert wikilinks.readable(written) == shown


def test_a_streamed_reply_shows_a_wikilink_split_across_pieces_as_one_readable_name():
    out: list[str] = []
    stream = wikilinks.ReadableStream(out.append)
    for piece in ["Use WAL (see [", "[Notes/SQLite", " WAL|the WAL note]", "]) and ![", "[Plan]] [S1]. Open [[never closed"]:
        stream(piece)
    stream.close()
    assert "".join(out) == "Use WAL (see the WAL note) and Plan [S1]. Open [[never closed"


def test_an_answer_shows_wikilinks_as_names_and_links_only_notes_of_this_vault(tmp_path):
    vault = tmp_path / "My vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes" / "SQLite WAL.md").write_text("# WAL\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text("secret\n", encoding="utf-8")
    (vault / "Notes" / "Escape.md").symlink_to(tmp_path / "outside.md")
    reply = "Use WAL ([[SQLite WAL|settings]]), see [[Notes/SQLite WAL#Checkpoints]], [[Missing note]], [[Escape]] and ![[x.png]]."
    html = untrusted.markdown_html(reply, vault=vault)
    assert "[[" not in html and "]]" not in html
    live = re.findall(r'<a href="([^"]+)" data-obsidian="\1" class="rag-wikilink">([^<]+)</a>', html)
    wal = "obsidian://open?vault=My%20vault&amp;file=Notes%2FSQLite%20WAL.md"
    assert live == [(wal, "settings"), (wal, "SQLite WAL › Checkpoints")]
    for name in ("Missing note", "Escape", "x.png"):  # no such note, a link out of the vault, a picture: text only
        assert f'<span class="rag-wikilink">{name}</span>' in html
    assert "[[" not in untrusted.markdown_html(reply) and "obsidian" not in untrusted.markdown_html(reply)  # no vault
    assert untrusted.markdown_html("`[[code]]`") == "<p><code>[[code]]</code></p>\n", "code shows what is written"
    assert untrusted.words("[[SQLite WAL|settings]] *on*") == "settings \\*on\\*"


def test_a_wikilink_opens_the_note_obsidian_would_open(tmp_path):
    from rag.notes.links import note_for

    for path in ("Plan.md", "Archive/2025/Plan.md", "Projects/Alpha/Plan.md", ".trash/Budget.md", "Notes/Budget.md"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n", encoding="utf-8")
    opens = lambda written: note_for(tmp_path, wikilinks.parse(wikilinks.WIKILINK.search(written)))  # noqa: E731
    assert opens("[[Projects/Alpha/Plan|the plan]]") == "Projects/Alpha/Plan.md", "a path from the vault's root first"
    assert opens("[[plan]]") == "Plan.md" and opens("[[Plan.md#Costs]]") == "Plan.md", "else the shortest path of that name"
    assert opens("[[Budget]]") == "Notes/Budget.md", "hidden folders are not the vault's notes"
    assert opens("[[Projects/Beta/Plan]]") is None and opens("[[#Costs]]") is None and opens("![[plan.png]]") is None


def test_the_cli_prints_quotes_with_wikilinks_as_names(vault, tmp_path, monkeypatch, fake_embedder):
    # What the CLI prints of an answer goes through `wikilinks.ReadableStream` (a model's streamed reply too: above)
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: fake_embedder)  # the model seam: no model load
    place = ["--vault", str(vault), "--db", str(tmp_path / "cli" / "index.db")]
    assert CliRunner().invoke(cli, ["index", *place], catch_exceptions=False).exit_code == 0
    quotes = CliRunner().invoke(cli, ["ask", "Where are my tools and flour?", "--extractive", *place])
    assert quotes.exit_code == 0, quotes.output
    assert "See my tools and Flour." in quotes.stdout and "[[" not in quotes.stdout


def test_the_app_shows_a_replys_wikilinks_as_names_and_links_a_note_of_the_vault(app, vault, monkeypatch):
    # quotes of notes are drawn by the same `answer_html` (the untrusted.markdown_html test above)
    (vault / "Notes" / "Flour.md").write_text("# Mill\n\nT55 and T65.\n", encoding="utf-8")
    with FakeOpenAI() as server:
        server.script_chat("My standard loaf uses a stiff levain, see [[Kitchen tools|my tools]] and [[Flour]] [S1].")
        monkeypatch.setenv("RAG_CHAT_MODEL", "fake-chat")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = ask(app(), "What levain does my standard loaf use?")
    answer, listed = answers(at), shown(at.markdown) + texts(at.warning)
    flour = "obsidian://open?vault=vault&amp;file=Notes%2FFlour.md"
    assert f'see <span class="rag-wikilink">my tools</span> and <a href="{flour}" data-obsidian="{flour}" class="rag-wikilink">Flour</a>' in answer
    assert "My standard loaf uses a stiff levain, see my tools and Flour" in listed  # each checked sentence, below it
    assert "[[" not in answer + listed


def test_similar_notes_rows_grow_with_the_longest_path_so_the_grid_never_cuts_it():
    from rag.web import table_fit

    short = table_fit.row_px([("INDEX.md", 192)])
    long = table_fit.row_px([("Projects/Alpha/Decisions/2026-05-02 Move the sensor logger to the Raspberry Pi.md", 192)])
    assert short > table_fit.WRAPS_ABOVE, "rows tall enough for the grid to wrap at all"
    assert long > short and table_fit.lines("Projects/Alpha/Decisions/2026-05-02 Move the sensor logger.md", 192) >= 3
    assert table_fit.lines("日本語のノート" * 4, 192) > table_fit.lines("abcdefg" * 4, 192), "wide script, wider estimate"


def test_a_quoted_callout_shows_its_kind_as_a_label_not_its_marker():
    # the demo's 2 May note: «> [!note]» above mum's advice read "[!note]" in the answer
    html = untrusted.markdown_html("> [!note]\n> Мама сказала, что в теплицу — можно.\n\n> > [!tip]- Feed it **twice**")
    assert "[!" not in html
    assert "<p><strong>Note</strong>\nМама сказала" in html and "<strong>Tip</strong> Feed it <strong>twice</strong>" in html
    assert untrusted.markdown_html("[!note] outside a quote") == "<p>[!note] outside a quote</p>\n"  # only a quote's first line
    linked = untrusted.markdown_html("> [!x](https://evil.example/p) hi")
    assert "<a" not in linked and "https://evil.example/p" in linked  # a marker-like link stays text
