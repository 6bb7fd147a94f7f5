"""What careless or hostile input may cost: limits every adapter (CLI, app, MCP) applies the same way.

Pure; the MCP schemas state the same limits to agents.
"""

from __future__ import annotations

from rag.errors import QueryError

# A question or search is read up to this many characters. A pasted page is still a question; a pasted book
# (20,000 words took 182 s to search) is refused with a message rather than silently cut.
MAX_QUERY_CHARS = 2_000


def check_query(text: str, *, what: str = "query") -> None:
    """An empty or blank query would rank arbitrary notes, and a pasted book would keep the embedder busy for minutes
    (20,000 words took 182 s): say so instead (every adapter gets the same message)."""
    if not text or not text.strip():
        raise QueryError(f"The {what} is empty: type a few words or a question to search your notes for.")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(
            f"The {what} is {len(text):,} characters long; at most {MAX_QUERY_CHARS:,} are read. Ask about one thing, or search for its key words."
        )


# A file name may be 255 bytes (ext4, APFS, NTFS in UTF-16 units: fewer for emoji), counted in UTF-8, not characters:
# 80 Cyrillic letters are 160 bytes, 80 emoji 320. Names we make from a title keep to NAME_BYTES, leaving room for a
# date in front and a " (hash)" and ".md" behind.
MAX_NAME_BYTES = 255
NAME_BYTES = 150


def cut_to_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, at a space when one is near and never inside a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[:limit].decode("utf-8", errors="ignore")
    at_space = cut.rsplit(" ", 1)[0]
    return at_space if " " in cut and len(at_space) >= len(cut) // 2 else cut
