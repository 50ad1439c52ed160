"""What the project and the user set up for the agent: agent/todos, agent/mode, agent/commands,
agent/expandCommand, agent/permissions (docs/protocol.md). Everything is read from the core; disk reads run off
the loop."""

from __future__ import annotations

import asyncio
from typing import Any

from ...agent.commands import CommandError, custom_commands, expand_named
from ...agent.userconfig import config_dir
from .. import protocol
from ..errors import answers, invalid_params
from ..params import as_object, optional_text, required_text


@answers
async def todos(ls, params: Any) -> protocol.TodosResult:
    as_object(params)
    agent = await ls.host.agent()
    return protocol.todos(agent.todos())


@answers
async def mode(ls, params: Any) -> protocol.ModeResult:
    """Plan mode on or off (`mode` given), or only the mode now; the core tells the model (agent/plan_mode.py)."""
    from ...agent.plan_mode import ModeError  # here: the server module imports no tool (startup)

    wanted = optional_text(as_object(params), "mode")
    agent = await ls.host.agent()
    if wanted is not None:
        try:
            agent.set_mode(wanted)
        except ModeError as error:
            raise invalid_params(str(error)) from None
    return {"mode": agent.mode}


@answers
async def commands(ls, params: Any) -> protocol.CommandsResult:
    as_object(params)
    agent = await ls.host.agent()
    roots = list(agent.workspace.roots)
    return protocol.commands(await asyncio.to_thread(custom_commands, roots, config_dir()))


@answers
async def expand_command(ls, params: Any) -> protocol.ExpandCommandResult:
    obj = as_object(params)
    name = required_text(obj, "name").lstrip("/")
    arguments = optional_text(obj, "arguments") or ""
    agent = await ls.host.agent()
    roots = list(agent.workspace.roots)
    try:
        prompt = await asyncio.to_thread(expand_named, roots, config_dir(), name, arguments)
    except CommandError as error:
        raise invalid_params(str(error)) from None
    return {"prompt": prompt}


@answers
async def permissions(ls, params: Any) -> protocol.PermissionsResult:
    as_object(params)
    agent = await ls.host.agent()
    policy = agent.policy
    if policy is None:
        return {"rules": []}
    await asyncio.to_thread(policy.rules.load_workspace, list(agent.workspace.roots))
    return protocol.permissions(policy.rules.rules())
