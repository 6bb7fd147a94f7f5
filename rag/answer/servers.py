"""Chat model servers on this machine, found rather than typed: which OpenAI-compatible servers listen on the usual
local ports (Ollama 11434, LM Studio 1234, llama.cpp and LocalAI 8080, vLLM 8000), the models each serves, and the
context window each model really runs with — the one number a prompt must fit, or the server cuts its start.

Only loopback ports are probed, each with a short connect timeout, and the endpoint the settings name; the API key
goes to that endpoint's model list only, never to a probed port (rag/endpoints.py). A server's own endpoints say the
window: Ollama's `/api/show` (`num_ctx` when the model sets one, else the model's trained length, and the server's
default applies unless the client asks: see `OllamaChat`), llama.cpp's `/props` (`n_ctx`), vLLM's `max_model_len` in
`/v1/models`, LM Studio's `/api/v0/models` (the loaded context length), llama-cpp-python's `/v1/models` metadata;
failing those, an error message that names it ("maximum context length is 4096 tokens"). A window is believed only
inside the range a configured `chat_context_tokens` may take.

What a server says is untrusted. Each reply is read within a wall-clock deadline (a server may send a byte a second,
which no socket timeout catches) and up to MAX_REPLY_BYTES; a list is cut to MAX_MODELS and the windows of
MAX_DETAILED asked; every server is asked on its own, and one whose reply cannot be read is noted as such while the
others are listed.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import socket
import ssl
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from urllib.parse import urlsplit

from rag.config import allowed_range
from rag.endpoints import same_endpoint
from rag.printable import printable

log = logging.getLogger(__name__)

LOCAL_PORTS = ((11434, "Ollama"), (1234, "LM Studio"), (8080, "llama.cpp"), (8000, "vLLM"))
PROBE_TIMEOUT = 0.5  # seconds per local port: a closed port refuses at once, a listening server answers in ms
ASK_TIMEOUT = 3.0  # seconds for a server's own description of a model
# Wall-clock deadlines: a socket timeout restarts with every byte, and a server can send one byte a second for days.
SERVER_SECONDS = 5.0  # all of one server's description: its list, its kind, its models' windows
DISCOVERY_SECONDS = 6.0  # a whole discovery: every server is asked at once, each on its own
MAX_REPLY_BYTES = 2_000_000  # one reply of a server about itself (a list of 3,000 models is ~1 MB)
MAX_MODELS = 500  # models kept of one server's list
MAX_DETAILED = 40  # models whose window is asked one request each (Ollama's /api/show); the rest: window not said
SHOWN_NAME_CHARS = 80  # of a model's name in a list a person reads
OLLAMA_DEFAULT_CTX = 4096  # what Ollama runs a model with when neither the model nor the request sets num_ctx
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})  # urlsplit gives "::1" for "[::1]"
UNREADABLE = "unreadable reply"
_WINDOW_IN_ERROR = re.compile(
    r"(?:maximum context length is|context (?:length|window|size)(?: of| is)?|n_ctx(?:_slot)?\s*[=:]?|exceeds? (?:the )?(?:available )?context size of)\s*\(?(\d{3,7})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ServerModel:
    id: str
    context_tokens: int | None = None  # the window the server runs it with, when it says
    trained_tokens: int | None = None  # Ollama: the model's own context length (a request may ask up to it)


@dataclass(frozen=True)
class ModelServer:
    kind: str  # "Ollama", "LM Studio", "llama.cpp", "vLLM" or "OpenAI-compatible"; "" when it could not be read
    base_url: str  # the OpenAI-compatible address, ending in /v1
    models: tuple[ServerModel, ...]
    note: str = ""  # why it lists no models: UNREADABLE, or that it did not answer in time

    def model(self, model_id: str) -> ServerModel | None:
        return next((m for m in self.models if m.id == model_id), None)


class _TooSlow(Exception):
    """The deadline passed before the server finished its reply."""


class _Unreadable(Exception):
    """The server's reply is too long, or JSON nested deeper than can be read."""


def is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOOPBACK


def shown_name(model_id: str) -> str:
    """A model's name as a list shows it: control characters out (rag.printable), at most SHOWN_NAME_CHARS."""
    head = printable(model_id[: SHOWN_NAME_CHARS * 4])  # a bounded head: a name may be a megabyte
    if len(head) <= SHOWN_NAME_CHARS and len(model_id) <= SHOWN_NAME_CHARS * 4:
        return head
    return head[: SHOWN_NAME_CHARS - 1] + "…"


def find_servers(ports=None, *, configured: str | None = None, api_key: str | None = None, timeout: float = PROBE_TIMEOUT) -> list[ModelServer]:
    """The servers answering on this machine's usual ports (`LOCAL_PORTS`) and at `configured` (the endpoint the
    settings name), each with its models and their windows. Only `configured` is sent `api_key`. Every server is asked
    at once and on its own, within DISCOVERY_SECONDS in all: one that is slow or unreadable is noted, never the end
    of the others."""
    asks = [(f"http://127.0.0.1:{port}/v1", None, timeout) for port, _ in ports or LOCAL_PORTS]
    if configured:
        same = next((i for i, (url, _, _) in enumerate(asks) if same_endpoint(url, configured)), None)
        if same is None:
            asks.append((configured.rstrip("/"), api_key, ASK_TIMEOUT))
        else:
            asks[same] = (asks[same][0], api_key, timeout)
    until = time.monotonic() + DISCOVERY_SECONDS
    pool = ThreadPoolExecutor(max_workers=len(asks) or 1)
    futures = [pool.submit(describe, url, api_key=key, timeout=seconds, until=until) for url, key, seconds in asks]
    wait(futures, timeout=DISCOVERY_SECONDS + 1)  # each request is cut at `until`; a name lookup is not
    pool.shutdown(wait=False, cancel_futures=True)
    found = []
    for (url, _, _), future in zip(asks, futures):
        if not future.done():
            found.append(ModelServer("", url, (), note=_too_slow(DISCOVERY_SECONDS)))
        elif future.exception() is not None:  # a bug in reading one server must not hide the others
            log.warning("Reading the model server at %s failed.", url, exc_info=future.exception())
            found.append(ModelServer("", url, (), note=UNREADABLE))
        elif future.result() is not None:
            found.append(future.result())
    return found


def describe(
    base_url: str, *, api_key: str | None = None, timeout: float = ASK_TIMEOUT, only: str | None = None, until: float | None = None
) -> ModelServer | None:
    """What the server at `base_url` is and serves (`only`: that one model), or None when nothing OpenAI-compatible
    answers there; within SERVER_SECONDS (and by `until`, a time.monotonic() deadline, when given). A server whose
    reply cannot be read, or comes too slowly, is one with no models and a `note` that says so."""
    until = min(until or float("inf"), time.monotonic() + SERVER_SECONDS)
    base_url = base_url.rstrip("/")
    try:
        listed = _request(base_url + "/models", api_key=api_key, timeout=timeout, until=until)
        if not isinstance(listed, dict) or not isinstance(listed.get("data"), list):
            return None
        data = [m for m in listed["data"] if isinstance(m, dict) and isinstance(m.get("id"), str) and only in (None, m["id"])][:MAX_MODELS]
        kind, windows = _kind_and_windows(root_of(base_url), data, timeout, until)
    except _TooSlow:
        return ModelServer("", base_url, (), note=_too_slow(SERVER_SECONDS))
    except (_Unreadable, ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError):
        return ModelServer("", base_url, (), note=UNREADABLE)
    models = tuple(ServerModel(m["id"], *(windows.get(m["id"]) or (None, None))) for m in data)
    return ModelServer(kind, base_url, models)


def window_in_error(message: str) -> int | None:
    """The context window an error names ("This model's maximum context length is 4096 tokens", llama.cpp's "the
    request exceeds the available context size (2048 tokens)"), or None."""
    found = _WINDOW_IN_ERROR.search(message or "")
    return _window(int(found.group(1))) if found else None


def ollama_window(shown: dict) -> tuple[int | None, int | None]:
    """(num_ctx the model sets, the context length it was trained for) from Ollama's `/api/show`."""
    parameters = shown.get("parameters")
    # [ \t], not \s: `^\s*` runs over line ends, and a megabyte of empty lines took hours
    set_ctx = re.search(r"(?m)^[ \t]*num_ctx[ \t]+(\d{1,9})\b", parameters) if isinstance(parameters, str) else None
    info = _object(shown.get("model_info"))
    trained = next((_window(v) for k, v in info.items() if isinstance(k, str) and k.endswith(".context_length") and _window(v)), None)
    return (_window(int(set_ctx.group(1))) if set_ctx else None), trained


# --- per kind ---------------------------------------------------------------------------------------------------


def _kind_and_windows(root: str, data: list[dict], timeout: float, until: float) -> tuple[str, dict[str, tuple]]:
    """The server's kind and, per model id, (window it runs the model with, trained length where it says). Each of a
    server's own endpoints is asked while time is left (without a key: it is not the configured endpoint's address);
    one that fails says nothing, and the models' windows are then not known."""

    def ask(path: str, body: dict | None = None) -> dict:
        try:
            return _object(_request(root + path, body=body, timeout=timeout, until=until))
        except (_TooSlow, _Unreadable):
            return {}

    if "version" in ask("/api/version"):
        windows = {}
        for m in data[:MAX_DETAILED]:
            if time.monotonic() >= until:
                break
            set_ctx, trained = ollama_window(ask("/api/show", {"model": m["id"]}))
            windows[m["id"]] = (set_ctx or OLLAMA_DEFAULT_CTX, trained)  # what a plain OpenAI-endpoint request gets
        return "Ollama", windows
    vllm = {m["id"]: (_window(m.get("max_model_len")), None) for m in data if _window(m.get("max_model_len"))}
    if vllm:
        return "vLLM", vllm
    meta = {m["id"]: (_window(_object(m.get("meta")).get("n_ctx")), None) for m in data if _window(_object(m.get("meta")).get("n_ctx"))}
    props = ask("/props")
    if "default_generation_settings" in props or "n_ctx" in props:
        n_ctx = _window(props.get("n_ctx")) or _window(_object(props.get("default_generation_settings")).get("n_ctx"))
        return "llama.cpp", {m["id"]: (n_ctx, None) for m in data} if n_ctx else meta
    studio = ask("/api/v0/models").get("data")
    if isinstance(studio, list):
        windows = {}
        for m in map(_object, studio):
            loaded, most = _window(m.get("loaded_context_length")), _window(m.get("max_context_length"))
            if isinstance(m.get("id"), str) and (loaded or most):
                windows[m["id"]] = (loaded or most, most)
        return "LM Studio", windows
    return "OpenAI-compatible", meta


def _window(value) -> int | None:
    """`value` if a model can have it as its context window (a whole number in the range of `chat_context_tokens`),
    else None: a server that says -5 has said nothing, rather than have every question "too long" for it."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    low, high = allowed_range("chat_context_tokens")
    if low <= value <= high:
        return value
    log.info("A chat server stated a context window of %r tokens; not used (a window is %s to %s tokens).", value, f"{low:,}", f"{high:,}")
    return None


def _object(value) -> dict:
    return value if isinstance(value, dict) else {}


def _too_slow(seconds: float) -> str:
    return f"did not answer within {seconds:g} s"


# --- HTTP ---------------------------------------------------------------------------------------------------------


def root_of(base_url: str) -> str:
    """The server's own address: `http://127.0.0.1:11434/v1` → `http://127.0.0.1:11434`."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _request(url: str, *, api_key: str | None = None, body: dict | None = None, timeout: float, until: float):
    """Parsed JSON from `url` (a POST of `body` if given), or None when nothing (or no JSON) answers there. Raises
    _TooSlow once `until` passes — the connection is then closed under the read, however slowly the server sends —
    and _Unreadable for a reply over MAX_REPLY_BYTES or nested past what can be parsed. Talks to the address itself:
    no proxy, no redirect followed."""
    remaining = until - time.monotonic()
    if remaining <= 0:
        raise _TooSlow
    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number
        return None
    if not host:
        return None
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=min(timeout, remaining), context=ssl.create_default_context())
    elif parts.scheme == "http":
        connection = http.client.HTTPConnection(host, port, timeout=min(timeout, remaining))
    else:
        return None
    hung_up, held = threading.Event(), []
    cut = threading.Timer(remaining, _hang_up, (held, hung_up))
    cut.daemon = True
    cut.start()
    try:
        connection.connect()
        held.append(connection.sock)  # the connection lets go of it once a reply says it will close
        if hung_up.is_set():
            _hang_up(held, hung_up)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        connection.request(
            "POST" if data else "GET", parts.path + (f"?{parts.query}" if parts.query else ""), body=data, headers={**headers, **_headers(api_key)}
        )
        with connection.getresponse() as response:
            reply = response.read(MAX_REPLY_BYTES + 1) if response.status == 200 else b""
    except (OSError, http.client.HTTPException, ValueError):
        reply = None
    finally:
        cut.cancel()
        connection.close()
    if hung_up.is_set():
        raise _TooSlow
    if not reply:
        return None
    if len(reply) > MAX_REPLY_BYTES:
        raise _Unreadable
    try:
        return json.loads(reply)
    except RecursionError:
        raise _Unreadable from None
    except ValueError:
        return None


def _hang_up(held: list[socket.socket], hung_up: threading.Event) -> None:
    """The deadline: a read blocked on the connection's socket returns at once."""
    hung_up.set()
    for sock in held:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # closed meanwhile
            pass


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a local server has no business sending us to another address
        return None


OPENER = urllib.request.build_opener(_NoRedirect, urllib.request.ProxyHandler({}))  # Ollama's chat: no proxy for loopback
