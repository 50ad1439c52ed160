"""Plan mode (agent/plan_mode.py) as ACP's session modes.

https://agentclientprotocol.com/protocol/session-modes (acp.schema.SessionModeState, SetSessionModeRequest,
CurrentModeUpdate): session/new, load and resume results offer the modes and the current one; the client
switches with session/set_mode; the agent announces a switch the client did not ask for (the `/plan`
command, a new conversation) with a current_mode_update.
"""

from __future__ import annotations

from acp import schema

from ..agent import plan_mode


def modes(current: str) -> schema.SessionModeState:
    return schema.SessionModeState(current_mode_id=current, available_modes=[
        schema.SessionMode(id=mode, name=plan_mode.NAMES[mode], description=plan_mode.DESCRIPTIONS[mode])
        for mode in plan_mode.MODES])


def mode_update(current: str) -> schema.CurrentModeUpdate:
    return schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=current)

