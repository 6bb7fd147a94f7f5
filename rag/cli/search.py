"""`python -m rag search`: hits by keyword, by meaning or both, printed one a line (place, day, score, why found) or
as JSON.
"""

from __future__ import annotations

import json

import click

from rag.cli.common import common_options, echo, open_knowledge, time_line, time_options
from rag.surface import Filters, SearchResult, day_label, heading_without_title, hit_day, page_json, pdf_place, query_terms, snippet, why_found


@click.command(name="search")
@common_options
@click.argument("query")
@click.option("--k", type=click.IntRange(1, 100), default=10, show_default=True, help="Number of results.")
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "bm25", "dense"]),
    default="hybrid",
    show_default=True,
    help="Keyword (bm25), meaning (dense) or both fused.",
)
@click.option("--all", "everything", is_flag=True, help="Hybrid: all K results, also those under the relevance floor.")
@time_options
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of hits.")
def search(settings, query: str, k: int, mode: str, everything: bool, after, before, no_time: bool, as_json: bool) -> None:
    """Search the index by keyword, by meaning, or both (hybrid). Hybrid results stop where matches stop standing
    out from the rest (--all shows K anyway). A time the query names ("last week", «в марте») narrows the search to
    notes from then (--no-time: it does not); --after/--before set the range."""
    filters = Filters(after=after, before=before)
    with open_knowledge(settings) as knowledge:
        if mode == "hybrid":
            result = knowledge.search(query, k, everything=everything, filters=filters, read_time=not no_time)
        else:
            result = (knowledge.keyword_search if mode == "bm25" else knowledge.meaning_search)(query, k, filters=filters)
    if result.notice:
        echo(f"note: {result.notice}", err=True)
    if result.time is not None:
        echo(f"note: {time_line(result.time)}", err=True)
    if as_json:
        echo(json.dumps(_hits_json(result, settings), ensure_ascii=False, indent=2))
        return
    if not result.hits:
        echo("No strong matches in your notes." if result.hidden else "No matches in your notes.")
    terms = query_terms(query)
    for i, hit in enumerate(result.hits, 1):
        chunk = hit.chunk
        why = why_found(hit.bm25_rank, hit.dense_rank, linked_from=hit.linked_from)
        place = heading_without_title(chunk.heading_path, None, chunk.path)
        stated = hit_day(hit)  # a file time is not the passage's day
        day = f"  · {day_label(stated)}" if stated else ""
        page = pdf_place(settings.vault, chunk.path, chunk.start_line, chunk.end_line, outside=settings.outside_folders)
        where = f"{chunk.path} · {page}" if page else f"{chunk.path}:{chunk.start_line}-{chunk.end_line}"
        echo(f"{i}. {where}  {place}{day}  ({hit.score:.4f}; {why})".replace("   (", "  ("))
        echo(f"   {snippet(chunk.text, terms)[0]}")
    if result.hidden:
        echo(f"({result.hidden} weaker matches not shown; --all shows them)")


def _hits_json(result: SearchResult, settings) -> list[dict]:
    def page(h) -> dict:
        return page_json(pdf_place(settings.vault, h.chunk.path, h.chunk.start_line, h.chunk.end_line, outside=settings.outside_folders))

    return [
        {
            "path": h.chunk.path,
            "heading": h.chunk.heading_path,
            "start_line": h.chunk.start_line,
            "end_line": h.chunk.end_line,
            "score": round(h.score, 6),
            "ranks": {"bm25": h.bm25_rank, "dense": h.dense_rank},
            "day": h.chunk.day,
            "day_source": h.chunk.day_source,
            "text": h.chunk.text,
            **page(h),
        }
        for h in result.hits
    ]
