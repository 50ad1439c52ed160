"""The agent's own failures, as the front ends answer them (importable without the SDK)."""

from __future__ import annotations


class AgentError(Exception):
    """A turn failed in a way the user must hear about (the message is safe to show)."""


class AgentBusy(AgentError):
    """Something else holds the conversation (a turn, a compaction, a session switch): not now."""
