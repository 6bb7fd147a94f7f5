"""`python -m rag memory …`: agent memory from the command line — add, import, recall, probe, reason, related,
feedback, forget. Facts are notes in `Memory/Facts/`; every command works on an empty vault (the index is made
when missing). Results on stdout (text or --json), progress on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import click

from rag.cli.common import common_options, echo, open_knowledge
from rag.surface import ProgressBars


@click.group(name="memory")
def memory_group() -> None:
    """Facts an agent keeps between sessions (notes in Memory/Facts/): add, recall, vote, archive."""


def _names(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


def _embed(knowledge) -> None:
    """Embed what has no vector yet (the new facts), so recall finds them by meaning at once."""
    with ProgressBars() as bars:
        knowledge.index(progress=bars.update)


@memory_group.command(name="add")
@common_options
@click.argument("text")
@click.option("--category", help="e.g. preferences, people, projects, config, decisions (default: general).")
@click.option("--tags", help="Comma-separated tags.")
@click.option("--entities", help="Comma-separated entities the fact is about (default: read from the text).")
@click.option("--supersedes", help="The id of the fact this one replaces.")
@click.option("--json", "as_json", is_flag=True)
def add(settings, text: str, category: str | None, tags: str | None, entities: str | None, supersedes: str | None, as_json: bool) -> None:
    """Remember TEXT as a fact."""
    with open_knowledge(settings, create=True) as knowledge:
        fact = knowledge.memory.remember(text, category=category, tags=_names(tags) or (), entities=_names(entities), supersedes=supersedes)
        _embed(knowledge)
    if as_json:
        echo(json.dumps(fact.to_json(), ensure_ascii=False, indent=2))
    else:
        echo(f"Remembered {fact.id} in {fact.path}" + (f" (entities: {', '.join(fact.entities)})" if fact.entities else ""))


@memory_group.command(name="import")
@common_options
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def import_facts(settings, file: Path, as_json: bool) -> None:
    """Import facts from a JSON Lines FILE: one object per line with `content` and any of id, category, tags,
    entities, trust, helpful, unhelpful, created, supersedes (an id or created given is kept). Facts already
    present (same id) are skipped."""
    with open_knowledge(settings, create=True) as knowledge:
        imported, skipped, problems = knowledge.memory.import_file(file)
        _embed(knowledge)
    if as_json:
        echo(json.dumps({"imported": imported, "skipped": skipped, "problems": problems}, ensure_ascii=False, indent=2))
        return
    echo(f"Imported {imported} fact(s); {skipped} already present.")
    for problem in problems:
        echo(f"skipped {problem}", err=True)


@memory_group.command(name="recall")
@common_options
@click.argument("query")
@click.option("--k", "limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--category")
@click.option("--json", "as_json", is_flag=True)
def recall(settings, query: str, limit: int, category: str | None, as_json: bool) -> None:
    """The facts best matching QUERY (meaning, keywords, entities), best first."""
    with open_knowledge(settings, create=True) as knowledge:
        _show(knowledge.memory.recall(query, limit, category=category), as_json)


@memory_group.command(name="probe")
@common_options
@click.argument("entity")
@click.option("--k", "limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def probe(settings, entity: str, limit: int, as_json: bool) -> None:
    """Every fact bound to ENTITY, most strongly bound first."""
    with open_knowledge(settings, create=True) as knowledge:
        _show(knowledge.memory.probe(entity, limit), as_json)


@memory_group.command(name="reason")
@common_options
@click.argument("entities", nargs=-1, required=True)
@click.option("--k", "limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def reason(settings, entities: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Facts that ENTITIES share (each fact scored by its weakest binding to any of them)."""
    with open_knowledge(settings, create=True) as knowledge:
        _show(knowledge.memory.reason(list(entities), limit), as_json)


@memory_group.command(name="related")
@common_options
@click.argument("entity")
@click.option("--k", "limit", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def related(settings, entity: str, limit: int, as_json: bool) -> None:
    """Entities that appear with ENTITY in facts, strongest first."""
    with open_knowledge(settings, create=True) as knowledge:
        found = knowledge.memory.related(entity, limit)
    if as_json:
        echo(json.dumps([{"entity": n, "score": s, "facts": list(f)} for n, s, f in found], ensure_ascii=False, indent=2))
        return
    if not found:
        echo(f"No entity appears with {entity!r} in remembered facts.")
    for name, score, facts in found:
        echo(f"{score:.3f}  {name}  ({len(facts)} fact(s): {', '.join(facts[:5])})")


@memory_group.command(name="feedback")
@common_options
@click.argument("fact_id")
@click.option("--helpful/--unhelpful", required=True, help="Was the fact helpful, or wrong or useless?")
@click.option("--json", "as_json", is_flag=True)
def feedback(settings, fact_id: str, helpful: bool, as_json: bool) -> None:
    """Vote on a fact: trust moves 10 % of the way to 1 (helpful) or 20 % of the way to 0 (unhelpful)."""
    with open_knowledge(settings, create=True) as knowledge:
        fact = knowledge.memory.feedback(fact_id, helpful)
    if as_json:
        echo(json.dumps(fact.to_json(), ensure_ascii=False, indent=2))
    else:
        echo(f"{fact.id}: trust {fact.trust:.3f} (helpful {fact.helpful}, unhelpful {fact.unhelpful})")


@memory_group.command(name="forget")
@common_options
@click.argument("fact_id")
def forget(settings, fact_id: str) -> None:
    """Archive a fact: its note moves to Memory/Archive/ (kept, not deleted)."""
    with open_knowledge(settings, create=True) as knowledge:
        echo(f"Archived {fact_id} to {knowledge.memory.forget(fact_id)}")


def _show(results, as_json: bool) -> None:
    if as_json:
        echo(json.dumps([r.to_json() for r in results], ensure_ascii=False, indent=2))
        return
    if not results:
        echo("No remembered fact matches.")
    for n, r in enumerate(results, 1):
        replaced = f" · replaced by {r.superseded_by}" if r.superseded_by else ""
        echo(f"{n}. [{r.score:.3f}] {r.fact.content}")
        echo(f"   {r.fact.id} · found by {'+'.join(r.found_by) or '-'} · trust {r.trust:.2f} · decay {r.decay:.2f}{replaced} · {r.fact.path}")
