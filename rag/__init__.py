"""Ask your vault: local-first question answering over a folder of Markdown notes.

The library follows the flow: `index` (notes → SQLite) → `search` → `notes` and `answer` → `live` (one index kept
fresh) → `knowledge` (the facade). Adapters (`cli`, `agents.mcp_server`, `app.py` with `web`) are the only places
that talk to a terminal, a browser or an agent, and they talk to `knowledge` only. See README.md for the map.
"""

__version__ = "0.7.0"
