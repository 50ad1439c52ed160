"""The agent: turn loop, typed events, session log, tools over a Workspace."""
