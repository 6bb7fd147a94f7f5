"""Indexing: the vault's notes → chunks, sentences and vectors in SQLite, kept in line with the files. Knows nothing about search or answers."""
