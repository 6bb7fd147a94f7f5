"""`python -m rag index | status | watch | import`: the index kept in line with the vault, what it holds, and chat
exports brought into the vault as notes. The commands that fill the index, apart from the ones that read it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from tqdm import tqdm

from rag.cli.common import common_options, echo, open_knowledge
from rag.knowledge import Knowledge
from rag.live import LiveIndex, Progress
from rag.surface import ProgressBars


@click.command(name="index")
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


@click.command(name="status")
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


@click.command(name="watch")
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


@click.command(name="import")
@common_options
@click.argument("kind", type=click.Choice(["claude-ai", "claude-code", "chatgpt"]))
@click.argument("source", type=click.Path(path_type=Path, exists=True))
@click.option("--dry-run", is_flag=True, help="Report what would be written; write nothing.")
@click.option("--json", "as_json", is_flag=True, help='Print {"created", "updated", "unchanged", "skipped_edited", "errors"}.')
def import_command(settings, kind: str, source: Path, dry_run: bool, as_json: bool) -> None:
    """Import a chat export into the vault as Markdown notes (Conversations/<source>/<project>/…). Additive: notes
    you edited since the last import are never overwritten. Run `index` afterwards to make them searchable."""
    from rag.surface import import_export

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
