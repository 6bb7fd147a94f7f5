"""The fitted code of e5's token states (rag/embed/e5_onnx.py `TOKEN_LAYERS`, rag/search/token_match.py `pack`): of
each layer's 384 components the KEPT 256 that vary most over ordinary notes are kept as one bit each, which side of
that component's mean the token lies on; decoded, a kept component is its mean ± its mean distance from it, the others
their mean. A token's two layers take 2 × 32 B = 64 B, against 392 B in 4 bits a component. The question's states stay
float32 (only the passage side is coded), and the retriever's TOKEN_WEIGHT is 1.75 with this code (1.5 with 4 bits).

The means, the distances and which components are kept (`token_code.npz`, ~5 KB) come from the token states of
ordinary notes, none of an evaluation set: the development vaults (javascript.info and Diplodoc in English and
Russian, the imported chats) and the demo vault; `python bench/token_code.py` rebuilds them. Measured on XQuAD's
cross-language sets, hybrid nDCG@10 en2ru / ru2en, the stored 4-bit states coded again, the question's exact, the
search's fused ranking recorded once and replayed (the weight chosen on en2ru among 1.0-2.0, then checked on ru2en):
4 bits (today, 392 B) 0.9644 / 0.9656; this code (64 B) at weight 1.5 0.9599 / 0.9652, at 1.75 0.9624 / 0.9642; no
token re-read at all 0.9505 / 0.9563. The same bit on all 384 components (96 B) 0.9607 / 0.9638 at 1.5, 0.9620 /
0.9637 at 1.75; on 192 (48 B) 0.9611 / 0.9612 at 1.75; on 128 (32 B) 0.9536 / 0.9537.
Tried and dropped, at 1.5 (none within 0.003 on en2ru, re-weighting 1.0-2.0 did not bring them there): product
codes, k-means centroids of runs of components, one byte a run (the rarer a token, the worse its centroid, and rare
tokens are what a question matches): 16 runs of 24 (32 B) 0.9528 / 0.9635, 24 of 16 (48 B) 0.9500 / 0.9624, 32 of
12 (64 B) 0.9542 / 0.9626, 16 + 16 on the residuals (64 B) 0.9548 / 0.9577, 32 on principal directions (64 B)
0.9570 / 0.9613; principal directions at 1 bit, 256 (64 B) 0.9574-0.9603 / 0.9602-0.9612 by the fit's sample, all
384 (96 B) 0.9599 / 0.9623; bits spread over the directions by their variance (64 B) 0.9566 / 0.9596.
Checked on the FastAPI known items (nothing chosen there; `bench/known_item.py --channels hybrid` on copied indexes
whose states `rag index`'s repair coded anew), hybrid MRR@10 4 bits → this code: ru2en 0.9365 → 0.9387, en2ru 0.9851
→ 0.9870, en2en 0.9772 → 0.9772, ru2ru 0.9929 → 0.9953. XQuAD-en's index: token_states 15.9 → 3.2 MB (e5's 15.3 →
2.5 MB), the file 53.1 → 40.3 MB (both after VACUUM).
Toward a third of these bytes, nothing held (replayed as above, but on passages' states read again by the model
from the index's texts and coded by this fit, en2ru / ru2en: 0.9619 / 0.9609 with every token; weight 1.75, window
48 tokens): a passage's English function words left out (`stemming.STOP_WORDS`, 30 % of an English passage's word
tokens, e5 states of XQuAD-en 2.50 → 1.74 MB) 0.9619 / 0.9602, its Russian ones too (15 % of a Russian passage's)
0.9587 / 0.9602; of each word its first piece alone (76 % of English tokens, 60 % of Russian) – / 0.9513; a word's
pieces merged into their mean, renormalised, 0.9583 / 0.9567; a token like the one before it (cosine > 0.8, 5 %)
dropped 0.9608 / 0.9621; English function words left out and 192 bits a layer – / 0.9576, 128 bits – / 0.9507;
windows of 32 or 24 tokens brought none of them back on both sets. Layer 8 alone, 256 bits 0.9532 (en2ru), 384 bits
0.9550; layer 10 alone without function words – / 0.9574. A fitted rotation before the sign (PCA then ITQ: per
layer 128 bits 0.9530, 192 bits 0.9546; both layers jointly, 256 bits 0.9531; en2ru) loses more than the raw
components kept: bits on principal directions blur the few components a rare token stands out on. zlib / xz on the
stored codes: 2 % / 9 % smaller. Through the product (`rag eval retrieval`, a copy of today's index whose e5 states
`rag index` read again; like for like), English function words left out: XQuAD ru2en 0.9589 → 0.9577 (en2ru 0.9614,
its Russian passages all but unchanged); FastAPI known items ru2en MRR@10 0.9324 → 0.9270 (the other three
directions unchanged). States read again by `rag index` instead of kept from the indexing pass already move XQuAD
ru2en 0.9628 → 0.9589 (FastAPI ru2en 0.9387 → 0.9324), likely as the int8 engine quantises activations per batch
(rag/embed/e5_onnx.py), so a token's states depend on the texts beside it (cosine 0.992 on average, alone or not).
Knows the model's shape of states, not the store or the match.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

CODE_FILE = Path(__file__).with_name("token_code.npz")


@functools.cache
def _fitted() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    with np.load(CODE_FILE) as fitted:
        return (
            fitted["mean"].astype(np.float32),
            fitted["spread"].astype(np.float32),
            fitted["kept"].astype(np.intp),
            int(fitted["version"]),
        )


def version() -> int:
    """The fit's number, kept in each blob's header: a blob coded by another fit is not decoded with this one."""
    return _fitted()[3]


def parts() -> int:
    """Bytes a token takes per layer (one bit a kept component)."""
    return _fitted()[2].shape[1] // 8


def fits(layers: int, dim: int) -> bool:
    """Whether states of this shape are the ones the code was fitted for (e5's two layers of 384)."""
    return (layers, dim) == _fitted()[0].shape


def encode(states: np.ndarray) -> np.ndarray:
    """[layers, tokens, dim] float32 → [layers, tokens, parts] uint8: the kept components' sides of their means."""
    mean, _, kept, _ = _fitted()
    layers = np.arange(len(kept))[:, None]
    above = states[layers, :, kept].transpose(0, 2, 1) >= mean[layers, kept][:, None]  # [layers, tokens, kept]
    return np.packbits(above, axis=2)


def decode(codes: np.ndarray) -> np.ndarray:
    """[layers, tokens, parts] uint8 → [layers, tokens, dim] float32: each kept component its mean ± its spread,
    the others their mean."""
    mean, spread, kept, _ = _fitted()
    layers, tokens, _ = codes.shape
    signs = np.unpackbits(codes, axis=2).astype(np.float32) * 2 - 1  # [layers, tokens, kept]
    out = np.repeat(mean[:, None], tokens, axis=1)
    lanes = np.arange(layers)[:, None]
    out[lanes, :, kept] += (signs * spread[lanes, kept][:, None]).transpose(0, 2, 1)
    return out
