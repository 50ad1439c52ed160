"""The agent's collaborators, one job per module; agent/loop.py's Agent is the façade over them.

conversation (the state they share) · claim (one thing at a time) · head (system prompt,
tools, rules, instructions) · recording (transcript and session writes) · steps (the turn)
· tool_calls (screen → approve → run → cap → results) · compaction · restore (a session's
conversation at start or resume) · rewind (checkpoints: back to before a prompt).
"""
