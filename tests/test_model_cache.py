"""The model cache (rag/embed/model_cache.py): a built ONNX model is read back only when its check passes; a
damaged, short or foreign file is built again and replaced, and a file ONNX Runtime refuses is too."""

from __future__ import annotations

import numpy as np
import pytest

from rag.embed import e5_onnx, model_cache
from rag.embed.embedders import LocalEmbedder

KEY = {"format": 1, "model": "test", "int8": False}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_MODEL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _builder(payload: bytes):
    calls = []

    def build() -> bytes:
        calls.append(1)
        return payload

    return build, calls


def test_a_whole_file_is_read_back_without_building(cache):
    build, calls = _builder(b"model bytes " * 100)
    assert model_cache.load_or_build(KEY, build) == b"model bytes " * 100 and len(calls) == 1
    assert model_cache.load_or_build(KEY, build) == b"model bytes " * 100 and len(calls) == 1
    assert model_cache.path_for(KEY).parent == cache and not list(cache.glob("*.tmp"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit of the payload
        lambda data: data[: len(data) // 2],  # cut short (a crash while copying)
        lambda data: data[:8],  # the header alone
        lambda data: b"",
        lambda data: b"RAGONNX0" + data[8:],  # another format
    ],
)
def test_a_damaged_file_is_never_trusted_but_built_again_and_replaced(cache, damage):
    build, calls = _builder(b"the real model " * 100)
    model_cache.load_or_build(KEY, build)
    path = model_cache.path_for(KEY)
    path.write_bytes(damage(path.read_bytes()))
    assert model_cache.load_or_build(KEY, build) == b"the real model " * 100 and len(calls) == 2
    assert model_cache.read(path) == b"the real model " * 100  # replaced whole


def test_a_file_unused_for_a_month_is_removed_when_another_is_written_and_a_used_one_is_kept(cache):
    import os
    import time

    build, _ = _builder(b"model")
    old, used = {**KEY, "model": "old release"}, {**KEY, "model": "still used"}
    model_cache.load_or_build(old, build)
    model_cache.load_or_build(used, build)
    month_ago = time.time() - (model_cache.STALE_DAYS + 1) * 86400
    for key in (old, used):
        os.utime(model_cache.path_for(key), (month_ago, month_ago))
    model_cache.load_or_build(used, build)  # read: marked used
    model_cache.load_or_build({**KEY, "model": "new"}, build)
    assert not model_cache.path_for(old).exists() and model_cache.path_for(used).exists()


def test_keys_differ_by_engine_kind_and_weights(cache):
    paths = {model_cache.path_for({**KEY, "int8": int8, "model": model}) for int8 in (False, True) for model in ("a", "b")}
    assert len(paths) == 4


def test_the_real_engine_rebuilds_a_damaged_or_refused_model_and_embeds_the_same(cache):
    question = "Сколько стоили билеты на Байкал?"
    first = LocalEmbedder("onnx-fp32")
    expected = first.embed_query(question)
    key = e5_onnx.cache_key(first._weights, int8=False)
    path = model_cache.path_for(key)
    whole = path.read_bytes()
    assert model_cache.read(path) is not None
    damaged = bytearray(whole)
    damaged[len(damaged) // 2] ^= 0xFF  # a weight's byte: ONNX Runtime would load it and embed wrongly
    path.write_bytes(bytes(damaged))
    np.testing.assert_array_equal(LocalEmbedder("onnx-fp32").embed_query(question), expected)
    assert path.read_bytes() == whole
    model_cache.write(path, b"passes its check, but is no ONNX model")  # e.g. another ONNX Runtime's format
    np.testing.assert_array_equal(LocalEmbedder("onnx-fp32").embed_query(question), expected)
    assert path.read_bytes() == whole
