"""The storage seam: the SQLite store and the PostgreSQL store answer the same methods with the same parameters, so
everything above them (sync, search, memory, the adapters) is written once. Their behaviour is held equal by the
tests marked `both_backends` and tests/test_postgres.py."""

from __future__ import annotations

import inspect

from rag.index.pg_store import PgStore
from rag.index.store import Store


def _public(cls) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(member) for name, member in inspect.getmembers(cls, callable) if not name.startswith("_")}


def test_the_postgresql_store_has_every_method_of_the_sqlite_store_with_the_same_parameters():
    sqlite, server = _public(Store), _public(PgStore)
    # A file can be moved aside (a database is restored by its owner); the vocabulary's 4-bit codes are SQLite's
    # (rag/index/word_code.py): PostgreSQL keeps its words as pgvector float32 rows (`vocabulary.coded`).
    assert sorted(set(sqlite) - set(server)) == ["keyed_codes", "move_aside", "put_vector_codes"]
    for name, signature in sqlite.items():
        if name in server and name != "open":  # `open` takes a path or an address
            assert list(signature.parameters) == list(server[name].parameters), name
            assert [p.default for p in signature.parameters.values()] == [p.default for p in server[name].parameters.values()], name


def test_both_say_whether_meaning_search_may_use_an_ann_index():
    assert Store.has_ann_index is False and PgStore.has_ann_index is True


def test_both_stores_satisfy_the_named_seam_everything_above_the_index_uses():
    from rag.index.storage import IndexStore

    seam = _public(IndexStore)
    assert len(seam) >= 35
    for backend in (Store, PgStore):
        methods = _public(backend)
        for name, signature in seam.items():
            assert name in methods, f"{backend.__name__} lacks {name}"
            assert list(signature.parameters) == list(methods[name].parameters), (backend.__name__, name)
