"""What the MCP servers look like from outside: their state, tools and cost per request (plain data)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McpToolStatus:
    name: str
    qualified_name: str  # the name the model calls it by; "" when it is not offered
    approval: str
    description: str


@dataclass(frozen=True)
class McpServerStatus:
    """One configured server; never its env or header values, only their names."""

    name: str
    transport: str
    target: str
    state: str
    error: str
    env_keys: tuple[str, ...]
    header_keys: tuple[str, ...]
    tools: tuple[McpToolStatus, ...]


@dataclass(frozen=True)
class McpToolTokens:
    """Per server: how many tools it offers and what their definitions cost on every request."""

    server: str
    tools: int
    tokens: int
