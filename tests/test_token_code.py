"""e5's token states in their fitted code (rag/embed/token_code.py, rag/search/token_match.py `pack`): 64 B a token
for both layers (a bit for each of 256 components a layer), the match they give close to the model's own, an older index's 4-bit states still read and coded
anew by `rag index` without the model, and passages read now cached in the same code."""

from __future__ import annotations

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed import token_code
from rag.index import token_blobs
from rag.index.records import PerChunk
from rag.index.token_blobs import pack, readable, unpack
from rag.search.token_match import TokenMatch, window_match
from rag.workspace import Workspace
from tests.test_token_states import NOTES, QUESTION, TokenFake, _vault

PASSAGES = [
    "Before the kickoff, the singer Maria Lopez performed the national anthem at the stadium.",
    "The stadium was built in 1998 and holds seventy thousand people; its roof closes when it rains.",
    "After the game, the winning coach thanked the fans and the city for their support.",
    "Гимн исполнила певица Мария Лопес перед началом матча на стадионе.",
]


def _four_bits(states: np.ndarray) -> bytes:
    """States as the previous version kept them (4 bits a component, a scale per row), whatever their shape."""
    return token_blobs._header(*states.shape, token_blobs.BITS) + token_blobs._four_bits(states)


def test_e5_states_take_64_bytes_a_token_and_match_as_the_model_reads_them(real_embedder):
    asked = real_embedder.token_states(["Кто исполнил гимн на стадионе?"], query=True)[0]
    states = real_embedder.token_states(PASSAGES)
    for state in states:
        blob = pack(state)
        assert len(blob) == 16 + state.shape[1] * 2 * 32  # the header, then a bit for each of 256 components a layer
        back = unpack(blob)
        assert back.shape == state.shape and back.dtype == np.float32
        cosines = np.sum(back * state, axis=2) / np.linalg.norm(back, axis=2)
        assert cosines.mean() > 0.6, cosines.mean()
    exact = [window_match(asked, s) for s in states]
    coded = [window_match(asked, unpack(pack(s))) for s in states]
    # the same order of passages (decoded rows are not unit length: every score changes alike, and the re-read moves
    # candidates by their deviation from the others', not by the score itself)
    assert np.argsort(coded).tolist() == np.argsort(exact).tolist()


def test_a_kept_component_decodes_to_its_mean_plus_or_minus_its_spread_the_others_to_their_mean():
    mean, spread, kept, _ = token_code._fitted()
    assert kept.shape == (2, 256) and token_code.parts() == 32
    states = np.repeat(mean[:, None], 3, axis=1)
    states[:, 0, kept[:, 0]] += 0.5  # above the mean
    states[:, 1] -= 0.01  # every component below it
    back = token_code.decode(token_code.encode(states))
    lanes = np.arange(2)[:, None]
    dropped = np.setdiff1d(np.arange(384), kept[0])
    assert np.allclose(back[0, :, dropped], mean[0, dropped][:, None])  # not kept: the mean, whatever the token
    assert np.allclose(back[:, 1][lanes, kept], mean[lanes, kept] - spread[lanes, kept])
    assert np.allclose(back[:, 2][lanes, kept], mean[lanes, kept] + spread[lanes, kept])  # on the mean: above
    assert np.allclose(back[:, 0][lanes, kept[:, :1]], (mean + spread)[lanes, kept[:, :1]])


def test_states_the_code_is_not_for_stay_in_4_bits():
    rng = np.random.default_rng(3)
    sentences = rng.normal(size=(1, 5, 512)).astype(np.float32)  # the aligned model's sentence vectors
    assert pack(sentences) == _four_bits(sentences)
    assert not token_code.fits(1, 512) and token_code.fits(2, 384)


def test_a_coded_blob_of_another_fit_or_cut_short_is_unreadable():
    states = np.random.default_rng(4).normal(size=(2, 6, 384)).astype(np.float32)
    blob = pack(states)
    assert readable(blob)
    other_fit = blob[:12] + np.uint32(token_blobs.CODED + token_code.version() + 1).tobytes() + blob[16:]
    for bad in (blob[:-1], blob + b"\x00", other_fit, blob[:12] + np.uint32(8).tobytes() + blob[16:]):
        assert not readable(bad)
        with pytest.raises(ValueError):
            unpack(bad)


@pytest.mark.both_backends
def test_an_older_index_4_bit_states_are_read_then_coded_anew_by_index_without_the_model(tmp_path, index_location):
    fake = TokenFake()
    settings = load_settings(vault=_vault(tmp_path), db_path=index_location, env={"RAG_TOKEN_MATCH": "1"})
    with Workspace.open(settings, create=True, embedder=fake) as ws:
        ws.sync()
        rows = sorted(ws.store.chunk_paths(list(NOTES)))
        keys = sorted(ws.store.known_chunk_data(PerChunk.TOKEN_STATES, fake.name, ws.store.vector_keys(fake.name)))  # the chunks'
        rng = np.random.default_rng(5)
        e5_like = {k: rng.normal(size=(2, 9, 384)).astype(np.float32) for k in keys}
        old = {k: _four_bits(s) for k, s in e5_like.items()}
        ws.store.put_chunk_data(PerChunk.TOKEN_STATES, "e5", old)  # as the previous version kept a 384-wide model's two layers
        ws.store.put_chunk_data(PerChunk.SENTENCE_READINGS, "aligned", {keys[0]: _four_bits(np.ones((1, 2, 512), np.float32))})
        assert sorted(ws.store.chunk_data(PerChunk.TOKEN_STATES, "e5", rows).values()) == sorted(old.values())
        assert len(token_blobs.stored_states(ws.store.chunk_data(PerChunk.TOKEN_STATES, "e5", rows), layers=2, dim=384, model="e5")) == 3  # read
        fake.states_read.clear()
        ws.sync()  # `rag index`
        assert fake.states_read == []  # no model read
        stored = ws.store.chunk_data(PerChunk.TOKEN_STATES, "e5", rows)
        assert sorted(stored.values()) == sorted(pack(unpack(blob)) for blob in old.values())  # decoded, then coded
        assert all(len(blob) == 16 + 9 * 2 * 32 for blob in stored.values())
        (aligned,) = ws.store.chunk_data(PerChunk.SENTENCE_READINGS, "aligned", rows).values()
        assert aligned[12:16] == np.uint32(token_blobs.BITS).tobytes()  # not e5's shape: kept in 4 bits
        ws.sync()
        assert ws.store.chunk_data(PerChunk.TOKEN_STATES, "e5", rows) == stored  # once


def test_passages_read_now_score_as_they_would_from_the_index():
    fake = TokenFake()
    match = TokenMatch(fake)
    text = NOTES["Final/Anthem.md"]
    read_now = match.scores(QUESTION, {1: text})
    from_index = TokenMatch(fake).scores(QUESTION, {}, stored={1: pack(fake._states(text))})
    assert read_now == from_index
    assert match._bytes == len(pack(fake._states(text)))  # the cache holds the packed bytes
