"""How a search hit is shown, in one place for the app, the CLI and MCP: an excerpt of its text, and why retrieval
found it. Pure; knows nothing about any UI."""

from __future__ import annotations

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


def why_found(bm25_rank: int | None, dense_rank: int | None) -> str:
    """Why retrieval chose a passage: its rank in each channel that found it ("keyword #2 · meaning #1")."""
    parts = [f"{name} #{rank}" for name, rank in (("keyword", bm25_rank), ("meaning", dense_rank)) if rank]
    if not parts:
        return "boosted (curated note)"
    return " · ".join(parts) + (" only" if len(parts) == 1 else "")
