"""Where the index lives: an SQLite file (the default) or a PostgreSQL server (`RAG_DB=postgresql://…`).

The two stores, `store.Store` and `pg_store.PgStore`, have the same methods (tests/test_storage_seam.py holds them to
it and runs the store's behaviour tests against both); everything above them is written once.

PostgreSQL's drivers (psycopg, psycopg-pool, pgvector) are the optional `postgres` extra: they are imported only here,
when a server is asked for, and their absence is a ConfigError that names the install command.
"""

from __future__ import annotations

from rag.config import Settings
from rag.errors import ConfigError
from rag.index.store import Store


def open_store(settings: Settings, *, create: bool = False):
    """The vault's index. With `create`, a missing one is made (an SQLite file, or the tables in the database)."""
    if settings.db_url:
        require_postgres_drivers()
        from rag.index.pg_store import PgStore  # psycopg is imported only by those who use a server

        return PgStore.open(settings.db_url, create=create)
    return Store.open(settings.db_path, create=create)


def require_postgres_drivers() -> None:
    """Import the PostgreSQL drivers, or raise ConfigError naming how to install them (they are not installed by
    default: SQLite needs none)."""
    try:
        import pgvector.psycopg  # noqa: F401  (pg_store imports it only when a connection opens)
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:  # not installed, or psycopg without its libpq (`psycopg[binary]` ships one)
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(
            f"The index is on a PostgreSQL server, but its drivers are not installed ({why}). Install them:"
            ' `pip install -e ".[postgres]"` (or `pip install -r requirements-postgres.txt`).'
        ) from None
