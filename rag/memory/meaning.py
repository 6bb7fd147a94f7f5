"""A fact's meaning vector, and its reading by a second model: what the semantic channel of recall compares with the
question.

A fact is embedded on its own — its content with its category and tags, not the note's chunk with its title and
frontmatter context — and symmetrically (e5's mean of `passage: ` and `query: `, `LocalEmbedder.embed_symmetric`):
on the independent dev set (bench/memory_dev2) the meaning channel alone went from MRR@10 0.666 on the fact notes'
chunk vectors to 0.778 this way, and on the first dev set from 0.80 to 0.92. Tags carry words a fact's text does not
("family, wife"), which paraphrased questions use.

The same text is also read by the aligned model (rag/embed/aligned.py: multilingual USE v3, trained on translation
pairs and question–answer pairs), and recall adds its cosine to e5's (rag/memory/recall.py `READING_WEIGHT`): a second
model with other mistakes, best where e5 is weakest, a question in other words or in the other language.
"""

from __future__ import annotations

import numpy as np

from rag.embed import aligned
from rag.memory.facts import DEFAULT_CATEGORY, Fact

BATCH = 64  # facts per embedding call


def fact_text(fact: Fact) -> str:
    """The text that is embedded: the content, then its category and tags in brackets (the default category adds
    nothing)."""
    labels = [fact.category] if fact.category and fact.category != DEFAULT_CATEGORY else []
    labels += [t for t in fact.tags if t and t not in labels]
    return f"{fact.content} ({', '.join(labels)})" if labels else fact.content


def fact_vectors(embedder, facts: list[Fact]) -> np.ndarray:
    """float32 vectors, one row per fact: symmetric where the embedder offers it, else as passages (an
    OpenAI-compatible model has no prefixes). Raises EmbedderError as the embedder does."""
    embed = getattr(embedder, "embed_symmetric", None) or embedder.embed_passages
    parts = [embed([fact_text(f) for f in facts[i : i + BATCH]]) for i in range(0, len(facts), BATCH)]
    return np.concatenate(parts).astype(np.float32) if parts else np.zeros((0, embedder.dim), np.float32)


def fact_readings(facts: list[Fact]) -> np.ndarray:
    """The aligned model's vector of each fact's text (`fact_text`), float32 unit rows [facts, aligned.DIM]. Raises
    EmbedderError when that model is unavailable."""
    model = aligned.shared()
    parts = [model.texts([fact_text(f) for f in facts[i : i + BATCH]]) for i in range(0, len(facts), BATCH)]
    return np.concatenate(parts) if parts else np.zeros((0, aligned.DIM), np.float32)
