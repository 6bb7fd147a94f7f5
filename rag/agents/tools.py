"""How an MCP tool is declared: `@tool(READ)` on a method of a tool class (rag/agents/mcp_server.py,
rag/agents/memory_tools.py) makes it one tool with those annotations, its docstring being what the model reads.
The decorator also turns a RagError, or an error of the file system, into a ToolError, once, so the model sees the
message that names the fix. `declared` lists a class's tools in declaration order: the order agents see them."""

from __future__ import annotations

import functools
from collections.abc import Callable

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from rag.errors import RagError, os_error_text

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
INDEX = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

_ANNOTATIONS = "__mcp_tool_annotations__"


def tool(annotations: ToolAnnotations) -> Callable[[Callable], Callable]:
    """Mark a method as an MCP tool with `annotations`. RagError → ToolError, so the model sees the message (which
    names the fix) as a tool error; so is an error of the file system (a name too long, a full disk), in one line
    instead of a bare "Error executing tool"."""

    def mark(method: Callable) -> Callable:
        @functools.wraps(method)
        def wrapper(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except RagError as exc:
                raise ToolError(str(exc)) from exc
            except OSError as exc:
                raise ToolError(os_error_text(exc)) from exc

        setattr(wrapper, _ANNOTATIONS, annotations)
        return wrapper

    return mark


def declared(cls: type) -> dict[str, ToolAnnotations]:
    """The tools of `cls` (methods marked with `tool`), name → annotations, in declaration order."""
    return {name: hints for name, member in vars(cls).items() if (hints := getattr(member, _ANNOTATIONS, None)) is not None}


def register(server: MCPServer, *toolsets: object) -> None:
    """Add every tool of each object to `server`, in order: the objects', then each class's declaration order."""
    for tools in toolsets:
        for name, hints in declared(type(tools)).items():
            method = getattr(tools, name)
            description = " ".join(method.__doc__.split())  # one paragraph, without the source's indentation
            server.add_tool(method, name=name, description=description, annotations=hints, structured_output=True)
