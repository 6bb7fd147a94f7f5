"""The language reference: the same hundred short sentences in English and Russian (`language_reference.md`),
embedded once per model at indexing time; their per-language mean vectors are kept in the index, so search can tell
how far apart the two languages sit for that model (rag/search/languages.py uses them). Knows nothing about search.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rag.embed.embedders import Embedder
from rag.index.blobs import warn_once
from rag.index.storage import IndexStore
from rag.text.sentences import SCRIPT_CODES, script

REFERENCE = Path(__file__).with_name("language_reference.md")
LANGUAGES = (SCRIPT_CODES["latin"], SCRIPT_CODES["cyrillic"])


def reference_texts() -> dict[int, list[str]]:
    """The reference sentences by script code (the lines under the file's second-level headings)."""
    lines = [line.strip() for line in REFERENCE.read_text(encoding="utf-8").splitlines()]
    body = lines[next(i for i, line in enumerate(lines) if line.startswith("## ")) :]  # the preamble is not reference
    texts = [line for line in body if line and not line.startswith("#") and script(line) is not None]
    return {code: [t for t in texts if SCRIPT_CODES[script(t)] == code] for code in LANGUAGES}


def _meta_key(model: str) -> str:
    return f"language_means:{model}"


def reference_means(store: IndexStore, model: str, *, dim: int | None = None) -> dict[int, np.ndarray]:
    """Per script code, the mean vector of the reference sentences for `model` (of `dim` values, if given); {} until
    `embed_reference` ran, or when the stored means are unreadable (with a warning: `rag index` computes them again)."""
    stored = store.get_meta(_meta_key(model))
    if not stored:
        return {}
    means = _read_means(stored)
    if means is None or (dim is not None and any(mean.shape != (dim,) for mean in means.values())):
        warn_once("meta", _meta_key(model), "The index's language reference for %s is unreadable; `python -m rag index` computes it again.", model)
        return {}
    return means


def _read_means(stored: str) -> dict[int, np.ndarray] | None:
    """The means as `embed_reference` writes them, or None: one finite vector per language, all of one length."""
    try:
        means = {int(code): np.asarray(mean, np.float32) for code, mean in json.loads(stored).items()}
    except (ValueError, TypeError, AttributeError):
        return None
    shapes = {mean.shape for mean in means.values()}
    if set(means) != set(LANGUAGES) or len(shapes) != 1 or len(next(iter(shapes))) != 1 or not all(np.isfinite(m).all() for m in means.values()):
        return None
    return means


def _known(store: IndexStore, embedder: Embedder) -> bool:
    """The reference of this model is stored and readable."""
    stored = store.get_meta(_meta_key(embedder.name))
    means = _read_means(stored) if stored else None
    return means is not None and (not embedder.dim or all(mean.shape == (embedder.dim,) for mean in means.values()))


def reference_pending(store: IndexStore, embedder: Embedder) -> int:
    """How many reference texts `embed_reference` would embed (0 once it ran)."""
    return 0 if _known(store, embedder) else sum(map(len, reference_texts().values()))


def embed_reference(store: IndexStore, embedder: Embedder) -> int:
    """Embed the reference once per model and keep the means in the index; the number of texts embedded (0 when
    they are known). Raises EmbedderError like any embedding."""
    if _known(store, embedder):
        return 0
    texts = reference_texts()
    means = {code: embedder.embed_passages(texts[code]).mean(axis=0) for code in LANGUAGES}
    store.set_meta(_meta_key(embedder.name), json.dumps({code: mean.tolist() for code, mean in means.items()}), searchable=True)
    return sum(len(texts[code]) for code in LANGUAGES)
