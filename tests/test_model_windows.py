"""A prompt sized to the window the model really runs with: asked of the server (Ollama through its own endpoint
with the num_ctx the prompt needs, llama.cpp's n_ctx), never sent cut — fewer sources, and the answer says so —
and a server that refuses a prompt as too long gets it again with fewer sources. Against the test server behaving
like each kind."""

from __future__ import annotations

import pytest

from rag.answer.ask import ask
from rag.chat import servers, timing
from rag.chat.configured import make_chat_model
from rag.chat.ollama_chat import OllamaChat
from tests.openai_server import FakeOpenAI

QUESTION = "What hydration do I keep for white bread and for whole wheat?"


@pytest.fixture
def ws(workspace):
    workspace.sync()
    servers._windows.clear()  # what servers said in other tests
    return workspace


def test_a_model_on_ollama_is_asked_natively_with_the_window_the_prompt_needs(ws, settings):
    with FakeOpenAI(models=("qwen2.5:7b",)) as server:
        server.kind = "ollama"  # its OpenAI endpoint would run the model with 4,096 tokens and cut longer prompts
        server.script_chat("White bread at 72% [S1].")
        chat = make_chat_model(settings.replace(chat_model="qwen2.5:7b", openai_base_url=server.base_url))
        assert isinstance(chat, OllamaChat) and chat.context_tokens == 8192
        answer = ask(ws, QUESTION, chat=chat)
        sent = next(r for r in server.requests if r["path"] == "/api/chat")["json"]
    assert sent["options"]["num_ctx"] == 8192 and sent["options"]["temperature"] == 0.0 and sent["stream"] is True
    assert server.truncated_prompts == 0 and "72%" in answer.text and answer.window == 8192
    assert not any(r["path"] == "/v1/chat/completions" for r in server.requests)


def test_a_small_window_gets_fewer_sources_never_a_cut_prompt_and_the_answer_says_so(ws, settings):
    with FakeOpenAI(models=("local",)) as server:
        server.kind, server.context_tokens = "llama.cpp", 1400  # /props says n_ctx 1400
        server.script_chat("72% [S1].")
        chat = make_chat_model(settings.replace(chat_model="local", openai_base_url=server.base_url))
        assert chat.context_tokens == 1400
        answer = ask(ws, QUESTION, chat=chat)
        chats = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
    assert len(chats) == 1 and answer.window == 1400  # it fitted the first time: the server did not refuse it
    assert answer.context.left_out >= 1 and answer.context.sources  # fewer sources, each whole
    assert answer.to_json()["window"] == {"tokens": 1400, "sources_left_out": answer.context.left_out}


def test_a_server_that_refuses_a_prompt_as_too_long_gets_it_again_with_fewer_sources(ws, settings):
    with FakeOpenAI(models=("local",)) as server:
        server.kind, server.context_tokens = "vllm", 1400
        server.script_chat("72% [S1].")
        # The settings claim 8,192 tokens; the server knows better and says so in its refusal.
        chat = make_chat_model(settings.replace(chat_model="local", openai_base_url=server.base_url, chat_context_tokens=8192))
        answer = ask(ws, QUESTION, chat=chat)
        chats = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
        url = server.base_url
    assert len(chats) == 2 and answer.window == 1400 and answer.context.left_out >= 1
    assert "72%" in answer.text
    assert servers._windows[(url, "local")][1].context_tokens == 1400  # the next question is sized at once


def test_while_the_model_reads_the_answer_says_how_many_sources_and_how_long_and_ticks(ws, settings):
    from rag.answer.ask import GENERATING, ModelReading
    from rag.web.ui_stream import StreamedCall

    timing._speeds.clear()
    with FakeOpenAI(models=("local",)) as server:
        server.kind, server.context_tokens = "llama.cpp", 8192
        server.delay_first_token = 2.5  # a CPU model reading the prompt
        server.script_chat("72% [S1].", "72% [S1].")
        chat = make_chat_model(settings.replace(chat_model="local", openai_base_url=server.base_url, request_timeout=1.0))
        stages, waits = [], []
        call = StreamedCall(
            lambda emit, stage: ask(ws, QUESTION, chat=chat, on_text=emit, on_stage=stage), on_stage=stages.append, on_wait=waits.append
        )
        text = "".join(call)
        answer = call.result()
        again = []
        ask(ws, QUESTION, chat=chat, on_stage=again.append)
    reading = next(s for s in stages if isinstance(s, ModelReading))
    assert reading == GENERATING and reading.sources == len(answer.context.sources) and reading.seconds is None  # not measured yet
    assert len(waits) >= 2 and "72%" in text  # the page could redraw "· 1 s", "· 2 s" while nothing came
    # request_timeout 1 s did not cut it off: the first byte was waited for twice the reading time at 10 tokens/s
    assert next(s for s in again if isinstance(s, ModelReading)).seconds > 0  # the first answer measured the speed


def test_stop_closes_the_models_request_so_the_server_stops_generating(ws, settings):
    import threading
    import time

    from rag.errors import AnswerStopped

    with FakeOpenAI(models=("local",), chunk_size=2) as server:
        server.delay_per_chunk = 0.05
        server.script_chat("White bread is kept at 72% hydration [S1]. " * 20)
        chat = make_chat_model(settings.replace(chat_model="local", openai_base_url=server.base_url))
        stop, shown = threading.Event(), []

        def emit(piece):
            shown.append(piece)
            stop.set()  # the person presses Stop once words appear

        with pytest.raises(AnswerStopped):
            ask(ws, QUESTION, chat=chat, on_text=emit, stop=stop)
        deadline = time.monotonic() + 5
        while not server.disconnects and time.monotonic() < deadline:
            time.sleep(0.05)
    assert server.disconnects == 1  # the client hung up mid-stream: the rest was never generated
    assert len("".join(shown)) < 60
