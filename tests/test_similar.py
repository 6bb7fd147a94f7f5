"""Note vectors, similar notes, near-duplicates and how close a pair reads, on real SQLite indexes of real files (fake
embedder at the model seam; the near-duplicate rule and the CLI also run with the real default embedder)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.config import load_settings
from rag.errors import NoteError
from rag.index.store import Store
from rag.search import similar
from rag.search.similar import CLOSENESS, Neighbour, NoteVectors, closeness, duplicate_pairs, note_vectors, pair_cosines, similar_notes
from rag.workspace import Workspace

pytestmark = pytest.mark.both_backends  # the index's behaviour, in SQLite and in PostgreSQL


@pytest.fixture
def indexed(workspace):
    workspace.sync()
    return workspace


def test_a_note_vector_is_the_normalised_mean_of_its_chunk_vectors(indexed):
    store, model = indexed.store, indexed.embedder.name
    vectors = note_vectors(store, model)
    chunks = store.chunks_of("Notes/Sourdough.md")
    assert len(chunks) > 1
    rowids, matrix, _ = store.vectors(model)
    mine = matrix[np.isin(rowids, [c.rowid for c in chunks])]
    expected = mine.mean(axis=0) / np.linalg.norm(mine.mean(axis=0))
    assert np.allclose(vectors.matrix[vectors.row("Notes/Sourdough.md")], expected, atol=1e-6)
    assert np.allclose(np.linalg.norm(vectors.matrix, axis=1), 1.0, atol=1e-5)


def test_every_indexed_note_with_text_has_exactly_one_vector(indexed):
    vectors = note_vectors(indexed.store, indexed.embedder.name)
    with_chunks = {f.path for f in indexed.store.files() if indexed.store.chunks_of(f.path)}
    assert set(vectors.paths) == with_chunks and len(vectors.paths) == len(set(vectors.paths))


def test_similar_notes_are_best_first_exclude_the_note_itself_and_respect_the_limit(indexed):
    neighbours = similar_notes(indexed.store, indexed.embedder.name, "Notes/Sourdough.md", limit=3)
    assert len(neighbours) == 3 and all(isinstance(n, Neighbour) for n in neighbours)
    assert "Notes/Sourdough.md" not in [n.path for n in neighbours]
    assert [n.score for n in neighbours] == sorted((n.score for n in neighbours), reverse=True)


def test_a_copied_note_is_the_nearest_neighbour_and_a_duplicate_pair(indexed, vault):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    indexed.sync()
    (top,) = similar_notes(indexed.store, indexed.embedder.name, "Notes/SQLite.md", limit=1)
    assert (top.path, top.score, top.overlap, top.closeness) == ("Notes/SQLite copy.md", 1.0, 1.0, "near-duplicate")
    (pair,) = duplicate_pairs(indexed.store, indexed.embedder.name)
    assert (pair.a, pair.b, pair.score, pair.overlap, pair.closeness) == ("Notes/SQLite copy.md", "Notes/SQLite.md", 1.0, 1.0, "near-duplicate")
    assert pair.percentile == top.percentile and pair.percentile >= 90


def test_distinct_notes_are_not_duplicates_at_the_default_rule_but_are_with_no_floor(indexed):
    assert duplicate_pairs(indexed.store, indexed.embedder.name) == []
    loose = duplicate_pairs(indexed.store, indexed.embedder.name, threshold=-1.0, min_overlap=0.0)
    n = len(note_vectors(indexed.store, indexed.embedder.name))
    assert n - 1 <= similar.CANDIDATES and len(loose) == n * (n - 1) // 2
    assert all(p.a < p.b for p in loose)
    assert [p.score for p in loose] == sorted((p.score for p in loose), reverse=True)


def test_notes_close_in_meaning_but_not_sharing_text_are_not_duplicates(indexed, vault):
    """The old rule flagged a pair on cosine alone (two notes on one subject at 0.983); now shared text is needed."""
    words = (vault / "Notes/SQLite.md").read_text(encoding="utf-8").split()
    (vault / "Notes/SQLite backwards.md").write_text(" ".join(reversed(words)), encoding="utf-8")  # same words, no shared runs
    indexed.sync()
    (top,) = similar_notes(indexed.store, indexed.embedder.name, "Notes/SQLite.md", limit=1)
    assert top.path == "Notes/SQLite backwards.md" and top.score >= similar.DUPLICATE_THRESHOLD and top.overlap < 0.1
    assert top.closeness != "near-duplicate"
    assert duplicate_pairs(indexed.store, indexed.embedder.name) == []
    assert len(duplicate_pairs(indexed.store, indexed.embedder.name, min_overlap=0.0)) == 1


def test_finding_duplicates_never_changes_the_vault(indexed, vault):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    indexed.sync()
    before = sorted((p.relative_to(vault).as_posix(), p.read_bytes()) for p in vault.rglob("*.md"))
    duplicate_pairs(indexed.store, indexed.embedder.name, threshold=0.5)
    assert sorted((p.relative_to(vault).as_posix(), p.read_bytes()) for p in vault.rglob("*.md")) == before


def test_an_unknown_note_gets_an_error_that_names_the_fix(indexed):
    with pytest.raises(NoteError, match="not in the index.*python -m rag index"):
        similar_notes(indexed.store, indexed.embedder.name, "Notes/Nope.md")


def test_notes_without_vectors_yet_are_left_out_and_say_so(workspace):
    workspace.sync(embed=False)
    assert len(note_vectors(workspace.store, workspace.embedder.name)) == 0
    assert duplicate_pairs(workspace.store, workspace.embedder.name) == []
    with pytest.raises(NoteError, match="no vectors yet"):
        similar_notes(workspace.store, workspace.embedder.name, "Notes/SQLite.md")


def test_an_empty_index_has_no_similar_notes_or_duplicates(tmp_path):
    store = Store.open(tmp_path / "empty.db", create=True)
    try:
        assert len(note_vectors(store, "any")) == 0 and duplicate_pairs(store, "any") == []
    finally:
        store.close()


# --- how close a pair reads -------------------------------------------------------------------------------------


def test_closeness_labels_never_rise_as_the_cosine_falls():
    rank = {label: i for i, label in enumerate(CLOSENESS)}
    for typical in (0.7, 0.82, 0.9, 0.97):
        for overlap in (0.0, 0.3, 1.0):
            ranks = [rank[closeness(float(c), overlap, typical)] for c in np.linspace(1.0, -1.0, 401)]
            assert ranks == sorted(ranks)
    # typical 0.82: lift = (cosine − 0.82) / 0.18, cut at 0.40, 0.28 and 0.10
    assert [closeness(c, 0.0, 0.82) for c in (0.90, 0.88, 0.84, 0.82)] == ["very similar", "related", "loosely related", "unrelated"]
    assert closeness(0.99, 1.0, 0.82) == "near-duplicate" and closeness(0.80, 1.0, 0.82) == "unrelated"


def test_percentiles_rise_with_the_cosine_and_a_sample_stays_close_to_all_pairs():
    matrix = np.random.default_rng(1).normal(size=(400, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    paths = tuple(f"{i}.md" for i in range(400))
    every = NoteVectors(paths, matrix, pair_cosines(matrix, sample=10**6))
    sampled = NoteVectors(paths, matrix, pair_cosines(matrix, sample=5_000))
    assert len(every.pair_cosines) == 400 * 399 // 2 and len(sampled.pair_cosines) == 5_000
    cosines = [float(c) for c in np.linspace(-1.0, 1.0, 101)]
    for vectors in (every, sampled):
        percentiles = [vectors.percentile(c) for c in cosines]
        assert percentiles == sorted(percentiles) and percentiles[0] == 0.0 and percentiles[-1] == 99.9
    assert max(abs(every.percentile(c) - sampled.percentile(c)) for c in cosines) < 2.0


def test_a_two_note_vault_gets_labels_but_no_percentile(tmp_path, fake_embedder):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Starter.md").write_text("# Starter\n\nFeed the rye starter twice a day and keep it warm.\n", encoding="utf-8")
    (vault / "Starter 2.md").write_text("# Starter notes\n\nFeed the rye starter twice a day and keep it warm.\n", encoding="utf-8")
    with Workspace.open(load_settings(vault=vault, db_path=tmp_path / "index.db", env={}), create=True, embedder=fake_embedder) as ws:
        ws.sync()
        vectors = note_vectors(ws.store, ws.embedder.name)
        (near,) = similar_notes(ws.store, ws.embedder.name, "Starter.md", vectors=vectors)
        (pair,) = duplicate_pairs(ws.store, ws.embedder.name, vectors=vectors)
    assert vectors.typical() == similar.TYPICAL_COSINE and len(vectors.pair_cosines) == 1
    assert near.percentile is None and pair.percentile is None
    assert near.closeness == pair.closeness == "near-duplicate" and near.overlap == pair.overlap > 0.7


def test_word_runs_match_across_word_forms_and_find_a_note_inside_a_longer_one():
    note = similar.shingles("Кошки спят на тёплом подоконнике весь день, а ночью гуляют.")
    other_forms = similar.shingles("Кошка спит на теплом подоконнике весь день, а ночью гуляет.")
    assert similar.text_overlap(note, other_forms) > 0.5  # stems: кошк, сп…, тепл
    longer = similar.shingles("Our cat sleeps all day. " * 3 + "Кошки спят на тёплом подоконнике весь день, а ночью гуляют.")
    assert similar.text_overlap(note, longer) == 1.0
    assert similar.text_overlap(note, similar.shingles("Собаки любят долгие прогулки в парке.")) == 0.0
    assert len(similar.shingles("")) == 0 and len(similar.shingles("one two")) == 1


# Notes written for this test: a note, an edited copy of it (retitled, a paragraph added, a few words changed), a note
# on the same subject in other words (like the pair the old cosine rule flagged at 0.983), and the same in Russian.
SYNC = (
    "Obsidian keeps notes as plain Markdown files in a folder, so any tool that copies folders can sync them. "
    "I use Obsidian Sync on the laptop and the phone: it is end-to-end encrypted and keeps a version history "
    "for a year. Conflicts are rare; when both devices edit one note offline, Sync merges the changes line by line.\n\n"
    "Before that I tried iCloud Drive, which sometimes left duplicate files named 'note 2.md' after a conflict."
)
COPY = SYNC.replace("I use", "I now use").replace("for a year", "for twelve months").replace("rare", "quite rare")
SWITCH = (
    "Moved my vault from iCloud to Obsidian Sync in March. Reasons: iCloud created conflicted copies, the phone "
    "app waited minutes for files to download, and I wanted version history. Setup took ten minutes: create a "
    "remote vault, pick an encryption password, connect each device. Remember to exclude the workspace file."
)
MOVE = (
    "Перед переездом составили список вещей по комнатам и заказали коробки. Грузчиков забронировали на субботу, "
    "а ключи от новой квартиры получим в пятницу вечером. Интернет подключат только через неделю после переезда, "
    "поэтому первое время работаю из кафе рядом с домом."
)
MOVE_COPY = MOVE.replace("составили", "составила").replace("заказали", "заказала").replace("рядом с домом", "у дома")
MOVE_OTHER = (
    "Итоги переезда: вещи довезли целыми, потерялась только одна коробка с посудой. Соседи помогли поднять диван. "
    "Новая квартира теплее старой, но в ванной нужно поменять смеситель и повесить полку."
)


def test_an_edited_copy_is_a_near_duplicate_and_a_note_on_the_same_subject_is_not(tmp_path, real_embedder):
    vault = tmp_path / "vault"
    notes = {
        "Sync/Sync your notes across devices.md": f"# Sync your notes across devices\n\n{SYNC}\n",
        "Sync/How I sync.md": f"# How I sync\n\n{COPY}\n\nTip: pause Sync before moving big folders.\n",
        "Sync/Switch to Obsidian Sync.md": f"# Switch to Obsidian Sync\n\n{SWITCH}\n",
        "Дом/Переезд.md": f"# Переезд\n\n{MOVE}\n",
        "Дом/Переезд (копия).md": f"# Переезд: план\n\n{MOVE_COPY}\n",
        "Дом/Итоги переезда.md": f"# Итоги переезда\n\n{MOVE_OTHER}\n",
    }
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    with Workspace.open(load_settings(vault=vault, db_path=tmp_path / "index.db", env={}), create=True, embedder=real_embedder) as ws:
        ws.sync()
        pairs = duplicate_pairs(ws.store, ws.embedder.name)
        sync_near = {n.path: n for n in similar_notes(ws.store, ws.embedder.name, "Sync/Sync your notes across devices.md", limit=5)}
        move_near = {n.path: n for n in similar_notes(ws.store, ws.embedder.name, "Дом/Переезд.md", limit=2)}
    assert [(p.a, p.b) for p in sorted(pairs, key=lambda p: p.a)] == [
        ("Sync/How I sync.md", "Sync/Sync your notes across devices.md"),
        ("Дом/Переезд (копия).md", "Дом/Переезд.md"),
    ]
    assert all(p.closeness == "near-duplicate" and p.overlap >= similar.DUPLICATE_OVERLAP for p in pairs)
    for same_subject in (sync_near["Sync/Switch to Obsidian Sync.md"], move_near["Дом/Итоги переезда.md"]):  # cosine alone would flag them
        assert same_subject.score >= similar.DUPLICATE_THRESHOLD and same_subject.overlap < 0.2
        assert same_subject.closeness in ("very similar", "related")
    assert sync_near["Sync/How I sync.md"].score > sync_near["Sync/Switch to Obsidian Sync.md"].score


def test_cli_similar_and_duplicates_with_the_real_default_embedder(vault, tmp_path):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    runner = CliRunner()
    common = ["--vault", str(vault), "--db", str(tmp_path / "cli.db")]
    assert runner.invoke(cli, ["index", *common], catch_exceptions=False).exit_code == 0
    near = runner.invoke(cli, ["similar", "Notes/SQLite.md", *common, "--json", "--limit", "2"], catch_exceptions=False)
    assert near.exit_code == 0, near.output
    first, second = json.loads(near.stdout)
    assert first["path"] == "Notes/SQLite copy.md" and first["closeness"] == "near-duplicate" and first["overlap"] == 1.0
    assert (
        set(first) == {"path", "score", "overlap", "closeness", "percentile", "page"}
        and first["page"] is None
        and second["closeness"] in CLOSENESS[1:]
    )
    assert first["percentile"] >= second["percentile"]  # the fixture vault has enough notes to rank against
    dupes = runner.invoke(cli, ["duplicates", *common, "--json"], catch_exceptions=False)
    (pair,) = json.loads(dupes.stdout)
    assert {"a": "Notes/SQLite copy.md", "b": "Notes/SQLite.md", "overlap": 1.0, "closeness": "near-duplicate"}.items() <= pair.items()
    assert pair["percentile"] == first["percentile"]
    text = runner.invoke(cli, ["duplicates", *common, "--threshold", "0.9999999"], catch_exceptions=False).stdout
    assert "100% shared" in text and "Notes/SQLite copy.md  <->  Notes/SQLite.md" in text
    listed = runner.invoke(cli, ["similar", "Notes/SQLite.md", *common, "--limit", "1"], catch_exceptions=False).stdout
    assert "near-duplicate" in listed and "% of pairs" in listed and "Notes/SQLite copy.md" in listed
    none = runner.invoke(cli, ["duplicates", *common, "--min-overlap", "1.0", "--threshold", "1.0"], catch_exceptions=False)
    assert none.exit_code == 0 and "Notes/SQLite copy.md" in none.stdout  # an exact copy passes even the strictest rule
    missing = runner.invoke(cli, ["similar", "Notes/Nope.md", *common])
    assert missing.exit_code == 1 and "not in the index" in missing.output
