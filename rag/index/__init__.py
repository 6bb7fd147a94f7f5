"""Indexing: the vault's notes → chunks, sentences and vectors in the index (SQLite or PostgreSQL), kept in line with the files by sync and watch. Knows nothing about search or answers."""
