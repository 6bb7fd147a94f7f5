"""Chat model servers on this machine, found rather than typed: which OpenAI-compatible servers listen on the usual
local ports (Ollama 11434, LM Studio 1234, llama.cpp and LocalAI 8080, vLLM 8000), the models each serves, and the
context window each model really runs with — the one number a prompt must fit, or the server cuts its start.

Only loopback addresses are probed, each with a short connect timeout; nothing is sent anywhere else. A server's own
endpoints say the window: Ollama's `/api/show` (`num_ctx` when the model sets one, else the model's trained length,
and the server's default applies unless the client asks: see `OllamaChat`), llama.cpp's `/props` (`n_ctx`), vLLM's
`max_model_len` in `/v1/models`, LM Studio's `/api/v0/models` (the loaded context length), llama-cpp-python's
`/v1/models` metadata; failing those, an error message that names it ("maximum context length is 4096 tokens").
A window is believed only inside the range a configured `chat_context_tokens` may take: a server that says -5 has
said nothing (and the log says so), rather than have every question "too long" for it.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

from rag.config import allowed_range, check_setting
from rag.errors import ConfigError

log = logging.getLogger(__name__)

LOCAL_PORTS = ((11434, "Ollama"), (1234, "LM Studio"), (8080, "llama.cpp"), (8000, "vLLM"))
PROBE_TIMEOUT = 0.5  # seconds per local port: a closed port refuses at once, a listening server answers in ms
ASK_TIMEOUT = 3.0  # seconds for a server's own description of a model
OLLAMA_DEFAULT_CTX = 4096  # what Ollama runs a model with when neither the model nor the request sets num_ctx
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})  # urlsplit gives "::1" for "[::1]"
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
    kind: str  # "Ollama", "LM Studio", "llama.cpp", "vLLM" or "OpenAI-compatible"
    base_url: str  # the OpenAI-compatible address, ending in /v1
    models: tuple[ServerModel, ...]

    def model(self, model_id: str) -> ServerModel | None:
        return next((m for m in self.models if m.id == model_id), None)


def is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOOPBACK


def find_servers(ports=None, *, timeout: float = PROBE_TIMEOUT) -> list[ModelServer]:
    """The servers answering on this machine's usual ports (`LOCAL_PORTS`), each with its models and their windows."""
    urls = [f"http://127.0.0.1:{port}/v1" for port, _ in ports or LOCAL_PORTS]
    with ThreadPoolExecutor(max_workers=len(urls) or 1) as pool:
        found = list(pool.map(lambda url: describe(url, timeout=timeout), urls))
    return [server for server in found if server is not None]


def describe(base_url: str, *, api_key: str | None = None, timeout: float = ASK_TIMEOUT, only: str | None = None) -> ModelServer | None:
    """What the server at `base_url` is and serves (`only`: that one model), or None when nothing OpenAI-compatible
    answers there."""
    listed = _get(base_url.rstrip("/") + "/models", api_key, timeout)
    if not isinstance(listed, dict) or not isinstance(listed.get("data"), list):
        return None
    root = root_of(base_url)
    data = [m for m in listed["data"] if isinstance(m, dict) and isinstance(m.get("id"), str) and only in (None, m["id"])]
    kind, windows = _kind_and_windows(root, data, api_key, timeout)
    models = tuple(
        ServerModel(m["id"], *(_believed(w, f"{kind} at {base_url}", m["id"]) for w in windows.get(m["id"]) or (None, None))) for m in data
    )
    return ModelServer(kind, base_url.rstrip("/"), models)


def _believed(window, server: str, model: str) -> int | None:
    """A window a server states, if a model can have it (the range of `chat_context_tokens`); else None, logged."""
    if window is None:
        return None
    try:
        return check_setting("chat_context_tokens", window)
    except ConfigError:
        low, high = allowed_range("chat_context_tokens")
        log.warning(
            "%s says %s runs with a window of %r tokens; not used (a window is %s to %s tokens). "
            "Set chat_context_tokens in rag.toml to the model's real window.",
            server, model, window, f"{low:,}", f"{high:,}",
        )  # fmt: skip
        return None


def window_in_error(message: str) -> int | None:
    """The context window an error names ("This model's maximum context length is 4096 tokens", llama.cpp's "the
    request exceeds the available context size (2048 tokens)"), or None."""
    found = _WINDOW_IN_ERROR.search(message or "")
    return _believed(int(found.group(1)), "A chat server's error", "the model") if found else None


def is_ollama(base_url: str, *, timeout: float = ASK_TIMEOUT) -> bool:
    version = _get(root_of(base_url) + "/api/version", None, timeout)
    return isinstance(version, dict) and "version" in version


def ollama_show(base_url: str, model: str, *, timeout: float = ASK_TIMEOUT) -> dict:
    found = _post(root_of(base_url) + "/api/show", {"model": model}, timeout)
    return found if isinstance(found, dict) else {}


def ollama_window(shown: dict) -> tuple[int | None, int | None]:
    """(num_ctx the model sets, the context length it was trained for) from Ollama's `/api/show`."""
    set_ctx = re.search(r"(?m)^\s*num_ctx\s+(\d+)", str(shown.get("parameters") or ""))
    info = shown.get("model_info") or {}
    trained = next((v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)), None)
    return (int(set_ctx.group(1)) if set_ctx else None), trained


# --- per kind ---------------------------------------------------------------------------------------------------


def _kind_and_windows(root: str, data: list[dict], api_key: str | None, timeout: float) -> tuple[str, dict[str, tuple]]:
    """The server's kind and, per model id, (window it runs the model with, trained length where it says)."""
    if is_ollama(root, timeout=timeout):
        windows = {}
        for m in data:
            set_ctx, trained = ollama_window(ollama_show(root, m["id"], timeout=timeout))
            windows[m["id"]] = (set_ctx or OLLAMA_DEFAULT_CTX, trained)  # what a plain OpenAI-endpoint request gets
        return "Ollama", windows
    vllm = {m["id"]: (m["max_model_len"], None) for m in data if isinstance(m.get("max_model_len"), int)}
    if vllm:
        return "vLLM", vllm
    meta = {m["id"]: (m["meta"]["n_ctx"], None) for m in data if isinstance(m.get("meta"), dict) and isinstance(m["meta"].get("n_ctx"), int)}
    props = _get(root + "/props", api_key, timeout)
    if isinstance(props, dict) and ("default_generation_settings" in props or "n_ctx" in props):
        n_ctx = props.get("n_ctx") or (props.get("default_generation_settings") or {}).get("n_ctx")
        return "llama.cpp", {m["id"]: (n_ctx, None) for m in data} if isinstance(n_ctx, int) else meta
    studio = _get(root + "/api/v0/models", api_key, timeout)
    if isinstance(studio, dict) and isinstance(studio.get("data"), list):
        windows = {
            m["id"]: (m.get("loaded_context_length") or m.get("max_context_length"), m.get("max_context_length"))
            for m in studio["data"]
            if isinstance(m, dict) and isinstance(m.get("loaded_context_length") or m.get("max_context_length"), int)
        }
        return "LM Studio", windows
    return "OpenAI-compatible", meta


# --- HTTP ---------------------------------------------------------------------------------------------------------


def root_of(base_url: str) -> str:
    """The server's own address: `http://127.0.0.1:11434/v1` → `http://127.0.0.1:11434`."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _get(url: str, api_key: str | None, timeout: float):
    return _request(urllib.request.Request(url, headers=_headers(api_key)), timeout)


def _post(url: str, body: dict, timeout: float):
    data = json.dumps(body).encode()
    return _request(urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST"), timeout)


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _request(request: urllib.request.Request, timeout: float):
    """Parsed JSON, or None when nothing (or no JSON) answers. Never follows a redirect elsewhere."""
    try:
        with OPENER.open(request, timeout=timeout) as response:
            return json.loads(response.read(2_000_000))
    except (OSError, ValueError, urllib.error.URLError):
        return None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a local server has no business sending us to another address
        return None


OPENER = urllib.request.build_opener(_NoRedirect, urllib.request.ProxyHandler({}))  # no proxy for loopback
