"""Shared fixtures: a fresh copy of the fixture vault, settings pointing at a tmp index, and a deterministic
fake embedder (the model seam). Tests that need the real default embedder use `real_embedder`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from rag.config import load_settings
from rag.workspace import Workspace

from .app_harness import APP, ENV_VARS, idle
from .fakes import FakeEmbedder

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def vault(tmp_path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(FIXTURES / "vault", target, symlinks=True)
    return target


@pytest.fixture
def settings(vault, tmp_path):
    # Small chunks, so the small fixture notes still have several chunks each. Sentence vectors off, so counts of
    # embedded texts are counts of chunks; tests/test_sentences.py covers them (and the app tests use them).
    return load_settings(
        vault=vault,
        db_path=tmp_path / "index" / "index.db",
        env={},
        chunk_target_tokens=40,
        chunk_min_tokens=10,
        chunk_hard_tokens=200,
        sentence_vectors=False,
    )


@pytest.fixture
def new_vault(tmp_path) -> Path:
    """An empty vault folder, for importers to write into."""
    path = tmp_path / "vault"
    path.mkdir()
    return path


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def workspace(settings, fake_embedder):
    ws = Workspace.open(settings, create=True, embedder=fake_embedder)
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def real_embedder():
    from rag.index.embed import LocalEmbedder

    return LocalEmbedder()


@pytest.fixture(autouse=True)
def _data_home(tmp_path_factory, monkeypatch):
    """Indexes without an explicit path go to the user's data folder: in tests, a temporary one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))


@pytest.fixture
def app(vault, tmp_path, monkeypatch, fake_embedder):
    """start(page=None, wait=True) → an AppTest that has run once (and again once background indexing ended)."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RAG_VAULT", str(vault))
    monkeypatch.setenv("RAG_DB", str(tmp_path / "app-index" / "index.db"))
    monkeypatch.setenv("RAG_UI_LANGUAGE", "en")  # the words these tests look for; tests/test_app_languages.py checks both
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: fake_embedder)
    started: list[AppTest] = []

    def start(page: str | None = None, *, wait: bool = True) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        started.append(at)
        if wait:
            idle(at)
            at.run()
        if page:
            at.switch_page(page).run()
        return at

    yield start
    for at in started:
        idle(at)
    st.cache_resource.clear()
