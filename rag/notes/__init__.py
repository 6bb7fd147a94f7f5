"""The vault's notes as files: read and written safely (confined to the vault, compare-and-swap), and projects:
their notes, context and dated decision and session records. Knows nothing about MCP or the app."""
