"""Phantom citations in shown text: an independent check of `rag.answer.citations`, for tests and the `eval qa` metric.

A phantom is a citation-shaped id that labels no source: an S-number (Latin S or Cyrillic С, "S9" or "S 9") written
beside citation punctuation (`[`, `(`, `【`, `^`, `]`, `)`, `】`, `†`, `:`) or after a source cue ("source",
"источник", "according to", "согласно"). Empty citation brackets left behind (`[]`, `【】`, `[^]`) count too, as "".
This is deliberately not the filter's grammar (a few character tests instead of one large pattern), so the two can
disagree and a leak in the filter shows up in the metric. A bare "S3" in prose ("the S3 bucket") is not a citation.
"""

from __future__ import annotations

import re

_ID = re.compile(r"(?<![0-9A-Za-zА-Яа-яЁё_\u2060])([SsСс])[ \t]?(\d+)(?![0-9A-Za-zА-Яа-яЁё_])")
_OPENERS = "[(【^:"
_CLOSERS = "])】†:"
_CUES = re.compile(r"(?:sources?|источник\w*|according to|согласно|see|см\.?)\W{0,3}$", re.IGNORECASE)
# Other ids of the same group ("[S1, S9]", "(S2; S9)"), skipped to find the group's brackets.
_SEP = r"[ \t]*(?:[,;&\-–—]|\band\b|\bи\b)[ \t]*"
_GROUP_BEFORE = re.compile(rf"(?:[SsСс]?[ \t]?\d+{_SEP})+$")
_GROUP_AFTER = re.compile(rf"^(?:{_SEP}[SsСс]?[ \t]?\d+)+")
_EMPTY = re.compile(r"\[\s*\^?\s*\]|【\s*】|\[\[\s*\]\]")


def phantoms(text: str, valid_ids) -> list[str]:
    """Citation-shaped ids in `text` that are not in `valid_ids` (as "S9"), and "" for each empty citation bracket."""
    valid = set(valid_ids)
    found = []
    for match in _ID.finditer(text):
        before = text[max(0, match.start() - 200) : match.start()]
        before = before[: _GROUP_BEFORE.search(before).start()] if _GROUP_BEFORE.search(before) else before
        after = text[match.end() : match.end() + 200]
        after = after[_GROUP_AFTER.match(after).end() :] if _GROUP_AFTER.match(after) else after
        after = after.lstrip(" \t")
        shaped = before.rstrip(" \t")[-1:] in tuple(_OPENERS) or after[:1] in tuple(_CLOSERS) or _CUES.search(before)
        ident = f"S{match.group(2)}"
        if shaped and ident not in valid:
            found.append(ident)
    found += ["" for _ in _EMPTY.finditer(text)]
    return found
