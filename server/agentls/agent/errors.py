"""The agent's own failures, as the front ends answer them (importable without the SDK)."""

from __future__ import annotations


class AgentError(Exception):
    """A turn failed in a way the user must hear about (the message is safe to show)."""


class AgentBusy(AgentError):
    """Something else holds the conversation (a turn, a compaction, a session switch): not now."""


class AgentInputError(AgentError):
    """What the front end handed over cannot be used as it is (an image the API would refuse, or one
    too large for the window): nothing ran; front ends answer it as invalid params."""
