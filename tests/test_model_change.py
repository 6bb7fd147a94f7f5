"""Changing the embedding model: the new vectors are built in the background while the old ones keep serving,
then the switch is one meta write. Real files and SQLite; fake embedders at the model seam."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from rag.errors import IndexMissing
from rag.index.storage import IndexStore
from rag.search import similar
from rag.workspace import Workspace

from .fakes import FakeEmbedder
from .waiting import wait_for

pytestmark = pytest.mark.both_backends  # the index's behaviour, in SQLite and in PostgreSQL


def indexed_model(store: IndexStore) -> str:
    """The embedding model of the last indexing run (its vectors are the ones in the index)."""
    model = store.get_meta("embed_model")
    if not model:
        raise IndexMissing(f"The index {store.location} has no vectors yet. Run `python -m rag index` first.")
    return model


class NewModel(FakeEmbedder):
    """Another model (another name, another vector space) whose passage embedding waits at `gate` after one batch."""

    name = "fake-embedder-v2"

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.batches = 0

    def _vector(self, text: str) -> np.ndarray:
        return np.roll(super()._vector(text), 7)

    def embed_passages(self, texts):
        self.batches += 1
        if self.batches > 1:
            self.gate.wait(30)
        return super().embed_passages(texts)


def test_old_vectors_keep_serving_until_the_new_model_is_complete_then_switch(settings, fake_embedder):
    settings = settings.replace(embed_batch_size=4)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        chunks = ws.sync().chunks_total
    new = NewModel()
    with Workspace.open(settings, embedder=new, previous_embedder=FakeEmbedder()) as ws:
        syncing = threading.Thread(target=ws.sync)
        syncing.start()
        wait_for(lambda: new.batches >= 2)  # one batch of new vectors stored, the next one is held
        assert 0 < ws.store.counts(new.name)["vectors_present"] < chunks
        status = ws.status()
        assert status["serving_model"] == fake_embedder.name and status["vectors_missing"] > 0
        result = ws.retriever.dense("sourdough hydration", 5)
        assert result.channels == ("dense",) and result.hits[0].chunk.path == "Notes/Sourdough.md"
        assert len(ws.retriever.vectors) == chunks  # every chunk still has an (old) vector serving
        assert indexed_model(ws.store) == fake_embedder.name  # similar notes stay on the complete model
        new.gate.set()
        syncing.join(30)
        assert ws.status()["serving_model"] == new.name and ws.status()["vectors_missing"] == 0
        assert ws.retriever.embedder is new and len(ws.retriever.vectors) == chunks
        assert ws.retriever.dense("sourdough hydration", 5).hits[0].chunk.path == "Notes/Sourdough.md"
        assert indexed_model(ws.store) == new.name


def test_searches_during_a_model_switch_never_fail_or_come_back_empty(settings, fake_embedder):
    settings = settings.replace(embed_batch_size=2)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    new = NewModel()
    new.gate.set()
    errors, empty, stop = [], [], threading.Event()
    with Workspace.open(settings, embedder=new, previous_embedder=FakeEmbedder()) as ws:

        def search_loop() -> None:
            while not stop.is_set():
                try:
                    if not ws.retriever.dense("baikal olkhon", 3).hits:
                        empty.append(1)
                except Exception as exc:  # noqa: BLE001 - the test reports any failure
                    errors.append(exc)

        readers = [threading.Thread(target=search_loop) for _ in range(2)]
        for r in readers:
            r.start()
        ws.sync()
        time.sleep(0.1)
        stop.set()
        for r in readers:
            r.join(10)
        assert errors == [] and empty == []
        assert ws.retriever.embedder is new


def test_without_the_old_embedder_the_index_still_records_the_complete_model_until_the_switch(settings, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    new = NewModel()
    new.fail = True  # the new model's endpoint is down: nothing of it is complete
    with Workspace.open(settings, embedder=new) as ws:
        report = ws.sync()
        assert report.embed_error and report.vectors_missing == report.chunks_total
        assert ws.store.get_meta("embed_model") == fake_embedder.name
        assert similar.similar_notes(ws.store, indexed_model(ws.store), "Notes/Sourdough.md", 3)
        assert ws.retriever.keyword("sourdough").hits  # keyword search is unaffected
        new.fail = False
        new.gate.set()
        ws.sync()
        assert ws.store.get_meta("embed_model") == new.name


def test_a_long_running_adapter_rebuilds_the_previous_model_from_its_recorded_name(settings, real_embedder):
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
    new = NewModel()
    new.gate.set()
    with Workspace.open(settings, embedder=new) as ws:
        assert ws.retriever.embedder is new  # one-shot adapters: no previous model unless asked
        ws.keep_previous_model_serving()
        assert ws.retriever.embedder.name == real_embedder.name
        assert ws.retriever.dense("Olkhon island on lake Baikal", 3).hits[0].chunk.path == "Notes/Байкал.md"
        ws.sync()
        assert ws.retriever.embedder is new


def test_an_unknown_previous_model_leaves_the_new_one_serving(settings, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    with Workspace.open(settings, embedder=NewModel()) as ws:
        ws.keep_previous_model_serving()  # "fake-embedder-v1" cannot be rebuilt by name
        assert ws.retriever.embedder.name == NewModel.name
