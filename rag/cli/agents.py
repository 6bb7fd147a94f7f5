"""`python -m rag mcp`: the vault served to AI agents over MCP (stdio, or streamable HTTP with a bearer token). Named
for rag/agents/, which it starts; not `mcp.py`, which would read as the `mcp` package.
"""

from __future__ import annotations

from pathlib import Path

import click

from rag.cli.common import common_options, echo


@click.command(name="mcp")
@common_options
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    help="Serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio; every request needs the bearer token"
    " (made and shown at the first start, kept in ~/.config/ask-your-vault/mcp-token).",
)
@click.option("--show-token", is_flag=True, help="Print the bearer token of --http (made if there is none yet) and exit.")
def mcp_command(settings, http_port: int | None, show_token: bool) -> None:
    """Serve the vault to AI agents over MCP: search, read, write and record notes (stdio unless --http)."""
    from rag.agents.http_auth import make_token, read_token, token_path

    if show_token:
        path = token_path()
        make_token(path)
        echo(read_token(path))
        return
    token = None
    if http_port is not None:
        from rag.agents.http_server import port_in_use

        if port_in_use(http_port):
            raise click.ClickException(
                f"Port {http_port} on 127.0.0.1 is in use by another program (another `rag mcp --http`?): choose another with --http PORT."
            )
        path = token_path()
        made = make_token(path)
        token = read_token(path)
        url = f"http://127.0.0.1:{http_port}/mcp"
        echo(_token_made(url, path, token) if made else _token_kept(url, path), err=True)
    from rag.agents.mcp_server import serve  # the SDK takes seconds to import: not for --show-token

    serve(settings, http_port=http_port, token=token)


def _token_made(url: str, path: Path, token: str) -> str:
    return (
        f"Serving MCP at {url} (Ctrl+C to stop). Every request needs the header\n"
        f"  Authorization: Bearer {token}\n"
        f"(a new token, kept in {path}; later starts do not print it, `python -m rag mcp --show-token` does). For example:\n"
        f'  claude mcp add --transport http vault {url} --header "Authorization: Bearer {token}"'
    )


def _token_kept(url: str, path: Path) -> str:
    # Never the token itself: a server's stderr ends up in logs that others read.
    return (
        f"Serving MCP at {url} (Ctrl+C to stop). Every request needs the header `Authorization: Bearer <token>`, with "
        f"the token kept in {path} (`python -m rag mcp --show-token` prints it)."
    )
