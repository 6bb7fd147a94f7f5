"""Where the index lives: an SQLite file (the default) or a PostgreSQL server (`RAG_DB=postgresql://…`).

The two stores, `store.Store` and `pg_store.PgStore`, have the same methods (tests/test_storage_seam.py holds them to
it and runs the store's behaviour tests against both); everything above them is written once.
"""

from __future__ import annotations

from rag.config import Settings
from rag.index.store import Store


def open_store(settings: Settings, *, create: bool = False):
    """The vault's index. With `create`, a missing one is made (an SQLite file, or the tables in the database)."""
    if settings.db_url:
        from rag.index.pg_store import PgStore  # psycopg is imported only by those who use a server

        return PgStore.open(settings.db_url, create=create)
    return Store.open(settings.db_path, create=create)
