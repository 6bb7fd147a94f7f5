"""The fake OpenAI server, exercised with the real `openai` client over real HTTP."""

from __future__ import annotations

import http.client
import json
import math
import time
import urllib.error
import urllib.request

import openai
import pytest

from tests.openai_server import FakeOpenAI, embed_text


def make_client(srv, **kwargs):
    kwargs.setdefault("api_key", "test")
    kwargs.setdefault("timeout", 5)
    return openai.OpenAI(base_url=srv.base_url, max_retries=0, **kwargs)


@pytest.fixture
def client(srv):
    with make_client(srv) as c:
        yield c


def ask(client, question="What is in my vault?", **kwargs):
    return client.chat.completions.create(model="fake-chat", messages=[{"role": "user", "content": question}], **kwargs)


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def wait_for(predicate, timeout=2.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def test_chat_completion_returns_scripted_reply_and_records_the_prompt(srv, client):
    srv.script_chat("Your vault mentions three cats.")
    resp = ask(client, "How many cats?")
    assert resp.object == "chat.completion"
    assert resp.model == "fake-chat"
    assert resp.choices[0].message.role == "assistant"
    assert resp.choices[0].message.content == "Your vault mentions three cats."
    assert resp.choices[0].finish_reason == "stop"
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens > 0
    sent = srv.requests[-1]
    assert sent["method"] == "POST" and sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer test"
    assert sent["json"]["messages"] == [{"role": "user", "content": "How many cats?"}]


def test_scripted_replies_are_fifo_then_handler_then_default(srv, client):
    srv.script_chat("first", "second")
    assert [ask(client).choices[0].message.content for _ in range(2)] == ["first", "second"]
    assert ask(client).choices[0].message.content == srv.default_reply
    srv.chat_handler = lambda req: "echo: " + req["messages"][-1]["content"]
    assert ask(client, "ping").choices[0].message.content == "echo: ping"


def test_streaming_chat_reassembles_scripted_text_from_several_chunks(srv, client):
    text = "Notes on retrieval: chunk, embed, rank, then answer."
    srv.script_chat(text)
    chunks = list(ask(client, stream=True))
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(pieces) >= 5
    assert "".join(pieces) == text
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])


def test_streaming_uses_explicit_deltas_and_honours_include_usage(srv, client):
    srv.script_chat(["Hel", "lo", " world"])
    chunks = list(ask(client, stream=True, stream_options={"include_usage": True}))
    assert [c.choices[0].delta.content for c in chunks[1:4]] == ["Hel", "lo", " world"]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 2
    assert all(c.usage is None for c in chunks[:-1])


def test_sse_framing_on_the_wire_ends_with_done():
    with FakeOpenAI(chunk_size=3) as srv:
        srv.script_chat("abcdefgh")
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        conn.request(
            "POST",
            "/v1/chat/completions",
            headers={"Content-Type": "application/json"},
            body=json.dumps({"model": "fake-chat", "stream": True, "messages": [{"role": "user", "content": "hi"}]}),
        )
        resp = conn.getresponse()
        assert resp.status == 200
        assert resp.getheader("Content-Type").startswith("text/event-stream")
        assert resp.getheader("Transfer-Encoding") == "chunked"
        body = resp.read()
        conn.close()
    assert body.startswith(b"data: {")
    assert body.endswith(b"\n\ndata: [DONE]\n\n")
    assert body.count(b"[DONE]") == 1
    frames = body.split(b"\n\n")
    assert frames[-1] == b""  # every frame, including the last, ends in a blank line
    assert all(f.startswith(b"data: ") and b"\n" not in f for f in frames[:-1])
    events = [json.loads(f[len(b"data: ") :]) for f in frames[:-2]]
    assert [e["choices"][0]["delta"] for e in events] == [{"role": "assistant"}, {"content": "abc"}, {"content": "def"}, {"content": "gh"}, {}]
    assert events[-1]["choices"][0]["finish_reason"] == "stop"


def test_embeddings_default_client_request_is_base64_and_decodes_to_unit_vector(srv, client):
    resp = client.embeddings.create(model="fake-embed", input="the quick brown fox")
    assert srv.requests[-1]["json"]["encoding_format"] == "base64"  # what openai sends by default
    vec = resp.data[0].embedding
    assert len(vec) == 16 and resp.data[0].index == 0
    assert math.isclose(math.sqrt(sum(v * v for v in vec)), 1.0, rel_tol=1e-5)
    assert vec == pytest.approx(embed_text("the quick brown fox"), abs=1e-6)
    assert resp.usage.prompt_tokens == 4


def test_embeddings_batch_keeps_order_and_similar_texts_score_higher(srv, client):
    texts = ["my cat sleeps on the sofa", "the cat sleeps on my sofa all day", "quarterly tax invoice reminder"]
    resp = client.embeddings.create(model="fake-embed", input=texts, encoding_format="float")
    assert [d.index for d in resp.data] == [0, 1, 2]
    a, b, c = (d.embedding for d in resp.data)
    assert a == pytest.approx(srv.embed(texts[0]))
    assert cosine(a, b) > 0.8
    assert cosine(a, b) > cosine(a, c) + 0.3
    again = client.embeddings.create(model="fake-embed", input=texts[0], dimensions=8)
    assert len(again.data[0].embedding) == 8


def test_models_list_reports_configured_models(client):
    models = client.models.list()
    assert [m.id for m in models.data] == ["fake-chat", "fake-embed"]
    assert all(m.object == "model" and m.owned_by == "fake" for m in models.data)


def test_unknown_model_raises_not_found(client):
    with pytest.raises(openai.NotFoundError) as err:
        client.chat.completions.create(model="gpt-nope", messages=[{"role": "user", "content": "hi"}])
    assert err.value.code == "model_not_found"
    assert err.value.body["message"] == "The model `gpt-nope` does not exist"
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="gpt-nope", input="hi")


def test_wrong_api_key_raises_authentication_error():
    with FakeOpenAI(api_key="s3cret") as srv:
        with make_client(srv, api_key="wrong") as bad, pytest.raises(openai.AuthenticationError) as err:
            bad.models.list()
        assert err.value.code == "invalid_api_key"
        with make_client(srv, api_key="s3cret") as good:
            assert good.models.list().data


def test_injected_500_raises_internal_server_error_then_recovers(srv, client):
    srv.fail_next(status=500, times=2)
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            ask(client)
    assert ask(client).choices[0].message.content == srv.default_reply


def test_injected_error_with_custom_status_and_body(srv, client):
    srv.fail_next(429, {"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}})
    with pytest.raises(openai.RateLimitError) as err:
        ask(client)
    assert err.value.code == "rate_limit_exceeded"


def test_handler_exception_returns_500_and_server_keeps_serving(srv, client):
    srv.chat_handler = lambda req: 1 / 0
    with pytest.raises(openai.InternalServerError):
        ask(client)
    assert len(srv.errors) == 1 and "ZeroDivisionError" in srv.errors[0]
    srv.chat_handler = None
    assert ask(client).choices[0].message.content == srv.default_reply


def test_delay_response_causes_client_timeout(srv):
    srv.delay_response = 1.0
    with make_client(srv, timeout=0.2) as slow, pytest.raises(openai.APITimeoutError):
        ask(slow)


def test_delay_first_token_times_out_a_streaming_read(srv):
    srv.delay_first_token = 1.0
    with make_client(srv, timeout=0.2) as slow, pytest.raises(openai.APITimeoutError):
        list(ask(slow, stream=True))


def test_server_keeps_serving_after_client_aborts_a_stream_midway(srv, client):
    srv.delay_per_chunk = 0.01
    srv.script_chat("x" * 400)  # 100 chunks, about a second of streaming
    stream = ask(client, stream=True)
    for _, _chunk in zip(range(3), stream):
        pass
    stream.close()
    wait_for(lambda: srv.disconnects >= 1)
    assert srv.errors == []
    srv.delay_per_chunk = 0
    srv.script_chat("still here")
    assert "".join(c.choices[0].delta.content or "" for c in ask(client, stream=True)) == "still here"


def test_leaving_the_context_stops_the_server():
    with FakeOpenAI() as srv:
        url = srv.base_url + "/models"
        with urllib.request.urlopen(url, timeout=2) as resp:
            assert json.load(resp)["object"] == "list"
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)
