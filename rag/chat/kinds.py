"""The kinds of chat model server this program knows, in one table (`KINDS`): each kind's name, the loopback port it
listens on by default, the sign that tells it apart, how its models' context windows are read, and the client that
speaks to it. Discovery (servers.py) knocks on these ports and tries these signs; `rag models`, the app's help and
the README's list of ports are read from (or checked against) the table. A new kind is one row here.

A kind's reader gets `ask(path, body=None)`, the server's JSON object at one of its own endpoints ({} when it says
nothing, or too slowly), the models its `/v1/models` listed, and the deadline; it returns the windows per model id,
or None when the server is not of its kind. What a server says is untrusted: a window is believed only inside the
range a configured `chat_context_tokens` may take (`window`). Knows nothing of HTTP.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Callable

from rag.chat.ollama_chat import OllamaChat
from rag.config import allowed_range

log = logging.getLogger(__name__)

Ask = Callable[..., dict]  # ask(path, body=None) → the JSON object the server's own endpoint `path` replies
# Per model id: (the window the server runs it with, the length it was trained for where the server says)
Windows = dict[str, tuple[int | None, int | None]]
MAX_DETAILED = 40  # models whose window is asked one request each (Ollama's /api/show); the rest: window not said
OLLAMA_DEFAULT_CTX = 4096  # what Ollama runs a model with when neither the model nor the request sets num_ctx


@dataclass(frozen=True)
class Kind:
    name: str  # as `rag models` and the app show it, and `ModelServer.kind`
    port: int | None  # the loopback port it listens on by default; None: not knocked on (found only when configured)
    sign: str  # what tells it apart, in words
    windows: Callable[[Ask, list[dict], float], Windows | None]  # its models' windows; None: the server is not this kind
    also: tuple[str, ...] = ()  # other servers usually on the same port (named where the ports are listed)
    native_chat: type | None = None  # its own chat client, made with (settings, trained=…); None: the /v1 endpoint


def window(value) -> int | None:
    """`value` if a model can have it as its context window (a whole number in the range of `chat_context_tokens`),
    else None: a server that says -5 has said nothing, rather than have every question "too long" for it."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    low, high = allowed_range("chat_context_tokens")
    if low <= value <= high:
        return value
    log.info("A chat server stated a context window of %r tokens; not used (a window is %s to %s tokens).", value, f"{low:,}", f"{high:,}")
    return None


def ollama_window(shown: dict) -> tuple[int | None, int | None]:
    """(num_ctx the model sets, the context length it was trained for) from Ollama's `/api/show`."""
    parameters = shown.get("parameters")
    # [ \t], not \s: `^\s*` runs over line ends, and a megabyte of empty lines took hours
    set_ctx = re.search(r"(?m)^[ \t]*num_ctx[ \t]+(\d{1,9})\b", parameters) if isinstance(parameters, str) else None
    info = _object(shown.get("model_info"))
    trained = next((window(v) for k, v in info.items() if isinstance(k, str) and k.endswith(".context_length") and window(v)), None)
    return (window(int(set_ctx.group(1))) if set_ctx else None), trained


def _ollama(ask: Ask, data: list[dict], until: float) -> Windows | None:
    if "version" not in ask("/api/version"):
        return None
    windows = {}
    for m in data[:MAX_DETAILED]:
        if time.monotonic() >= until:
            break
        set_ctx, trained = ollama_window(ask("/api/show", {"model": m["id"]}))
        windows[m["id"]] = (set_ctx or OLLAMA_DEFAULT_CTX, trained)  # what a plain OpenAI-endpoint request gets
    return windows


def _vllm(ask: Ask, data: list[dict], until: float) -> Windows | None:
    return {m["id"]: (window(m.get("max_model_len")), None) for m in data if window(m.get("max_model_len"))} or None


def _llama_cpp(ask: Ask, data: list[dict], until: float) -> Windows | None:
    props = ask("/props")
    if "default_generation_settings" not in props and "n_ctx" not in props:
        return None
    n_ctx = window(props.get("n_ctx")) or window(_object(props.get("default_generation_settings")).get("n_ctx"))
    return {m["id"]: (n_ctx, None) for m in data} if n_ctx else _meta(data)


def _lm_studio(ask: Ask, data: list[dict], until: float) -> Windows | None:
    studio = ask("/api/v0/models").get("data")
    if not isinstance(studio, list):
        return None
    windows = {}
    for m in map(_object, studio):
        loaded, most = window(m.get("loaded_context_length")), window(m.get("max_context_length"))
        if isinstance(m.get("id"), str) and (loaded or most):
            windows[m["id"]] = (loaded or most, most)
    return windows


def _any(ask: Ask, data: list[dict], until: float) -> Windows:
    return _meta(data)


def _meta(data: list[dict]) -> Windows:
    """llama-cpp-python's windows: `meta.n_ctx` of each model in `/v1/models`."""
    return {m["id"]: (window(_object(m.get("meta")).get("n_ctx")), None) for m in data if window(_object(m.get("meta")).get("n_ctx"))}


def _object(value) -> dict:
    return value if isinstance(value, dict) else {}


OLLAMA = Kind("Ollama", 11434, "its /api/version answers; windows from /api/show", _ollama, native_chat=OllamaChat)
LM_STUDIO = Kind("LM Studio", 1234, "its /api/v0/models lists models; the loaded context length", _lm_studio)
LLAMA_CPP = Kind("llama.cpp", 8080, "its /props answers; n_ctx", _llama_cpp, also=("LocalAI",))
VLLM = Kind("vLLM", 8000, "its /v1/models says max_model_len", _vllm)
OPENAI_COMPATIBLE = Kind("OpenAI-compatible", None, "any other /v1/models; llama-cpp-python's meta.n_ctx", _any)

# The table, in the order the local ports are knocked on and servers listed.
KINDS = (OLLAMA, LM_STUDIO, LLAMA_CPP, VLLM, OPENAI_COMPATIBLE)
# The order the signs are tried: Ollama's own endpoint first (it serves /v1 too), then vLLM's, which is in the model
# list already (no request), llama.cpp's /props, LM Studio's /api/v0; any other server last (it always matches).
RECOGNITION = (OLLAMA, VLLM, LLAMA_CPP, LM_STUDIO, OPENAI_COMPATIBLE)


def local_ports() -> tuple[tuple[int, str], ...]:
    """(port, kind name) of each kind with a default port, in the table's order."""
    return tuple((k.port, k.name) for k in KINDS if k.port is not None)


def named(name: str | None) -> Kind | None:
    return next((k for k in KINDS if k.name == name), None)


def listed(shape: str = "{names} ({port})") -> str:
    """The kinds with a port for a person to read, each in `shape`: "Ollama (11434), …, llama.cpp/LocalAI (8080), …"."""
    return ", ".join(shape.format(names="/".join((k.name, *k.also)), port=k.port) for k in KINDS if k.port is not None)


def recognise(ask: Ask, data: list[dict], until: float) -> tuple[str, Windows]:
    """The server's kind (its name) and its models' windows: the first kind in RECOGNITION whose sign it shows."""
    for kind in RECOGNITION:
        windows = kind.windows(ask, data, until)
        if windows is not None:
            return kind.name, windows
    raise AssertionError("OPENAI_COMPATIBLE recognises every server")  # pragma: no cover
