"""`python -m rag models`: the chat model servers on this machine (the kinds in rag/chat/kinds.py on
their usual local ports, and the configured endpoint), the models each serves with the context window it runs them
with, and `--test MODEL` to time one short request. Only loopback ports are probed, and the API key goes only to the
endpoint it was set for; a server's model names are shown cut and without control characters."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from rag.cli.common import common_options, echo
from rag.surface import ModelServer, api_key_for, find_servers, kinds, same_endpoint, shown_name, try_model


@click.command(name="models")
@common_options
@click.option("--test", "test_model", metavar="MODEL", help="Send one short request to MODEL and show how long the reply took.")
@click.option("--base-url", help="The server of --test (default: OPENAI_BASE_URL if it serves MODEL, else a server here that does).")
@click.option("--json", "as_json", is_flag=True, help='Print [{"kind", "base_url", "models": [{"id", "context_tokens"}], "note"}].')
def models_command(settings, test_model: str | None, base_url: str | None, as_json: bool) -> None:
    """List the chat models of the servers on this machine (and of OPENAI_BASE_URL), or --test one."""
    configured = settings.openai_base_url
    servers = find_servers(configured=configured, api_key=api_key_for(settings, configured) if configured else None)
    if test_model:
        url = base_url or _serving(servers, test_model, configured) or configured
        if not url:
            raise click.ClickException(f"No server here serves {test_model!r}; pass --base-url.")
        tried = try_model(settings, base_url=url, model=test_model)  # the key only if `url` is its endpoint
        echo(json.dumps(asdict(tried), ensure_ascii=False) if as_json else f"{test_model} at {url} replied in {tried.seconds:g} s: {tried.reply}")
        return
    if as_json:
        echo(json.dumps([asdict(s) for s in servers], ensure_ascii=False, indent=2))
        return
    if not servers:
        echo(f"No chat model server answers on this machine's usual ports ({kinds.listed('{names} {port}')}).")
        echo("Start one, or set OPENAI_BASE_URL to its /v1 address.")
    for server in servers:
        _list(server)
    if any(s.models for s in servers):
        echo("Use one: RAG_CHAT_MODEL=<model> OPENAI_BASE_URL=<address>, or pick it in the app's Settings.")


def _serving(servers: list[ModelServer], model: str, configured: str | None) -> str | None:
    """The server to test `model` on: the configured endpoint if it serves it, else the first server here that does."""
    serving = sorted((s for s in servers if s.model(model)), key=lambda s: not same_endpoint(s.base_url, configured))
    return serving[0].base_url if serving else None


def _list(server: ModelServer) -> None:
    if server.note:
        echo(f"{server.kind or 'A server'} at {server.base_url}: {server.note}")
        return
    echo(f"{server.kind} at {server.base_url}" + ("" if server.models else ": no models loaded"))
    for m in server.models:
        window = f"  (window {m.context_tokens:,} tokens)" if m.context_tokens else ""
        echo(f"  {shown_name(m.id)}{window}")
