"""The agent: turn loop, typed events, session log, and tools over a Workspace."""
