"""PostgreSQL's drivers are optional (the `postgres` extra): nothing imports them unless a server index is asked for,
and when one is asked for without them, the error is one line naming the install command. Needs no server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.config import load_settings
from rag.errors import ConfigError
from rag.index.storage import open_store

ROOT = Path(__file__).resolve().parents[1]
DRIVERS = ("psycopg", "psycopg_pool", "pgvector")
SERVER = "postgresql://vault@localhost:5432/vault"
FIX = 'pip install -e ".[postgres]"'


@pytest.mark.parametrize("missing", DRIVERS)
def test_a_server_index_without_its_drivers_is_a_config_error_naming_the_extra(missing, monkeypatch, vault):
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed: `import missing` raises ImportError
    if missing == "pgvector":
        monkeypatch.setitem(sys.modules, "pgvector.psycopg", None)
    settings = load_settings(vault=vault, db_path=SERVER, env={})
    with pytest.raises(ConfigError) as caught:
        open_store(settings)
    message = str(caught.value)
    assert FIX in message and "requirements-postgres.txt" in message and "\n" not in message
    assert "vault@" not in message  # the address (which may carry a password) is not repeated


def test_the_cli_says_so_in_one_line_for_db_and_for_rag_db(monkeypatch, vault):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    runner = CliRunner()
    for args, env in ((["--db", SERVER], {}), ([], {"RAG_DB": SERVER})):
        result = runner.invoke(cli, ["status", "--vault", str(vault), *args], env=env)
        assert result.exit_code == 1, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and FIX in lines[0], result.output


def test_nothing_imports_the_drivers_unless_a_server_is_asked_for(tmp_path):
    """A fresh interpreter: every module of `rag` (but the PostgreSQL store's own), the app's shared page code, and an
    SQLite index opened and created — and not one driver module loaded."""
    script = f"""
import importlib, pkgutil, sys
import rag, rag.cli, rag.knowledge, app_pages, app_pages.common
skip = ("rag.__main__", "rag.index.pg_", "rag.devtools.pg_server")
for info in pkgutil.walk_packages(rag.__path__, "rag."):
    if not info.name.startswith(skip):
        importlib.import_module(info.name)
from rag.config import load_settings
from rag.index.storage import open_store
open_store(load_settings(vault={str(tmp_path)!r}, db_path={str(tmp_path / "index.db")!r}, env={{}}), create=True).close()
print(sorted(m for m in sys.modules if m.split(".")[0] in {DRIVERS!r}))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
