"""Agents: the MCP server and what it offers: notes read and written safely, project context and commits."""
