"""Deterministic fakes at the model seams only (embedder). Everything else in tests is real: SQLite, files, HTTP.
The fake lives in `rag/devtools/fake_embedder.py`, so that bench/ shares it without importing tests/."""

from __future__ import annotations

from rag.devtools.fake_embedder import FakeEmbedder

__all__ = ["FakeEmbedder"]
