"""The command-line adapter: `python -m rag …`. Translates RagError into click errors; no logic of its own.

stdout carries results (plain text or --json); progress bars and warnings go to stderr.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
import time
from datetime import date
from pathlib import Path

import click
from tqdm import tqdm

from rag.answer.grounding import SUPPORTING
from rag.cli_common import common_options, echo, open_knowledge, time_line, time_options
from rag.cli_memory import memory_group
from rag.cli_models import models_command
from rag.eval.cli import eval_group
from rag.knowledge import Knowledge
from rag.live import LiveIndex, Progress
from rag.notes.pdf import page_json
from rag.notes.vault import pdf_place
from rag.progress import ProgressBars
from rag.search.filters import Filters
from rag.search.presentation import heading_without_title, snippet, why_found
from rag.search.results import SearchResult
from rag.search.similar import DUPLICATE_OVERLAP, DUPLICATE_THRESHOLD
from rag.search.when import hit_day
from rag.text.date_labels import day_label
from rag.text.stemming import query_terms
from rag.text.wikilinks import ReadableStream, readable


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Show debug logging on stderr.")
def cli(verbose: bool) -> None:
    """Ask your vault: index a folder of Markdown notes and search it, offline."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s: %(message)s", stream=sys.stderr)


cli.add_command(eval_group)  # `eval retrieval|qa`, in rag/eval/cli.py
cli.add_command(memory_group)  # `memory add|import|recall|probe|reason|related|feedback|forget`, in rag/cli_memory.py
cli.add_command(models_command)  # `models [--test MODEL]`, in rag/cli_models.py


@cli.command()
@common_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the counts.")
def index(settings, as_json: bool) -> None:
    """Index the vault: new and changed notes are read, only new text is embedded."""
    with LiveIndex(settings) as live:
        knowledge = Knowledge(live)
        if knowledge.recovered_from():
            echo(f"The index was damaged; it was moved to {knowledge.recovered_from()} and is being rebuilt.", err=True)
        with ProgressBars() as bars:
            report = knowledge.index(progress=bars.update)
        freed = knowledge.compact()
    if as_json:
        keys = (
            "files_added",
            "files_updated",
            "files_removed",
            "files_unchanged",
            "chunks_total",
            "chunks_embedded",
            "chunks_reused",
            "sentences_embedded",
            "seconds",
        )
        data = {k: getattr(report, k) for k in keys}
        data.update(
            vectors_missing=report.vectors_missing, skipped=report.to_json()["skipped"], embed_error=report.embed_error, compacted_bytes=freed
        )
        echo(json.dumps(data, ensure_ascii=False))
    else:
        echo(
            f"{report.files_added} added, {report.files_updated} updated, {report.files_removed} removed, "
            f"{report.files_unchanged} unchanged; {report.chunks_total} chunks, {report.chunks_embedded} embedded, "
            f"{report.chunks_reused} reused, {report.sentences_embedded} sentences embedded in {report.seconds:.1f}s."
        )
        if freed:
            echo(f"Compacted the index: {freed / 1e6:.1f} MB of unused space given back.")
    for path, reason in report.skipped:
        echo(f"skipped {path}: {reason}", err=True)
    if report.embed_error:
        echo(f"warning: {report.embed_error}", err=True)


@cli.command()
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


@cli.command()
@common_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def status(settings, as_json: bool) -> None:
    """Show what is indexed: notes, chunks, vectors present and missing, model, index path and size."""
    with open_knowledge(settings) as knowledge:
        info = knowledge.status()
        info["index_parts"] = knowledge.index_parts()
    if as_json:
        echo(json.dumps(info, ensure_ascii=False))
        return
    last = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["last_sync"])) if info["last_sync"] else "never"
    echo(
        f"Vault:   {info['vault']}\nIndex:   {info['index']} ({info['index_bytes'] / 1e6:.1f} MB)\nModel:   {info['model']}"
        f"{' (engine: ' + info['engine'] + ')' if info.get('engine') else ''}\n"
        f"{'Engine:  ' + info['engine_info']['label'] + chr(10) if info.get('engine_info') else ''}"
        f"Notes:   {info['notes']}\nChunks:  {info['chunks']}\nVectors: {info['vectors_present']} present, "
        f"{info['vectors_missing']} missing\nSentences: {info['sentences']}, {info['sentence_vectors_missing']} without a vector\n"
        f"Synced:  {last}\n{_parts_line(info['index_parts'])}"
    )
    if info.get("token_states_missing"):  # the token match reads these through the model until `rag index` keeps them
        echo(f"Token states: {info['token_states_missing']} chunks without (kept at the next sync; until then read at search time)")
    for note in info["skipped"]:
        echo(f"Skipped: {note['path']}: {note['reason']}")


PART_NAMES = {  # `rag status`'s words for the index's parts (store_space.IndexSpace.size_by_part)
    "text": "text and keywords",
    "vectors": "vectors",
    "vocabulary": "vocabulary",
    "token_states": "token states",
    "sentence_readings": "sentence readings",
    "free": "free",
}


def _parts_line(parts: dict[str, int]) -> str:
    """ "Parts:   text and keywords 1.7 MB, vectors 0.5 MB, …" (parts of no size left out)."""
    return "Parts:   " + ", ".join(f"{PART_NAMES.get(k, k)} {v / 1e6:.1f} MB" for k, v in parts.items() if v)


@cli.command(name="ask")
@common_options
@click.argument("question")
@click.option("--extractive", is_flag=True, help="Quote the best sentences from your notes instead of asking the chat model.")
@click.option("--max-chars", type=click.IntRange(min=200), help="Cap on the sources' text sent to the model (default 12000; RAG_CONTEXT_MAX_CHARS).")
@click.option("--max-notes", type=click.IntRange(min=1), help="Cap on the notes the sources come from (default 6; RAG_CONTEXT_MAX_NOTES).")
@time_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: answer, citations, sources, claims and their grounding.")
def ask_command(
    settings, question: str, extractive: bool, max_chars: int | None, max_notes: int | None, after, before, no_time: bool, as_json: bool
) -> None:
    """Answer QUESTION from your notes with citations (extractive when no chat model is configured). Every claim of a
    model's answer is checked against the passage it cites; what the notes do not support is listed. A time the
    question names narrows the notes searched (--no-time: it does not)."""
    settings = settings.replace(**{k: v for k, v in (("context_max_chars", max_chars), ("context_max_notes", max_notes)) if v})
    shown = ReadableStream(lambda piece: echo(piece, nl=False))  # `[[Note|alias]]` printed as "alias"
    with open_knowledge(settings) as knowledge:
        answer = knowledge.ask(
            question,
            extractive=extractive,
            on_text=None if as_json else shown,
            read_time=not no_time,
            filters=Filters(after=after, before=before),
        )
    shown.close()
    notes = _answer_notes(answer)
    if notes and not as_json:
        echo()  # the streamed answer's last line ends here, not in the middle of the first note
    for line in notes:
        echo(f"note: {line}", err=True)
    if as_json:
        echo(json.dumps(answer.to_json(), ensure_ascii=False, indent=2))
        return
    echo()
    for line in _grounding_lines(answer):
        echo(line)
    if answer.citations:
        echo("\nSources:")
    for c in answer.citations:
        day = f"  · {day_label(date.fromisoformat(c.day))}" if c.day else ""
        where = f"{c.path} · {c.place}" if c.place else f"{c.path}:{c.start_line}-{c.end_line}"
        echo(f"  [{c.id}] {where}  {c.heading}{day}")


def _grounding_lines(answer) -> list[str]:
    """After a model's streamed answer: the verdict, then each claim with its status and the lines that state it (or
    why nothing does), and the words of the claim those lines do not hold."""
    if answer.mode != "llm" or not answer.claims:
        return []
    counts = answer.grounding()
    lines = ["", "Checked against your notes: " + ", ".join(f"{n} {status}" for status, n in counts.items() if n) + "."]
    if answer.not_found and answer.context.sources and counts["unconfirmed"]:
        lines.append("Not confirmed: the sources are in another language than the answer, and the check could not confirm it there.")
    elif answer.not_found and answer.context.sources:
        lines.append("Not found in your notes: no claim of this answer is supported by them.")
    marks = {
        "supported": "supported",
        "misattributed": "re-cited",
        "uncited": "citation added",
        "unconfirmed": "NOT CONFIRMED",
        "unsupported": "NOT IN YOUR NOTES",
    }
    for c in answer.claims:
        lines.append(f"  {marks[c.status]}: {readable(c.text)}" + (f"  ({c.reason})" if c.reason else ""))
        for e in c.evidence:
            source = answer.context.get(e.source)
            page = source.place_of(e.start_line, e.end_line) if source is not None else None
            where = f"{e.source} {page}" if page else f"{e.source} lines {e.start_line}-{e.end_line}"
            lines.append(f"      {where}: “{readable(e.text)}”")
        if c.unmatched and c.status in SUPPORTING:
            lines.append(f"      not in those lines: {', '.join(c.unmatched)}")
    if answer.citations and any(c.status in ("misattributed", "uncited") for c in answer.claims):
        lines.append("Corrected answer: " + readable(answer.text))
    return lines


def _answer_notes(answer) -> list[str]:
    notes = [answer.notice] if answer.notice else []
    if answer.time is not None:
        notes.append(time_line(answer.time))
    if answer.translation:
        notes.append(f"also searched as: {answer.translation}")  # echo takes escape sequences out
    if answer.context.left_out:
        notes.append(
            f"the model's window ({answer.window:,} tokens) held {len(answer.context.sources)} of the {len(answer.context.sources) + answer.context.left_out}"
            " sources found; the rest were left out whole rather than cut (a model with a larger window reads more)"
        )
    if answer.truncated:
        notes.append("the model stopped at max_answer_tokens; the answer may be cut short (raise RAG_MAX_ANSWER_TOKENS)")
    if answer.removed_citations:
        notes.append(f"removed citations that match no source: {', '.join(answer.removed_citations)}")
    notes.extend(f"left out {d.path}:{d.start_line}-{d.end_line}: {d.reason}" for d in answer.context.dropped)
    return notes


@cli.command(name="import")
@common_options
@click.argument("kind", type=click.Choice(["claude-ai", "claude-code", "chatgpt"]))
@click.argument("source", type=click.Path(path_type=Path, exists=True))
@click.option("--dry-run", is_flag=True, help="Report what would be written; write nothing.")
@click.option("--json", "as_json", is_flag=True, help='Print {"created", "updated", "unchanged", "skipped_edited", "errors"}.')
def import_command(settings, kind: str, source: Path, dry_run: bool, as_json: bool) -> None:
    """Import a chat export into the vault as Markdown notes (Conversations/<source>/<project>/…). Additive: notes
    you edited since the last import are never overwritten. Run `index` afterwards to make them searchable."""
    from rag.importers import import_export

    with tqdm(desc=f"Importing {kind}", file=sys.stderr, leave=False, unit="B", unit_scale=True) as bar:

        def progress(done: int, total: int | None) -> None:
            bar.total = total
            bar.update(done - bar.n)

        report = import_export(kind, source, settings.vault, dry_run=dry_run, project_aliases=settings.project_aliases, progress=progress)
    if as_json:
        echo(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        verb = "would be " if dry_run else ""
        echo(
            f"{len(report.created)} notes {verb}created, {len(report.updated)} {verb}updated, {len(report.unchanged)} unchanged, "
            f"{len(report.skipped_edited)} skipped because you edited them (in {settings.vault})."
        )
        for path in report.skipped_edited:
            echo(f"kept your edits: {path}", err=True)
    for error in report.errors:
        echo(f"warning: {error}", err=True)


@cli.command(name="similar")
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


@cli.command(name="duplicates")
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


@cli.command(name="mcp")
@common_options
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    help="Serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio; every request needs the bearer token"
    " (made and shown at the first start, kept in ~/.config/ask-your-vault/mcp-token).",
)
@click.option("--show-token", is_flag=True, help="Print the bearer token of --http (made if there is none yet) and exit.")
def mcp_command(settings, http_port: int | None, show_token: bool) -> None:
    """Serve the vault to AI agents over MCP: search, read, write and record notes (stdio unless --http)."""
    from rag.agents.http_auth import make_token, read_token, token_path

    if show_token:
        path = token_path()
        make_token(path)
        echo(read_token(path))
        return
    token = None
    if http_port is not None:
        from rag.agents.http_server import port_in_use

        if port_in_use(http_port):
            raise click.ClickException(
                f"Port {http_port} on 127.0.0.1 is in use by another program (another `rag mcp --http`?): choose another with --http PORT."
            )
        path = token_path()
        made = make_token(path)
        token = read_token(path)
        url = f"http://127.0.0.1:{http_port}/mcp"
        echo(_token_made(url, path, token) if made else _token_kept(url, path), err=True)
    from rag.agents.mcp_server import serve  # the SDK takes seconds to import: not for --show-token

    serve(settings, http_port=http_port, token=token)


def _token_made(url: str, path: Path, token: str) -> str:
    return (
        f"Serving MCP at {url} (Ctrl+C to stop). Every request needs the header\n"
        f"  Authorization: Bearer {token}\n"
        f"(a new token, kept in {path}; later starts do not print it, `python -m rag mcp --show-token` does). For example:\n"
        f'  claude mcp add --transport http vault {url} --header "Authorization: Bearer {token}"'
    )


def _token_kept(url: str, path: Path) -> str:
    # Never the token itself: a server's stderr ends up in logs that others read.
    return (
        f"Serving MCP at {url} (Ctrl+C to stop). Every request needs the header `Authorization: Bearer <token>`, with "
        f"the token kept in {path} (`python -m rag mcp --show-token` prints it)."
    )


@cli.command(name="watch")
@common_options
def watch_command(settings) -> None:
    """Keep the index in line with the vault while notes change: re-index after each burst of saves (Ctrl+C stops)."""
    with LiveIndex(settings) as live:
        if live.workspace().recovered_from:
            echo(f"The index was damaged; it was moved to {live.workspace().recovered_from} and is being rebuilt.", err=True)
        live.subscribe(_WatchLog(live))
        echo(f"Watching {settings.vault} (Ctrl+C to stop).", err=True)
        live.start()  # the first check catches what changed while nobody watched
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            echo("Stopped watching.", err=True)


class _WatchLog:
    """Prints a line when the index changed (notes read, then vectors embedded) and each new indexing error."""

    def __init__(self, live: LiveIndex) -> None:
        self.live, self.seen_report, self.was, self.error = live, None, "not started", None

    def __call__(self, p: Progress) -> None:
        stamp = time.strftime("%H:%M:%S")
        r = p.last_report
        if r is not None and r is not self.seen_report and (r.files_added or r.files_updated or r.files_removed):
            self.seen_report = r
            echo(f"{stamp} {r.files_added} added, {r.files_updated} updated, {r.files_removed} removed.", err=True)
        if self.was == "embedding" and p.state == "idle":
            missing = self.live.status()
            echo(f"{stamp} vectors: {missing['vectors_missing'] + missing['sentence_vectors_missing']} missing.", err=True)
        if p.error and p.error.split(" Retrying")[0] != self.error:
            self.error = p.error.split(" Retrying")[0]
            echo(f"warning: {p.error}", err=True)
        self.was = p.state


def main() -> None:
    cli(prog_name="python -m rag")
