"""Several readers and writers on one index: the writer-preferred lock around the vector matrix, threads searching
while vectors are written, and two processes indexing and searching the same SQLite file at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from rag.index import vocabulary
from rag.index.language_reference import reference_texts
from rag.index.rwlock import RWLock
from rag.workspace import Workspace

from .test_sync import consistency


def test_readers_share_the_lock_and_a_waiting_writer_goes_before_new_readers():
    lock = RWLock()
    order: list[str] = []
    first_reader_in, writer_waiting = threading.Event(), threading.Event()
    release = threading.Event()

    def reader(name: str, hold: threading.Event | None) -> None:
        with lock.read():
            order.append(name)
            if hold is not None:
                first_reader_in.set()
                hold.wait(5)

    def writer() -> None:
        writer_waiting.set()
        with lock.write():
            order.append("writer")

    r1 = threading.Thread(target=reader, args=("r1", release))
    r1.start()
    first_reader_in.wait(5)
    with lock.read():  # a second reader shares the lock while r1 holds it
        order.append("r2")
    w = threading.Thread(target=writer)
    w.start()
    writer_waiting.wait(5)
    deadline = time.monotonic() + 5
    while not lock._writers_waiting and time.monotonic() < deadline:
        time.sleep(0.005)
    r3 = threading.Thread(target=reader, args=("r3", None))
    r3.start()
    time.sleep(0.1)
    assert "r3" not in order  # held back: a writer is waiting
    release.set()
    for t in (r1, w, r3):
        t.join(5)
    assert order == ["r1", "r2", "writer", "r3"]


def test_searches_while_vectors_are_written_never_see_a_half_updated_matrix(workspace):
    workspace.sync(embed=False)
    store, embedder = workspace.store, workspace.embedder
    keys = store.missing_vector_keys(embedder.name)
    texts = dict(store.index_texts(keys))
    valid = set(store.chunks_by_rowid(list(range(1, 10_000))))
    errors, stop = [], threading.Event()

    def search_loop() -> None:
        while not stop.is_set():
            try:
                for rowid, score in workspace.retriever.vectors.search(embedder.embed_query("bread"), 5):
                    assert rowid in valid and -1.01 <= score <= 1.01
            except Exception as exc:  # noqa: BLE001 - the test reports any failure
                errors.append(exc)

    readers = [threading.Thread(target=search_loop) for _ in range(3)]
    for r in readers:
        r.start()
    for key in keys:  # one write (and one matrix reload) per vector
        store.put_vectors(embedder.name, [key], embedder.embed_passages([texts[key]]))
        time.sleep(0.002)
    stop.set()
    for r in readers:
        r.join(10)
    assert errors == []
    assert len(workspace.retriever.vectors) == store.counts(embedder.name)["chunks"]


CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from rag.config import load_settings
    from rag.workspace import Workspace
    from tests.fakes import FakeEmbedder

    role, vault, db, rounds = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    settings = load_settings(vault=vault, db_path=db, env={}, chunk_target_tokens=40, chunk_min_tokens=10, chunk_hard_tokens=200)
    with Workspace.open(settings, create=True, embedder=FakeEmbedder()) as ws:
        for i in range(rounds):
            if role == "writer":
                (vault / f"Live {i % 5}.md").write_text(f"# Live {i}\\n\\nRound {i} of the okapi census.\\n", encoding="utf-8")
                ws.sync()
            else:
                assert ws.retriever.keyword("sourdough").hits, "keyword search lost a stable note"
                ws.retriever.hybrid("okapi census")
                ws.status()
    print("ok")
""")


@pytest.mark.both_backends
def test_two_processes_index_and_search_one_index_at_once(settings, vault, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    env = dict(os.environ)
    run = lambda role, rounds: subprocess.Popen(  # noqa: E731
        [sys.executable, "-c", CHILD, role, str(vault), settings.db_url or str(settings.db_path), str(rounds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    procs = [run("writer", 40), run("writer", 40), run("reader", 300)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.strip() == "ok", err
    with Workspace.open(settings, embedder=fake_embedder) as ws:
        assert ws.sync().vectors_missing == 0
    state = consistency(settings.db_url or settings.db_path)
    assert state["chunks"] == state["fts"] and state["fts_orphans"] == 0 and state["no_file"] == 0 and state["orphan_vectors"] == 0
    assert all((vault / p).is_file() for p in state["paths"])


@pytest.mark.both_backends
def test_two_processes_embedding_one_index_never_embed_a_text_twice(settings, vault, fake_embedder, tmp_path):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync(embed=False)
        missing = ws.store.count_missing_vectors(fake_embedder.name) + len(ws.store.missing_sentence_keys(fake_embedder.name))
    child = textwrap.dedent("""
        import sys, time
        from pathlib import Path
        from rag.config import load_settings
        from rag.index.backfill import backfill
        from rag.workspace import Workspace
        from tests.fakes import FakeEmbedder

        class Slow(FakeEmbedder):
            def embed_passages(self, texts):
                time.sleep(0.15)
                return super().embed_passages(texts)

        settings = load_settings(vault=Path(sys.argv[1]), db_path=sys.argv[2], env={})
        embedder = Slow()
        with Workspace.open(settings, embedder=embedder) as ws:
            result = backfill(ws.store, embedder, batch_size=2)
        done = result.chunks + result.sentences
        assert result.error is None and done + result.reference + result.words == len(embedder.embedded)
        print(done, result.reference, result.words)
    """)
    env = dict(os.environ)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", child, str(vault), settings.db_url or str(settings.db_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    counts, references, words = [], [], []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        counts.append(int(out.split()[0]))
        references.append(int(out.split()[1]))
        words.append(int(out.split()[2]))
    assert sum(counts) == missing, counts  # each text embedded by exactly one of them
    assert min(counts) > 0, counts  # and both did part of the work
    assert sorted(references) == [0, sum(map(len, reference_texts().values()))]  # and the language reference once
    with Workspace.open(settings, embedder=fake_embedder) as ws:  # and each vocabulary word once
        assert sum(words) == len(vocabulary.word_vectors(ws.store, fake_embedder)[0]) > 0
    with Workspace.open(settings, embedder=fake_embedder) as ws:
        assert ws.store.count_missing_vectors(fake_embedder.name) == 0


def test_processes_opening_a_new_index_at_once_all_open_it(tmp_path):
    """The app and an agent's MCP server started together on a fresh machine both create the index: each migration
    runs once, whoever gets the write lock first, and the other finds it done."""
    db = tmp_path / "index.db"
    opener = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from rag.index.store import Store
        time.sleep(max(0.0, float(sys.argv[1]) - time.time()))  # all start on the same instant
        Store.open(Path({str(db)!r}), create=True).close()
    """)
    start = time.time() + 3.0
    procs = [subprocess.Popen([sys.executable, "-c", opener, str(start)], stderr=subprocess.PIPE, text=True) for _ in range(4)]
    errors = [p.communicate(timeout=60)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    assert consistency(db)["chunks"] == 0
