"""A PDF a found note links to, found with it: `[[Paper.pdf]]`, `![[Paper.pdf#page=3]]` in one of the best passages
brings that PDF's best passage for the question (on the linked page, when the link names one) right after it.

People keep a paper or a manual beside the note that says what it is for; the note's words match the question, the
PDF's words may not (another language, another vocabulary). Only links to PDFs are followed (a note linked from a
note is a note the search ranks by itself), only from the LINKING_HITS best passages, and only to a PDF that is
indexed and not among the hits already. Knows nothing about answers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from rag.errors import EmbedderError
from rag.index.chunking import page_of
from rag.notes import pdf
from rag.notes.links import note_for
from rag.text import wikilinks

LINKING_HITS = 5  # the best passages whose links to PDFs are followed
_PAGE = re.compile(r"^page=(\d+)$")


def with_linked_pdfs(retriever, query: str, result, k: int, *, vault: Path):
    """`result` (a SearchResult) with the PDFs its best passages link to, each right after the passage that links
    it (a linked passage has no rank of its own: `linked_from` names that note), at most `k` hits in all."""
    hits = list(result.hits)
    have = {h.chunk.path for h in hits}
    out = []
    for i, hit in enumerate(hits):
        out.append(hit)
        if i >= LINKING_HITS or ".pdf" not in hit.chunk.text.lower():
            continue
        for match in wikilinks.WIKILINK.finditer(hit.chunk.text):
            link = wikilinks.parse(match)
            if not link.target.lower().endswith(pdf.SUFFIX):
                continue
            path = note_for(vault, link)
            if path is None or path in have:
                continue
            page = _PAGE.match(link.heading)
            best = _best_passage(retriever, query, path, int(page.group(1)) if page else None)
            if best is not None:
                have.add(path)
                out.append(replace(best, score=hit.score, bm25_rank=None, dense_rank=None, linked_from=hit.chunk.path))
    if len(out) == len(hits):
        return result
    return replace(result, hits=tuple(out[: max(k, len(hits))]))


def _best_passage(retriever, query: str, path: str, page: int | None):
    """The PDF's passage closest to `query` by both channels (on `page` when it names one), or None."""
    rows = retriever.store.chunk_rowids([path])
    if not rows:
        return None
    if page is not None:
        paged = [h.chunk.rowid for h in retriever.hits_of(rows) if page_of(h.chunk.heading_path) == page]
        rows = paged or rows
    try:
        scored = retriever.dense_ranking(query, len(rows), rows=rows)
    except EmbedderError:  # meaning search is down: the words choose
        scored = []
    scored = scored or retriever.keyword_ranking(query, len(rows), rows=rows)
    if not scored:
        scored = [(rows[0], 0.0)]
    hits = retriever.hits_of([scored[0][0]])
    return hits[0] if hits else None
