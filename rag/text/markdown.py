"""Markdown's line grammar: which line opens or closes a code fence, which is an ATX heading, what marks a list item
or a quote. For code that reads a note or an answer line by line (sentences, quotable units, claims, heading dates)
where a whole-document parse (markdown-it, in rag/index/chunking.py) would be too much or would lose the lines.
Lenient where notes are: a fence may be indented any amount, a heading up to three spaces. Pure.
"""

from __future__ import annotations

import re

# A line that opens or closes a fenced code block; group 1 is the fence ("```" or "~~~"), which closes it too.
FENCE = re.compile(r"\s*(```|~~~)")
# An ATX heading: group 1 its level's #s, group 2 its text without a closing run of #s.
HEADING = re.compile(r"\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# A quote's marks at the start of a line ("> > text").
QUOTE_MARK = re.compile(r"^\s*(?:>\s?)+")
# A list item's mark, as pieces to build a line's pattern from: a bullet, a number, a task's box.
BULLET = r"[-*+]"
ORDINAL = r"\d{1,3}[.)]"
TASK_BOX = r"\[[ xX]\]"
# A list item's start: group 1 its indent, then its mark (and a task's box).
LIST_ITEM = re.compile(rf"(\s*)(?:{BULLET}|{ORDINAL})\s+(?:{TASK_BOX}\s+)?")


def is_fence(line: str) -> bool:
    """The line opens or closes a fenced code block."""
    return FENCE.match(line) is not None


def code_lines(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """The non-blank lines inside code fences, stripped, with their line numbers (`first_line` is the first's)."""
    out, inside = [], False
    for number, line in enumerate(text.split("\n"), first_line):
        if is_fence(line):
            inside = not inside
        elif inside and line.strip():
            out.append((number, line.strip()))
    return out
