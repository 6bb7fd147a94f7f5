"""Question-answering metrics on benchmark data: do the answers cite the gold passage, quote the gold answer, and
never show a phantom citation?

Two layouts are read (see `load_dataset`):
- XQuAD-style: `qa.<lang>.jsonl` (question, answers[].text, gold_file, gold_line_start/end, answer_line) with the
  notes in `vault-<lang>/`;
- SciFact-style: `claims.jsonl` (claim, verdict, evidence[].file / .lines) with the notes in `vault/`; only
  SUPPORT and CONTRADICT claims have gold evidence and are scored.

The vault is indexed (incrementally) into `db_path`, by default a file under the system temp folder, so the
dataset folder is never written to. Retrieval metrics live in `rag/eval/retrieval.py`.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from rag.answer.ask import Answer, ask
from rag.answer.phantoms import phantoms
from rag.chat.protocol import ChatModel
from rag.config import load_settings
from rag.embed.embedders import Embedder
from rag.errors import ConfigError
from rag.workspace import Workspace

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    answers: tuple[str, ...]  # gold answer texts (empty when the set has none)
    gold: tuple[tuple[str, int], ...]  # (file, 1-based line) pairs; a citation covering any of them counts


@dataclass(frozen=True)
class QAReport:
    dataset: str
    lang: str
    mode: str
    questions: int
    first_citation_on_gold: float  # the first citation names a gold file and its line range covers a gold line
    any_citation_on_gold: float
    first_quote_on_gold_line: float | None  # extractive only: the first quote's lines hold a gold line
    answer_contains_gold: float | None  # the answer text holds a gold answer (whole words, case-folded); None if no answers
    not_found: float
    phantom_citations_shown: int  # citation-like ids in the shown text that are not in the context: must be 0
    removed_citations: int  # ids the model cited that were removed
    dropped_sources: int
    seconds_per_question: float

    def to_json(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def load_dataset(dataset_dir: Path, *, lang: str = "en") -> tuple[Path, list[QAItem]]:
    """(vault folder, items) of an XQuAD-style or SciFact-style folder. Raises ConfigError naming the layout."""
    dataset_dir = Path(dataset_dir)
    if (dataset_dir / "claims.jsonl").is_file():
        return dataset_dir / "vault", _scifact(dataset_dir / "claims.jsonl")
    qa = dataset_dir / f"qa.{lang}.jsonl"
    if qa.is_file():
        return dataset_dir / f"vault-{lang}", _xquad(qa)
    raise ConfigError(
        f"{dataset_dir} holds neither claims.jsonl (with vault/) nor qa.{lang}.jsonl (with vault-{lang}/). "
        "Point DATASET_DIR at a QA set such as eval-data/qa/xquad, and pick --lang."
    )


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _xquad(path: Path) -> list[QAItem]:
    items = []
    for r in _rows(path):
        line = r.get("answer_line") or r["gold_line_start"]
        items.append(QAItem(str(r["id"]), r["question"], tuple(a["text"] for a in r["answers"]), ((r["gold_file"], line),)))
    return items


def _scifact(path: Path) -> list[QAItem]:
    items = []
    for r in _rows(path):
        if r["verdict"] not in ("SUPPORT", "CONTRADICT"):
            continue
        gold = tuple(dict.fromkeys((e["file"], line) for e in r["evidence"] for line in e["lines"]))
        items.append(QAItem(str(r["id"]), r["claim"], (), gold))
    return items


def default_db_path(dataset_dir: Path, lang: str) -> Path:
    return Path(tempfile.gettempdir()) / "rag-eval" / f"{Path(dataset_dir).resolve().name}-{lang}.db"


def run_qa_eval(
    dataset_dir: Path,
    *,
    lang: str = "en",
    db_path: Path | None = None,
    limit: int | None = None,
    chat: ChatModel | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> QAReport:
    """Index the set's vault (incrementally), answer its questions (extractive unless `chat`), and score them.
    The embedder is the configured one (the local default) unless one is passed."""
    vault, items = load_dataset(dataset_dir, lang=lang)
    items = items[:limit] if limit else items
    settings = load_settings(vault=vault, db_path=db_path or default_db_path(dataset_dir, lang))
    with Workspace.open(settings, create=True, embedder=embedder) as ws:
        ws.sync(progress=progress)
        started = time.perf_counter()
        answers = []
        for done, item in enumerate(items, 1):
            answers.append(ask(ws, item.question, chat=chat))
            if progress:
                progress("ask", done, len(items))
        seconds = time.perf_counter() - started
    return score(items, answers, dataset=Path(dataset_dir).name, lang=lang, seconds=seconds)


def score(items: list[QAItem], answers: list[Answer], *, dataset: str, lang: str, seconds: float = 0.0) -> QAReport:
    n = max(1, len(items))
    extractive = bool(answers) and all(a.mode == "extractive" for a in answers)
    with_answers = [(i, a) for i, a in zip(items, answers) if i.answers]
    return QAReport(
        dataset=dataset,
        lang=lang,
        mode="extractive" if extractive else "llm",
        questions=len(items),
        first_citation_on_gold=sum(_covers(i, a.citations[:1]) for i, a in zip(items, answers)) / n,
        any_citation_on_gold=sum(_covers(i, a.citations) for i, a in zip(items, answers)) / n,
        first_quote_on_gold_line=sum(_quote_on_gold(i, a) for i, a in zip(items, answers)) / n if extractive else None,
        answer_contains_gold=sum(_contains(a.text, i.answers) for i, a in with_answers) / len(with_answers) if with_answers else None,
        not_found=sum(a.not_found for a in answers) / n,
        phantom_citations_shown=sum(len(phantoms(a.text, a.context.ids)) for a in answers),
        removed_citations=sum(len(a.removed_citations) for a in answers),
        dropped_sources=sum(len(a.context.dropped) for a in answers),
        seconds_per_question=seconds / n,
    )


def _covers(item: QAItem, citations) -> bool:
    return any(c.path == path and c.start_line <= line <= c.end_line for c in citations for path, line in item.gold)


def _quote_on_gold(item: QAItem, answer: Answer) -> bool:
    if not answer.quotes:
        return False
    quote = answer.quotes[0]
    source = answer.context.get(quote.source_id)
    return any(source.path == path and quote.line <= line <= quote.end_line for path, line in item.gold)


def _contains(text: str, golds: tuple[str, ...]) -> bool:
    haystack = _normal(text)
    return any(g and re.search(rf"(?<!\w){re.escape(g)}(?!\w)", haystack) for g in map(_normal, golds))


def _normal(text: str) -> str:
    text = " ".join(text.casefold().replace("ё", "е").split())
    return text.strip(" .,;:!?\"'«»“”()")
