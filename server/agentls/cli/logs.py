"""The terminal front ends' log (ask, repl, chat): stderr, scrubbed of the key and MCP secrets by the core
(agent/secrets.py); AGENTLS_LOG=debug|info for more. The handlers set before are replaced, the SDK's own
ANTHROPIC_LOG one included: it would write request bodies (a file holding the key, say) as they are."""

from __future__ import annotations

from ..agent.secrets import log_level, log_to_stderr


def terminal_logging(level: int | None = None) -> None:
    """`level`: AGENTLS_LOG's (default warning) unless given."""
    log_to_stderr(log_level() if level is None else level, "agentls")
