"""Subagents: the `task` tool runs a child agent with its own history, window and tools (README, "Subagents")."""
