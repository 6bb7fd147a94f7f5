"""The OpenAI-compatible chat client against a real local HTTP server: streaming, errors that name the fix, timeouts."""

from __future__ import annotations

import pytest

from rag.chat import timing
from rag.chat.configured import make_chat_model
from rag.chat.openai_chat import OpenAIChat
from rag.config import load_settings
from rag.errors import ChatError, ConfigError

from .openai_server import FakeOpenAI

HI = [{"role": "user", "content": "hi"}]


def chat_settings(tmp_path, base_url, **extra):
    values = dict(chat_model="fake-chat", openai_base_url=base_url, request_timeout=5.0, max_retries=0)
    values.update(extra)
    return load_settings(vault=tmp_path, db_path=tmp_path / "i.db", env={}, **values)


def test_stream_yields_the_scripted_deltas_over_sse(srv, tmp_path):
    srv.script_chat(["Hydration ", "is 72% ", "[S1]."])
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url))
    assert list(chat.stream(HI)) == ["Hydration ", "is 72% ", "[S1]."]
    sent = srv.requests[-1]["json"]
    assert sent["stream"] is True and sent["model"] == "fake-chat" and sent["messages"] == HI


def test_complete_returns_the_whole_reply_without_streaming(srv, tmp_path):
    srv.script_chat("a standalone query")
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url))
    assert chat.complete(HI) == "a standalone query"
    assert not srv.requests[-1]["json"].get("stream")


def test_settings_come_from_the_environment(srv, tmp_path):
    env = {"RAG_CHAT_MODEL": "fake-chat", "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "k", "RAG_CHAT_CONTEXT_TOKENS": "4096"}
    settings = load_settings(vault=tmp_path, db_path=tmp_path / "i.db", env=env)
    chat = make_chat_model(settings)
    assert chat.context_tokens == 4096 and chat.model == "fake-chat"
    srv.script_chat("ok")
    assert chat.complete(HI) == "ok"
    assert srv.requests[-1]["headers"]["authorization"] == "Bearer k"


def test_no_chat_model_configured_means_none(tmp_path):
    assert make_chat_model(load_settings(vault=tmp_path, db_path=tmp_path / "i.db", env={})) is None


def test_a_chat_model_without_an_endpoint_is_a_config_error_naming_the_variables(tmp_path):
    settings = load_settings(vault=tmp_path, db_path=tmp_path / "i.db", env={}, chat_model="llama3")
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        make_chat_model(settings)


def test_an_unreachable_endpoint_says_to_start_the_server(tmp_path):
    with FakeOpenAI() as gone:
        url = gone.base_url
    chat = OpenAIChat(chat_settings(tmp_path, url))
    with pytest.raises(ChatError, match="Cannot reach the chat endpoint .* Start the server or fix OPENAI_BASE_URL"):
        list(chat.stream(HI))


def test_an_unknown_model_names_the_setting_to_change(srv, tmp_path):
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url, chat_model="gpt-nope"))
    with pytest.raises(ChatError, match="does not know the model 'gpt-nope'. Set RAG_CHAT_MODEL"):
        list(chat.stream(HI))


def test_a_wrong_api_key_points_at_openai_api_key(tmp_path):
    with FakeOpenAI(api_key="right") as srv:
        chat = OpenAIChat(chat_settings(tmp_path, srv.base_url, openai_api_key="wrong"))
        with pytest.raises(ChatError, match="OPENAI_API_KEY"):
            chat.complete(HI)


def test_a_server_error_is_a_chat_error_and_the_next_request_works(srv, tmp_path):
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url))
    srv.fail_next(500)
    with pytest.raises(ChatError, match="failed"):
        list(chat.stream(HI))
    srv.script_chat("back")
    assert "".join(chat.stream(HI)) == "back"


def test_a_slow_first_token_times_out_with_the_setting_to_raise(srv, tmp_path):
    srv.delay_first_token = 2.0  # a 5-token prompt: a local model reads it in 0.5 s, so 1 s is waited for
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url, request_timeout=0.3))
    with pytest.raises(ChatError, match="sent nothing for 1 s.*request_timeout"):
        list(chat.stream(HI))


def test_the_wait_for_the_first_word_covers_reading_a_long_prompt_and_the_speed_is_kept(srv, tmp_path):
    timing._speeds.clear()
    srv.delay_first_token = 2.0  # a CPU model reading ~2,000 tokens: slow, but well inside twice the expected time
    srv.script_chat("read it")
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url, request_timeout=0.3))
    long = [{"role": "user", "content": "word " * 2000}]
    assert chat.reading_seconds(long) is None  # not measured yet: no guess shown (the wait assumes 10 tokens/s)
    assert "".join(chat.stream(long)) == "read it"
    speed = timing._speeds[(srv.base_url, "fake-chat")]
    assert 500 < speed < 1500 and chat.reading_seconds(long) < 5  # ~2,000 tokens in ~2 s, kept for the next question


def test_a_slow_but_steady_stream_is_not_cut_off(srv, tmp_path):
    srv.delay_per_chunk = 0.1
    srv.script_chat(["a", "b", "c", "d", "e"])
    chat = OpenAIChat(chat_settings(tmp_path, srv.base_url, request_timeout=0.3))
    assert "".join(chat.stream(HI)) == "abcde", "the timeout bounds each read, not the whole answer"


def test_a_closed_or_unreachable_endpoint_fails_fast_the_connect_timeout_is_short(settings):
    import time

    from rag.config import CONNECT_TIMEOUT
    from rag.embed.openai_embedder import OpenAIEmbedder

    chat = OpenAIChat(settings.replace(chat_model="m", openai_base_url="http://127.0.0.1:9/v1", request_timeout=60.0))
    embedder = OpenAIEmbedder(settings.replace(embedder="openai", openai_base_url="http://127.0.0.1:9/v1", request_timeout=60.0))
    for client in (chat._client, embedder._client):
        assert client.timeout.connect == CONNECT_TIMEOUT == 2.0 and client.timeout.read == 60.0  # reads keep their time
    started = time.perf_counter()
    with pytest.raises(ChatError, match="Cannot reach the chat endpoint"):
        chat.complete([{"role": "user", "content": "hi"}])
    assert time.perf_counter() - started < 10
    chat.close()
