"""A note's title, aliases and frontmatter description are keyword fields of its own: a query naming the note finds it
first, ahead of notes that only use the same words in their text; an index made before the fields gets them without
re-embedding anything."""

from __future__ import annotations

import sqlite3

import pytest

from rag.config import load_settings
from rag.index import blobs, schema, text_rows
from rag.index.store import Store
from rag.notes.vault import parse_frontmatter
from rag.search.by_note import search_notes
from rag.search.filters import Filters
from rag.workspace import Workspace
from tests.old_schema import as_schema_11, words_as_int8

NOTES = {
    # the notes the queries name; their bodies do not repeat their names
    "Notes/Budget.md": "# Quarterly budget review\n\nWe met on Tuesday. Marketing asked for two more hires and travel is cut by a fifth.\n",
    "Notes/Иван.md": "---\naliases: [Ваня Петров]\n---\n\nДрузья с университета. Любит шахматы и горы, живёт в Казани.\n",
    "Notes/Moving.md": "---\ndescription: Checklist for moving apartments\n---\n\n- boxes and tape\n- book the van for Saturday\n- new keys\n",
    # notes that only use the same words in their text, some of them repeatedly
    "Notes/Finance.md": "# Finance\n\nThe budget for this quarter is tight. Each budget line gets a review, and the quarterly review of the budget is due.\n",
    "Notes/Code.md": "# Code reviews\n\nEvery review checks the quarterly goals; a budget review is not a code review.\n",
    "Notes/Звонки.md": "# Звонки\n\nВаня Петров звонил вчера и обещал прислать отчёт до пятницы.\n",
    "Notes/Flat.md": "# Flat hunting\n\nMoving is expensive. We saw three apartments; moving in May, and the apartments near the park are best.\n",
    "Notes/Todo.md": "# Todo\n\nA checklist for the week: a checklist item for moving the desk, another checklist for the garden.\n",
}


def write_vault(vault, notes=NOTES):
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")


def open_named(vault, location, embedder) -> Workspace:
    write_vault(vault)
    settings = load_settings(vault=vault, db_path=location, env={}, sentence_vectors=False)
    ws = Workspace.open(settings, create=True, embedder=embedder)
    ws.sync()
    return ws


@pytest.fixture
def named(new_vault, index_location, fake_embedder):
    with open_named(new_vault, index_location, fake_embedder) as ws:
        yield ws


@pytest.fixture
def named_real(new_vault, index_location, real_embedder):
    with open_named(new_vault, index_location, real_embedder) as ws:
        yield ws


def keyword_notes(ws, query, **kw) -> list[str]:
    return list(dict.fromkeys(h.chunk.path for h in ws.retriever.keyword(query, 20, **kw).hits))


@pytest.mark.both_backends
@pytest.mark.parametrize(
    "query, note",
    [
        ("Quarterly budget review", "Notes/Budget.md"),  # its H1 title
        ("Иван", "Notes/Иван.md"),  # its file name, the title when a note has no heading
        ("Ваня Петров", "Notes/Иван.md"),  # an alias; another note names him in its text
        ("checklist moving apartments", "Notes/Moving.md"),  # its description
    ],
)
def test_a_query_naming_a_note_ranks_it_first_among_notes_using_the_words(named, query, note):
    assert keyword_notes(named, query)[0] == note


@pytest.mark.both_backends
@pytest.mark.parametrize(
    "query, note",
    [("Quarterly budget review", "Notes/Budget.md"), ("Ваня Петров", "Notes/Иван.md"), ("checklist moving apartments", "Notes/Moving.md")],
)
def test_the_note_search_ranks_a_named_note_first_with_the_real_model(named_real, query, note):
    # The meaning channel sees titles (in each passage's heading context) but not aliases or descriptions: there
    # the keyword fields carry the note to the top.
    assert search_notes(named_real.retriever, query).notes[0].path == note


@pytest.mark.both_backends
def test_the_title_lifts_the_notes_passage_that_also_matches_the_rest_of_the_query(named, new_vault):
    body = "\n\n".join(f"## Part {i}\n\n" + ("Long minutes of the meeting with no names at all. " * 12) for i in range(4))
    (new_vault / "Notes/Budget.md").write_text(
        f"# Quarterly budget review\n\n{body}\n\n## Hires\n\nMarketing asked for two more hires.\n", encoding="utf-8"
    )
    named.sync()
    hits = named.retriever.keyword("quarterly budget review hires", 5).hits
    assert hits[0].chunk.path == "Notes/Budget.md" and "hires" in hits[0].chunk.text


def test_a_title_is_counted_once_in_its_field_not_again_in_each_passages_heading_context(named, new_vault):
    sections = "\n\n".join(f"## Part {i}\n\n" + "Minutes of the meeting, with no names at all. " * 30 for i in range(3))
    (new_vault / "Notes/Budget.md").write_text(f"# Quarterly budget review\n\n{sections}\n", encoding="utf-8")
    named.sync()
    rows = sqlite3.connect(named.settings.db_path).execute(  # the FTS5 rows as inserted (rag/index/text_rows.py)
        f"SELECT k.packed, {text_rows.INDEX_TEXT} FROM chunk_keywords k JOIN chunks c ON c.rowid = k.chunk WHERE c.path = 'Notes/Budget.md' ORDER BY c.ordinal"
    )
    later = [text_rows.unpack(packed, index_text)[:2] for packed, index_text in rows][1:]
    assert later and all(title == "quarter budget review" and "budget" not in stems and "part" in stems for stems, title in later)


@pytest.mark.both_backends
def test_a_filtered_search_ranks_by_the_title_fields_too(named_real):
    assert keyword_notes(named_real, "Quarterly budget review", filters=Filters(folders=("Notes",)))[0] == "Notes/Budget.md"
    assert named_real.retriever.hybrid("Ваня Петров", 3, filters=Filters(folders=("Notes",))).hits[0].chunk.path == "Notes/Иван.md"


@pytest.mark.both_backends
@pytest.mark.parametrize("query", ['title: "budget"', "aliases:Ваня OR description*", "{title description}: NEAR(budget", "stems^"])
def test_column_names_and_fts_syntax_in_a_query_are_words(named, query):
    named.retriever.keyword(query, 5)  # does not raise: every term is quoted
    named.retriever.hybrid(query, 5)


@pytest.mark.both_backends
def test_a_note_named_by_a_column_name_is_found_by_it(named, new_vault):
    write_vault(new_vault, {"Notes/Description.md": "# Description\n\nHow to write one.\n"})
    named.sync()
    assert keyword_notes(named, "description")[0] == "Notes/Description.md"


@pytest.mark.parametrize(
    "block, description, aliases",
    [
        ("description: 42\naliases: 7", "42", ("7",)),
        ("description: [Moving, 2025, null]\naliases: [1, null, {x: y}]", "Moving 2025", ("1", "{'x': 'y'}")),
        ("description: {summary: Boxes, nested: [a]}", "Boxes", ()),
        ("description: &loop [*loop, Tape]", "Tape", ()),
        ("description:\naliases:", None, ()),
        ("description: 2025-05-01", "2025-05-01", ()),
    ],
)
def test_a_non_string_description_or_alias_is_read_as_text(block, description, aliases):
    fm = parse_frontmatter(f"---\n{block}\n---\nBody\n")
    assert (fm.description, fm.aliases, fm.error) == (description, aliases, None)


@pytest.mark.both_backends
def test_odd_frontmatter_values_do_not_stop_a_sync(named, new_vault):
    write_vault(new_vault, {"Notes/Odd.md": "---\ndescription: &loop [*loop, Crate]\naliases: {a: 1}\ntitle: 12\n---\n\nText.\n"})
    report = named.sync()
    assert report.skipped == ()
    assert keyword_notes(named, "crate") == ["Notes/Odd.md"]
    assert named.store.file_info("Notes/Odd.md").description == "Crate"


# --- an index made before the fields ---------------------------------------------------------------------------


def downgrade_to_schema_4(path) -> None:
    """What an index written before schema 5 looks like: the FTS table with the body stems only, no description (and
    none of the later migrations' tables), vectors as float32 (before schema 11's codes)."""
    as_schema_11(path)
    db = sqlite3.connect(path, isolation_level=None)
    words_as_int8(db)
    rows = db.execute("SELECT vector_key, model, vector FROM embeddings").fetchall()
    matrix, _ = blobs.codes_of([v for _, _, v in rows])
    db.executemany("UPDATE embeddings SET vector = ? WHERE vector_key = ? AND model = ?", [(x.tobytes(), k, m) for (k, m, _), x in zip(rows, matrix)])
    db.executescript(
        """
        DROP TABLE IF EXISTS token_states;
        DROP TABLE IF EXISTS sentence_readings;
        DROP TABLE IF EXISTS chunks_sounds;
        DROP TABLE IF EXISTS memory_stats;
        DROP TABLE IF EXISTS memory_facts;
        DROP TABLE IF EXISTS chunk_days;
        DROP INDEX IF EXISTS chunks_day;
        ALTER TABLE chunks DROP COLUMN day;
        ALTER TABLE chunks DROP COLUMN day_source;
        CREATE VIRTUAL TABLE old_fts USING fts5(stems, tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO old_fts(rowid, stems) SELECT rowid, stems FROM chunks_fts;
        DROP TABLE chunks_vocab;
        DROP TABLE chunks_fts;
        ALTER TABLE old_fts RENAME TO chunks_fts;
        CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
        ALTER TABLE files DROP COLUMN description;
        UPDATE meta SET value = json_remove(value, '$[#-1]', '$[#-1]') WHERE key = 'rules';  -- no keyword fields nor dates version
        PRAGMA user_version = 4;
        """
    )
    db.close()


def schema_of(path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return {name: sql.replace('"', "").replace("'", "") for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")}
    finally:
        db.close()


def test_the_downgrade_matches_a_real_schema_4_index(named, tmp_path, monkeypatch):
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:4])
    Store.open(tmp_path / "v4.db", create=True).close()
    named.close()
    downgrade_to_schema_4(named.settings.db_path)
    assert schema_of(named.settings.db_path) == schema_of(tmp_path / "v4.db")


VECTORS = "SELECT vector_key, model, vector FROM embeddings WHERE model NOT LIKE 'words:%' ORDER BY 1, 2"
WORDS = "SELECT vector_key FROM embeddings WHERE model LIKE 'words:%' ORDER BY 1"


def test_an_old_index_gets_the_fields_and_keeps_its_vectors(named, fake_embedder):
    settings, db_path = named.settings, named.settings.db_path
    named.close()
    downgrade_to_schema_4(db_path)
    vectors = sqlite3.connect(db_path).execute(VECTORS).fetchall()
    words = sqlite3.connect(db_path).execute(WORDS).fetchall()
    embedded = len(fake_embedder.embedded)

    with Workspace.open(settings, embedder=fake_embedder) as ws:  # migrated on opening; the fields are still empty
        assert sqlite3.connect(db_path).execute("PRAGMA user_version").fetchone()[0] == len(schema.MIGRATIONS)
        assert "Notes/Finance.md" in keyword_notes(ws, "Quarterly budget review")  # the body stems were kept
        report = ws.sync()  # re-derives every note (the rules changed), embedding nothing
        assert (report.files_updated, report.chunks_embedded, len(fake_embedder.embedded)) == (len(NOTES), 0, embedded)
        assert keyword_notes(ws, "Quarterly budget review")[0] == "Notes/Budget.md"
        assert keyword_notes(ws, "Ваня Петров")[0] == "Notes/Иван.md"
        assert keyword_notes(ws, "checklist moving apartments")[0] == "Notes/Moving.md"
        assert ws.store.file_info("Notes/Moving.md").description == "Checklist for moving apartments"
    db = sqlite3.connect(db_path)
    kept = db.execute(VECTORS).fetchall()
    assert db.execute(WORDS).fetchall() == words  # the vocabulary's stems kept too (converted to its codes, not embedded)
    assert [r[:2] for r in kept] == [r[:2] for r in vectors]  # every vector kept, as a code of the same values
    assert abs(blobs.codes_of([r[2] for r in kept])[0] - blobs.matrix_of([r[2] for r in vectors])[0]).max() < 2e-3
    assert db.execute("SELECT COUNT(*) FROM chunks_fts").fetchone() == db.execute("SELECT COUNT(*) FROM chunks").fetchone()
