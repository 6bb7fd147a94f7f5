"""`python -m rag ask`: an answer streamed as it is written, then how each claim stands against the notes it cites,
the sources, and notes on stderr on what was left out or changed. Apart from search: its output is the grounding.
"""

from __future__ import annotations

import json
from datetime import date

import click

from rag.cli.common import common_options, echo, open_knowledge, time_line, time_options
from rag.surface import SUPPORTING, Filters, ReadableStream, day_label, readable


@click.command(name="ask")
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
            quoted = readable(e.text).replace("\n", "\n        ")  # a table's rows one to a line, under the first
            lines.append(f"      {where}: “{quoted}”")
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
