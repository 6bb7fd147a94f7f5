"""Where English and Russian sit in the embedding space, and the two corrections search makes for it.

The model places texts of one language closer together whatever they say: every vector carries a language offset.
- In a vault that mixes Latin and Cyrillic texts, each script's offset from the common centre is removed from its
  vectors (`script_offsets`, `remove_offsets`), so the language of a passage stops deciding its rank.
- A question is moved half way (QUERY_SHIFT) from its language's centre towards the centre of the passages it is
  compared with (`query_shifts`): in a mixed vault, the common centre (the vault's own offsets); in a vault written
  in the other language, that language, with the offset between the two taken from `language_reference.md`
  (the same sentences in both languages), embedded once per model (`embed_reference`).
Both measured on XQuAD (cross-language sets, and bench/mixed_language.py); see docs/benchmarks.md, "Retrieval quality".
"""

from __future__ import annotations

import numpy as np

from rag.index.language_reference import LANGUAGES
from rag.text.sentences import SCRIPT_CODES, script

MIN_SCRIPT_ROWS = 20  # fewer texts in a script than this: their mean is more topic than language, left alone
QUERY_SHIFT = 0.5  # how far a question moves: all the way (1.0) overshoots, measured on both cross-language sets


def script_offsets(matrix: np.ndarray, scripts: np.ndarray) -> dict[int, np.ndarray]:
    """Per script code, its offset from the common centre (mean of the script's vectors − mean of all), when a vault
    mixes Latin and Cyrillic texts; {} with one script, or a minority under MIN_SCRIPT_ROWS."""
    groups = [code for code in LANGUAGES if int(np.count_nonzero(scripts == code)) >= MIN_SCRIPT_ROWS]
    if len(groups) < 2:
        return {}
    overall = matrix.mean(axis=0)
    return {code: matrix[scripts == code].mean(axis=0) - overall for code in groups}


def remove_offsets(matrix: np.ndarray, scripts: np.ndarray, offsets: dict[int, np.ndarray]) -> np.ndarray:
    """A renormalised copy of `matrix` with each row's script offset removed (`matrix` itself if there is none)."""
    if not offsets:
        return matrix
    aligned = np.array(matrix, dtype=np.float32)  # the stored matrix is read-only
    for code, offset in offsets.items():
        aligned[scripts == code] -= offset
    aligned /= np.maximum(np.linalg.norm(aligned, axis=1, keepdims=True), 1e-12)
    return aligned


def align_scripts(matrix: np.ndarray, scripts: np.ndarray) -> np.ndarray:
    return remove_offsets(matrix, scripts, script_offsets(matrix, scripts))


def offsets_from_means(means: dict[int, tuple[int, np.ndarray]]) -> dict[int, np.ndarray]:
    """`script_offsets` from each script code's (row count, mean vector) instead of the whole matrix (a server
    computes the means: rag/index/pg_vectors.py)."""
    groups = [code for code in LANGUAGES if means.get(code, (0, None))[0] >= MIN_SCRIPT_ROWS]
    if len(groups) < 2:
        return {}
    total = sum(n for n, _ in means.values())
    overall = sum(n * mean for n, mean in means.values()) / total
    return {code: (means[code][1] - overall).astype(np.float32) for code in groups}


def query_shifts(scripts: np.ndarray, offsets: dict[int, np.ndarray], reference: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Per question script code, the direction that moves a question of that script to the passages' centre, for
    a matrix whose rows have `scripts` and had `offsets` removed. {} when no question needs moving."""
    return shifts_for_counts({code: int(np.count_nonzero(scripts == code)) for code in LANGUAGES}, offsets, reference)


def shifts_for_counts(counts: dict[int, int], offsets: dict[int, np.ndarray], reference: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """`query_shifts` from the number of rows of each script code."""
    if offsets:  # mixed and aligned: the passages sit on the common centre, each language is off by its offset
        return {code: -offset for code, offset in offsets.items()}
    counts = {code: counts.get(code, 0) for code in LANGUAGES}
    vault = max(counts, key=counts.get)
    if counts[vault] == 0 or set(reference) != set(LANGUAGES):
        return {}
    return {code: reference[vault] - reference[code] for code in LANGUAGES if code != vault}


def shift_query(query: np.ndarray, question: str, shifts: dict[int, np.ndarray]) -> np.ndarray:
    """The question's vector moved QUERY_SHIFT of the way along its script's shift, renormalised."""
    shift = shifts.get(SCRIPT_CODES[script(question)])
    if shift is None or QUERY_SHIFT == 0:
        return query
    moved = query + QUERY_SHIFT * shift
    return (moved / max(float(np.linalg.norm(moved)), 1e-12)).astype(np.float32)
