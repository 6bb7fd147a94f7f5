"""How a search hit is shown, in one place for the app, the CLI and MCP: an excerpt of its text, and why retrieval
found it. Pure; knows nothing about any UI."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.text import stemming

LIST_EXCERPT = 280  # characters of a hit in a list of results (app, CLI): one line to recognise it by
AGENT_EXCERPT = 2_000  # characters an agent gets per hit, enough to use without a second read


def excerpt(text: str, limit: int = LIST_EXCERPT) -> str:
    """One line of at most `limit` characters, cut at a word, with an ellipsis if shortened."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + " …"


def block_excerpt(text: str, limit: int = AGENT_EXCERPT) -> str:
    """The text with its lines kept (lists, tables and code stay readable), cut to at most `limit` characters with
    an ellipsis: at a line end or a word when there is one in the last fifth, else exactly at the limit."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    boundary = max(cut.rfind("\n"), cut.rfind(" "))
    return (cut[:boundary] if boundary >= limit * 0.8 else cut) + "…"


_WHY_WORDS = {"keyword": "keyword", "meaning": "meaning", "only": " only", "boosted": "boosted (curated note)", "linked": "linked from {note}"}


def why_found(bm25_rank: int | None, dense_rank: int | None, *, linked_from: str | None = None, names: dict[str, str] | None = None) -> str:
    """Why retrieval chose a passage: its rank in each channel that found it ("keyword #2 · meaning #1"), or the
    note that links to it (a PDF, rag/search/linked.py). `names` gives the words in another language (keys
    "keyword", "meaning", "only", "boosted", "linked")."""
    words = {**_WHY_WORDS, **(names or {})}
    if linked_from and not (bm25_rank or dense_rank):
        return words["linked"].replace("{note}", linked_from)
    parts = [f"{words[name]} #{rank}" for name, rank in (("keyword", bm25_rank), ("meaning", dense_rank)) if rank]
    if not parts:
        return words["boosted"]
    return " · ".join(parts) + (words["only"] if len(parts) == 1 else "")


# Markdown syntax that a snippet shows as plain text: wikilinks and links keep their label, images and tags go.
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(
    r"(?m)\[![\w-]+\][+-]?\s?|^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+\[[ xX]\]\s+|[-*+]\s+|\d+[.)]\s+)|\*\*|__|~~|`+|^\s*\|?[-:| ]{3,}\|?\s*$"
)
_FENCE = re.compile(r"(?m)^\s{0,3}(?:`{3,}|~{3,})[^\n]*$")
_PIPES = re.compile(r"\s*\|\s*")
_WORD = re.compile(r"\w+")
_SEPARATORS = re.compile(r"(?:\s*·\s*){2,}")


def plain_text(text: str) -> str:
    """Markdown as a reader sees it, on one line: no `#`, `**`, backticks, list markers or table pipes; link labels kept."""
    text = _FENCE.sub("", text)  # ```python: the fence and its language name are not text
    text = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _MARKS.sub("", text)
    text = _PIPES.sub(" · ", text)
    text = _SEPARATORS.sub(" · ", " ".join(text.split()))
    return text.strip(" ·")


def snippet(text: str, terms: Iterable[str], limit: int = LIST_EXCERPT) -> tuple[str, list[tuple[int, int]]]:
    """A plain-text excerpt of at most `limit` characters around the first word that matches a query stem, and the
    (start, end) spans of the matching words in it, for highlighting."""
    plain = plain_text(text)
    stems = set(terms)
    words = [(m.start(), m.end()) for m in _WORD.finditer(plain) if stemming.stem(m.group(0).lower().replace("ё", "е")) in stems]
    start = 0
    if words and words[0][0] > limit // 3 and len(plain) > limit:
        start = plain.rfind(" ", 0, words[0][0] - limit // 3) + 1
    cut = plain[start : start + limit]
    if start + limit < len(plain):
        cut = cut.rsplit(" ", 1)[0] + " …"
    lead = "… " if start else ""
    shift = len(lead) - start
    spans = [(a + shift, b + shift) for a, b in words if a >= start and b <= start + len(cut) - (2 if cut.endswith(" …") else 0)]
    return lead + cut, spans


def heading_without_title(heading_path: str, title: str | None, path: str) -> str:
    """The heading path without its first part when that only repeats the note's title or file name."""
    parts = heading_path.split(" › ")
    names = {(title or "").strip().casefold(), path.rsplit("/", 1)[-1].removesuffix(".md").strip().casefold()}
    if parts and parts[0].strip().casefold() in names:
        parts = parts[1:]
    return " › ".join(parts)
