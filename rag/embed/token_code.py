"""The fitted code of e5's token states (rag/embed/e5_onnx.py `TOKEN_LAYERS`, rag/search/token_match.py `pack`):
product quantisation, each layer's 384 components cut into PARTS runs of 24 and each run kept as the number (one
byte) of its nearest of 256 centroids fitted for that run. A token's two layers take 2 × PARTS bytes, 32 B, against
392 B in 4 bits a component. The question's states stay float32 and are compared with the centroids the passage's
tokens name ("asymmetric" distance), so only the passage side is coded.

The centroids (`token_code.npz`, float16, ~0.4 MB) were fitted by k-means on the token states of ordinary notes, none
of an evaluation set: the development vaults (javascript.info and Diplodoc in English and Russian, the imported
chats) and the demo vault, `python bench/token_code.py` rebuilds them. Measured on XQuAD's cross-language sets
(hybrid nDCG@10, the stored 4-bit states coded again, the question's states exact): ru2en 0.9656 → 0.9635, en2ru
0.9644 → 0.9528: short of "within 0.003" on en2ru. Also measured there (en2ru / ru2en): the decoded rows made unit
length 0.9543 / 0.9592; layer 8 alone 0.9405 / 0.9531, layer 10 alone 0.9491 / -; centred principal directions
fitted on the same notes at 1 bit (Lloyd-Max levels, a spread per direction), all 384: 0.9615 / 0.9605 (96 B a
token), 192: 0.9602 / 0.9600 (48 B); at 2 bits, 96: 0.9515 / 0.9575, 128: 0.9560 / -.
Knows the model's shape of states, not the store or the match.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

CODE_FILE = Path(__file__).with_name("token_code.npz")
CENTROIDS = 256  # per run: one byte a code
ENCODE_PART = 512  # tokens coded at once (bounds the distance table: 2 layers × 512 × 16 × 256 float32, 16 MB)


@functools.cache
def _fitted() -> tuple[np.ndarray, int]:
    with np.load(CODE_FILE) as fitted:
        return fitted["centroids"].astype(np.float32), int(fitted["version"])


def centroids() -> np.ndarray:
    """[layers, parts, CENTROIDS, run] float32, as fitted (read once, on first use)."""
    return _fitted()[0]


def version() -> int:
    """The fit's number, kept in each blob's header: a blob coded by another fit is not decoded with this one."""
    return _fitted()[1]


def parts() -> int:
    """Bytes a token takes per layer."""
    return centroids().shape[1]


def fits(layers: int, dim: int) -> bool:
    """Whether states of this shape are the ones the code was fitted for (e5's two layers of 384)."""
    books = centroids()
    return layers == books.shape[0] and dim == books.shape[1] * books.shape[3]


def encode(states: np.ndarray) -> np.ndarray:
    """[layers, tokens, dim] float32 → [layers, tokens, parts] uint8: each run's nearest centroid (squared distance)."""
    books = centroids()
    layers, parts, _, run = books.shape
    tokens = states.shape[1]
    codes = np.empty((layers, tokens, parts), np.uint8)
    lengths = np.einsum("lpkr,lpkr->lpk", books, books)[:, None]  # [layers, 1, parts, centroids]
    for start in range(0, tokens, ENCODE_PART):
        runs = states[:, start : start + ENCODE_PART].reshape(layers, -1, parts, run)
        distance = lengths - 2 * np.einsum("ltpr,lpkr->ltpk", runs, books)  # |x|² is the same for every centroid
        codes[:, start : start + ENCODE_PART] = distance.argmin(axis=3)
    return codes


def decode(codes: np.ndarray) -> np.ndarray:
    """[layers, tokens, parts] uint8 → [layers, tokens, dim] float32: the centroids the codes name, side by side."""
    books = centroids()
    layers, parts, _, run = books.shape
    picked = books[np.arange(layers)[:, None, None], np.arange(parts)[None, None, :], codes]  # [layers, tokens, parts, run]
    return picked.reshape(layers, codes.shape[1], parts * run)
