"""Test infrastructure: a tiny local HTTP server speaking the OpenAI wire protocol.

This is not a mock of the ``openai`` package. It is a real HTTP/1.1 server (stdlib
only) on 127.0.0.1 with a free port, so the real client, or anything else that
talks to an OpenAI-compatible endpoint, runs end to end::

    with FakeOpenAI() as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=0)
        srv.script_chat("Paris is the capital of France.")
        ...
        assert "capital" in srv.requests[-1]["json"]["messages"][-1]["content"]

Endpoints: ``GET /v1/models``, ``POST /v1/chat/completions`` (plain JSON or SSE
streaming over chunked transfer encoding), ``POST /v1/embeddings`` (float or
base64). Use the scripting hooks on FakeOpenAI (replies, injected errors, delays,
recorded requests) to test the answer pipeline.

``kind`` makes it behave like a particular local server, with ``context_tokens`` as
the window it runs the model with: "ollama" (``/api/version``, ``/api/tags``,
``/api/show``, ``/api/chat`` streaming NDJSON with ``options.num_ctx``; a prompt longer
than the window loses its start, silently, as Ollama does), "llama.cpp" (``/props``;
a longer prompt is refused with its error), "vllm" (``max_model_len``; refused with
OpenAI's error). ``delay_first_token`` is a CPU model reading the prompt.
"""

from __future__ import annotations

import base64  # noqa: E401
import hashlib
import itertools
import json
import math
import re
import struct
import sys
import threading
import time
import traceback
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_REPLY = "This is a canned reply from the fake OpenAI server."
_DISCONNECT = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


def _error(message, type_="invalid_request_error", code=None, param=None):
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _count_tokens(obj) -> int:
    """A rough token count (words), good enough for a `usage` block."""
    return len(_words(obj if isinstance(obj, str) else json.dumps(obj)))


def embed_text(text: str, dim: int = 16) -> list[float]:
    """Deterministic unit-norm vector: a signed, hashed bag of lowercased words."""
    vec = [0.0] * dim
    for word in _words(text) or [text]:
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        vec[h % dim] += 1.0 if (h >> 40) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:  # every word cancelled out: still return a unit vector
        vec, norm = [1.0] + [0.0] * (dim - 1), 1.0
    return [v / norm for v in vec]


def _limit(pieces: list[str], max_tokens) -> tuple[list[str], str]:
    """The pieces cut after `max_tokens` words (this server's tokens), and the finish reason a real server gives."""
    if not max_tokens or _count_tokens("".join(pieces)) <= max_tokens:
        return pieces, "stop"
    kept, words = [], 0
    for piece in pieces:
        n = _count_tokens(piece)
        if words + n > max_tokens:
            cut = [m.end() for m in re.finditer(r"\w+", piece)][: max_tokens - words]
            kept.append(piece[: cut[-1]] if cut else "")
            break
        kept.append(piece)
        words += n
    return [p for p in kept if p], "length"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, and chunked SSE like the real API
    timeout = 10  # idle keep-alive connections give up eventually
    server: _Server

    def log_message(self, *args):  # keep test output clean
        pass

    def _handle(self):
        fake, self._started = self.server.fake, False
        self._request_id = f"req_{next(fake._ids)}"
        try:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            with fake._lock:
                fake.requests.append(
                    {"method": self.command, "path": self.path, "json": body, "headers": {k.lower(): v for k, v in self.headers.items()}}
                )
            self._dispatch(fake, body)
        except _DISCONNECT:
            self.close_connection = True
            with fake._lock:
                fake.disconnects += 1
        except Exception as exc:  # report as a 500 and drop this connection; the server keeps serving
            self.close_connection = True
            with fake._lock:
                fake.errors.append(traceback.format_exc())
            if not self._started:
                try:
                    self._send(500, _error(f"Fake server error: {exc!r}", "server_error"), close=True)
                except _DISCONNECT:
                    pass

    do_GET = do_POST = _handle

    def _dispatch(self, fake: FakeOpenAI, body):
        fake._sleep(fake.delay_response)
        with fake._lock:
            failure = fake._failures.popleft() if fake._failures else None
        if failure:
            return self._send(*failure)
        if fake.api_key is not None:
            auth = self.headers.get("Authorization", "")
            if not auth.startswith("Bearer ") or not auth[7:].strip():
                return self._send(
                    401, _error("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.")
                )
            if auth[7:] != fake.api_key:
                return self._send(401, _error(f"Incorrect API key provided: {auth[7:]}.", code="invalid_api_key"))
        path = self.path.split("?")[0].rstrip("/")
        if (self.command, path) == ("GET", "/v1/models"):
            meta = {"meta": {"n_ctx_train": fake.embed_window}} if fake.embed_window else {}  # as llama.cpp reports it
            if fake.kind == "vllm":
                meta = {"max_model_len": fake.context_tokens}
            return self._send(
                200,
                {"object": "list", "data": [{"id": m, "object": "model", "created": 1700000000, "owned_by": "fake", **meta} for m in fake.models]},
            )
        local = self._local_endpoint(fake, path, body)
        if local is not None:
            return local
        handler = {"/v1/chat/completions": self._chat, "/v1/embeddings": self._embeddings}.get(path)
        if self.command != "POST" or handler is None:
            return self._send(404, _error(f"Invalid URL ({self.command} {self.path})"))
        if not isinstance(body, dict):
            return self._send(400, _error("We could not parse the JSON body of your request."))
        if body.get("model") not in fake.models:
            return self._send(404, _error(f"The model `{body.get('model')}` does not exist", code="model_not_found"))
        handler(fake, body)

    def _local_endpoint(self, fake: FakeOpenAI, path: str, body):
        """The endpoints of the local server `fake.kind` imitates; None for a path it does not have."""
        if fake.kind == "ollama":
            if path == "/api/version":
                return self._send(200, {"version": "0.6.5"})
            if path == "/api/tags":
                return self._send(200, {"models": [{"name": m, "model": m, "size": 1, "details": {"family": "qwen2"}} for m in fake.models]})
            if path == "/api/show":
                if not isinstance(body, dict) or body.get("model") not in fake.models:
                    return self._send(404, {"error": f"model '{(body or {}).get('model')}' not found"})
                parameters = f"num_ctx {fake.model_num_ctx}\nstop <|im_end|>" if fake.model_num_ctx else "stop <|im_end|>"
                return self._send(200, {"parameters": parameters, "model_info": {"qwen2.context_length": fake.trained_context}})
            if path == "/api/chat":
                return self._ollama_chat(fake, body)
        if fake.kind == "llama.cpp" and path == "/props":
            return self._send(200, {"default_generation_settings": {"n_ctx": fake.context_tokens}, "total_slots": 1})
        return None

    def _window(self, fake: FakeOpenAI, body: dict, num_ctx: int | None = None) -> int | None:
        """The window this request runs with: Ollama takes the request's num_ctx, else the model's, else its default."""
        if fake.kind == "ollama":
            return num_ctx or fake.model_num_ctx or fake.context_tokens
        return fake.context_tokens if fake.kind else None

    def _fits(self, fake: FakeOpenAI, body: dict, window: int | None) -> bool:
        """Whether the prompt fits `window`; an Ollama that it does not fit drops the prompt's start, silently."""
        if window is None:
            return True
        prompt = _count_tokens(body.get("messages", ""))
        if prompt + int(body.get("max_tokens") or (body.get("options") or {}).get("num_predict") or 0) <= window:
            return True
        if fake.kind == "ollama":
            with fake._lock:
                fake.truncated_prompts += 1
            kept = _words(json.dumps(body.get("messages", ""), ensure_ascii=False))[-window:]
            body["messages"] = [{"role": "user", "content": " ".join(kept)}]  # the rules and first sources are gone
            return True
        if fake.kind == "llama.cpp":
            self._send(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": f"the request exceeds the available context size ({window} tokens), try increasing it",
                        "type": "exceed_context_size_error",
                        "n_prompt_tokens": prompt,
                        "n_ctx": window,
                    }
                },
            )
        else:
            self._send(
                400,
                _error(
                    f"This model's maximum context length is {window} tokens. However, you requested {prompt} tokens.", code="context_length_exceeded"
                ),
            )
        return False

    def _ollama_chat(self, fake: FakeOpenAI, body):
        if not isinstance(body, dict) or body.get("model") not in fake.models:
            return self._send(404, {"error": f"model '{(body or {}).get('model')}' not found, try pulling it first"})
        options = body.get("options") or {}
        self._fits(fake, body, self._window(fake, body, options.get("num_ctx")))
        pieces, finish = _limit(fake._next_reply(body), options.get("num_predict"))
        if not body.get("stream", True):
            text = "".join(pieces)
            return self._send(200, {"model": body["model"], "message": {"role": "assistant", "content": text}, "done": True, "done_reason": finish})
        self._started = True
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, piece in enumerate(pieces):
            fake._sleep(fake.delay_first_token if i == 0 else fake.delay_per_chunk)
            line = {"model": body["model"], "message": {"role": "assistant", "content": piece}, "done": False}
            self._write_chunk((json.dumps(line) + "\n").encode())
        done = {"model": body["model"], "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": finish,
                "prompt_eval_count": _count_tokens(body.get("messages", "")), "eval_count": _count_tokens("".join(pieces))}  # fmt: skip
        self._write_chunk((json.dumps(done) + "\n").encode())
        self._write_chunk(b"")

    def _chat(self, fake: FakeOpenAI, body: dict):
        if not self._fits(fake, body, self._window(fake, body)):
            return
        pieces, finish = _limit(fake._next_reply(body), body.get("max_tokens"))
        text, model = "".join(pieces), body["model"]
        cid, created = f"chatcmpl-{next(fake._ids)}", int(time.time())
        prompt, completion = _count_tokens(body.get("messages", "")), _count_tokens(text)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        if not body.get("stream"):
            return self._send(
                200,
                {
                    "id": cid,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text, "refusal": None}, "logprobs": None, "finish_reason": finish}
                    ],
                    "usage": usage,
                    "system_fingerprint": None,
                },
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def chunk(choices, **extra):
            c = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "system_fingerprint": None, "choices": choices}
            return {**c, "usage": None, **extra} if include_usage else c

        def choice(delta, finish=None):
            return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]

        self._start_sse()
        self._sse(chunk(choice({"role": "assistant"})))
        for i, piece in enumerate(pieces):
            fake._sleep(fake.delay_first_token if i == 0 else fake.delay_per_chunk)
            self._sse(chunk(choice({"content": piece})))
        self._sse(chunk(choice({}, finish)))
        if include_usage:
            self._sse(chunk([], usage=usage))
        self._sse("[DONE]")
        self._write_chunk(b"")  # zero-length chunk ends the chunked body

    def _embeddings(self, fake: FakeOpenAI, body: dict):
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else inputs
        if not isinstance(inputs, list) or not inputs or not all(isinstance(t, str) and t for t in inputs):
            return self._send(
                400, _error("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", param="input")
            )
        too_long = [t for t in inputs if fake.embed_window and _count_tokens(t) > fake.embed_window]
        if too_long:  # llama.cpp refuses; other servers cut silently, which is worse
            return self._send(
                500,
                _error(
                    f"input is too large to process. increase the physical batch size ({_count_tokens(too_long[0])} > {fake.embed_window})",
                    type_="server_error",
                ),
            )
        dim = int(body.get("dimensions") or fake.embedding_dim)
        as_b64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = embed_text(text, dim)
            emb = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode("ascii") if as_b64 else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(_count_tokens(t) for t in inputs)
        self._send(200, {"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    # -- wire helpers -------------------------------------------------------
    def _send(self, status: int, payload, close: bool = False):
        is_raw = isinstance(payload, (str, bytes))
        data = payload.encode() if isinstance(payload, str) else payload if is_raw else json.dumps(payload).encode()
        self._started = True
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8" if is_raw else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", self._request_id)
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _start_sse(self):
        self._started = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-request-id", self._request_id)
        self.end_headers()

    def _sse(self, payload):
        data = payload if isinstance(payload, str) else json.dumps(payload)
        self._write_chunk(f"data: {data}\n\n".encode())

    def _write_chunk(self, data: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeOpenAI):
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request, client_address):  # quiet about clients hanging up
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class FakeOpenAI:
    """A local OpenAI-compatible server; use as a context manager (or start()/stop())."""

    def __init__(
        self,
        models=("fake-chat", "fake-embed"),
        *,
        api_key: str | None = None,
        embedding_dim: int = 16,
        chunk_size: int = 4,
        default_reply: str = DEFAULT_REPLY,
    ):
        self.models, self.api_key = list(models), api_key
        self.embedding_dim, self.chunk_size, self.default_reply = embedding_dim, chunk_size, default_reply
        self.embed_window: int | None = None  # set: /v1/models reports it, and longer embedding inputs are refused
        self.kind: str | None = None  # "ollama", "llama.cpp" or "vllm": behave like that server (see the module docstring)
        self.context_tokens = 4096  # the window a `kind` server runs models with (Ollama: its default num_ctx)
        self.model_num_ctx: int | None = None  # Ollama: the num_ctx a model's Modelfile sets
        self.trained_context = 32768  # Ollama: the model's own context length
        self.truncated_prompts = 0  # Ollama requests whose prompt lost its start
        self.chat_handler = None  # callable(request_json) -> str | list[str], used when the script is empty
        self.delay_response = self.delay_first_token = self.delay_per_chunk = 0.0
        self.requests: list[dict] = []  # {"method", "path", "headers" (lowercased), "json"}
        self.errors: list[str] = []  # tracebacks of unexpected handler exceptions
        self.disconnects = 0  # clients that hung up mid-response
        self._script: deque = deque()
        self._failures: deque = deque()
        self._lock, self._stopping, self._ids = threading.Lock(), threading.Event(), itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeOpenAI:
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="FakeOpenAI", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._stopping.set()  # wakes handlers sleeping in a scripted delay
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None

    __enter__ = start

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script_chat(self, *replies) -> None:
        """Queue the next chat replies (FIFO). A str is split into `chunk_size` pieces
        when streamed; a list of str gives the exact streamed deltas."""
        with self._lock:
            self._script.extend(replies)

    def fail_next(self, status: int = 500, body=None, times: int = 1) -> None:
        """The next `times` requests get `status` with `body` (dict -> JSON, str/bytes raw)."""
        if body is None:
            body = _error(
                "The server had an error while processing your request. Sorry about that!" if status >= 500 else f"Injected HTTP {status} error",
                "server_error" if status >= 500 else "invalid_request_error",
            )
        with self._lock:
            self._failures.extend([(status, body)] * times)

    def embed(self, text: str) -> list[float]:
        """The vector the server returns for `text` at the default dimension."""
        return embed_text(text, self.embedding_dim)

    def _next_reply(self, body: dict) -> list[str]:
        with self._lock:
            reply = self._script.popleft() if self._script else None
        if reply is None:
            reply = self.chat_handler(body) if self.chat_handler else self.default_reply
        if isinstance(reply, str):
            n = max(1, self.chunk_size)
            return [reply[i : i + n] for i in range(0, len(reply), n)]
        return list(reply)

    def _sleep(self, seconds: float) -> None:
        if seconds:
            self._stopping.wait(seconds)
