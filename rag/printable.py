"""What of a note's (or a file name's, or a model's) text may reach a screen: control characters taken out.

A note or a file name can hold terminal escape sequences — OSC 52 writes the clipboard, others retitle the window or
hide text — and bidirectional overrides that make `gpj.exe` read as `exe.jpg`. The CLI prints and the app shows
text only after `printable()`; newlines and tabs stay where a layout keeps them.
"""

from __future__ import annotations

import re

# C0 (but tab and newline), DEL, C1, and the bidirectional embedding, override and isolate controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """`text` without control characters (tab and newline kept)."""
    return _CONTROL.sub("", str(text))
