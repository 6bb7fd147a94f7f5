"""What every `python -m rag` command shares: --vault and --db, RagError as a one-line message, the index opened
for a command."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import click

from rag.config import load_settings
from rag.errors import RagError
from rag.knowledge import Knowledge
from rag.live import LiveIndex


def common_options(command):
    """--vault and --db on every command; RagError → a one-line message and exit code 1, no traceback."""

    @click.option("--vault", type=click.Path(path_type=Path), help="Vault folder (default: RAG_VAULT, rag.toml, or the demo vault).")
    @click.option(
        "--db",
        help="Index file, or a PostgreSQL server as postgresql://user@host/database (default: RAG_DB, your rag.toml, or"
        " your data folder: ~/.local/share/ask-your-vault/<vault>-<hash>/index.db).",
    )
    @functools.wraps(command)
    def wrapper(vault, db, **kwargs):
        try:
            settings = load_settings(vault=vault, db_path=db)
            return command(settings, **kwargs)
        except RagError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


@contextlib.contextmanager
def open_knowledge(settings, *, create: bool = False):
    """A reading command's view of the vault: the index (which must exist), checked for changed notes first (at most
    every check_interval seconds), no background threads; closed on exit."""
    with LiveIndex(settings, create=create) as live:
        yield Knowledge(live)
