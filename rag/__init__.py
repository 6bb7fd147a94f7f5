"""Ask your vault: local-first question answering over a folder of Markdown notes.

The library: one concept per module (see README.md for the map). Adapters (`cli`, `mcp_server`, `app.py`)
are the only places that talk to a terminal, a browser or an agent.
"""

__version__ = "0.1.0"
