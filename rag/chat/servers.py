"""Chat model servers on this machine, found rather than typed: which OpenAI-compatible servers listen on the local
ports of the kinds in the table (rag/chat/kinds.py), the models each serves, and the context window each model really
runs with — the one number a prompt must fit, or the server cuts its start. Also what a server said of one model,
kept WINDOW_TTL (`served`), so that a client is sized to it.

Only loopback ports are probed, each with a short connect timeout, and the endpoint the settings name; the API key
goes to that endpoint's model list only, never to a probed port (rag/endpoints.py). A server's own endpoints say the
window (each kind's way: kinds.py); failing those, an error message that names it ("maximum context length is 4096
tokens"). A window is believed only inside the range a configured `chat_context_tokens` may take.

What a server says is untrusted. Each reply is read within a wall-clock deadline and up to a byte bound
(rag/chat/probe.py); a list is cut to MAX_MODELS and the windows of kinds.MAX_DETAILED asked; every server is asked
on its own, and one whose reply cannot be read is noted as such while the others are listed.
"""

from __future__ import annotations

import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from rag.chat import kinds
from rag.chat.probe import TooSlow, Unreadable, is_loopback, request_json, root_of
from rag.endpoints import same_endpoint
from rag.printable import printable

log = logging.getLogger(__name__)

LOCAL_PORTS = kinds.local_ports()  # (port, kind name), knocked on in this order
PROBE_TIMEOUT = 0.5  # seconds per local port: a closed port refuses at once, a listening server answers in ms
ASK_TIMEOUT = 3.0  # seconds for a server's own description of a model
# Wall-clock deadlines: a socket timeout restarts with every byte, and a server can send one byte a second for days.
SERVER_SECONDS = 5.0  # all of one server's description: its list, its kind, its models' windows
DISCOVERY_SECONDS = 6.0  # a whole discovery: every server is asked at once, each on its own
MAX_MODELS = 500  # models kept of one server's list
SHOWN_NAME_CHARS = 80  # of a model's name in a list a person reads
WINDOW_TTL = 300.0  # seconds a server's answer about a model's window is kept
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
    kind: str  # a kind's name (kinds.KINDS); "" when it could not be read
    base_url: str  # the OpenAI-compatible address, ending in /v1
    models: tuple[ServerModel, ...]
    note: str = ""  # why it lists no models: UNREADABLE, or that it did not answer in time

    def model(self, model_id: str) -> ServerModel | None:
        return next((m for m in self.models if m.id == model_id), None)


_windows: dict[tuple[str, str], tuple[float, ServerModel | None, str | None]] = {}  # served(): (when, model, kind)


def shown_name(model_id: str) -> str:
    """A model's name as a list shows it: control characters out (rag.printable), at most SHOWN_NAME_CHARS."""
    head = printable(model_id[: SHOWN_NAME_CHARS * 4])  # a bounded head: a name may be a megabyte
    if len(head) <= SHOWN_NAME_CHARS and len(model_id) <= SHOWN_NAME_CHARS * 4:
        return head
    return head[: SHOWN_NAME_CHARS - 1] + "…"


def find_servers(ports=None, *, configured: str | None = None, api_key: str | None = None, timeout: float = PROBE_TIMEOUT) -> list[ModelServer]:
    """The servers answering on this machine's usual ports (`LOCAL_PORTS`, from the kinds' table) and at `configured` (the endpoint the
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
        listed = request_json(base_url + "/models", api_key=api_key, timeout=timeout, until=until)
        if not isinstance(listed, dict) or not isinstance(listed.get("data"), list):
            return None
        data = [m for m in listed["data"] if isinstance(m, dict) and isinstance(m.get("id"), str) and only in (None, m["id"])][:MAX_MODELS]
        kind, windows = _kind_and_windows(root_of(base_url), data, timeout, until)
    except TooSlow:
        return ModelServer("", base_url, (), note=_too_slow(SERVER_SECONDS))
    except (Unreadable, ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError):
        return ModelServer("", base_url, (), note=UNREADABLE)
    models = tuple(ServerModel(m["id"], *(windows.get(m["id"]) or (None, None))) for m in data)
    return ModelServer(kind, base_url, models)


def window_in_error(message: str) -> int | None:
    """The context window an error names ("This model's maximum context length is 4096 tokens", llama.cpp's "the
    request exceeds the available context size (2048 tokens)"), or None."""
    found = _WINDOW_IN_ERROR.search(message or "")
    return kinds.window(int(found.group(1))) if found else None


def served(base_url: str, model: str) -> tuple[ServerModel, str | None]:
    """What a local server says of `model` (its window) and what kind it is; asked once per WINDOW_TTL. Servers that
    are not on this machine are not asked (OpenAI's /models says no window)."""
    key = (base_url.rstrip("/"), model)
    cached = _windows.get(key)
    if cached is None or time.monotonic() - cached[0] > WINDOW_TTL:
        server = describe(base_url, only=model) if is_loopback(base_url) else None
        cached = (time.monotonic(), server.model(model) if server else None, server.kind if server else None)
        _windows[key] = cached
    return cached[1] or ServerModel(model), cached[2]


def note_window(base_url: str, model: str, window: int) -> None:
    """A server's error named the window it runs `model` with: the next question is sized to it at once."""
    _windows[(base_url.rstrip("/"), model)] = (time.monotonic(), ServerModel(model, window), None)


def _kind_and_windows(root: str, data: list[dict], timeout: float, until: float) -> tuple[str, kinds.Windows]:
    """The server's kind and, per model id, (window it runs the model with, trained length where it says): the kinds'
    signs tried in their order. Each of a server's own endpoints is asked while time is left (without a key: it is
    not the configured endpoint's address); one that fails says nothing, and the models' windows are then not known."""

    def ask(path: str, body: dict | None = None) -> dict:
        try:
            found = request_json(root + path, body=body, timeout=timeout, until=until)
        except (TooSlow, Unreadable):
            return {}
        return found if isinstance(found, dict) else {}

    return kinds.recognise(ask, data, until)


def _too_slow(seconds: float) -> str:
    return f"did not answer within {seconds:g} s"
