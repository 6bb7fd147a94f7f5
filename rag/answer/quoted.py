"""An extractive answer's text and claims: each quote under its label (which note and section, the day when the note
says it and the lines do not, the source id) above the note's lines in a blockquote, and each quote a claim its own
source supports.

Apart from `ask` because it is the extractive answer's shape only; which lines to quote is extractive.py's choice.
"""

from __future__ import annotations

import re

from rag.answer.context import Source
from rag.answer.extractive import Quote
from rag.answer.grounding import CheckedClaim, Evidence
from rag.notes.dates import full_date
from rag.text.date_labels import day_label

_WIKILINK = re.compile(r"\[\[[^\]]*\]\]")  # a link's target names another note, not this line's day


def quote_block(q: Quote, source: Source | None, lang: str) -> str:
    """A quote as its label (which note and section, the day it is from when the note says it and the lines do not,
    and the source id) above the note's lines in a blockquote."""
    label = " ".join(q.label.split())
    dated = source is not None and source.dated and not full_date(_WIKILINK.sub("", q.text))  # a log's row says its own
    day = f" · {day_label(source.dated, lang)}" if dated else ""
    # Lines end without spaces: a trailing space of the note's last line would be cut from the answer's text, and
    # the quote then not found in it
    return f"{label}{day} [{q.source_id}]\n" + "\n".join(f"> {line}".rstrip() for line in q.text.split("\n"))


def quoted_claims(text: str, blocks: list[str], quotes: tuple[Quote, ...]) -> tuple[CheckedClaim, ...]:
    """Each quote is a claim its own source supports: it is that source's text, its own evidence."""
    out, at = [], 0
    for block, q in zip(blocks, quotes):
        start = text.index(block, at)
        at = start + len(block)
        shown = (Evidence(q.source_id, q.line, q.end_line, q.text, None),)
        out.append(CheckedClaim(q.text, start, at, (q.source_id,), "supported", (q.source_id,), evidence=shown))
    return tuple(out)
