"""Citations in a model's answer, checked against the ids of a frozen context.

Every form of citation that models really write is rewritten to the canonical `[S1][S2]` form, keeping only ids that
exist in the context; unknown ids are removed (with the space before a group that is removed entirely) and reported:
- brackets: `[S2]`, `[s2]`, `[С2]` (Cyrillic С), `[S1, S2]`, `[S1; S3]`, `[S1-S3]`, `[S 2]`, `[^S1]`, `[[S1]]`,
  `[S1†L3]` (the line note is dropped), `【S1】`;
- parentheses: `(S2)`, `(S1, S3)`, `(source S1)`, `(Source: S1)`, `(источник S1)`, `(see S1)`;
- words: `Source: S1`, `Sources: S1, S2`, `Источник: S1` (the cue goes), `according to S1`, `согласно S1` (kept);
- `S1:` at the start of a line or list item becomes `[S1]` before the text it introduces.
A link target glued to a group (`[S1](http://…)`) and reference definitions (`[S1]: http://…`) are removed too, so a
model can never turn a citation into a link of its own.

`CitationFilter` does the same on a stream: it holds back only the text that could still become part of a citation
(a partial match of the same pattern), so the person never sees a phantom id, and the streamed pieces add up to
`clean(full_text)`. Pure: knows nothing about sources beyond their ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex as re  # the `regex` module: partial matching tells the stream what may still become a citation

_S = "[SsСс]"  # Latin or Cyrillic S: models writing Russian often type С1
_NOTE = r"(?:†[^\]\[】\n,;]{0,12})?"  # `[S1†L3]`: a line note some models add; dropped
_ID = rf"{_S}[ \t]?\d{{1,4}}{_NOTE}"
_NEXT = rf"(?:[ \t]{{0,3}}(?:[,;&]|\band\b|\bи\b|[-–—])[ \t]{{0,3}}(?:{_S}[ \t]?)?\d{{1,4}}{_NOTE}|[ \t]{{1,3}}{_ID})"
_BODY = rf"{_ID}{_NEXT}{{0,20}}"  # bounded, so a citation is never longer than _HOLD
_SOURCE_CUE = r"(?i:sources?|источник(?:и|ов|а)?)"
_KEPT_CUE = r"(?i:according[ \t]+to|согласно)"
_PATTERN = re.compile(
    rf"""
    (?P<refdef>^[ ]{{0,3}}\[(?P<label>[^\]\n]{{1,200}})\]:[^\n]{{0,300}}(?:\n|\Z))
    |(?P<lineid>^(?P<lpre>[ \t]{{0,8}}(?:[-*+][ \t]{{1,3}}|\d{{1,3}}[.)][ \t]{{1,3}})?)(?P<lbody>{_BODY})[ \t]{{0,3}}:(?=[ \t]|$))
    |(?P<pre>[ \t]*)(?:
        \[(?:\[|\^)?[ \t]{{0,3}}(?:{_SOURCE_CUE}[ \t]{{0,3}}:?[ \t]{{0,3}})?(?P<b1>{_BODY})[ \t]{{0,3}}\]\]?(?P<link>(?:\((?![ \t])[^()\s]{{0,300}}\))*)
        |【[ \t]{{0,3}}(?P<b2>{_BODY})[ \t]{{0,3}}】
        |\([ \t]{{0,3}}(?:(?:{_SOURCE_CUE}|(?i:see|см\.?))[ \t]{{0,3}}:?[ \t]{{0,3}})?(?P<b3>{_BODY})[ \t]{{0,3}}\)
        |(?<![\w\[(【])(?P<scue>{_SOURCE_CUE})[ \t]{{0,3}}:[ \t]{{0,3}}(?P<b4>{_BODY})(?![\w\]】†])
        |(?<!\w)(?P<kcue>{_KEPT_CUE})[ \t]{{1,3}}(?P<b5>{_BODY})(?![\w\]】†])
    )
    """,
    re.VERBOSE | re.MULTILINE,
)
_BODIES = ("b1", "b2", "b3", "b4", "b5")
_WHOLE_ID = re.compile(rf"[ \t]*{_BODY}[ \t]*")
_TOKEN = re.compile(rf"([-–—])|{_S}?[ \t]?(\d+)")
_NOTES = re.compile(r"†[^\]\[】\n,;]*")
_CANONICAL = re.compile(r"\[S(\d+)\]")
_CANDIDATE_START = re.compile(r"[\[(【]|(?<!\w)[sSиИaAсС]|^", re.MULTILINE)
# An S-number in quoted note text ("S3", and «с 1525» — Cyrillic "с", "since"): a word joiner goes after the letter.
_INERT = re.compile(r"(?<![\w\u2060'’])([SsСс])([ \t]?\d)")
_HOLD = 1_000  # no citation (the pattern is bounded) is longer than this
_MAX_RANGE = 20


@dataclass(frozen=True)
class Cleaned:
    text: str
    cited: tuple[str, ...]  # valid ids in order of first appearance
    removed: tuple[str, ...]  # unknown ids that were removed, in order of first appearance


def clean(text: str, valid_ids) -> Cleaned:
    """Rewrite every citation in `text` to canonical form, keeping only ids in `valid_ids`."""
    valid = set(valid_ids)
    removed: list[str] = []
    out, _ = _rewrite(text, 0, len(text), valid, removed)
    cited = tuple(dict.fromkeys(f"S{n}" for n in _CANONICAL.findall(out) if f"S{n}" in valid))
    return Cleaned(out, cited, tuple(dict.fromkeys(removed)))


def defang(text: str) -> str:
    """Note text quoted verbatim must not carry citations of its own: `[S3]` or `(S3)` in a note becomes `S3`, and
    every S-number gets a word joiner between S and 3 (`Source: S3`, `Season S2:`), so it reads the same but is not
    citation-shaped to anything (rag/answer/phantoms.py)."""

    def plain(m: re.Match) -> str:
        if m.group("refdef") or m.group("lineid") or m.group("b4") or m.group("b5"):
            return re.sub(rf"({_S})([ \t]?\d)", "\\1\u2060\\2", m.group(0))
        body = m.group("b1") or m.group("b2") or m.group("b3")
        return m.group("pre") + body + (m.group("link") or "")

    return _INERT.sub("\\1\u2060\\2", _PATTERN.sub(plain, text))


def _rewrite(text: str, start: int, end: int, valid: set[str], removed: list[str]) -> tuple[str, int]:
    """`text[start:end]` with every citation in it rewritten, and where that stopped: at `end`, or earlier at a
    citation that runs past `end` (matches see the whole text, so a cut never changes what matches)."""
    parts: list[str] = []
    at = start
    for m in _PATTERN.finditer(text, pos=start):
        if m.start() >= end or m.end() > end:
            end = min(end, m.start())
            break
        parts.append(text[at : m.start()])
        parts.append(_replacement(m, valid, removed))
        at = m.end()
    parts.append(text[at:end])
    return "".join(parts), max(at, end)


def _replacement(m: re.Match, valid: set[str], removed: list[str]) -> str:
    ids = _match_ids(m)
    removed.extend(i for i in ids if i not in valid)
    if m.group("refdef"):
        return ""
    kept = "".join(f"[{i}]" for i in dict.fromkeys(i for i in ids if i in valid))
    if m.group("lineid") is not None:
        return m.group("lpre") + kept  # the spaces after the colon stay, so a stream cut there shows the same
    if not kept:
        return ""
    return m.group("pre") + (m.group("kcue") + " " if m.group("kcue") else "") + kept


def _match_ids(m: re.Match) -> list[str]:
    if m.group("refdef"):
        label = m.group("label")
        return _ids(label) if _WHOLE_ID.fullmatch(label) else []
    body = m.group("lbody") if m.group("lineid") is not None else next(m.group(b) for b in _BODIES if m.group(b))
    return _ids(body)


def _ids(body: str) -> list[str]:
    """`S1, s2 - S4` → ["S1", "S2", "S3", "S4"] (ranges expanded, at most _MAX_RANGE ids; line notes ignored)."""
    ids: list[int] = []
    dash = False
    for m in _TOKEN.finditer(_NOTES.sub("", body)):
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
        self._valid = set(valid_ids)
        self._raw = ""
        self._safe = 0  # raw text before this offset has been shown (cleaned)
        self._shown = 0  # characters of cleaned text handed out

    def feed(self, delta: str) -> str:
        self._raw += delta
        safe = _safe_end(self._raw, self._safe)
        if safe <= self._safe:
            return ""
        piece, self._safe = _rewrite(self._raw, self._safe, safe, self._valid, [])
        self._shown += len(piece)
        return piece

    def finish(self) -> Cleaned:
        """The whole answer, cleaned (what was shown plus `tail()`)."""
        return clean(self._raw, self._valid)

    def tail(self) -> str:
        """The rest of the answer once the stream has ended."""
        text = self.finish().text
        piece = text[self._shown :]
        self._shown = len(text)
        self._safe = len(self._raw)
        return piece


def _safe_end(raw: str, shown: int) -> int:
    """The end of the prefix of `raw` that no later text can change: before the first place (after `shown`) where
    the rest could still be, or become, a citation or a link definition, and before the spaces that precede it."""
    end = len(raw)
    for m in _CANDIDATE_START.finditer(raw, pos=max(shown, len(raw) - _HOLD)):
        if _PATTERN.fullmatch(raw, pos=m.start(), partial=True):
            end = m.start()
            break
    while end > shown and raw[end - 1] in " \t":
        end -= 1
    return end
