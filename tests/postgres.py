"""A real PostgreSQL with pgvector for the tests: one server per test session (conftest's `pg_server`), one fresh
database per test. It lives in `rag/devtools/pg_server.py`, so that bench/ shares it without importing tests/."""

from __future__ import annotations

from rag.devtools.pg_server import Server, database_uri

__all__ = ["Server", "database_uri"]
