"""The command-line adapter: `python -m rag …`. Translates RagError into click errors; no logic of its own.

stdout carries results (plain text or --json); progress bars and warnings go to stderr. This module is the click group
and `main` (the `rag` script, `python -m rag`); the commands live by group in the modules beside it.
"""

from __future__ import annotations

import logging
import sys

import click

from rag.cli.agents import mcp_command
from rag.cli.ask import ask_command
from rag.cli.index import import_command, index, status, watch_command
from rag.cli.memory import memory_group
from rag.cli.models import models_command
from rag.cli.notes import duplicates_command, similar_command
from rag.cli.search import search
from rag.eval.cli import eval_group


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Show debug logging on stderr.")
def cli(verbose: bool) -> None:
    """Ask your vault: index a folder of Markdown notes and search it, offline."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s: %(message)s", stream=sys.stderr)


for command in (
    index,  # `index | status | watch | import`, in rag/cli/index.py
    status,
    watch_command,
    import_command,
    search,  # rag/cli/search.py
    ask_command,  # rag/cli/ask.py
    similar_command,  # `similar | duplicates`, in rag/cli/notes.py
    duplicates_command,
    mcp_command,  # rag/cli/agents.py
    memory_group,  # `memory add|import|recall|probe|reason|related|feedback|forget`, in rag/cli/memory.py
    models_command,  # `models [--test MODEL]`, in rag/cli/models.py
    eval_group,  # `eval retrieval|qa`, in rag/eval/cli.py
):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="python -m rag")
