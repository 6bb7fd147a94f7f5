"""Text for the browser app, without Streamlit: answers as Markdown with clickable citations, cited passages with
their lines marked, `obsidian://` links and the "why was this found" line.

Pure apart from reading a note to show a passage in its surroundings. Knows nothing about Streamlit widgets: the app
turns these values into elements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from pathlib import Path

from rag.errors import NoteError
from rag.surface import (
    Place,
    obsidian_url,  # noqa: F401 — the pages import it from here, with the rest of what they show
    pdf,
    printable,
    read_note,
)
from rag.web import untrusted

CITE_PREFIX = "cite-"  # citation links are `#cite-<turn>-<source id>`; the app catches clicks on them
_CITATION = re.compile(r"\[(S\d+)\](?!\()")
_CITE_HREF = re.compile(rf"#?{CITE_PREFIX}(\d+)-(S\d+)")


@dataclass(frozen=True)
class PassageLine:
    number: int  # 1-based line in the note
    text: str
    cited: bool  # inside the cited line range
    quoted: bool = False  # the very line an extractive answer quoted


@dataclass(frozen=True)
class Passage:
    path: str
    start_line: int
    end_line: int
    lines: tuple[PassageLine, ...]
    changed: bool  # the note no longer holds the cited text: `lines` show the text as it was cited
    place: Place | None = None  # a PDF's passage: its page, and `lines` are numbered as on the page


def cite_href(turn: int, source_id: str) -> str:
    return f"#{CITE_PREFIX}{turn}-{source_id}"


def parse_cite_href(value: str | None) -> tuple[int, str] | None:
    """`#cite-3-S2` (or `cite-3-S2`, with anything after a `|`) → (3, "S2"); None for anything else."""
    if not value:
        return None
    m = _CITE_HREF.match(value.split("|", 1)[0])
    return (int(m.group(1)), m.group(2)) if m else None


def answer_html(text: str, valid_ids, *, turn: int, vault: Path | None = None, claims=(), badges: dict[str, str] | None = None) -> str:
    """An answer (a model's reply or quotes of notes) as cleaned HTML for `st.html` (`untrusted.markdown_html`): each
    `[Sx]` of a real source becomes a link the app catches, and a link that opens a note of `vault` in Obsidian stays
    one. With the answer's checked claims, an unsupported claim is highlighted and badged "not in your notes", a
    re-cited one says so, an added citation is marked. `badges` gives the badges' words in another language (keys
    "unsupported", "misattributed", "uncited")."""
    words = {**BADGE_WORDS, **(badges or {})}
    text = _MARKERS.sub("", text)  # the reply's own private-use characters cannot pose as our markers
    parts, at = [], 0
    for c in sorted(claims, key=lambda c: c.start):
        parts.append(_linked(text[at : c.start], valid_ids, turn))
        parts.append(_claim_markdown(text[c.start : c.end], c, valid_ids, turn))
        at = c.end
    parts.append(_linked(text[at:], valid_ids, turn))
    marks = {_OPEN: '<mark class="rag-unsupported">', _CLOSE: "</mark>"}
    marks |= {m: f'<span class="rag-badge rag-{status}">{escape(words[status])}</span>' for status, m in _BADGE_MARKS.items()}
    return f'<div class="rag-answer">{untrusted.markdown_html("".join(parts), vault=vault, replace=marks)}</div>'


BADGE_WORDS = {"misattributed": "re-cited", "uncited": "citation added", "unconfirmed": "not confirmed", "unsupported": "not in your notes"}
# Private-use characters put around a claim before the Markdown is rendered, replaced by HTML after it.
_OPEN, _CLOSE = "\ue000", "\ue001"
_BADGE_MARKS = {"unsupported": "\ue002", "misattributed": "\ue003", "uncited": "\ue004", "unconfirmed": "\ue005"}
_MARKERS = re.compile("[\ue000-\ue0ff]")
_LINE_START = re.compile(r"^\s*(?:(?:[-*+]|\d{1,9}[.)]|#{1,6}|>)[ \t]+)*")  # list, heading and quote marks stay outside


def _claim_markdown(segment: str, claim, valid_ids, turn: int) -> str:
    if claim.status not in _BADGE_MARKS:
        return _linked(segment, valid_ids, turn)
    badge = _BADGE_MARKS[claim.status]
    if segment.lstrip().startswith("|") or "\n" in segment:  # a table row or a code block: badge the answer's list below
        return _linked(segment, valid_ids, turn)
    if claim.status == "unsupported":
        first = _CITATION.search(segment)
        body, rest = (segment[: first.start()], segment[first.start() :]) if first else (segment, "")
        lead = _LINE_START.match(body).end()
        core = body[lead:].rstrip(" .!?…;,")
        if core.strip():
            tail = body[lead + len(core) :]
            return body[:lead] + _OPEN + core + _CLOSE + _linked(tail + rest, valid_ids, turn) + " " + badge
    return _linked(segment, valid_ids, turn) + " " + badge


def _linked(text: str, valid_ids, turn: int) -> str:
    valid = set(valid_ids)

    def link(m: re.Match) -> str:
        sid = m.group(1)
        return f"[\\[{sid}\\]]({cite_href(turn, sid)})" if sid in valid else m.group(0)

    return _CITATION.sub(link, text)


def claim_notes(claims, words=None) -> list[tuple[str, str, str]]:
    """(status, claim, reason) for every claim that is not simply supported, for the list under an answer. `words`
    (key, **values) → text writes a reason in the interface's language (`claim.reason.<key>`); without it, or for
    a reason saved without its key (an older conversation), the English text."""

    def said(reason) -> str:
        key = getattr(reason, "key", None)
        if not (words and key):
            return str(reason)
        try:
            return words(f"claim.reason.{key}", **reason.values)
        except (KeyError, IndexError):  # a reason of a newer or older version than the catalogue: its English
            return str(reason)

    return [(c.status, c.text, said(c.reason)) for c in claims if c.status != "supported"]


def highlighted(text: str, spans: list[tuple[int, int]]) -> str:
    """Plain text as Markdown with the given spans on a highlight (the matched query words of a snippet)."""
    out, at = [], 0
    for start, end in spans:
        out.append(untrusted.text(text[at:start]) + f":orange-background[{untrusted.text(text[start:end])}]")
        at = end
    return "".join(out) + untrusted.text(text[at:])


def passage(
    vault: Path, path: str, start_line: int, end_line: int, cited_text: str, *, around: int = 3, quoted_lines=(), outside: tuple[str, ...] = ()
) -> Passage:
    """The cited lines with `around` lines either side, read from the note now. If the note changed so that it no
    longer holds `cited_text`, the passage is the cited text as it was (marked `changed`)."""
    quoted = set(quoted_lines)
    try:
        note = read_note(vault, path, outside=outside).text
    except NoteError:
        note = None
    if note is None or cited_text not in note:
        lines = cited_text.split("\n")
        rows = tuple(PassageLine(start_line + i, t, True, start_line + i in quoted) for i, t in enumerate(lines))
        return Passage(path, start_line, end_line, rows, changed=True)
    lines = note.split("\n")
    first, last = max(1, start_line - around), min(len(lines), end_line + around)
    where = pdf.place(note, start_line, end_line) if path.lower().endswith(pdf.SUFFIX) else None
    if where is not None:  # a PDF's lines numbered as on its page; what this reading added to them is not shown
        marks = pdf.numbered(note)
        shown = [n for n in range(first, last + 1) if pdf.printed(lines[n - 1])]
        rows = tuple(PassageLine(marks[n - 1][1], lines[n - 1], start_line <= n <= end_line, n in quoted) for n in shown)
        return Passage(path, start_line, end_line, rows, changed=False, place=where)
    rows = tuple(PassageLine(n, lines[n - 1], start_line <= n <= end_line, n in quoted) for n in range(first, last + 1))
    return Passage(path, start_line, end_line, rows, changed=False)


def passage_html(p: Passage) -> str:
    """The passage as an escaped HTML block: line numbers, cited lines highlighted, quoted lines in bold."""
    rows = []
    for line in p.lines:
        cls = "quoted" if line.quoted else "cited" if line.cited else "context"
        rows.append(
            f'<div class="rag-line rag-{cls}"><span class="rag-no">{line.number}</span><span class="rag-text">{escape(printable(line.text)) or "&nbsp;"}</span></div>'
        )
    return f'<div class="rag-passage">{"".join(rows)}</div>'


PASSAGE_CSS = """
<style>
.rag-passage { font-family: var(--st-code-font, monospace); font-size: 0.85rem; line-height: 1.45;
  border: 1px solid rgba(128,128,128,0.25); border-radius: 0.5rem; padding: 0.4rem 0; overflow-x: auto; }
.rag-line { display: flex; gap: 0.8rem; padding: 0 0.8rem; white-space: pre-wrap; word-break: break-word; }
.rag-no { color: rgba(128,128,128,0.9); min-width: 2.5rem; text-align: right; user-select: none; flex: none; }
.rag-context { opacity: 0.6; }
.rag-cited { background: rgba(255, 200, 0, 0.16); }
.rag-quoted { background: rgba(255, 200, 0, 0.38); font-weight: 600; }
</style>
"""

# A word longer than the column (a 30,000-character string in a note or a reply) breaks anywhere rather than widen the
# page; code and tables scroll inside their own box.
ANSWER_CSS = """
<style>
.rag-answer { overflow-wrap: anywhere; }
.rag-answer pre, .rag-answer table { display: block; max-width: 100%; overflow-x: auto; }
.rag-answer mark.rag-unsupported { background: rgba(255, 75, 75, 0.18); color: inherit; border-radius: 0.2rem; }
.rag-answer .rag-badge { font-size: 0.8rem; border-radius: 0.5rem; padding: 0 0.4rem; white-space: nowrap; }
.rag-answer .rag-unsupported.rag-badge { background: rgba(255, 75, 75, 0.18); color: rgb(190, 30, 30); }
.rag-answer .rag-misattributed { background: rgba(255, 165, 0, 0.2); color: rgb(170, 95, 0); }
.rag-answer .rag-uncited { background: rgba(28, 131, 225, 0.15); color: rgb(20, 90, 170); }
.rag-answer .rag-unconfirmed { background: rgba(255, 165, 0, 0.2); color: rgb(170, 95, 0); }
.rag-answer .rag-image, .rag-answer .rag-url { color: rgba(128, 128, 128, 0.95); font-size: 0.85em; }
.rag-answer table { border-collapse: collapse; } .rag-answer td, .rag-answer th { border: 1px solid rgba(128,128,128,0.3); padding: 0.2rem 0.5rem; }
</style>
"""
