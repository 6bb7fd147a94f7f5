"""A model's answer → claims: the sentences, list items, table rows and code blocks it asserts, each with the source
ids it cites and its place in the answer.

Works on text whose citations are canonical (`[S1]`, after `citations.clean`). A citation belongs to the sentence it
ends ("… 136 sacks [S1]." and "… 136 sacks. [S1]"); one at the start of a line to the sentence that follows it
("[S1] Jared Allen …"); a line or sentence of citations alone ("Sources: S1, S2", once cleaned) covers the uncited
claims of its paragraph, or of the paragraph before it.
Not claims: headings, lead-ins that end with ":" ("Here is what I found:"), table header and rule rows, text without
a letter or digit, and sentences that only say the notes hold no answer (those mark the answer as abstaining).

Pure: knows nothing about sources; `grounding` checks the claims against them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.text.markdown import BULLET, FENCE, HEADING, ORDINAL
from rag.text.sentences import TABLE_RULE, segment

_CITATION = re.compile(r"\[S(\d+)\]")
_SPACED_CITATION = re.compile(r"[ \t]*\[S\d+\]")
# What starts an answer's line before its words: quote marks, then a list mark, a model's "•" too (not Markdown, but
# models write it); optional, so it matches every line.
_LIST_MARK = re.compile(rf"[ \t]*(?:>[ \t]?)*(?:(?:{BULLET}|•)[ \t]+|{ORDINAL}[ \t]+)?")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")
# "The notes don't say." A negation about the notes, or a phrase that only ever means "no answer here".
_ABOUT_NOTES = re.compile(r"\b(?:notes?|sources?|context|passages?|documents?|texts?|заметк\w*|источник\w*|контекст\w*|текст\w*)\b", re.I)
_NEGATION = re.compile(
    r"\b(?:do(?:es)?(?:n[’']t| not)|never)\s+(?:say|mention|contain|include|specify|provide|state|cover|give|tell|"
    r"answer|discuss|describe|have)\b|\bnot (?:mentioned|specified|stated|found|provided|included|available|covered|"
    r"given|answered)\b|\bno (?:information|mention|details?|data|answer)\b|"
    r"\bнет\b|\bне (?:упоминает\w*|упоминаются|упомянут\w*|указан\w*|сказано|говорится|содерж\w+|привод\w+|"
    r"найден\w*|сообща\w+|описан\w*|да[её]т\w*)",
    re.I,
)
_ABSTAIN = re.compile(
    r"\b(?:no|any) (?:information|mention|details?) (?:about|on|of|regarding)\b|"
    r"\b(?:I )?(?:cannot|can[’']t|can not|am unable to|could not|couldn[’']t) (?:find|answer|determine|tell)\b|"
    r"\bнет (?:информации|сведений|данных|упоминани\w*)|\bответа (?:нет|не)\b|\bничего не (?:сказано|говорится|известно|найдено)|"
    r"\bне (?:удалось|могу) (?:найти|ответить|определить)|\bнельзя (?:сказать|определить|ответить)",
    re.I,
)


def abstains(sentence: str) -> bool:
    """Does this sentence say the notes hold no answer ("Your notes don't say.", «В заметках об этом ничего нет.»)?"""
    return bool(_ABSTAIN.search(sentence) or (_NEGATION.search(sentence) and _ABOUT_NOTES.search(sentence)))


@dataclass(frozen=True)
class Claim:
    text: str  # what it says: citations and Markdown marks removed, whitespace collapsed; a table row "Header: cell; …"
    start: int  # span in the answer, its citations included
    end: int
    cited: tuple[str, ...]  # ids it cites, in order
    citation_spans: tuple[tuple[int, int], ...] = field(default=(), repr=False)  # where those citations are
    code: bool = False  # a fenced code block: checked as exact text, not as prose


@dataclass(frozen=True)
class Split:
    claims: tuple[Claim, ...]
    abstains: bool  # a sentence says the notes do not hold the answer


@dataclass
class _Unit:  # a claim being built
    start: int
    end: int
    text: str
    cites: list[tuple[int, int]]
    code: bool = False


def split(answer: str) -> Split:
    """The claims of `answer`, in order."""
    units: list[_Unit] = []
    abstained = False
    paragraph: list[_Unit] = []  # claims of the current paragraph, for a citation-only line
    previous: list[_Unit] = []
    offset, in_code, code_start, table_header = 0, False, 0, None
    lines = answer.split("\n")
    for n, line in enumerate(lines):
        start, end = offset, offset + len(line)
        offset = end + 1
        if FENCE.match(line):
            if in_code and answer[code_start:start].strip():
                units.append(_Unit(code_start, start - 1, answer[code_start:start].strip(), [], code=True))
            in_code, code_start = not in_code, offset
            continue
        if in_code or HEADING.match(line):
            continue
        if not line.strip():
            previous, paragraph = paragraph or previous, []
            table_header = None
            continue
        if line.lstrip().startswith("|"):
            table_header = _table_row(answer, start, line, lines[n + 1] if n + 1 < len(lines) else "", table_header, units)
            continue
        for unit in _sentences(answer, start, end):
            if not re.search(r"\w", _CITATION.sub("", unit.text)):
                _cover(paragraph or previous, unit.cites)  # "[S1][S2]" alone: for the claims before it
            elif abstains(unit.text):
                abstained = True
            elif not _CITATION.sub("", unit.text).rstrip(" *_").endswith((":", "?")):  # lead-ins and questions assert nothing
                units.append(unit)
                paragraph.append(unit)
    return Split(tuple(_claim(answer, u) for u in units), abstained)


def _sentences(answer: str, start: int, end: int) -> list[_Unit]:
    """The sentences of one line; a citation right after a sentence's end goes with that sentence."""
    body_start = _LIST_MARK.match(answer, start, end).end()
    line = answer[body_start:end]
    masked = _CITATION.sub(lambda m: "Z" + "z" * (len(m.group()) - 1), line)  # cites read as a word, not a boundary
    out: list[_Unit] = []
    for a, b in segment(masked):
        a, b = a + body_start, b + body_start
        cites = [(m.start(), m.end()) for m in _CITATION.finditer(answer, a, b)]
        leading = _leading_citations(answer, a, cites)
        if out and leading:  # "… sacks. [S1] Next …": the citation ends the previous sentence
            out[-1].cites.extend(leading)
            out[-1].end = leading[-1][1]
            out[-1].text = answer[out[-1].start : out[-1].end]
            cites = cites[len(leading) :]
            a = leading[-1][1]
            while a < b and answer[a].isspace():
                a += 1
        if a < b:
            out.append(_Unit(a, b, answer[a:b], cites))
    return out


def _leading_citations(answer: str, start: int, cites: list[tuple[int, int]]) -> list[tuple[int, int]]:
    leading, at = [], start
    for a, b in cites:
        if answer[at:a].strip():
            break
        leading.append((a, b))
        at = b
    return leading


def _table_row(answer: str, start: int, line: str, next_line: str, header: list[str] | None, units: list[_Unit]):
    """A table row becomes a claim "Header: cell; …"; returns the header for the rows that follow."""
    if TABLE_RULE.fullmatch(line.strip()):
        return header
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if header is None and TABLE_RULE.fullmatch(next_line.strip()):
        return [_CITATION.sub("", c).strip() for c in cells]  # the header row itself says nothing
    plain = [_CITATION.sub("", c).strip() for c in cells]
    text = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, plain) if c) if header else " | ".join(c for c in plain if c)
    if re.search(r"\w", text):
        end = start + len(line)
        cites = [(m.start(), m.end()) for m in _CITATION.finditer(answer, start, end)]
        units.append(_Unit(start, end, text, cites))
    return header


def _cover(claims: list[_Unit], cites: list[tuple[int, int]]) -> None:
    """A citation standing alone is for the claims before it that cite nothing of their own."""
    for unit in claims:
        if not unit.cites:
            unit.cites.extend(cites)


def _claim(answer: str, u: _Unit) -> Claim:
    cited = tuple(dict.fromkeys(f"S{_CITATION.fullmatch(answer, a, b).group(1)}" for a, b in u.cites))
    text = u.text if u.code else " ".join(_EMPHASIS.sub("", _SPACED_CITATION.sub("", u.text)).split())
    own = tuple(span for span in u.cites if u.start <= span[0] < u.end)  # a covering citation stays where it is
    return Claim(text, u.start, u.end, cited, own, code=u.code)
