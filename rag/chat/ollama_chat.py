"""A chat model on Ollama through its native `/api/chat`, so the request can say the context window it needs.

Ollama's OpenAI-compatible endpoint runs a model with the model's (or the server's default) `num_ctx`, often 2,048 or
4,096 tokens, and silently drops the start of a longer prompt — the rules and the first sources. The native endpoint
takes `options.num_ctx`, so the window is the one the prompt was sized for. Same `ChatModel` seam as `OpenAIChat`,
and the same bounds on the reply (rag/chat/replies.py): a line out of shape is one ChatError, a long reply is cut.
"""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.request
from typing import Generator

from rag.chat import replies
from rag.chat.probe import root_of
from rag.chat.timing import first_byte_timeout, measured, prompt_tokens, reading_seconds
from rag.config import Settings
from rag.errors import ChatError

log = logging.getLogger(__name__)

NUM_CTX = 8192  # asked for unless the settings say otherwise or the model was trained for less
# Messages the app recognises and says in its own words (rag/web/messages.py): keep them in step.
OLLAMA_UNREACHABLE = "Cannot reach Ollama at {url}. Start it (`ollama serve`) or fix OPENAI_BASE_URL."
OLLAMA_MODEL_MISSING = "Ollama at {url} does not have the model {model} ({detail}). Run `ollama pull {name}` or pick another."


class OllamaChat:
    def __init__(self, settings: Settings, *, trained: int | None = None) -> None:
        self.base_url = settings.openai_base_url or ""
        self.model = settings.chat_model or ""
        self.name = f"{self.model}@{self.base_url}"
        self.context_tokens = settings.chat_context_tokens or min(trained or NUM_CTX, NUM_CTX)
        self.timeout = settings.request_timeout
        self._options = {"temperature": settings.temperature, "num_predict": settings.max_answer_tokens, "num_ctx": self.context_tokens}
        if settings.seed is not None:
            self._options["seed"] = settings.seed

    def reading_seconds(self, messages: list[dict]) -> float | None:
        return reading_seconds(self.base_url, self.model, prompt_tokens(messages))

    def stream(self, messages: list[dict]) -> Generator[str, None, bool]:
        tokens = prompt_tokens(messages)
        wait = first_byte_timeout(self.base_url, self.model, tokens, self.timeout)
        body = json.dumps({"model": self.model, "messages": messages, "stream": True, "options": self._options}).encode()
        request = urllib.request.Request(root_of(self.base_url) + "/api/chat", data=body, headers={"Content-Type": "application/json"}, method="POST")
        truncated, cap = False, replies.Cap()
        try:
            # The socket timeout counts from the last byte received: a slow model that streams is never cut off.
            with OPENER.open(request, timeout=wait) as response:
                for delta in replies.ollama_deltas(iter(lambda: response.read1(65_536), b"")):
                    piece = cap.take(delta.text)
                    if piece:
                        yield piece
                    if cap.cut:
                        log.warning("Ollama at %s sent more than %d characters; the reply was cut there.", self.base_url, replies.MAX_REPLY_CHARS)
                        truncated = True
                        break
                    if delta.read:  # the last line: Ollama times its reading of the prompt
                        measured(self.base_url, self.model, *delta.read)
                    truncated = delta.finish == "length"
        except replies.ServerFailed as exc:
            raise ChatError(f"Ollama at {self.base_url} failed: {exc}") from exc
        except replies.Malformed as exc:
            raise ChatError(f"Ollama at {self.base_url} sent a reply that is not its chat's JSON lines ({exc}).") from exc
        except urllib.error.HTTPError as exc:
            raise ChatError(self._refused(exc)) from exc
        except TimeoutError as exc:
            raise ChatError(
                f"Ollama at {self.base_url} sent nothing for {wait:.0f} s. Check that it is not overloaded, or raise request_timeout."
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            raise ChatError(OLLAMA_UNREACHABLE.format(url=self.base_url)) from exc
        except http.client.HTTPException as exc:  # a broken chunked body, a reply cut short
            raise ChatError(f"Ollama at {self.base_url} broke off its reply ({type(exc).__name__}). Try again.") from exc
        return truncated

    def complete(self, messages: list[dict]) -> str:
        return "".join(self.stream(messages))

    def close(self) -> None:
        """Nothing held open between requests."""

    def _refused(self, exc: urllib.error.HTTPError) -> str:
        try:
            detail = json.loads(exc.read(20_000)).get("error", "")
        except (ValueError, OSError, AttributeError, RecursionError, http.client.HTTPException):
            detail = ""
        detail = detail if isinstance(detail, str) else ""
        if exc.code == 404:
            return OLLAMA_MODEL_MISSING.format(url=self.base_url, model=repr(self.model), detail=detail, name=self.model)
        return f"Ollama at {self.base_url} refused the request (HTTP {exc.code}: {' '.join(str(detail).split())[:300]})."


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a local server has no business sending us to another address
        return None


OPENER = urllib.request.build_opener(_NoRedirect, urllib.request.ProxyHandler({}))  # no proxy for loopback
