"""Markdown prose → sentences with the line each starts on. Shared by the index (sentence vectors) and the
extractive answerer (quotes), so both see the same units.

Wrapped lines of a paragraph or list item are joined; a table row becomes "Header: cell; …"; headings, code,
table rules and callout markers are skipped. Sentences end at . ! ? … before a capital or a digit, not after
common abbreviations in either language.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

import razdel
import sentencex

from rag.text import markdown

_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")


def row_text(header: list[str], cells: list[str]) -> str:
    """A table row as it reads: "Item: Flights; Sum: 46 800" under a header, its cells joined by " | " without one."""
    if header:
        return "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c)
    return " | ".join(c for c in cells if c)


def row_cells(text: str) -> list[tuple[str, str]]:
    """`row_text` read back: each cell it shows with its column, the header's words ("Sum", "46 800"), or its place
    among the shown cells in a row read without a header ("1", "46 800")."""
    parts = text.split("; ")
    if all(": " in part for part in parts):
        return [tuple(part.split(": ", 1)) for part in parts]
    return [(str(k), cell) for k, cell in enumerate(text.split(" | "))]


def visible_text(text: str) -> str:
    """Resolve wikilinks to the text a reader sees: [[a|b]] → b, [[a]] → a, [[a#h]] → a."""
    return _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)


# Bump when the splitting (or the script rule) changes: the index re-derives every chunk's sentences and script
# (unchanged sentences keep their vectors). 4: a chunk's only sentence has a vector too.
VERSION = "4"
MIN_WORDS = 3  # shorter units ("Yes.", "See above.") say too little to be searched on their own

_EMPHASIS = re.compile(r"\*\*|__|`")
TABLE_RULE = re.compile(r"\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?")  # a Markdown table's |---|---| line (fullmatch a stripped line)
# A list item's mark, a task's box only after a bullet: "1. [x] …" keeps its box here, unlike `markdown.LIST_ITEM`
# (sentences are what the index embeds; reading them otherwise would re-derive every note's, see VERSION).
_LIST_MARK = re.compile(rf"^(?:{markdown.BULLET}\s+(?:{markdown.TASK_BOX}\s+)?|{markdown.ORDINAL}\s+)")
_CALLOUT = re.compile(r"\[![\w-]+\][+-]?(?:\s|$)")
_BOUNDARY = re.compile(r"(?<=[.!?…])[\"»”’')\]]*\s+(?=[\"«“(\[]?[A-ZА-ЯЁ0-9])")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr st prof sr jr vs etc e.g i.e no fig al approx ca cf gen gov sen rep col lt sgt "
    "т е г гг им ул д см стр тыс млн млрд руб проф акад др пр св".split()
)


@dataclass(frozen=True)
class Sentence:
    text: str  # as written in the note
    line: int  # 1-based line where it starts
    following: str  # the next sentence of the same paragraph ("" if none)
    end_line: int = 0  # 1-based line where it ends (a paragraph's lines are joined into one text)


def split(text: str, first_line: int = 1) -> list[Sentence]:
    """The sentences of a Markdown passage whose first line is `first_line`, in order."""
    out = []
    for para, starts in _paragraphs(text.split("\n"), first_line):
        spans = [(a, b) for a, b in split_sentences(para) if any(ch.isalnum() for ch in para[a:b])]
        offsets = [o for o, _ in starts]
        for k, (a, b) in enumerate(spans):
            line = starts[bisect.bisect_right(offsets, a) - 1][1]
            end_line = starts[bisect.bisect_right(offsets, max(a, b - 1)) - 1][1]
            following = para[spans[k + 1][0] : spans[k + 1][1]] if k + 1 < len(spans) else ""
            out.append(Sentence(para[a:b], line, following, end_line))
    return out


def plain(text: str) -> str:
    """What a reader sees: wikilinks resolved, emphasis and code marks dropped (for scoring, not for quoting)."""
    return _EMPHASIS.sub("", visible_text(text))


def for_vectors(text: str, first_line: int = 1) -> list[tuple[str, int, str, str | None]]:
    """(plain sentence, line, vector key, script) worth a vector of its own in a chunk's text: its headings (a heading
    sums up its section; a note's title often reads like the question) and sentences, each of at least MIN_WORDS
    words, each distinct text once. A chunk of one sentence has it too: its own vector is of its heading path and
    text, and the reader reads the sentence by the sentence's vector (without it a one-sentence note or message could
    never be quoted: its cosine read as 0)."""
    units: dict[str, int] = {}
    found = [(plain(h), line) for h, line in headings(text, first_line)] + [(plain(s.text), s.line) for s in split(text, first_line)]
    for words, line in sorted(found, key=lambda x: x[1]):
        if len(re.findall(r"\w+", words)) >= MIN_WORDS:
            units.setdefault(words, line)
    return [(t, line, vector_key(t), script(t)) for t, line in units.items()]


def headings(text: str, first_line: int = 1) -> list[tuple[str, int]]:
    """(heading text, line) of the ATX headings outside code fences."""
    out, in_code = [], False
    for number, raw in enumerate(text.split("\n"), first_line):
        line = raw.strip()
        if markdown.is_fence(line):
            in_code = not in_code
        elif not in_code and markdown.HEADING.match(line):
            out.append((line.lstrip("#").strip(), number))
    return out


_LATIN = re.compile(r"[A-Za-z]")
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")


SCRIPT_CODES = {None: 0, "latin": 1, "cyrillic": 2}  # `script()` as stored in the index


def script(text: str) -> str | None:
    """ "cyrillic" or "latin" by the majority of letters, None without letters. Embeddings of one script share an
    offset (the model's language direction) that `languages` evens out."""
    latin, cyrillic = len(_LATIN.findall(text)), len(_CYRILLIC.findall(text))
    if not latin and not cyrillic:
        return None
    return "cyrillic" if cyrillic > latin else "latin"


def vector_key(text: str) -> str:
    """Vectors are keyed by the sha256 of the text embedded, like chunks' (`Chunk.vector_key`)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def segment(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of one paragraph by a well-kept segmenter that knows initials and abbreviations: razdel
    for Russian («Дж. А. Гобсон», «т. е.», «ул. Ленина»), sentencex for English and other Latin text ("J. A. Hobson",
    "e.g.", "Dr."). For the claims of a model's answer, where one wrong cut makes two claims of one."""
    if script(text) == "cyrillic":
        spans = [(s.start, s.stop) for s in razdel.sentenize(text)]
    else:
        spans = [(b["start_index"], b["end_index"]) for b in sentencex.get_sentence_boundaries("en", text)]
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of one paragraph: cut at . ! ? … before a capital or digit, not after abbreviations."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        before = text[start : m.start()].split()
        word = before[-1].rstrip(".!?…\"»”’')]").lstrip('("«“*_').lower() if before else ""
        if len(word) <= 1 or word in _ABBREVIATIONS or "." in word:
            continue  # "U.S. Army", "т. е.", "Dr. Smith": not the end of a sentence
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _paragraphs(lines: list[str], first_line: int) -> list[tuple[str, list[tuple[int, int]]]]:
    """(paragraph text, [(offset in text, line number)]) for each paragraph, list item and table row."""
    out: list[tuple[str, list[tuple[int, int]]]] = []
    parts: list[tuple[str, int]] = []
    table: list[tuple[str, int]] = []
    in_code = False

    def flush() -> None:
        if parts:
            out.append(_join(parts))
            parts.clear()
        if table:
            out.extend(_table_rows(table))
            table.clear()

    for number, raw in enumerate(lines, first_line):
        line = markdown.QUOTE_MARK.sub("", raw.strip()).strip()
        if markdown.is_fence(raw):
            flush()
            in_code = not in_code
        elif in_code or not line or markdown.HEADING.match(line) or _CALLOUT.match(line):
            flush()
        elif line.startswith("|"):
            if parts:
                out.append(_join(parts))
                parts.clear()
            table.append((line, number))
        else:
            body = _LIST_MARK.sub("", line, count=1)
            if body != line or table:
                flush()  # a list item (or the end of a table) starts a new unit
            parts.append((body.strip(), number))
    flush()
    return out


def _join(parts: list[tuple[str, int]]) -> tuple[str, list[tuple[int, int]]]:
    text, starts = "", []
    for piece, number in parts:
        text += " " if text else ""
        starts.append((len(text), number))
        text += piece
    return text, starts


def _table_rows(rows: list[tuple[str, int]]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each data row as its own unit, cells labelled by the header when there is one."""
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row, _ in rows]
    header = None
    if len(rows) > 1 and TABLE_RULE.fullmatch(rows[1][0]):
        header, cells, rows = cells[0], cells[2:], rows[2:]
    out = []
    for row_cells, (row, number) in zip(cells, rows):
        if TABLE_RULE.fullmatch(row):
            continue
        text = row_text(header, row_cells)
        if text:
            out.append((text, [(0, number)]))
    return out
