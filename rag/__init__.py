"""Ask your vault: local-first question answering over a folder of Markdown notes (and the PDFs beside them).

The library follows the flow: `notes` (the vault's files) → `index` (SQLite or PostgreSQL, with `embed`) → `search`
→ `answer` (with `chat` for the chat models) → `live` (one index kept fresh) → `knowledge` (the facade). Adapters
(`cli`, `agents` for MCP, `app.py` with `app_pages` and `web`) are the only places that talk to a terminal, a browser
or an agent. They call `knowledge` (or `live` for status and progress) for what the library does, and take the
values and helpers they show from `surface`; nothing else below them (tests/test_door.py). How a note and a question
flow, each seam and where a change goes: docs/architecture.md.
"""

__version__ = "0.7.0"
