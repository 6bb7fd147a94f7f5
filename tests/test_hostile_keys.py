"""Hostile chat model servers (docs/security.md): the API key goes only to the endpoint it was set for, never to a
server found on a local port; a discovery ends in seconds whatever the servers send, and one unreadable server never
hides the others; a model's reply is bounded in length and check time, and a malformed one is one ChatError; a
server's model names are shown cut and without control characters.

Every server is real HTTP on 127.0.0.1: the OpenAI-compatible test server (tests/openai_server.py), or `Scripted`,
whose replies a test writes byte by byte. Deadlines are shrunk where a test waits for one; every wait is bounded."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from rag.answer import grounding
from rag.answer.ask import ask
from rag.chat import replies, servers
from rag.chat.configured import make_chat_model
from rag.chat.ollama_chat import OllamaChat
from rag.chat.openai_chat import OpenAIChat, try_model
from rag.cli import cli
from rag.config import load_settings
from rag.embed.embedders import make_embedder
from rag.errors import ChatError
from rag.web.webapp import apply_choices, choices_of

from .app_harness import texts
from .openai_server import FakeOpenAI

KEY = "sk-test-the-users-own-key"
HI = [{"role": "user", "content": "hi"}]


class Scripted:
    """A real HTTP server on 127.0.0.1 whose replies the test writes: `routes` maps a path to `reply(handler, body)`.
    Records each request's path and headers; on close, every reply still trickling stops."""

    def __init__(self, routes: dict) -> None:
        self.routes, self.requests, self.closing = routes, [], threading.Event()
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _serve(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                scripted.requests.append({"path": self.path, "headers": dict(self.headers)})
                route = scripted.routes.get(self.path.split("?")[0])
                try:
                    route(self, body) if route else send(self, b"not here", status=404)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Scripted:
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


def send(handler, data, *, status: int = 200, kind: str = "application/json") -> None:
    data = data if isinstance(data, bytes) else json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def stream(handler, pieces, *, kind: str = "text/event-stream") -> None:
    """A streamed body without a length (it ends when the connection closes), written piece by piece."""
    handler.send_response(200)
    handler.send_header("Content-Type", kind)
    handler.end_headers()
    for piece in pieces:
        handler.wfile.write(piece)
    handler.wfile.flush()


def trickle(closing: threading.Event, *, headers: bool = False):
    """A reply sent one byte every 50 ms (a socket timeout never fires): its status line already, or its body."""

    def reply(handler, body):
        if not headers:
            handler.send_response(200)
            handler.send_header("Content-Length", "100000000")
            handler.end_headers()
            handler.wfile.flush()
        for byte in iter(lambda: b"H" if headers else b" ", None):
            if closing.wait(0.05):
                return
            handler.wfile.write(byte)
            handler.wfile.flush()

    return reply


def listing(*ids, **fields) -> dict:
    return {"object": "list", "data": [{"id": i, "object": "model", **fields} for i in ids]}


def saw_key(requests) -> bool:
    return any(KEY in json.dumps(r["headers"]) for r in requests)


def discover(ports, **kwargs):
    """find_servers in a thread, so that a discovery which does not end fails the test instead of hanging it."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(found=servers.find_servers(ports, **kwargs)), daemon=True)
    started = time.perf_counter()
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the discovery did not end within 10 s"
    return box["found"], time.perf_counter() - started


@pytest.fixture
def quick(monkeypatch):
    """Discovery deadlines a test can wait for."""
    monkeypatch.setattr(servers, "SERVER_SECONDS", 1.0)
    monkeypatch.setattr(servers, "DISCOVERY_SECONDS", 1.5)


def place(vault, tmp_path) -> list[str]:
    return ["--vault", str(vault), "--db", str(tmp_path / "index.db")]


# --- 1. The API key goes only to the endpoint it was set for --------------------------------------------------------


@pytest.mark.parametrize("configured", [False, True], ids=["key-for-openai", "key-for-openai-base-url"])
def test_testing_a_model_that_a_local_server_lists_never_sends_it_the_key(vault, tmp_path, monkeypatch, configured):
    with FakeOpenAI(models=("gpt-4o-mini",)) as local, FakeOpenAI(models=("gpt-4o-mini",), api_key=KEY) as real:
        monkeypatch.setattr(servers, "LOCAL_PORTS", ((local.port, "llama.cpp"),))
        real_url = real.base_url
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": real_url if configured else "", "RAG_CONFIG": ""}
        tested = CliRunner().invoke(cli, ["models", *place(vault, tmp_path), "--test", "gpt-4o-mini"], env=env)
        explicit = CliRunner().invoke(cli, ["models", *place(vault, tmp_path), "--test", "gpt-4o-mini", "--base-url", local.base_url], env=env)
    assert tested.exit_code == 0 and explicit.exit_code == 0, tested.output + explicit.output
    assert local.requests and not saw_key(local.requests), "a server found on a local port received the key"
    if configured:  # the configured endpoint serves the model: the test goes there, with its key
        assert f"at {real_url} replied" in tested.output and saw_key(real.requests)


def test_a_discovered_server_picked_in_the_app_settings_gets_no_key_and_the_configured_one_does(vault, tmp_path):
    with FakeOpenAI(models=("gpt-4o-mini", "embed")) as local, FakeOpenAI(models=("gpt-4o-mini", "embed"), api_key=KEY) as real:
        base = load_settings(vault=vault, db_path=tmp_path / "i.db", env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": real.base_url})
        picked = dataclasses.replace(choices_of(base), endpoint=local.base_url, chat_model="gpt-4o-mini", embedder="openai", embed_model="embed")
        settings = apply_choices(base, picked)  # what the app's "Use" does
        assert make_chat_model(settings).complete(HI)
        make_embedder(settings).embed_query("hello")
        try_model(base, base_url=local.base_url, model="gpt-4o-mini")  # the app's "Test"
        assert len(local.requests) >= 3 and not saw_key(local.requests)
        # The configured endpoint, spelled otherwise (scheme in capitals, a trailing slash), is still the key's own.
        same = dataclasses.replace(picked, endpoint=real.base_url.replace("http://", "HTTP://") + "/")
        assert make_chat_model(apply_choices(base, same)).complete(HI) and saw_key(real.requests)


def test_a_server_that_asks_for_a_key_it_was_not_given_is_told_where_the_key_goes(vault, tmp_path):
    with FakeOpenAI(models=("gpt-4o-mini",), api_key="its-own") as local:
        base = load_settings(vault=vault, db_path=tmp_path / "i.db", env={"OPENAI_API_KEY": KEY})
        with pytest.raises(ChatError, match="sent only to https://api.openai.com/v1, the endpoint it was set for") as refused:
            try_model(base, base_url=local.base_url, model="gpt-4o-mini")
    assert KEY not in str(refused.value) and not saw_key(local.requests)


def test_only_the_configured_endpoint_is_asked_with_the_key_when_servers_are_listed(vault, tmp_path, monkeypatch):
    with FakeOpenAI(models=("local-model",)) as local, FakeOpenAI(models=("remote-model",), api_key=KEY) as real:
        monkeypatch.setattr(servers, "LOCAL_PORTS", ((local.port, "llama.cpp"),))
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": real.base_url, "RAG_CONFIG": ""}
        listed = CliRunner().invoke(cli, ["models", *place(vault, tmp_path)], env=env)
    assert listed.exit_code == 0 and "local-model" in listed.output and "remote-model" in listed.output, listed.output
    assert local.requests and not saw_key(local.requests) and saw_key(real.requests)


def test_a_key_is_bound_to_its_endpoint_however_the_settings_change():
    from rag.endpoints import api_key_for, same_endpoint

    settings = load_settings(env={"OPENAI_API_KEY": KEY})
    assert api_key_for(settings, None) == api_key_for(settings, "https://API.openai.com:443/v1/") == KEY
    assert api_key_for(settings.replace(openai_base_url="http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1") is None
    assert not same_endpoint("http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1")
    assert not same_endpoint("http://localhost:8080/v1", "http://127.0.0.1:8080/v1")  # names are not resolved
    assert not same_endpoint("http://127.0.0.1:8080/v1", "https://127.0.0.1:8080/v1")


# --- 7. Discovery ends in seconds whatever the servers do ------------------------------------------------------------


@pytest.mark.parametrize("headers", [False, True], ids=["trickled-body", "trickled-status-line"])
def test_a_server_that_trickles_its_reply_is_given_up_at_the_deadline_and_the_others_are_listed(quick, headers):
    with FakeOpenAI(models=("good",)) as good, Scripted({}) as slow:
        good.kind, good.context_tokens = "llama.cpp", 2048
        slow.routes["/v1/models"] = trickle(slow.closing, headers=headers)
        found, seconds = discover(((slow.port, "Ollama"), (good.port, "llama.cpp")))
    assert seconds < 4
    assert [(s.kind, s.models[0].id, s.models[0].context_tokens) for s in found if s.models] == [("llama.cpp", "good", 2048)]
    assert [s.note for s in found if not s.models] == ["did not answer within 1 s"]


def test_a_server_with_thousands_of_models_and_slow_details_is_listed_in_seconds(quick):
    def show(handler, body):
        time.sleep(0.05)
        send(handler, {"parameters": "num_ctx 8192", "model_info": {"qwen2.context_length": 32768}})

    routes = {
        "/v1/models": lambda h, b: send(h, listing(*(f"model-{i}" for i in range(3000)))),
        "/api/version": lambda h, b: send(h, {"version": "0.6.5"}),
        "/api/show": show,
    }
    with Scripted(routes) as many:
        found, seconds = discover(((many.port, "Ollama"),))
    assert seconds < 4
    (server,) = found
    assert server.kind == "Ollama" and len(server.models) == servers.MAX_MODELS
    assert server.models[0].context_tokens == 8192 and server.models[-1].context_tokens is None  # not asked: not said


DEEP = b"[" * 100_000 + b"]" * 100_000
UNREADABLE_SERVERS = {
    "list-nested-100000-deep": {"/v1/models": DEEP},
    "model-nested-100000-deep": {"/v1/models": b'{"data": [{"id": "m", "meta": ' + DEEP + b"}]}"},
    "list-over-the-byte-cap": {"/v1/models": b'{"data": [' + b" " * 3_000_000 + b"]}"},
    "llama.cpp-props-of-the-wrong-type": {"/v1/models": listing("m"), "/props": {"default_generation_settings": [4096]}},
    "ollama-model-info-a-list": {"/v1/models": listing("m"), "/api/version": {"version": "1"}, "/api/show": {"model_info": [1, 2]}},
    "ollama-parameters-a-dict": {"/v1/models": listing("m"), "/api/version": {"version": "1"}, "/api/show": {"parameters": {"num_ctx": 1}}},
    "ollama-parameters-of-empty-lines": {"/v1/models": listing("m"), "/api/version": {"version": "1"}, "/api/show": {"parameters": "\n" * 900_000}},
    "lm-studio-ids-that-are-lists": {"/v1/models": listing("m"), "/api/v0/models": {"data": [{"id": ["m"], "max_context_length": 4096}]}},
    "window-absurd": {"/v1/models": listing("m", max_model_len=10**30)},
    "window-a-boolean": {"/v1/models": listing("m", max_model_len=True)},
    "window-a-string": {"/v1/models": listing("m", meta={"n_ctx": "4096"})},
}


@pytest.mark.parametrize("replies_by_path", UNREADABLE_SERVERS.values(), ids=UNREADABLE_SERVERS.keys())
def test_one_unreadable_server_never_hides_the_others(quick, replies_by_path):
    routes = {path: (lambda h, b, reply=reply: send(h, reply)) for path, reply in replies_by_path.items()}
    with FakeOpenAI(models=("good",)) as good, Scripted(routes) as bad:
        good.kind, good.context_tokens = "vllm", 32768
        found, seconds = discover(((bad.port, "llama.cpp"), (good.port, "vLLM")))
        good_url = good.base_url
    assert seconds < 4
    assert [(s.kind, s.base_url) for s in found if s.base_url == good_url] == [("vLLM", good_url)]
    for server in found:
        assert server.note in ("", servers.UNREADABLE)
        assert all(m.context_tokens is None or 256 <= m.context_tokens <= 10_000_000 for m in server.models)
        assert all(not isinstance(m.context_tokens, bool) for m in server.models)


def test_rag_models_lists_the_good_server_and_says_which_one_could_not_be_read(vault, tmp_path, monkeypatch, quick):
    with FakeOpenAI(models=("good",)) as good, Scripted({"/v1/models": lambda h, b: send(h, DEEP)}) as bad:
        monkeypatch.setattr(servers, "LOCAL_PORTS", ((bad.port, "llama.cpp"), (good.port, "Ollama")))
        listed = CliRunner().invoke(cli, ["models", *place(vault, tmp_path)], env={"OPENAI_BASE_URL": "", "RAG_CONFIG": ""})
        bad_url = bad.base_url
    assert listed.exit_code == 0, listed.output
    assert f"A server at {bad_url}: unreadable reply" in listed.output and "  good" in listed.output


# --- 12. A server's model names are shown cut and without control characters -----------------------------------------

HOSTILE_NAME = "\x1b]52;c;c2VjcmV0\x07\u202e" + "A" * 1_000_000


def test_a_huge_model_name_with_escape_sequences_is_listed_cut_and_without_them(vault, tmp_path, monkeypatch):
    with Scripted({"/v1/models": lambda h, b: send(h, listing(HOSTILE_NAME, "ok-model"))}) as server:
        monkeypatch.setattr(servers, "LOCAL_PORTS", ((server.port, "llama.cpp"),))
        listed = CliRunner().invoke(cli, ["models", *place(vault, tmp_path)], env={"OPENAI_BASE_URL": "", "RAG_CONFIG": ""})
    assert listed.exit_code == 0 and "  ok-model" in listed.output
    assert max(len(line) for line in listed.output.splitlines()) < 200 and "AAA…" in listed.output
    assert "\x1b" not in listed.output and "\x07" not in listed.output and "\u202e" not in listed.output
    assert servers.shown_name(HOSTILE_NAME) == "]52;c;c2VjcmV0" + "A" * 65 + "…" and servers.shown_name("qwen2.5:7b") == "qwen2.5:7b"


def test_the_app_lists_a_found_model_cut_and_never_sends_the_key_to_its_server(app, monkeypatch):
    with FakeOpenAI(models=("gpt-4o-mini", "![x](http://evil.example/p.png)" + "B" * 5000)) as local:
        monkeypatch.setattr("rag.chat.servers.LOCAL_PORTS", ((local.port, "llama.cpp"),))
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        at = app()
        at.button(key="rag_find_models").click().run()
        picker = at.selectbox(key="rag_model_pick")
        assert picker.options[0] == "gpt-4o-mini · OpenAI-compatible" and len(picker.options[1]) < 120
        local.script_chat("![y](http://evil.example/q.png)")
        at.button(key="rag_model_test").click().run()
        assert "![y](http" not in texts(at.sidebar.success) and "evil" in texts(at.sidebar.success)  # shown as text
        at.button(key="rag_model_use").click().run()
    assert local.requests and not saw_key(local.requests)


# --- 9. A chat server's reply is bounded, and a malformed one is one ChatError ---------------------------------------


def openai_chat(settings, url):
    return OpenAIChat(settings.replace(chat_model="m", openai_base_url=url, chat_context_tokens=8192, request_timeout=5.0, max_retries=0))


def ollama_chat(settings, url):
    return OllamaChat(settings.replace(chat_model="m", openai_base_url=url, chat_context_tokens=8192, request_timeout=5.0))


def sse(*events) -> list[bytes]:
    return [b"data: " + (e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n\n" for e in events]


def sse_text(text: str, size: int = 1000) -> list[bytes]:
    return sse(*({"choices": [{"index": 0, "delta": {"content": text[i : i + size]}}]} for i in range(0, len(text), size)), b"[DONE]")


def ndjson_text(text: str, size: int = 1000) -> list[bytes]:
    parts = [{"message": {"role": "assistant", "content": text[i : i + size]}, "done": False} for i in range(0, len(text), size)]
    return [json.dumps(p).encode() + b"\n" for p in [*parts, {"message": {"content": ""}, "done": True, "done_reason": "stop"}]]


CLIENTS = {
    "openai": (openai_chat, "/v1/chat/completions", sse_text, "text/event-stream"),
    "ollama": (ollama_chat, "/api/chat", ndjson_text, "application/x-ndjson"),
}


def collected(chat) -> tuple[str, bool]:
    pieces, reply = [], chat.stream(HI)
    while True:
        try:
            pieces.append(next(reply))
        except StopIteration as end:
            return "".join(pieces), end.value


@pytest.mark.parametrize("client", CLIENTS, ids=CLIENTS.keys())
def test_a_reply_past_the_cap_is_cut_there_and_said_to_be_cut(settings, client):
    make, path, wire, kind = CLIENTS[client]
    with Scripted({path: lambda h, b: stream(h, wire("x" * 1_000_000), kind=kind)}) as server:
        text, cut = collected(make(settings, server.base_url))
    assert text == "x" * replies.MAX_REPLY_CHARS and cut is True


MALFORMED_SSE = {
    "not-json": sse(b"{not json"),
    "a-list": sse(b"[1, 2]"),
    "choices-a-string": sse({"choices": "abc"}),
    "content-a-number": sse({"choices": [{"delta": {"content": 5}}]}),
    "delta-a-string": sse({"choices": [{"delta": "text"}]}),
    "nested-100000-deep": sse(b"[" * 100_000 + b"]" * 100_000),
    "not-utf-8": sse(b'{"choices": [{"delta": {"content": "\xff\xfe"}}]}'),
    "a-line-without-end": [b"data: " + b"x" * 3_000_000],
    "an-error-event": sse({"error": {"message": "boom"}}),
}
MALFORMED_NDJSON = {
    "not-json": [b"{not json\n"],
    "a-list": [b"[1]\n"],
    "message-a-string": [b'{"message": "hi"}\n'],
    "content-a-number": [b'{"message": {"content": 5}}\n'],
    "nested-100000-deep": [b"[" * 100_000 + b"]" * 100_000 + b"\n"],
    "a-line-without-end": [b"x" * 3_000_000],
    "an-error-line": [b'{"error": "boom"}\n'],
}
MALFORMED = [("openai", name, body) for name, body in MALFORMED_SSE.items()] + [("ollama", name, body) for name, body in MALFORMED_NDJSON.items()]


@pytest.mark.parametrize("client, name, body", MALFORMED, ids=[f"{c}-{n}" for c, n, _ in MALFORMED])
def test_a_malformed_stream_is_one_chat_error_naming_the_server(settings, client, name, body):
    make, path, _, kind = CLIENTS[client]
    with Scripted({path: lambda h, b: stream(h, body, kind=kind)}) as server:
        with pytest.raises(ChatError) as failed:
            collected(make(settings, server.base_url))
    message = str(failed.value)
    assert "\n" not in message and len(message) < 600 and str(server.port) in message


def test_ollama_timings_of_the_wrong_type_are_ignored(settings):
    lines = [b'{"message": {"content": "ok"}, "done": false}\n', b'{"done": true, "prompt_eval_count": "many", "prompt_eval_duration": 5}\n']
    with Scripted({"/api/chat": lambda h, b: stream(h, lines, kind="application/x-ndjson")}) as server:
        assert collected(ollama_chat(settings, server.base_url)) == ("ok", False)


def test_a_whole_reply_is_bounded_too(settings, monkeypatch):
    long = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "y" * 100_000}, "finish_reason": "stop"}]}
    with Scripted({"/v1/chat/completions": lambda h, b: send(h, long)}) as server:
        chat = openai_chat(settings, server.base_url)
        assert chat.complete(HI) == "y" * replies.MAX_REPLY_CHARS
        monkeypatch.setattr(replies, "MAX_REPLY_BYTES", 50_000)
        with pytest.raises(ChatError, match="not a chat completion"):
            chat.complete(HI)


def test_a_long_reply_is_cut_and_checked_within_seconds_and_what_is_not_checked_is_never_supported(workspace, settings, monkeypatch):
    """A server that ignores max_tokens and streams 200 KB of cited sentences: the answer is cut at the cap, its first
    MAX_CHECKED_CLAIMS claims are checked (20 here, for speed; 100 take ~2 s), the rest marked unsupported as not
    checked."""
    monkeypatch.setattr(grounding, "MAX_CHECKED_CLAIMS", 20)
    workspace.sync()
    text = "".join(f"White bread is at 72% hydration, note {i} [S1].\n" for i in range(5000))[:200_000]
    with Scripted({"/v1/chat/completions": lambda h, b: stream(h, sse_text(text))}) as server:
        box: dict = {}
        chat = openai_chat(settings, server.base_url)
        worker = threading.Thread(target=lambda: box.update(answer=ask(workspace, "What hydration do I keep for white bread?", chat=chat)))
        started = time.perf_counter()
        worker.daemon = True
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "the answer was still being checked after 60 s"
    answer, seconds = box["answer"], time.perf_counter() - started
    assert seconds < 30 and answer.truncated and len(answer.text) <= replies.MAX_REPLY_CHARS + 100
    checked, rest = answer.claims[: grounding.MAX_CHECKED_CLAIMS], answer.claims[grounding.MAX_CHECKED_CLAIMS :]
    assert rest and all(c.status == "unsupported" and c.reason.startswith("not checked") for c in rest)
    assert not any(c.reason.startswith("not checked") for c in checked)


class Endless:
    """A chat model (the `ChatModel` seam) whose reply does not stop at any cap of its own."""

    name, context_tokens = "endless", 8192

    def stream(self, messages):
        for i in range(5000):
            yield f"White bread is at 72% hydration, note {i} [S1].\n"
        return False

    def complete(self, messages):
        return ""


def test_any_chat_model_s_reply_is_cut_at_the_cap_by_ask_itself(workspace, monkeypatch):
    monkeypatch.setattr(grounding, "MAX_CHECKED_CLAIMS", 20)
    workspace.sync()
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(answer=ask(workspace, "What hydration do I keep for white bread?", chat=Endless())))
    worker.daemon = True
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the answer was still being checked after 60 s"
    assert box["answer"].truncated and len(box["answer"].text) <= replies.MAX_REPLY_CHARS + 100
