"""Per-chunk states as the index keeps them: an embedding model's token states (two layers, rag/search/token_match.py)
and the aligned model's sentence vectors (rag/embed/aligned.py), packed into one blob per chunk with a header that
says their shape and format, and read back only when whole. Knows the codes (rag/embed/token_code.py), not search.
"""

from __future__ import annotations

import numpy as np

from rag.embed import token_code
from rag.index.blobs import is_blob, warn_unusable

BITS = 4  # per component of states the fitted code is not for (`pack`)
HEADER = 16  # bytes before the rest: layers, tokens, dim and the format (bits, or CODED + the fitted code's number)
CODED = 256  # a format above this is e5's fitted code (rag/embed/token_code.py) of that number


def pack(states: np.ndarray) -> bytes:
    """Token states [layers, tokens, dim] (rows unit length, dim even) as the index keeps them: a header (layers,
    tokens, dim, format), then e5's two layers in their fitted code (rag/embed/token_code.py: 64 B a word token, 1 bit for each of 256
    components a layer),
    or other states (the aligned model's sentence vectors, another model's) each row's scale (float32) and the rows
    in 4 bits a component (−7…7, the row's largest component at ±7; two to a byte), ~0.4 KB a token of e5's.
    Measured on XQuAD's cross-language sets, hybrid nDCG@10 ru2en / en2ru: int8 rows 0.9618 / 0.9552, 4-bit 0.9619
    / 0.9554 (the same); layer 8 alone 0.9619 / 0.9532, and 128 principal directions fitted on the language
    reference 0.9578 (ru2en); the fitted code in docs/benchmarks.md."""
    states = np.asarray(states, np.float32)
    layers, tokens, dim = states.shape
    if token_code.fits(layers, dim):
        return _header(layers, tokens, dim, CODED + token_code.version()) + token_code.encode(states).tobytes()
    return _header(layers, tokens, dim, BITS) + _four_bits(states)


def _four_bits(states: np.ndarray) -> bytes:
    scales = np.maximum(np.abs(states).max(axis=2), 1e-12) / 7
    levels = (np.clip(np.rint(states / scales[..., None]), -7, 7) + 8).astype(np.uint8)  # 1 … 15
    nibbles = (levels[..., 0::2] << 4) | levels[..., 1::2]
    return scales.astype(np.float32).tobytes() + nibbles.tobytes()


def unpack(blob: bytes) -> np.ndarray:
    """`pack`'s bytes (either format) back as float32 [layers, tokens, dim]. Raises ValueError when they are not
    `pack`'s whole."""
    layers, tokens, dim, form = _shape(blob)
    if form != BITS:
        return token_code.decode(np.frombuffer(blob, np.uint8, offset=HEADER).reshape(layers, tokens, -1))
    scales = np.frombuffer(blob, np.float32, layers * tokens, HEADER).reshape(layers, tokens, 1)
    nibbles = np.frombuffer(blob, np.uint8, layers * tokens * dim // 2, HEADER + 4 * layers * tokens).reshape(layers, tokens, dim // 2)
    levels = np.empty((layers, tokens, dim), np.int8)
    levels[..., 0::2] = nibbles >> 4
    levels[..., 1::2] = nibbles & 15
    return (levels - 8).astype(np.float32) * scales


def recoded(blob: bytes) -> bytes:
    """Readable states as `pack` writes them now: an older index's e5 states in 4 bits are coded again (~6× smaller;
    decoded, then coded, without the model), anything else is returned as it is. Raises ValueError as `unpack`."""
    layers, _, dim, form = _shape(blob)
    return pack(unpack(blob)) if form == BITS and token_code.fits(layers, dim) else blob


def readable(blob: object) -> bool:
    """Whether stored token states are `pack`'s whole (cheap: the header, the length and the scales are read)."""
    try:
        _shape(blob)
    except ValueError:
        return False
    return True


def _header(layers: int, tokens: int, dim: int, form: int) -> bytes:
    return np.array([layers, tokens, dim, form], np.uint32).tobytes()


def _shape(blob: object) -> tuple[int, int, int, int]:
    """(layers, tokens, dim, format) of packed states, checked against their length and finite scales: the index file
    is not trusted (a truncated blob, another version's format, a hand edit). Raises ValueError."""
    if not is_blob(blob) or len(blob) < HEADER:
        raise ValueError("not packed token states")
    layers, tokens, dim, form = (int(n) for n in np.frombuffer(blob, np.uint32, 4))
    if form == BITS:
        if dim % 2 or len(blob) != HEADER + 4 * layers * tokens + layers * tokens * dim // 2:
            raise ValueError(f"{len(blob)} bytes, not the {layers}×{tokens}×{dim} states their header says")
        if not np.isfinite(np.frombuffer(blob, np.float32, layers * tokens, HEADER)).all():
            raise ValueError("scales that are not finite")
    elif form != CODED + token_code.version() or not token_code.fits(layers, dim):
        raise ValueError(f"token states in format {form}, not {BITS} or {CODED + token_code.version()} of {layers}×{dim}")
    elif len(blob) != HEADER + layers * tokens * token_code.parts():
        raise ValueError(f"{len(blob)} bytes, not the {layers}×{tokens} coded states their header says")
    return layers, tokens, dim, form


def fitted_codes(stored: dict[int, bytes], *, layers: int, dim: int) -> dict[int, np.ndarray]:
    """The stored states (rowid → `pack`'s bytes) that are e5's fitted code of `layers` × `dim` states, as their codes
    [layers, tokens, parts] (rag/search/token_windows.py matches them without decoding)."""
    codes = {}
    for rowid, blob in stored.items():
        try:
            shape = _shape(blob)
        except ValueError:
            continue
        if shape[3] == CODED + token_code.version() and shape[0] == layers and shape[2] == dim:
            codes[rowid] = np.frombuffer(blob, np.uint8, offset=HEADER).reshape(layers, shape[1], -1)
    return codes


def stored_states(stored: dict[int, bytes], *, layers: int, dim: int, model: str) -> dict[int, np.ndarray]:
    """The stored states (rowid → `pack`'s bytes) that unpack to `layers` × tokens × `dim`; the others are left out,
    with one warning a process (`rag index` reads their chunks again: `repair.drop_unreadable`)."""
    states: dict[int, np.ndarray] = {}
    for rowid, blob in stored.items():
        try:
            state = unpack(blob)
        except ValueError:
            continue
        if state.shape[0] == layers and state.shape[2] == dim:
            states[rowid] = state
    warn_unusable(model, len(stored) - len(states), "token states")
    return states
