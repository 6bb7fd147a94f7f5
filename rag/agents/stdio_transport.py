"""The stdio transport of `rag mcp`: the SDK's `stdio_server`, with every line it cannot read answered or repaired.

The SDK parses each line with pydantic, whose JSON parser refuses a lone surrogate escape (`"\\ud800"`: half of an
emoji cut in two, which JSON allows); the line then becomes an exception that the session drops with a debug log,
and the client waits for ever. Here such a line is read again with Python's json (which keeps lone surrogates),
each lone surrogate becomes U+FFFD (as the SDK already does with bytes that are not UTF-8) and the message is
served. A line that still is no JSON-RPC message gets a JSON-RPC error (-32700 parse error, or -32600 invalid
request with the request's id when it can be found) and a warning on stderr: never silence.
"""

from __future__ import annotations

import json
import logging
import re

import anyio
from mcp.server import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

log = logging.getLogger(__name__)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins the pairs; what is left is alone


async def serve_stdio(server: MCPServer) -> None:
    """`server.run()` over stdio (the SDK's `run_stdio_async`), with the read stream of `AnsweringReader`."""
    lowlevel = server._lowlevel_server  # what run_stdio_async runs; the SDK has no public way to wrap its streams
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(AnsweringReader(read_stream, write_stream), write_stream, lowlevel.create_initialization_options())


class AnsweringReader:
    """The SDK's read stream of SessionMessage | Exception, where an exception (a line it could not read) is read
    again, repaired, or answered on `write_stream` and skipped. Passes on the sender's context like the SDK's stream."""

    def __init__(self, inner, write_stream) -> None:
        self._inner = inner
        self._write = write_stream

    @property
    def last_context(self):
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            message = await self._reread(item)
            if message is not None:
                return message

    async def _reread(self, exc: Exception) -> SessionMessage | None:
        line = _unparsed_line(exc)
        if line is None:  # JSON, but not a JSON-RPC message
            return await self._answer(INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message.", _id_in(exc))
        try:
            value = _without_lone_surrogates(json.loads(line))
        except (ValueError, RecursionError):
            return await self._answer(PARSE_ERROR, "Parse error: the line is not JSON.", None)
        try:
            message = jsonrpc_message_adapter.validate_python(value, by_name=False)
        except ValidationError:
            request_id = value.get("id") if isinstance(value, dict) else None
            return await self._answer(INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message.", request_id)
        log.debug("a lone surrogate in an MCP message was replaced by U+FFFD")
        return SessionMessage(message)

    async def _answer(self, code: int, text: str, request_id) -> None:
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            request_id = None  # JSON-RPC: null when the id cannot be told
        log.warning("An MCP client sent a line that is not a JSON-RPC message; it was answered with error %d.", code)
        await self._write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=text))))

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()


def _unparsed_line(exc: Exception) -> str | None:
    """The line pydantic could not parse as JSON (it keeps it in the error), or None."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        if len(errors) == 1 and errors[0]["type"] == "json_invalid" and isinstance(errors[0]["input"], str):
            return errors[0]["input"]
    return None


def _id_in(exc: Exception):
    """The id of a JSON object that failed validation: pydantic's errors hold the object for the fields it misses."""
    if isinstance(exc, ValidationError):
        for error in exc.errors(include_url=False):
            if isinstance(error["input"], dict) and "id" in error["input"]:
                return error["input"]["id"]
    return None


def _without_lone_surrogates(value):
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value
