"""Messages → text from a chat model behind an OpenAI-compatible endpoint, streamed (the `ChatModel` seam: protocol.py).

Any server that speaks `/v1/chat/completions` works: OpenAI, Ollama, LM Studio, vLLM, llama.cpp server, LiteLLM.
The openai client sends the request; the reply's bytes are read by `replies` (bounded, and checked piece by piece).
The API key goes only to the endpoint it was given for (rag/endpoints.py). Failures become `ChatError` with the fix
in the message: unreachable endpoint, timeout, unknown model, bad key, a reply that is not a chat completion.
How fast a model reads is kept in `timing`; the window a server runs it with, in `servers.served`. Knows nothing about
sources, prompts or citations.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Generator

from rag.chat import replies, servers
from rag.chat.protocol import Message
from rag.chat.timing import first_byte_timeout, measured, prompt_tokens, reading_seconds
from rag.config import CONNECT_TIMEOUT, Settings
from rag.endpoints import api_key_for
from rag.errors import ChatError, ConfigError, PromptTooLong

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_TOKENS = 8192  # when neither the settings nor the server say the window
# Messages the app recognises and says in its own words (rag/web/messages.py): keep them in step.
CHAT_NO_ENDPOINT = (
    "RAG_CHAT_MODEL is {model} but there is no endpoint: set OPENAI_BASE_URL "
    "(Ollama, LM Studio, vLLM …) or OPENAI_API_KEY (OpenAI), or unset RAG_CHAT_MODEL for extractive answers."
)
CHAT_UNREACHABLE = (
    "Cannot reach the chat endpoint {url}. Start the server or fix OPENAI_BASE_URL (or use --extractive to answer without a chat model)."
)
CHAT_MODEL_UNKNOWN = "The chat endpoint {url} does not know the model {model}. Set RAG_CHAT_MODEL to a model it serves."
CHAT_KEY_WITHHELD = (
    "The chat endpoint {url} asks for an API key. OPENAI_API_KEY is sent only to {endpoint}, the endpoint "
    "it was set for: to use a key here, set OPENAI_BASE_URL to {url} with that server's key."
)
CHAT_KEY_REFUSED = "The chat endpoint {url} refused the API key. Check OPENAI_API_KEY."


class OpenAIChat:
    """A chat model behind an OpenAI-compatible endpoint. Owns one HTTP client; thread-safe."""

    def __init__(self, settings: Settings) -> None:
        import httpx2  # the openai client's HTTP library: its errors while we read the reply's bytes
        import openai

        if not settings.chat_model:
            raise ConfigError("No chat model is configured. Set RAG_CHAT_MODEL (and OPENAI_BASE_URL for a local server).")
        if not settings.openai_base_url and not settings.openai_api_key:
            raise ConfigError(CHAT_NO_ENDPOINT.format(model=repr(settings.chat_model)))
        self._openai, self._http = openai, httpx2
        self.base_url = settings.openai_base_url or "https://api.openai.com/v1"
        key = api_key_for(settings, self.base_url)
        self.key_withheld = settings.openai_key_endpoint if settings.openai_api_key and not key else None  # for the message
        self.model = settings.chat_model
        self.name = f"{settings.chat_model}@{self.base_url}"
        self.context_tokens = settings.chat_context_tokens or servers.served(self.base_url, self.model)[0].context_tokens or DEFAULT_CONTEXT_TOKENS
        self.timeout = settings.request_timeout
        # Sent with every request: temperature 0 (and a seed, if set) gives the same answer to the same question.
        self._generation = {"temperature": settings.temperature, "max_tokens": settings.max_answer_tokens}
        if settings.seed is not None:
            self._generation["seed"] = settings.seed
        self._client = openai.OpenAI(
            base_url=self.base_url,
            api_key=key or "not-needed",
            timeout=openai.Timeout(settings.request_timeout, connect=min(CONNECT_TIMEOUT, settings.request_timeout)),
            max_retries=settings.max_retries,
        )

    def reading_seconds(self, messages: list[Message]) -> float | None:
        """How long the model is expected to read `messages` before its first word (None: not known)."""
        return reading_seconds(self.base_url, self.model, prompt_tokens(messages))

    def stream(self, messages: list[Message]) -> Generator[str, None, bool]:
        truncated, tokens, cap = False, prompt_tokens(messages), replies.Cap()
        wait = first_byte_timeout(self.base_url, self.model, tokens, self.timeout)
        timeout = self._openai.Timeout(wait, connect=min(CONNECT_TIMEOUT, wait))
        with self._errors(wait):
            started = time.perf_counter()
            response = self._client.chat.completions.create(model=self.model, messages=messages, stream=True, timeout=timeout, **self._generation)
            with response:  # the client's own event reader buffers a line without limit: the bytes are read here
                for delta in replies.sse_deltas(response.response.iter_bytes()):
                    piece = cap.take(delta.text)
                    if piece:
                        if started is not None:
                            measured(self.base_url, self.model, tokens, time.perf_counter() - started)
                            started = None
                        yield piece
                    truncated = truncated or delta.finish == "length" or cap.cut
                    if cap.cut:
                        log.warning(
                            "The chat endpoint %s sent more than %d characters; the reply was cut there.", self.base_url, replies.MAX_REPLY_CHARS
                        )
                        break
        return truncated

    def complete(self, messages: list[Message]) -> str:
        with (
            self._errors(),
            self._client.chat.completions.with_streaming_response.create(model=self.model, messages=messages, **self._generation) as response,
        ):
            text = replies.completion_text(replies.whole(response.iter_bytes()))
        if text is None:
            raise ChatError(f"The chat endpoint {self.base_url} returned no choices. Check that it serves {self.model!r}.")
        return replies.Cap().take(text)

    def close(self) -> None:
        self._client.close()

    @contextlib.contextmanager
    def _errors(self, waited: float | None = None):
        """openai exceptions, the HTTP library's while the reply is read, and a reply out of shape → ChatError with
        the fix (also around a stream's iteration)."""
        try:
            yield
        except (self._openai.APITimeoutError, self._http.TimeoutException) as exc:
            raise ChatError(_timed_out(self, waited)) from exc
        except (self._http.HTTPError, self._http.StreamError) as exc:
            raise ChatError(f"The chat endpoint {self.base_url} broke off its reply ({_detail(exc)}). Try again, or check the server's log.") from exc
        except replies.Malformed as exc:
            raise ChatError(
                f"The chat endpoint {self.base_url} sent a reply that is not a chat completion ({exc}). "
                "Check that OPENAI_BASE_URL is the /v1 address of an OpenAI-compatible server."
            ) from exc
        except replies.ServerFailed as exc:
            raise ChatError(f"The chat endpoint {self.base_url} failed ({exc}). Try again, or check the server's log.") from exc
        except self._openai.OpenAIError as exc:
            window = servers.window_in_error(_detail(exc)) if isinstance(exc, self._openai.BadRequestError) else None
            if window:  # the next question is sized to it at once
                servers.note_window(self.base_url, self.model, window)
                raise PromptTooLong(_message(self._openai, self, exc), window) from exc
            raise ChatError(_message(self._openai, self, exc)) from exc


def _timed_out(chat: OpenAIChat, waited: float | None) -> str:
    return (
        f"The chat endpoint {chat.base_url} sent nothing for {waited or chat.timeout:.0f} s. "
        "Check that the server is not overloaded, or raise request_timeout in rag.toml."
    )


def _message(openai, chat: OpenAIChat, exc: Exception, waited: float | None = None) -> str:
    url, model = chat.base_url, chat.model
    if isinstance(exc, openai.APITimeoutError):
        return _timed_out(chat, waited)
    if isinstance(exc, openai.APIConnectionError):
        return CHAT_UNREACHABLE.format(url=url)
    if isinstance(exc, openai.NotFoundError):
        return CHAT_MODEL_UNKNOWN.format(url=url, model=repr(model))
    if isinstance(exc, openai.AuthenticationError) and chat.key_withheld:
        return CHAT_KEY_WITHHELD.format(url=url, endpoint=chat.key_withheld)
    if isinstance(exc, openai.AuthenticationError):
        return CHAT_KEY_REFUSED.format(url=url)
    if isinstance(exc, openai.RateLimitError):
        return f"The chat endpoint {url} is rate limiting requests. Wait a moment and ask again."
    window = servers.window_in_error(_detail(exc)) if isinstance(exc, openai.BadRequestError) else None
    if window:
        return f"The chat endpoint {url} runs {model!r} with a {window:,}-token window; the prompt was longer."
    if isinstance(exc, openai.BadRequestError):
        return (
            f"The chat endpoint {url} rejected the request ({_detail(exc)}). If the prompt is too long, "
            "set chat_context_tokens in rag.toml to the model's real context window."
        )
    return f"The chat endpoint {url} failed ({_detail(exc)}). Try again, or check the server's log."


def _detail(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return " ".join(str(message).split())[:300]


@dataclass(frozen=True)
class Tried:
    seconds: float  # from sending to the whole reply
    reply: str  # the model's words, cut to 200 characters (untrusted: shown as text)


def try_model(settings: Settings, *, base_url: str, model: str) -> Tried:
    """One short request to `model` at `base_url` and how long its reply took (the Settings page's "Test" and `rag
    models --test`). Raises ChatError with the fix."""
    chat = OpenAIChat(settings.replace(openai_base_url=base_url, chat_model=model, max_answer_tokens=8, max_retries=0))
    started = time.perf_counter()
    try:
        reply = chat.complete([{"role": "user", "content": "Reply with one word: OK"}])
    finally:
        chat.close()
    return Tried(round(time.perf_counter() - started, 2), " ".join(reply.split())[:200])
