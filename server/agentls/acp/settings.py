"""The ACP agent's settings: the same format as every front end (agent/settings.py), read from files.

An ACP client starts the agent with no settings channel of its own, so they
come from, in this order (later wins, key by key):

1. the user's file: `settings.json` in the user's config folder
   (agent/userconfig.py: `$XDG_CONFIG_HOME/agentls` or `~/.config/agentls` on
   Linux, `~/Library/Application Support/agentls` on macOS, or
   `$AGENTLS_CONFIG_DIR`; the folder of the user's AGENTS.md and commands);
2. the workspace's `.agents/settings.json`, if it exists.

Either file holds the settings object itself (`{"model": …, "approvals": …}`)
or has it under `"agentls"` (a file shared with other agents). The workspace
file comes with the code the agent works on, so it may not loosen what the
user decided: it cannot set `baseUrl` (it would send the API key elsewhere)
or `mcpServers` (they start programs), and its `approvals` may only ask more
("always" there is ignored). Its `permissions` are not settings here: the
core reads them from the same file as the workspace's rules, combined with
the user's (agent/permissions: deny wins over ask over allow, whoever wrote
them), and its allow rules apply only once the user accepted the file's content
(agent/permissions/consent.py: asked as a permission request of kind "rules").
What it could not set is reported, like every ignored field. MCP servers the
client passes in session/new join the configured ones (the client's wins on a
name clash).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..agent.mcp.config import ServerConfig, parse_servers
from ..agent.settings import AgentSettings, parse_settings, settings_section
from ..agent.userconfig import config_dir

FILE = "settings.json"
WORKSPACE_FILE = Path(".agents") / FILE
UNTRUSTED_KEYS = ("baseUrl", "mcpServers")  # a workspace file cannot set these
STRICTNESS = {"always": 0, "ask": 1, "never": 2}


def user_settings_file() -> Path:
    return config_dir() / FILE


def read_settings(cwd: Path) -> tuple[AgentSettings, list[str]]:
    """The settings for a session in `cwd`, and one message per file or field that was ignored."""
    problems: list[str] = []
    user = _read(user_settings_file(), problems)
    workspace = _read(cwd / WORKSPACE_FILE, problems)
    merged = dict(user)
    for key, value in workspace.items():
        if key in UNTRUSTED_KEYS:
            problems.append(
                f"{WORKSPACE_FILE}: {key} is ignored in a workspace file (set it in {user_settings_file()})")
        elif key == "approvals":
            merged[key] = _stricter(user.get("approvals"), value, problems)
        elif key == "permissions":
            continue  # the workspace's rules: the core reads them itself, beside the user's (they stay)
        else:
            merged[key] = value
    settings, more = parse_settings(merged)
    return settings, problems + more


def _read(path: Path, problems: list[str]) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as error:
        problems.append(f"{path}: not read ({error}); its settings are ignored")
        return {}
    section = settings_section(raw) if isinstance(raw, dict) else None
    if section is None:
        if raw not in ({}, None):
            problems.append(f"{path}: no agentls settings found (an object of settings, or one under \"agentls\")")
        return {}
    return dict(section)


def _stricter(user: Any, workspace: Any, problems: list[str]) -> Any:
    """The user's approval modes, each made stricter (never looser) by the workspace file."""
    if not isinstance(workspace, dict):
        return user  # parse_settings reports a malformed user value; a malformed workspace one is noise
    merged = dict(user) if isinstance(user, dict) else {}
    for kind, mode in workspace.items():
        if kind == "timeoutSeconds":
            continue  # how long to wait for an answer is the user's choice
        current = merged.get(kind, "ask")
        if mode in STRICTNESS and STRICTNESS[mode] >= STRICTNESS.get(current, 1):
            merged[kind] = mode
        else:
            problems.append(f"{WORKSPACE_FILE}: approvals.{kind} = {mode!r} is ignored "
                            "(a workspace file may only ask for more approval)")
    return merged


def with_client_servers(configured: tuple[ServerConfig, ...], client: dict[str, Any]) -> tuple[
        tuple[ServerConfig, ...], list[str]]:
    """The configured MCP servers plus the client's (same parsing, same rules), sorted by name."""
    parsed, problems = parse_servers(client)
    problems = [problem.replace("settings.mcpServers", "session mcpServers") for problem in problems]
    servers = {server.name: server for server in configured}
    servers.update({server.name: server for server in parsed})
    return tuple(servers[name] for name in sorted(servers)), problems
