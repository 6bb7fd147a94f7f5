"""What every `python -m rag` command shares: --vault and --db, RagError as a one-line message, the index opened
for a command."""

from __future__ import annotations

import contextlib
import functools

import click

from rag.config import load_settings
from rag.errors import RagError, os_error_text
from rag.knowledge import Knowledge
from rag.live import LiveIndex
from rag.surface import TimeScope, printable


def common_options(command):
    """--vault and --db on every command; RagError → a one-line message and exit code 1, no traceback."""

    @click.option("--vault", help="Vault folder (default: RAG_VAULT, rag.toml, or the demo vault).")
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
            raise click.ClickException(printable(exc)) from exc
        except OSError as exc:
            raise click.ClickException(printable(os_error_text(exc))) from exc

    return wrapper


def time_options(command):
    """--after, --before and --no-time for the commands that search."""
    day = click.DateTime(formats=["%Y-%m-%d"])
    command = click.option("--no-time", is_flag=True, help='Do not read a time from the question ("last week" is then just words).')(command)
    command = click.option("--before", type=day, callback=_day, help="Only notes and passages from this day or earlier (YYYY-MM-DD).")(command)
    return click.option("--after", type=day, callback=_day, help="Only notes and passages from this day or later (YYYY-MM-DD).")(command)


def _day(ctx, param, value):
    return value.date() if value is not None else None


def time_line(scope: TimeScope) -> str:
    """What a search kept to, in a line: "searching notes from 1–31 March 2026 ("in March"; --no-time searches all dates)"."""
    words = f"\u201c{scope.words}\u201d; " if scope.words else ""
    if not scope.ranged:
        return f"newest first among the best matches ({words}--no-time to rank by relevance only)"
    if not scope.applied:
        return f"no notes {scope.label()}; searched all dates ({words.rstrip('; ')})".replace(" ()", "")
    again = "--no-time searches all dates" if scope.words else "without --after/--before: all dates"
    return f"searching notes {scope.label()} ({words}{again})"


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """click.echo for everything a command prints: a note's text, heading or file name may hold terminal escape
    sequences (OSC 52 writes the clipboard); they are taken out (`rag.printable`)."""
    click.echo(printable(message), err=err, nl=nl)


@contextlib.contextmanager
def open_knowledge(settings, *, create: bool = False):
    """A reading command's view of the vault: the index (which must exist), checked for changed notes first (at most
    every check_interval seconds), no background threads; closed on exit."""
    with LiveIndex(settings, create=create) as live:
        yield Knowledge(live)
