"""Question → ranked hits. Keyword channel (FTS5 BM25 over stems) + dense channel (cosine), fused.

The channels' scores are fused as z-scores, the keyword channel weighted by how much of the question the index can
see (rag/search/fusion.py); reciprocal rank fusion is kept as an alternative.

Keywords cannot match across scripts: when meaning's best passage is in another script than the question, a third
channel ranks instead of BM25, the words both scripts share (names by sound, acronyms, numbers, Latin terms in
Russian text; `crossing_ranking`), and beside it meaning's candidates are scored again word by word, the
question's words against the passage's through the vault's vocabulary (`lexicon_ranking`). The best few fused
candidates in the other script are then read again token by token against the question, and by their sentence
closest to it as a model trained on translations places it (`_reread`). The word-by-word match and the re-reads
are asked only when meaning is unsure of its best passage (SURE_GAP). Those rankings are in
rag/search/other_script.py, mixed in; the values a search returns in rag/search/results.py.

Each hit records its rank in each channel so the UI can say why a passage was found. If one channel cannot serve
(no vectors yet, the embedder is down, a query of stop words only), the other serves alone and the result says so.
"""

from __future__ import annotations

import functools
import logging

from rag.config import Settings
from rag.embed import aligned
from rag.embed.embedders import Embedder
from rag.errors import EmbedderError
from rag.index.storage import IndexStore
from rag.search.filters import Filters
from rag.search.fusion import keyword_weight, rrf, term_coverage, zscore_fusion
from rag.search.lexicon import Lexicon
from rag.search.other_script import OtherScriptRankings
from rag.search.results import Hit, SearchResult
from rag.search.text_vectors import query_vector
from rag.search.token_match import TokenMatch, moved
from rag.search.vectors import VectorIndex
from rag.text import stemming

log = logging.getLogger(__name__)
# What a person reads when the meaning channel is missing (the app shows them in its language: rag/web/i18n.py).
NOTICE_DENSE_DOWN = "Meaning search is unavailable ({error}); showing keyword matches only."
NOTICE_NO_VECTORS = "No vectors yet (indexing in progress or the embedder failed); showing keyword matches only."


# The keyword channel between scripts (`Retriever.crossing_ranking`), weighted like BM25 at this coverage when
# meaning's best passage is in another script than the question. Tuned on XQuAD's cross-language dev sets (0.3:
# +0.002 / +0.001 nDCG@10; 0.5 costs en2ru 0.004); on the FastAPI known-item sets, not fitted on, RU→EN −0.004,
# EN→RU +0.007 MRR@10. What it buys surely: a passage that shares a name with the question scores past the
# relevance floor, where meaning alone leaves it under (tests/test_crossing.py). The ordinary BM25 ranking kept for
# passages in the other script (stems both write alike, aliases) measured no better (RU→EN −0.002 to −0.012).
CROSSING_WEIGHT = 0.3
# Meaning's candidates in the other script scored word by word against the question (`Retriever.lexicon_ranking`),
# fused beside the crossing channel under the same condition. Fitted on XQuAD's cross-language sets (ru2en, 0.4:
# +0.009 nDCG@10 over none, 0.6 +0.005; en2ru 0.4 +0.010); FastAPI known items and the mixed vault, not fitted on,
# in docs/benchmarks.md.
LEXICON_WEIGHT = 0.4
# With `token_match` on (the default; see rag/config/sections.py), after that fusion its best TOKEN_DEPTH candidates in the
# other script are matched token by token with the question (rag/search/token_match.py), on the token states the
# index keeps, and each moves by TOKEN_WEIGHT × (the fused scores' spread among them) per deviation of its match
# from theirs. Chosen on XQuAD ru2en (layers 8+10, depth 20, weight 1.5) and checked on en2ru; with the best window
# of each passage matched, on the states the index keeps: 0.945 → 0.960 and 0.943 → 0.957 nDCG@10. The FastAPI
# known items and the mixed vault, not chosen on, in docs/benchmarks.md. 1.75 since the states are kept in 1 bit a
# component (rag/embed/token_code.py: chosen on en2ru among 1.0-2.0 and checked on ru2en, as measured there).
TOKEN_DEPTH = 20
TOKEN_WEIGHT = 1.75
# Then the best TOKEN_DEPTH candidates in the other script move again, by ALIGNED_WEIGHT per deviation of their
# sentence closest to the question as a model trained on translations places them (rag/embed/aligned.py). Chosen on
# XQuAD (0.3 / 0.5 / 0.7); not chosen on, the FastAPI known items; both in docs/benchmarks.md.
ALIGNED_WEIGHT = 0.5
# The word-by-word match and both re-reads are asked only when meaning is unsure of its best passage: its best
# score leads the next by less than SURE_GAP (cosine units). Where it leads by more, they seldom move the answer and
# cost most of a cross-language search (~18 of ~37 ms on XQuAD-en: the lexicon ~6, the token match ~6, the aligned
# model ~5). Chosen on XQuAD's cross-language sets (0.015-0.03): at 0.02 they are skipped for 58 % of the questions,
# ru2en nDCG@10 −0.0016, en2ru −0.0009; the FastAPI known items, not chosen on, in docs/benchmarks.md. A filtered
# search (a period the question names, a folder) always asks them: among a few passages a lead says little (skipping
# them lost two of time_dev2's reported-later questions their best place), and a few cost little to re-read.
SURE_GAP = 0.02


class Retriever(OtherScriptRankings):
    """Searches one store. Holds the cached vector matrix, so keep one per store and reuse it."""

    def __init__(self, settings: Settings, store: IndexStore, embedder: Embedder) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.lexicon = Lexicon(store, embedder)
        self.tokens = TokenMatch(embedder)
        self.aligned = aligned.shared()
        self.vectors = VectorIndex(
            store,
            embedder.name,
            sentence_weight=settings.sentence_weight if settings.sentence_vectors else 0.0,
            exact_below=settings.pg_exact_below,
            ef_search=settings.pg_ef_search,
        )

    # --- single channels --------------------------------------------------------------------------------------

    def keyword_ranking(self, query: str, n: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        return self.store.bm25(stemming.query_terms(query), n, rows=rows)

    def dense_ranking(self, query: str, n: int, *, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """Raises EmbedderError if the query cannot be embedded. `rows`: only these chunks (a filter)."""
        if len(self.vectors) == 0 or rows == []:
            return []
        return self.vectors.search(self._query_vector(query), n, question=query, rows=rows)

    def _query_vector(self, query: str):
        """Query embeddings are cached, and shared with the answer's own comparisons (rag/search/text_vectors.py): UIs re-run
        the same search often (Streamlit reruns on every click), and an extractive answer compares the same question."""
        # With the token match on, the question's token states come from the pass that gives its vector: a
        # cross-language search needs them, and they cost a same-language one next to nothing.
        one_pass = self.settings.token_match and self.tokens.reads_with_vector
        return query_vector(self.embedder, query, self.tokens.question_vector if one_pass else None)

    # --- searches ---------------------------------------------------------------------------------------------

    def keyword(self, query: str, k: int = 10, *, filters: Filters = Filters()) -> SearchResult:
        ranking = self.keyword_ranking(query, k, rows=filters.rows(self.store))
        return SearchResult(self._hits(ranking, bm25=ranking), ("bm25",))

    def dense(self, query: str, k: int = 10, *, filters: Filters = Filters()) -> SearchResult:
        ranking, notice = self._dense_or_notice(query, k, filters.rows(self.store))
        return SearchResult(self._hits(ranking, dense=ranking), ("dense",) if notice is None else (), notice)

    def hybrid(
        self, query: str, k: int = 10, *, candidates: int | None = None, filters: Filters = Filters(), keywords: str | None = None
    ) -> SearchResult:
        """Both channels fused. With `filters`, both rank only the notes that pass (inside the query, not after).
        `keywords`: the query as the keyword channel reads it (the question without its time words), else `query`."""
        n = candidates or self.settings.fusion_depth  # per channel; k beyond the union of both gets what there is
        rows = filters.rows(self.store)
        words = query if keywords is None else keywords
        keyword = self.keyword_ranking(words, n, rows=rows)
        dense, notice = self._dense_or_notice(query, n, rows)
        channels = ("bm25",) if notice else ("bm25", "dense")
        terms = stemming.query_terms(words)
        frequencies = self.term_frequencies(terms)
        crossing = functools.partial(self.crossing_ranking, words, n, rows=rows)
        ranked = self._fuse(words, keyword, dense, frequencies, crossing, filtered=rows is not None)
        hits = self._hits(ranked, bm25=keyword, dense=dense, boost=True)
        fused = self.settings.fusion if dense else None  # meaning served: the scores are fused (z-scores, or RRF)
        result = SearchResult(hits[:k], channels, notice, term_coverage(terms, *frequencies), fused=fused, pool=len(dense))
        from rag.search.linked import with_linked_pdfs  # the vault's links: imported here, not at the index's import

        return with_linked_pdfs(self, query, result, k, vault=self.settings.vault)

    def hits_of(self, rowids: list[int]) -> list[Hit]:
        """The chunks of these rowids as hits of no score, in that order (those still in the index)."""
        chunks = self.store.chunks_by_rowid(list(rowids))
        return [Hit(chunks[r], 0.0) for r in rowids if r in chunks]

    def term_frequencies(self, terms: list[str]) -> tuple[int, dict[str, int]]:
        """(number of chunks, {term: chunks containing it}) as the keyword index counts its tokens. A stem the index
        splits into several tokens (`busy_timeout` is "busy" "timeout", `café` is "cafe") is matched as that phrase,
        so it counts as often as its rarest token, not as absent: else a question naming a code name would look
        half outside the vault, and its keyword channel would be left out of the fusion."""
        tokens = {t: stemming.fts_tokens(t) for t in terms}
        total, found = self.store.document_frequencies(sorted({p for parts in tokens.values() for p in parts}))
        counts = {t: min(found.get(p, 0) for p in parts) for t, parts in tokens.items() if parts}
        return total, {t: n for t, n in counts.items() if n > 0}

    def _fuse(self, query: str, keyword, dense, frequencies: tuple[int, dict[str, int]], crossing, *, filtered: bool) -> list[tuple[int, float]]:
        """`crossing`: the keyword channel between scripts, asked (with the word-by-word match of meaning's
        candidates) only when meaning's best passage is in another script. `filtered`: the search ranks only some
        passages (a period, a folder): meaning's lead among a few says little, and re-reading a few costs little."""
        if not dense:
            return keyword
        if self.settings.fusion == "rrf":
            fused = rrf([[r for r, _ in keyword], [r for r, _ in dense]], self.settings.rrf_k)
        else:
            weight = keyword_weight(stemming.query_terms(query), *frequencies)
            # Keywords cannot match a passage in another script than the question: there BM25's silence is no
            # evidence (neutral, not its lowest score), and when meaning's best passage is one, BM25 is left out —
            # its same-language matches would bury the answer (measured in a mixed vault, bench/mixed_language.py).
            other = self._other_script(query, dense)
            alpha = self.settings.fusion_alpha
            if dense[0][0] in other:
                sure = not filtered and _sure(dense)
                reread = self.settings.token_match and not sure
                if reread:
                    self.aligned.load_soon()  # read by `_reread`: loading it beside the next channels hides ~1 s
                # There the words both scripts can share rank instead (names by sound, numbers, terms in Latin
                # letters); passages in the question's own script are neutral to them. The word-by-word match is
                # asked only where meaning is unsure (SURE_GAP); where it is sure, meaning's own ranking of those
                # passages stands in, so the fused scores keep their units (the relevance floor's).
                same = {r for r, _ in dense if r not in other}
                lexicon = [(r, x) for r, x in dense if r in other] if sure else self.lexicon_ranking(query, [r for r, _ in dense])
                unmatched = {r for r, _ in dense}.difference(r for r, _ in lexicon)  # no vocabulary word: neutral
                fused = zscore_fusion(
                    [crossing(), lexicon, dense],
                    [alpha * CROSSING_WEIGHT, alpha * LEXICON_WEIGHT, 1 - alpha],
                    unscorable=[same, unmatched, set()],
                )
                ranked = sorted(fused.items(), key=lambda x: -x[1])
                return self._reread(query, ranked) if reread else ranked
            no_vector = self.vectors.missing([r for r, _ in keyword])
            fused = zscore_fusion([keyword, dense], [alpha * weight, 1 - alpha], unscorable=[other, no_vector])
        return sorted(fused.items(), key=lambda x: -x[1])

    def _reread(self, query: str, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """`ranked` (fused, best first) with its best TOKEN_DEPTH candidates in another script than the question
        moved by their token match, then the best TOKEN_DEPTH of that by their closest sentence across languages
        (`token_match.moved`)."""
        top = [r for r, _ in ranked[:TOKEN_DEPTH]]
        ranked = moved(ranked, dict(self.token_ranking(query, top)), depth=TOKEN_DEPTH, weight=TOKEN_WEIGHT)
        top = [r for r, _ in ranked[:TOKEN_DEPTH]]
        return moved(ranked, dict(self.aligned_ranking(query, top)), depth=TOKEN_DEPTH, weight=ALIGNED_WEIGHT)

    # --- helpers ----------------------------------------------------------------------------------------------

    def _dense_or_notice(self, query: str, n: int, rows: list[int] | None = None) -> tuple[list[tuple[int, float]], str | None]:
        try:
            ranking = self.dense_ranking(query, n, rows=rows)
        except EmbedderError as exc:
            log.warning("Dense channel unavailable: %s", exc)
            return [], NOTICE_DENSE_DOWN.format(error=exc)
        if not ranking and len(self.vectors) == 0:
            return [], NOTICE_NO_VECTORS
        return ranking, None

    def _hits(self, scored, *, bm25=(), dense=(), boost: bool = False) -> tuple[Hit, ...]:
        bm25_rank = {r: i for i, (r, _) in enumerate(bm25, 1)}
        dense_rank = {r: i for i, (r, _) in enumerate(dense, 1)}
        chunks = self.store.chunks_by_rowid([r for r, _ in scored])
        # The tier-1 boost is a share of the score range, so it means the same under either fusion.
        spread = (scored[0][1] - scored[-1][1]) if len(scored) > 1 else 0.0
        bonus = self.settings.tier1_boost * spread if boost else 0.0
        hits = []
        for rowid, score in scored:
            chunk = chunks.get(rowid)
            if chunk is None:  # removed between ranking and reading
                continue
            hits.append(Hit(chunk, float(score) + (bonus if chunk.tier == 1 else 0.0), bm25_rank.get(rowid), dense_rank.get(rowid)))
        if boost:
            hits.sort(key=lambda h: -h.score)
        return tuple(hits)


def _sure(dense: list[tuple[int, float]]) -> bool:
    """Meaning's best passage leads the next by SURE_GAP or more (`dense`: best first)."""
    return len(dense) > 1 and dense[0][1] - dense[1][1] >= SURE_GAP
