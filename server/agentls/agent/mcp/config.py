"""`agentls.mcpServers`: the MCP servers the agent may use, in the `mcp.json` shape.

    {"git":  {"command": "uvx", "args": ["mcp-server-git"], "env": {"TOKEN": "…"}},
     "docs": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer …"},
              "approval": "always", "tools": {"delete_page": "never"}, "timeout": 60}}

Parsing never fails: a bad entry is reported and skipped, like every other
setting. The values of `env` and `headers` are secrets: they are kept out of
`repr`, never shown, and handed to whoever scrubs messages (`secret_values`).
No import of the `mcp` SDK here: settings are parsed before the agent loads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MODES = ("ask", "always", "never")
DEFAULT_TIMEOUT = 60.0  # seconds for one tool call
DEFAULT_STARTUP_TIMEOUT = 30.0  # seconds to start, connect and list tools
MAX_SECONDS = {"timeout": 86_400.0, "startupTimeout": 3_600.0}


@dataclass(frozen=True)
class ServerConfig:
    name: str
    command: str | None = None  # stdio
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None  # streamable HTTP
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    approval: str = "ask"  # the server's default for its tools
    tool_approvals: dict[str, str] = field(default_factory=dict)  # MCP tool name → mode
    timeout: float = DEFAULT_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    disabled: bool = False

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def approval_for(self, tool: str) -> str:
        return self.tool_approvals.get(tool, self.approval)

    def fingerprint(self) -> str:
        """A digest of the whole configuration (secrets included, never shown): what a remembered
        approval is tied to, so that pointing the same name at another program asks again."""
        import hashlib
        import json

        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return hashlib.sha256(json.dumps(fields, sort_keys=True, default=list).encode()).hexdigest()[:16]

    def secret_values(self) -> list[str]:
        return [*self.env.values(), *self.headers.values()]

    def shown(self) -> str:
        """Where it runs, for /mcp: the command line or the URL (never env or header values)."""
        if self.url:
            return self.url
        return " ".join([self.command or "", *self.args]).strip()


def parse_servers(raw: Any) -> tuple[tuple[ServerConfig, ...], list[str]]:
    """The configured servers (sorted by name: a stable tool order) and one message per ignored entry."""
    if raw is None or raw == []:  # Lua clients encode an empty table as []
        return (), []
    if not isinstance(raw, dict):
        return (), ["settings.mcpServers must be an object (server name → configuration)"]
    servers, problems = [], []
    for name in sorted(raw):
        where = f"settings.mcpServers.{name}"
        try:
            servers.append(_server(name, raw[name], where))
        except ValueError as problem:
            problems.append(f"{where}: {problem}; server ignored")
    return tuple(servers), problems


def _server(name: str, raw: Any, where: str) -> ServerConfig:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("the server name must be a non-empty string")
    if not isinstance(raw, dict):
        raise ValueError("must be an object with `command` or `url`")
    command, url = raw.get("command"), raw.get("url")
    if (command is None) == (url is None):
        raise ValueError("needs exactly one of `command` (stdio) or `url` (streamable HTTP)")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise ValueError("`command` must be a non-empty string")
    if url is not None and (not isinstance(url, str) or not valid_url(url)):
        raise ValueError("`url` must be an http:// or https:// URL")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError("`args` must be a list of strings")
    cwd = raw.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError("`cwd` must be a string")
    approval = raw.get("approval", "ask")
    if approval not in MODES:
        raise ValueError(f"`approval` must be one of {', '.join(MODES)}")
    return ServerConfig(
        name=name, command=command, args=tuple(args), env=_strings(raw.get("env"), "env"), cwd=cwd, url=url,
        headers=_strings(raw.get("headers"), "headers"), approval=approval,
        tool_approvals=_tool_modes(raw.get("tools")),
        timeout=_seconds(raw.get("timeout"), "timeout", DEFAULT_TIMEOUT),
        startup_timeout=_seconds(raw.get("startupTimeout"), "startupTimeout", DEFAULT_STARTUP_TIMEOUT),
        disabled=_flag(raw.get("disabled"), "disabled"),
    )


def _strings(raw: Any, what: str) -> dict[str, str]:
    if raw is None or raw == []:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise ValueError(f"`{what}` must map names to strings")  # never the values: they are secrets
    return dict(raw)


def _tool_modes(raw: Any) -> dict[str, str]:
    if raw is None or raw == []:
        return {}
    if not isinstance(raw, dict) or not all(v in MODES for v in raw.values()):
        raise ValueError(f"`tools` must map tool names to one of {', '.join(MODES)}")
    return dict(raw)


def _seconds(raw: Any, what: str, default: float) -> float:
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 < raw <= MAX_SECONDS[what]:
        raise ValueError(f"`{what}` must be a number of seconds above 0, at most {MAX_SECONDS[what]:,g}")
    return float(raw)


def valid_url(value: str) -> bool:
    """An http(s) URL with a host and no control characters or spaces (a CRLF would reach the HTTP client)."""
    from urllib.parse import urlparse

    if any(ord(char) < 0x21 or 0x7f <= ord(char) <= 0x9f for char in value):
        return False
    try:
        parsed = urlparse(value)
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.hostname)


def _flag(raw: Any, what: str) -> bool:
    if raw is None:
        return False
    if not isinstance(raw, bool):
        raise ValueError(f"`{what}` must be a boolean")
    return raw


def raw_secret_values(raw: Any) -> list[str]:
    """Every string under an entry's `env` or `headers`, whatever its shape (a malformed entry's values are
    secrets too: the entry is ignored, but its text may still reach a log line)."""
    found: list[str] = []

    def strings(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    for entry in raw.values() if isinstance(raw, dict) else ():
        if isinstance(entry, dict):
            strings(entry.get("env"))
            strings(entry.get("headers"))
    return found


def read_mcp_json(path: str) -> dict[str, Any]:
    """The servers of an `mcp.json` file (`{"mcpServers": {...}}`, or the mapping itself), for the terminal."""
    import json

    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict):
        return data["mcpServers"]
    if isinstance(data, dict):
        return data
    raise ValueError(f"{path}: expected an object with `mcpServers`")
