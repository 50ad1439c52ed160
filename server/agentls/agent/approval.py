"""Asking the user before the agent runs commands or changes files.

Tools only see an `ApprovalCallback` (request → bool). `ApprovalPolicy` is
one: it applies the configured mode per kind ("ask" | "always" | "never")
and the session's remembered answers before falling back to an `Asker` (the
LSP confirm round-trip, the ACP permission request, the terminal), which may
answer with a plain bool or an `ApprovalDecision` carrying `remember=True`:
the same answer, yes or no, for the rest of the session ("allow always",
"reject always").

Remembering is per exact command for "shell", for all file changes
("write" and "edit" together, as `approvals.write` in the protocol) and per
server configuration and tool for "mcp" (whose modes come from `mcpServers`,
see agent/mcp): a server whose configuration changes is asked about again,
whether the remembered answer was "allow always" or "reject always".
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

Kind = Literal["shell", "write", "edit", "mcp", "rewind"]
Mode = Literal["ask", "always", "never"]
KINDS: tuple[str, ...] = ("shell", "write", "edit")
MODES: tuple[str, ...] = ("ask", "always", "never")


@dataclass(frozen=True)
class ApprovalRequest:
    kind: Kind
    command: str | None = None
    path: str | None = None
    diff: str | None = None
    server: str | None = None  # mcp: the configured server name
    tool: str | None = None  # mcp: the server's own tool name
    input: str | None = None  # mcp: the call's arguments as JSON
    checkpoint: str | None = None  # rewind: the checkpoint it restores
    paths: tuple[str, ...] | None = None  # rewind: files changed outside the agent it would overwrite
    config: str | None = None  # mcp: the server configuration's fingerprint (a remembered answer is tied to it)


@dataclass(frozen=True)
class ApprovalDecision:
    approved: bool
    remember: bool = False


ApprovalCallback = Callable[[ApprovalRequest], Awaitable[bool]]
Asker = Callable[[ApprovalRequest], Awaitable[bool | ApprovalDecision]]


async def auto_approve(request: ApprovalRequest) -> bool:
    return True


async def deny_all(request: ApprovalRequest) -> bool:
    return False


def _remember_key(request: ApprovalRequest) -> tuple[str, str | None]:
    if request.kind == "shell":
        return ("shell", request.command)
    if request.kind == "mcp":  # the same name pointed at another program is another server
        return ("mcp", f"{request.server}\x00{request.config}\x00{request.tool}")
    return ("files", None)  # write and edit share one "allow file changes" answer


class ApprovalPolicy:
    """Mode per kind + session memory in front of an asker. Callable as an ApprovalCallback."""

    def __init__(
        self,
        ask: Asker | None = None,
        *,
        shell: Mode = "ask",
        write: Mode = "ask",
        edit: Mode | None = None,
    ) -> None:
        self.ask = ask  # None: nobody can be asked, so "ask" means refuse
        self.modes: dict[str, str] = {}
        self.set_mode("shell", shell)
        self.set_mode("write", write)
        self.set_mode("edit", write if edit is None else edit)
        self._remembered: set[tuple[str, str | None]] = set()
        self._refused: set[tuple[str, str | None]] = set()  # "reject always" answers

    def set_mode(self, kind: str, mode: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown approval kind {kind!r}; expected one of {', '.join(KINDS)}")
        if mode not in MODES:
            raise ValueError(f"approvals.{kind} must be one of {', '.join(MODES)}, not {mode!r}")
        self.modes[kind] = mode

    def configure(self, approvals: Mapping[str, str]) -> None:
        """Apply the protocol's `approvals` settings; `write` also governs edits."""
        for kind, mode in approvals.items():
            self.set_mode(kind, mode)
            if kind == "write" and "edit" not in approvals:
                self.set_mode("edit", mode)

    def remember(self, request: ApprovalRequest, approved: bool = True) -> None:
        key = _remember_key(request)
        (self._remembered if approved else self._refused).add(key)
        (self._refused if approved else self._remembered).discard(key)

    def forget(self) -> None:
        """Drop session answers (new session)."""
        self._remembered.clear()
        self._refused.clear()

    def forget_mcp_servers(self, names: set[str]) -> None:
        """Drop the answers, yes or no, given for servers whose configuration changed or that were removed."""
        def kept(key: tuple[str, str | None]) -> bool:
            return not (key[0] == "mcp" and str(key[1]).split("\x00", 1)[0] in names)

        self._remembered = {key for key in self._remembered if kept(key)}
        self._refused = {key for key in self._refused if kept(key)}

    async def __call__(self, request: ApprovalRequest) -> bool:
        mode = self.modes.get(request.kind, "ask")
        if mode == "always":
            return True
        if mode == "never":
            return False
        key = _remember_key(request)
        if key in self._refused:
            return False
        if key in self._remembered:
            return True
        if self.ask is None:
            return False
        answer = await self.ask(request)
        if isinstance(answer, ApprovalDecision):
            if answer.remember:
                self.remember(request, answer.approved)
            return answer.approved
        return bool(answer)


def unified_diff(old: str | None, new: str, path: str) -> str:
    """Unified diff for an approval prompt; `old=None` means a new file."""
    fromfile = "/dev/null" if old is None else f"a/{path}"
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=fromfile,
        tofile=f"b/{path}",
    )
    # Lines without a trailing newline would glue onto the next diff line.
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
