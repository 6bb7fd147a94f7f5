"""The vault's files, the one gateway to them: walked, read (Markdown, and PDFs in a bounded child process), confined
to the vault, dated, and written safely (compare-and-swap, atomic). Projects and their records are rag/projects.py.
Knows nothing about MCP or the app."""
