"""The rankings of a `Retriever` that serve only between scripts (mixed into it): when meaning's best passage is in
another script than the question, keywords cannot match it, so these rank the candidates written in the other
script instead — by the words both scripts can share as sounds (`crossing_ranking`), word by word through the
vault's vocabulary (`lexicon_ranking`), token by token (`token_ranking`) and by their sentence closest to the
question as a model trained on translations places it (`aligned_ranking`).

Apart from rag/search/retrieve.py, which decides when they are asked and how they are fused (and re-reads the best
candidates with them: `Retriever._reread`).
"""

from __future__ import annotations

import logging

from rag.embed import aligned
from rag.errors import EmbedderError
from rag.index.records import PerChunk, StoredChunk
from rag.index.token_blobs import stored_states
from rag.text import sentences, sounds

log = logging.getLogger(__name__)


class OtherScriptRankings:
    """Methods of `Retriever` (it supplies `store`, `embedder`, `lexicon`, `tokens`, `aligned` and `vectors`)."""

    def crossing_ranking(self, query: str, n: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """The keyword channel between scripts: the chunks written in another script than the question, ranked by
        the words they can share with it as sounds (names, acronyms, numbers, terms in the other script:
        rag/text/sounds.py), which the stems of either language cannot match."""
        return self._in_other_script(query, lambda: self.store.sound_bm25(sounds.crossing_keys(query), n, rows=rows))

    def lexicon_ranking(self, query: str, candidates: list[int]) -> list[tuple[int, float]]:
        """The `candidates` (meaning's, best first) written in another script than the question, ranked by how
        closely their words (in either script: a Russian passage's English terms too) match the question's word by
        word (rag/search/lexicon.py); a passage's headings count as its words."""

        def rank():
            chunks = self.store.chunks_by_rowid(candidates)
            return self.lexicon.match_scores(query, {r: _passage(chunks[r]) for r in candidates if r in chunks})

        return self._in_other_script(query, rank)

    def token_ranking(self, query: str, candidates: list[int]) -> list[tuple[int, float]]:
        """The `candidates` written in another script than the question, ranked by how closely their tokens match
        the question's token by token (rag/search/token_match.py); [] where the embedder cannot read tokens."""

        def rank():
            # Their states as indexing kept them (from the forward pass that embedded each chunk); a chunk embedded
            # before they were kept is read again, as the text it was embedded as.
            stored = self.store.chunk_data(PerChunk.TOKEN_STATES, self.embedder.name, candidates)
            unread = self.store.chunk_index_texts([r for r in candidates if r not in stored]) if len(stored) < len(candidates) else {}
            scores = self.tokens.scores(query, unread, stored=stored)
            return sorted(scores.items(), key=lambda x: -x[1])

        return self._in_other_script(query, rank) if self.tokens.available else []

    def aligned_ranking(self, query: str, candidates: list[int]) -> list[tuple[int, float]]:
        """The `candidates` written in another script than the question, ranked by their sentence closest to it as
        a model trained on translations places them (rag/embed/aligned.py); [] where that model cannot serve."""

        def rank():
            # Their sentences' vectors as indexing kept them; a chunk indexed before they were kept is read now.
            stored = self.store.chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, candidates)
            unread = self.store.chunk_index_texts([r for r in candidates if r not in stored]) if len(stored) < len(candidates) else {}
            try:
                asked = self.aligned.question(query)
                passages = dict(zip(unread, self.aligned.passages(list(unread.values())))) if unread else {}
            except EmbedderError as exc:
                log.warning("Candidates not re-read across languages: %s", exc)
                return []
            # unreadable ones (truncated, another version's) are left out of the re-read: those passages keep their rank
            readable = stored_states(stored, layers=1, dim=asked.shape[0], model=aligned.MODEL)
            passages.update((rowid, states[0]) for rowid, states in readable.items())
            scores = {r: aligned.best_sentence(asked, p) for r, p in passages.items()}
            return sorted(scores.items(), key=lambda x: -x[1])

        return self._in_other_script(query, rank)

    def _in_other_script(self, query: str, rank) -> list[tuple[int, float]]:
        """`rank()`'s chunks written in another script than the query (none if the query has no letters)."""
        mine = sentences.script(query)
        if mine is None:
            return []
        ranked = rank()
        scripts = self.vectors.scripts([r for r, _ in ranked])
        return [(r, s) for r, s in ranked if scripts.get(r) not in (None, mine)]

    def _other_script(self, query: str, ranking) -> set[int]:
        """The ranked chunks written in another script than the query (none if the query has no letters)."""
        mine = sentences.script(query)
        if mine is None:
            return set()
        return {r for r, s in self.vectors.scripts([r for r, _ in ranking]).items() if s is not None and s != mine}


def _passage(chunk: StoredChunk) -> str:
    """A chunk as the word and token matches read it: its heading path counts as its words."""
    return f"{chunk.heading_path}\n{chunk.text}"
