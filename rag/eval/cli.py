"""`python -m rag eval retrieval|qa`: retrieval and answer quality on benchmark data, through the real pipeline."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from rag.config import load_settings
from rag.errors import RagError
from rag.progress import ProgressBars
from rag.workspace import Workspace


@click.group(name="eval")
def eval_group() -> None:
    """Measure retrieval or answer quality on benchmark data."""


@eval_group.command(name="retrieval")
@click.argument("dataset_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--db", type=click.Path(path_type=Path), help="Keep the index (and the generated vault beside it) here, so re-runs do not re-embed.")
@click.option(
    "--mode",
    type=click.Choice(["all", "bm25", "dense", "crossing", "lexicon", "tokens", "hybrid"]),
    default="all",
    show_default=True,
    help="crossing: the keyword channel between scripts by sound; lexicon: meaning's candidates scored word by word"
    " against the question; tokens: meaning's top 20 re-ordered by their tokens' match with the question's (all three"
    " rank only passages in another script than the question).",
)
@click.option("--limit", type=int, help="Evaluate only the first N queries.")
@click.option(
    "--embedder", type=click.Choice(["local", "openai"]), default="local", show_default=True, help="openai uses OPENAI_BASE_URL / OPENAI_API_KEY."
)
@click.option("--embed-model", help="Embedding model name for --embedder openai.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every metric.")
def eval_retrieval(dataset_dir: Path, db: Path | None, mode: str, limit: int | None, embedder: str, embed_model: str | None, as_json: bool) -> None:
    """nDCG@10, Recall@10, Recall@100 and MRR@10 per channel on a BEIR-style dataset, through the real pipeline."""
    import tempfile

    from rag.eval import retrieval as evaluate

    started = time.perf_counter()
    try:
        dataset = evaluate.load_dataset(dataset_dir, limit=limit)
        with tempfile.TemporaryDirectory() as tmp:
            db_path = db.absolute() if db else Path(tmp) / "index.db"
            vault = db_path.with_name(db_path.stem + "-vault")
            mapping = evaluate.write_vault(dataset, vault)
            settings = load_settings(vault=vault, db_path=db_path, embedder=embedder, embed_model=embed_model)
            with Workspace.open(settings, create=True) as ws:
                with ProgressBars() as bars:
                    report = ws.sync(progress=bars.update)
                if report.embed_error:
                    raise click.ClickException(report.embed_error)
                channels = ["bm25", "dense", "crossing", "lexicon", "tokens", "hybrid"] if mode == "all" else [mode]
                result = evaluate.evaluate(ws, dataset, mapping, channels)
    except RagError as exc:
        raise click.ClickException(str(exc)) from exc
    result["index_seconds"] = report.seconds
    result["seconds"] = round(time.perf_counter() - started, 2)
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"{result['dataset']}: {result['queries']} queries, index {report.seconds:.0f}s, total {result['seconds']:.0f}s")
    click.echo(f"{'channel':8} {'nDCG@10':>8} {'R@10':>8} {'R@100':>8} {'MRR@10':>8}")
    for name, m in result["channels"].items():
        click.echo(f"{name:8} {m['ndcg@10']:8.4f} {m['recall@10']:8.4f} {m['recall@100']:8.4f} {m['mrr@10']:8.4f}")


@eval_group.command(name="qa")
@click.argument("dataset_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option(
    "--lang",
    type=click.Choice(["en", "ru"]),
    default="en",
    show_default=True,
    help="Question set qa.<lang>.jsonl with vault-<lang>/ (XQuAD-style sets).",
)
@click.option("--db", type=click.Path(path_type=Path), help="Keep the index here so re-runs do not re-embed (default: under the temp folder).")
@click.option("--limit", type=int, help="Answer only the first N questions.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every metric.")
def eval_qa(dataset_dir: Path, lang: str, db: Path | None, limit: int | None, as_json: bool) -> None:
    """Extractive answers on a QA set: citations on the gold line, gold answer quoted, phantom citations (must be 0)."""
    from rag.eval import qa as evaluate_qa

    try:
        with ProgressBars() as bars:
            report = evaluate_qa.run_qa_eval(dataset_dir, lang=lang, db_path=db.absolute() if db else None, limit=limit, progress=bars.update)
    except RagError as exc:
        raise click.ClickException(str(exc)) from exc
    data = report.to_json()
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    click.echo(f"{report.dataset} ({report.lang}, {report.mode}): {report.questions} questions, {report.seconds_per_question:.2f}s each")
    for key, value in data.items():
        if key not in ("dataset", "lang", "mode", "questions", "seconds_per_question"):
            click.echo(f"  {key:26} {value if value is not None else '-'}")
