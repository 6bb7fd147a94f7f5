"""`python -m rag similar | duplicates`: notes compared as wholes (the mean of their chunk vectors), not passages
found for a query.
"""

from __future__ import annotations

import dataclasses
import json

import click

from rag.cli.common import common_options, echo, open_knowledge
from rag.surface import DUPLICATE_OVERLAP, DUPLICATE_THRESHOLD


@click.command(name="similar")
@common_options
@click.argument("path")
@click.option("--limit", type=click.IntRange(1, 50), default=8, show_default=True, help="Number of notes.")
@click.option("--json", "as_json", is_flag=True, help='Print a JSON list of {"path", "score", "overlap", "closeness", "percentile", "page"}.')
def similar_command(settings, path: str, limit: int, as_json: bool) -> None:
    """Notes nearest in meaning to the note PATH (vault-relative), by the mean of their chunk vectors.

    Each line: the cosine, how close in plain words (near-duplicate, very similar, related, loosely related,
    unrelated — calibrated on real notes), and the share of this vault's note pairs that are less alike. A PDF
    comes with its page most like the note."""
    with open_knowledge(settings) as knowledge:
        neighbours = knowledge.similar(path, limit)
    if as_json:
        echo(json.dumps([dataclasses.asdict(n) for n in neighbours], ensure_ascii=False, indent=2))
        return
    if not neighbours:
        echo("No other note has vectors yet.")
    for n in neighbours:
        echo(f"{n.score:.4f}  {n.closeness:<15}  {_closer_than(n.percentile)}{n.path}" + (f" · p. {n.page}" if n.page else ""))


@click.command(name="duplicates")
@common_options
@click.option(
    "--threshold", default=DUPLICATE_THRESHOLD, show_default=True, type=click.FloatRange(-1.0, 1.0), help="Minimum cosine between two notes."
)
@click.option(
    "--min-overlap",
    default=DUPLICATE_OVERLAP,
    show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="Minimum share of the shorter note's text (runs of three words) found in the other.",
)
@click.option("--json", "as_json", is_flag=True, help='Print a JSON list of {"a", "b", "score", "overlap", "closeness", "percentile"}.')
def duplicates_command(settings, threshold: float, min_overlap: float, as_json: bool) -> None:
    """Pairs of near-duplicate notes: cosine of note vectors >= THRESHOLD and most of the shorter note's text in the
    other (notes on one subject in their own words are not duplicates). Only reported: nothing is merged or deleted."""
    with open_knowledge(settings) as knowledge:
        pairs = knowledge.duplicates(threshold, min_overlap=min_overlap)
    if as_json:
        echo(json.dumps([dataclasses.asdict(d) for d in pairs], ensure_ascii=False, indent=2))
        return
    if not pairs:
        echo(f"No near-duplicate notes at cosine >= {threshold:g} sharing {min_overlap:.0%} of their text.")
    for d in pairs:
        echo(f"{d.score:.4f}  {d.overlap:4.0%} shared  {_closer_than(d.percentile)}{d.a}  <->  {d.b}")


def _closer_than(percentile: float | None) -> str:
    return "" if percentile is None else f"closer than {percentile:4.1f}% of pairs  "
