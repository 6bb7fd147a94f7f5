"""Citations in a model's answer, checked against the ids of a frozen context.

Every citation-like group — `[S2]`, `[s2]`, `(S2)`, `[S1, S2]`, `[S1; S3]`, `[S1-S3]`, `[S 2]` — is rewritten to the
canonical `[S1][S2]` form keeping only ids that exist in the context; unknown ids are removed (with the space before
a group that is removed entirely) and reported. A link target glued to a group (`[S1](http://…)`) and reference
definitions (`[S1]: http://…`) are removed too, so a model can never turn a citation into a link of its own.

`CitationFilter` does the same on a stream: it holds back only the text that could still become part of a
citation, so the person never sees a phantom id, and the streamed pieces add up to `clean(full_text)`.
Pure: knows nothing about sources beyond their ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ID = r"[Ss][ \t]?\d{1,4}"
_NEXT = rf"(?:[ \t]*(?:[,;&]|\band\b|\bи\b|[-–—])[ \t]*(?:[Ss][ \t]?)?\d{{1,4}}|[ \t]+{_ID})"
_BODY = rf"{_ID}{_NEXT}*"
_GROUP = re.compile(
    rf"(?P<pre>[ \t]*)(?:\[[ \t]*(?P<body>{_BODY})[ \t]*\](?P<link>(?:\((?![ \t])[^()\s]*\))*)"
    rf"|\([ \t]*(?P<pbody>{_BODY})[ \t]*\))"
)
# Any reference definition ("[label]: target") in a model's answer: removed, so no citation can become a link.
_REFDEF = re.compile(r"^ {0,3}\[(?P<label>[^\]\n]{1,200})\]:[^\n]*(?:\n|\Z)", re.MULTILINE)
_REFDEF_PREFIX = re.compile(r" {0,3}(?:\[[^\]\n]*\]?)?")  # a line that may still become a definition
_REFDEF_START = re.compile(r" {0,3}\[[^\]\n]+\]:")
_MAYBE_GROUP = re.compile(r"[ \t]*(?:[Ss][^\[\]()\n]*)?")
_TOKEN = re.compile(r"([-–—])|[Ss]?[ \t]?(\d+)")
_WHOLE_ID = re.compile(rf"[ \t]*{_BODY}[ \t]*")
_HOLD = 160  # an opening bracket further back than this can no longer start a citation
_MAX_RANGE = 20


@dataclass(frozen=True)
class Cleaned:
    text: str
    cited: tuple[str, ...]  # valid ids in order of first appearance
    removed: tuple[str, ...]  # unknown ids that were removed, in order of first appearance


def clean(text: str, valid_ids) -> Cleaned:
    """Rewrite every citation group in `text` to canonical form, keeping only ids in `valid_ids`."""
    valid = set(valid_ids)
    removed: list[str] = []

    def refdef(m: re.Match) -> str:
        removed.extend(i for i in _label_ids(m.group("label")) if i not in valid)
        return ""

    def group(m: re.Match) -> str:
        ids = _ids(m.group("body") or m.group("pbody"))
        removed.extend(i for i in ids if i not in valid)
        kept = list(dict.fromkeys(i for i in ids if i in valid))
        return m.group("pre") + "".join(f"[{i}]" for i in kept) if kept else ""

    out = _GROUP.sub(group, _REFDEF.sub(refdef, text))
    cited = tuple(dict.fromkeys(f"S{n}" for n in re.findall(r"\[S(\d+)\]", out) if f"S{n}" in valid))
    return Cleaned(out, cited, tuple(dict.fromkeys(removed)))


def phantoms(text: str, valid_ids) -> list[str]:
    """Citation-like ids in `text` that are not in `valid_ids`: what a person would see as a broken citation."""
    valid = set(valid_ids)
    found = [i for m in _GROUP.finditer(text) for i in _ids(m.group("body") or m.group("pbody"))]
    found += [i for m in _REFDEF.finditer(text) for i in _label_ids(m.group("label"))]
    return [i for i in found if i not in valid]


def defang(text: str) -> str:
    """Note text quoted verbatim must not carry citations of its own: `[S3]` or `(S3)` in a note becomes `S3`."""
    return _GROUP.sub(lambda m: m.group("pre") + (m.group("body") or m.group("pbody")) + (m.group("link") or ""), text)


def _label_ids(label: str) -> list[str]:
    return _ids(label) if _WHOLE_ID.fullmatch(label) else []


def _ids(body: str) -> list[str]:
    """`S1, s2 - S4` → ["S1", "S2", "S3", "S4"] (ranges expanded, at most _MAX_RANGE ids)."""
    ids: list[int] = []
    dash = False
    for m in _TOKEN.finditer(body):
        if m.group(1):
            dash = True
            continue
        n = int(m.group(2))
        if dash and ids and ids[-1] < n <= ids[-1] + _MAX_RANGE:
            ids.extend(range(ids[-1] + 1, n + 1))
        else:
            ids.append(n)
        dash = False
    return [f"S{n}" for n in ids]


class CitationFilter:
    """Streams a model's answer through `clean`: feed raw deltas, get the text that is safe to show now."""

    def __init__(self, valid_ids) -> None:
        self._valid = tuple(valid_ids)
        self._raw = ""
        self._shown = 0  # characters of clean(raw[:safe]) already handed out
        self._safe = 0

    def feed(self, delta: str) -> str:
        self._raw += delta
        safe = _safe_end(self._raw)
        if safe <= self._safe:
            return ""
        self._safe = safe
        return self._emit(clean(self._raw[:safe], self._valid).text)

    def finish(self) -> Cleaned:
        """The whole answer, cleaned; `tail` (what was not yet shown) is `result.text[shown:]`."""
        return clean(self._raw, self._valid)

    def tail(self) -> str:
        """The rest of the answer once the stream has ended."""
        return self._emit(self.finish().text)

    def _emit(self, text: str) -> str:
        piece = text[self._shown :]
        self._shown = len(text)
        return piece


def _safe_end(raw: str) -> int:
    """The end of the prefix of `raw` that no later text can change: before a possible citation or link
    definition still being written, and before the spaces that precede it."""
    end = len(raw)
    line_start = raw.rfind("\n") + 1
    line = raw[line_start:]
    if len(line) < _HOLD and (_REFDEF_PREFIX.fullmatch(line) or _REFDEF_START.match(line)):
        end = line_start
    else:
        opening = max(raw.rfind("["), raw.rfind("("))
        link = opening > 0 and raw[opening] == "(" and raw[opening - 1] in "])"
        if opening >= 0 and len(raw) - opening <= _HOLD and _open_or_just_closed(raw, opening, link=link):
            end = max(raw.rfind("[", 0, opening), raw.rfind("(", 0, opening), 0) if link else opening
    while end > 0 and raw[end - 1] in " \t":
        end -= 1
    return end


def _open_or_just_closed(raw: str, opening: int, *, link: bool) -> bool:
    """The bracket group at `opening` may still become a citation or its link target (unclosed, and for a group
    nothing but spaces or text starting with S so far), or was closed by the very last character (a link target
    may follow)."""
    closes = [i for i in (raw.find("]", opening), raw.find(")", opening)) if i >= 0]
    if closes:
        return min(closes) == len(raw) - 1
    return link or _MAYBE_GROUP.fullmatch(raw, opening + 1) is not None
