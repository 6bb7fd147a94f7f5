"""Shared fixtures: a fresh copy of the fixture vault, settings pointing at a tmp index, and a deterministic
fake embedder (the model seam). Tests that need the real default embedder use `real_embedder`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from rag.config import DEMO_VAULT, load_settings
from rag.workspace import Workspace

from .app_harness import APP, ENV_VARS, idle
from .fakes import FakeEmbedder
from .openai_server import FakeOpenAI

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def vault(tmp_path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(FIXTURES / "vault", target, symlinks=True)
    return target


def pytest_configure(config):
    config.addinivalue_line("markers", "both_backends: run with the index in SQLite and in PostgreSQL (the `backend` fixture)")


def pytest_generate_tests(metafunc):
    """Tests marked `both_backends` run once per index backend; every other test uses SQLite."""
    if "backend" in metafunc.fixturenames:
        both = metafunc.definition.get_closest_marker("both_backends") is not None
        metafunc.parametrize("backend", ["sqlite", "postgresql"] if both else ["sqlite"], indirect=True)


@pytest.fixture
def backend(request) -> str:
    return request.param


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL 18 with pgvector for this test session (tests/postgres.py)."""
    from .postgres import Server

    server = Server()
    yield server
    server.close()


@pytest.fixture
def index_location(backend, tmp_path, request) -> str:
    """Where a test's index lives: an SQLite file under tmp_path, or a new database on the session's PostgreSQL."""
    if backend == "postgresql":
        return request.getfixturevalue("pg_server").new_database()
    return str(tmp_path / "index" / "index.db")


@pytest.fixture
def settings(vault, index_location):
    # Small chunks, so the small fixture notes still have several chunks each. Sentence vectors off, so counts of
    # embedded texts are counts of chunks; tests/test_sentences.py covers them (and the app tests use them).
    return load_settings(
        vault=vault,
        db_path=index_location,
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
def srv():
    """A real local HTTP server speaking the OpenAI wire protocol, replies scripted by the test (tests/openai_server.py)."""
    with FakeOpenAI() as server:
        yield server


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
    from rag.embed.embedders import LocalEmbedder

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


@pytest.fixture(scope="session")
def demo(tmp_path_factory, real_embedder):
    """A copy of the demo vault indexed once with the real default embedder, for tests that only ask of it."""
    root = tmp_path_factory.mktemp("demo")
    shutil.copytree(DEMO_VAULT, root / "vault")
    settings = load_settings(vault=root / "vault", db_path=root / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        yield ws
