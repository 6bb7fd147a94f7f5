"""Hostile notes and vault files (docs/security.md, third review): one note's frontmatter never stops the vault, the
sweeper removes only the temp files this program made, a write reports what it did whatever sits at writes.log, and
a note name cannot hide a character that disguises it. Real files, real SQLite, the CLI through its click function,
the MCP server through the SDK's in-memory client; the fake embedder at the model seam."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client

from rag.agents.mcp_server import build_server
from rag.cli import cli
from rag.config import load_settings
from rag.errors import VaultError
from rag.importers.writer import read_frontmatter
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.memory import facts
from rag.notes import disk
from rag.notes import files as notes
from rag.notes.dates import note_date
from rag.notes.vault import parse_frontmatter
from rag.workspace import Workspace

# --- 2. a value no YAML loader can hold ---------------------------------------------------------------------------

# Each is a typo or a planted value on which the YAML loader (or str()/float() on what it made) raised, and the
# ValueError stopped `rag index`, `rag search` and the MCP tools for the whole vault.
UNLOADABLE = {
    "impossible day": "date: 2024-02-30",
    "year zero": "title: 0000-01-01",
    "hour 25": "created: 2024-01-01 25:00:00",
    "offset of 99 hours": "updated: 2001-12-14t21:59:43.10+99:00",
    "5,000 digits": "n: " + "9" * 5000,
    "5,000 digits with a sign and underscores": "n: -1_" + "2" * 5000,
    "a hex title past str()'s digit limit": "title: 0x" + "f" * 5000,
    "a hex trust past float()": "trust: 0x" + "f" * 400,
    "an explicit int tag": "n: !!int many",
    "an explicit bool tag": "n: !!bool maybe",
    "an explicit timestamp tag": "n: !!timestamp soon",
    "an explicit float tag": "n: !!float lots",
    "a timestamp as a key": "? !!timestamp 2024-02-30\n: x",
}


@pytest.mark.parametrize("block", UNLOADABLE.values(), ids=UNLOADABLE.keys())
def test_a_value_no_loader_can_hold_is_that_notes_warning_never_an_exception(block):
    text = f"---\n{block}\ntags: [kept]\n---\n# Body\n"
    fm = parse_frontmatter(text)
    assert fm.error is None and fm.warning and "kept as text" in fm.warning
    assert fm.tags == ("kept",) and fm.line_count == block.count("\n") + 4  # the rest of the block is still read
    assert len(fm.title or "") <= 300
    note_date("Notes/x.md", fm.data, 0.0)  # every reader of the mapping takes it as it is
    assert facts.parse("Memory/Facts/x.md", text.replace("tags:", "id: f-1\ntags:"), "sha").id == "f-1"


def test_an_impossible_date_is_kept_as_the_text_written_and_the_note_dated_otherwise():
    fm = parse_frontmatter("---\ndate: 2024-02-30\ntitle: Budget\n---\nBody\n")
    assert (fm.title, fm.data["date"]) == ("Budget", "2024-02-30")
    assert "'2024-02-30'" in fm.warning
    assert note_date("Daily/2024-03-01.md", fm.data, None).source == "file name"


def test_anything_else_a_loader_raises_is_the_notes_error(monkeypatch):
    from rag.notes import frontmatter

    def deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(frontmatter._NoteLoader, "get_single_data", deep)  # what the pure-Python loader does on deep nesting
    fm = parse_frontmatter("---\na: [[[[1]]]]\n---\nBody\n")
    assert fm.error == "frontmatter cannot be read (RecursionError); it is ignored" and fm.line_count == 3


def test_an_imported_note_with_an_impossible_date_does_not_stop_the_import_scan(tmp_path):
    note = tmp_path / "x.md"
    note.write_text("---\nsource: chatgpt\nconversation_id: 0x" + "f" * 5000 + "\ncreated: 2024-02-30\n---\nBody\n", encoding="utf-8")
    meta = read_frontmatter(note)
    assert meta["source"] == "chatgpt" and str(meta["conversation_id"]).startswith("0xfff") and meta["created"] == "2024-02-30"


@pytest.fixture
def mixed_vault(tmp_path) -> Path:
    """One good note and one bad note for each way a value used to crash the loader."""
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes" / "Good.md").write_text("# Good\n\nThe quokka ledger is in the blue folder.\n", encoding="utf-8")
    bad = {
        "Typo date.md": "date: 2024-02-30",
        "Year zero.md": "title: 0000-01-01",
        "Long number.md": "n: " + "9" * 5000,
    }
    for name, block in bad.items():
        (vault / "Notes" / name).write_text(f"---\n{block}\n---\n\nThe walrus budget is in the red folder.\n", encoding="utf-8")
    return vault


def test_rag_index_and_search_go_on_past_a_bad_note_and_the_warning_names_it(mixed_vault, tmp_path, monkeypatch, fake_embedder, caplog):
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: fake_embedder)
    db = tmp_path / "index" / "i.db"
    runner = CliRunner()
    indexed = runner.invoke(cli, ["index", "--vault", str(mixed_vault), "--db", str(db), "--json"])
    assert indexed.exit_code == 0, indexed.output
    assert json.loads(indexed.stdout)["files_added"] == 4
    for name in ("Typo date.md", "Year zero.md", "Long number.md"):
        assert f"Notes/{name}: frontmatter value" in caplog.text
    found = runner.invoke(cli, ["search", "quokka ledger", "--vault", str(mixed_vault), "--db", str(db), "--json"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)[0]["path"] == "Notes/Good.md"
    bad = runner.invoke(cli, ["search", "walrus budget", "--vault", str(mixed_vault), "--db", str(db), "--json"])
    assert {hit["path"] for hit in json.loads(bad.stdout)} >= {"Notes/Typo date.md", "Notes/Year zero.md", "Notes/Long number.md"}


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_reindex_and_search_answer_on_a_vault_with_a_bad_note(mixed_vault, tmp_path, fake_embedder, anyio_backend):
    settings = load_settings(vault=mixed_vault, db_path=tmp_path / "index" / "i.db", env={})
    with LiveIndex(settings, embedder=fake_embedder) as live:
        async with Client(build_server(Knowledge(live)), mode="legacy") as client:
            reindexed = await client.call_tool("knowledge_reindex", {})  # waits for the pass (a search right away need not)
            assert not reindexed.is_error, reindexed.content[0].text
            assert reindexed.structured_content["skipped"] == []
            status = await client.call_tool("knowledge_status", {})
            assert status.structured_content["notes"] == 4  # by this pass or the background one it waited for
            searched = await client.call_tool("knowledge_search", {"query": "quokka ledger"})
            assert not searched.is_error, searched.content[0].text
            hits = searched.structured_content["results"]
            assert hits and hits[0]["path"] == "Notes/Good.md", searched.structured_content
            (mixed_vault / "Notes" / "Later.md").write_text("---\ndate: 2025-13-45\n---\nA later typo.\n", encoding="utf-8")
            again = await client.call_tool("knowledge_reindex", {})
            assert not again.is_error, again.content[0].text
            assert (await client.call_tool("knowledge_status", {})).structured_content["notes"] == 5


# --- 3. the sweeper removes only what this program made ----------------------------------------------------------


def test_the_sweeper_keeps_a_persons_hidden_files_that_look_like_old_temp_names(vault, tmp_path, fake_embedder):
    folder = vault / "Notes"
    persons = [
        folder / ".my draft.20240101.old",
        folder / ".budget.backup_1.tmp",
        folder / ".Sourdough.md.a1b2c3d4.old",  # the shape of a temp name before 0.9: a person can write it too
        folder / ".rag-0123456789abcdef0.tmp",  # one hex digit too many
        folder / ".rag-0123456789ABCDEF.tmp",  # ours are lower case
        folder / ".rag-0123456789abcdef.tmp.bak",
    ]
    ours = folder / ".rag-0123456789abcdef.tmp"
    for path in [*persons, ours]:
        path.write_text("mine", encoding="utf-8")
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    with Workspace.open(load_settings(vault=vault, db_path=tmp_path / "i.db", env={}), create=True, embedder=fake_embedder) as ws:
        ws.sync()
    assert [p.name for p in persons if not p.exists()] == []
    assert not ours.exists()


def test_every_temp_name_a_write_makes_is_the_shape_the_sweeper_knows(settings, monkeypatch):
    made: list[str] = []
    real_open = os.open

    def recording_open(path, *args, **kwargs):
        made.append(os.path.basename(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(disk.os, "open", recording_open)
    notes.write_note(settings, "Notes/new.md", "one\n")
    sha = notes.read_text(settings, "Notes/new.md").sha256
    notes.write_note(settings, "Notes/new.md", "two\n", expected_sha256=sha)
    temps = [name for name in made if name.endswith(".tmp")]
    assert len(temps) == 2 and all(disk.LEFTOVER_NAME.match(name) for name in temps)


# --- 4. writes.log that is not a plain file ---------------------------------------------------------------------


def _plant_at_log(settings, kind: str) -> Path:
    log = settings.vault / disk.VAULT_FOLDER / disk.LOG_NAME
    log.parent.mkdir(parents=True, exist_ok=True)
    if kind == "folder":
        log.mkdir()
    elif kind == "dangling link":
        log.symlink_to(settings.vault / "nowhere" / "log")
    elif kind == "link to a note":
        log.symlink_to(settings.vault / "Notes" / "Sourdough.md")
    else:
        os.mkfifo(log)
    return log


@pytest.mark.parametrize("kind", ["folder", "dangling link", "link to a note"])
def test_a_write_with_something_else_at_writes_log_says_truthfully_that_nothing_was_written(settings, kind):
    _plant_at_log(settings, kind)
    sourdough = (settings.vault / "Notes" / "Sourdough.md").read_bytes()
    with pytest.raises(VaultError, match=r"writes\.log: it is a (folder|symbolic link); nothing was written\. Remove it"):
        notes.write_note(settings, "Notes/new.md", "one\n", tool="knowledge_write")
    assert not (settings.vault / "Notes" / "new.md").exists()  # the message is true: a retry writes it once
    assert (settings.vault / "Notes" / "Sourdough.md").read_bytes() == sourdough


_FIFO_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from rag.config import load_settings
    from rag.errors import VaultError
    from rag.notes import files as notes
    settings = load_settings(vault=Path(sys.argv[1]), db_path=Path(sys.argv[2]), env={})
    try:
        notes.write_note(settings, "Notes/new.md", "one\\n", tool="knowledge_write")
        print("written")
    except VaultError as exc:
        print(exc)
    """
)


def test_a_fifo_at_writes_log_refuses_the_write_at_once_instead_of_hanging_with_the_lock(settings):
    _plant_at_log(settings, "fifo")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    try:  # in a child process: the old writer blocked for good in open(), holding the lock; this one may not
        done = subprocess.run(
            [sys.executable, "-c", _FIFO_WRITER, str(settings.vault), str(settings.db_path)], capture_output=True, text=True, timeout=20, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the write hung on the FIFO at writes.log")
    assert "it is a FIFO; nothing was written" in done.stdout, done.stdout + done.stderr
    assert not (settings.vault / "Notes" / "new.md").exists()


def test_a_fifo_someone_reads_at_writes_log_is_refused_too(settings):
    log = _plant_at_log(settings, "fifo")
    reader = os.open(log, os.O_RDONLY | os.O_NONBLOCK)  # a listener at the other end: opening to write would succeed
    try:
        with pytest.raises(VaultError, match="it is not a plain file .*; nothing was written"):
            notes.write_note(settings, "Notes/new.md", "one\n", tool="knowledge_write")
        assert os.read(reader, 1000) == b"" and not (settings.vault / "Notes" / "new.md").exists()
    finally:
        os.close(reader)


def test_a_log_line_that_fails_after_the_write_says_the_note_was_written(settings, monkeypatch, caplog):
    real_open_own = disk._open_own

    def log_on_a_full_disk(path, flags):  # /dev/full: opens, then refuses every write with ENOSPC
        return os.open("/dev/full", os.O_WRONLY) if path.name == disk.LOG_NAME else real_open_own(path, flags)

    monkeypatch.setattr(disk, "_open_own", log_on_a_full_disk)
    written = notes.write_note(settings, "Notes/new.md", "one\n", tool="knowledge_write")
    assert (settings.vault / "Notes" / "new.md").read_text(encoding="utf-8") == "one\n" and written.created
    assert written.warning == "Notes/new.md was written, but its line in writes.log could not be added (No space left on device)."
    assert "nothing was written" not in caplog.text and "Notes/new.md was written" in caplog.text


def test_an_agent_is_told_its_note_was_written_when_only_the_log_line_failed(settings, monkeypatch):
    from rag.agents.mcp_server import VaultTools

    real_open_own = disk._open_own
    monkeypatch.setattr(
        disk, "_open_own", lambda path, flags: os.open("/dev/full", os.O_WRONLY) if path.name == disk.LOG_NAME else real_open_own(path, flags)
    )
    with LiveIndex(settings) as live:
        saved = VaultTools(Knowledge(live)).knowledge_write("Notes/new.md", "one\n")
    assert saved.created and saved.sha256 and saved.warning.startswith("Notes/new.md was written, but its line in writes.log")


# --- 12. a note name cannot hide a character that disguises it --------------------------------------------------

INVISIBLE = {
    "right-to-left override": "\u202e",
    "left-to-right embedding": "\u202a",
    "first strong isolate": "\u2068",
    "pop directional isolate": "\u2069",
    "left-to-right mark": "\u200e",
    "right-to-left mark": "\u200f",
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "byte order mark": "\ufeff",
    "soft hyphen": "\u00ad",
    "line separator": "\u2028",
    "lone surrogate": "\ud800",
}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_note_name_holding_an_invisible_character_is_refused_with_a_clear_message(settings, char):
    before = sorted(p.name for p in (settings.vault / "Notes").iterdir())
    for path in (f"Notes/Photo{char}gpj.md", f"Inbox{char}/Plan.md"):
        with pytest.raises(VaultError, match=rf"holds U\+{ord(char):04X}, .*; a note name cannot\. Use letters, digits and spaces\."):
            notes.write_note(settings, path, "x\n", tool="knowledge_write")
    assert sorted(p.name for p in (settings.vault / "Notes").iterdir()) == before and not list(settings.vault.glob("Inbox*"))


def test_a_name_with_a_direction_override_reaches_an_agent_as_one_clear_line(settings):
    from mcp.server.mcpserver.exceptions import ToolError

    from rag.agents.mcp_server import VaultTools

    with LiveIndex(settings) as live:
        tools = VaultTools(Knowledge(live))
        with pytest.raises(ToolError, match=r"'Notes/Photo\\u202egpj\.md' holds U\+202E, an invisible formatting character"):
            tools.knowledge_write("Notes/Photo\u202egpj.md", "x")
        assert tools.knowledge_write("Notes/Фото 📷 café.md", "x").created  # letters of any script and emoji are names


def test_a_committed_title_with_invisible_characters_is_named_without_them(settings, workspace):
    from rag import projects

    written = projects.commit_decision(settings, workspace.store, "Use\u202e SQLite\u200b everywhere", "Because.")
    assert written.path.endswith(" Use SQLite everywhere.md")
