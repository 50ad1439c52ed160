"""Asking the user before the agent runs commands or changes files.

Tools only see an `ApprovalCallback` (request → bool). `ApprovalPolicy` is
one: it applies the configured mode per kind ("ask" | "always" | "never")
and a session "remember" set before falling back to an `Asker` (the LSP
confirm round-trip), which may answer with a plain bool or an
`ApprovalDecision` carrying `remember=True`.

Remembering is per exact command for "shell", for all file changes
("write" and "edit" together, as `approvals.write` in the protocol) and per
server and tool for "mcp" (whose modes come from `mcpServers`, see agent/mcp).
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
    tool_use_id: str | None = None  # the tool call asking (set by the agent): the panel shows the question on its card


@dataclass(frozen=True)
class ApprovalDecision:
    approved: bool
    remember: bool = False
    reason: str = ""  # why the user refused, in their words ("" when none was given)
    asked: bool = True  # False: decided by the settings or an earlier "Always", nobody was asked

    @property
    def outcome(self) -> str:
        """How the call was decided, as a tool card shows it: approved, always, rejected, auto, refused."""
        if not self.asked:
            return "auto" if self.approved else "refused"
        if self.approved:
            return "always" if self.remember else "approved"
        return "rejected"


ApprovalCallback = Callable[[ApprovalRequest], Awaitable[bool]]
Asker = Callable[[ApprovalRequest], Awaitable[bool | ApprovalDecision]]


async def auto_approve(request: ApprovalRequest) -> bool:
    return True


async def deny_all(request: ApprovalRequest) -> bool:
    return False


def _remember_key(request: ApprovalRequest) -> tuple[str, str | None]:
    if request.kind == "shell":
        return ("shell", request.command)
    if request.kind == "mcp":
        return ("mcp", f"{request.server}\x00{request.tool}")
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

    def remember(self, request: ApprovalRequest) -> None:
        self._remembered.add(_remember_key(request))

    def forget(self) -> None:
        """Drop session answers (new session)."""
        self._remembered.clear()

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        """The decision and how it was reached (asked or not, the user's reason)."""
        mode = self.modes.get(request.kind, "ask")
        if mode in ("always", "never"):
            return ApprovalDecision(mode == "always", asked=False)
        if _remember_key(request) in self._remembered:
            return ApprovalDecision(True, asked=False)
        if self.ask is None:
            return ApprovalDecision(False, asked=False)
        answer = await self.ask(request)
        if not isinstance(answer, ApprovalDecision):
            return ApprovalDecision(bool(answer))
        if answer.approved and answer.remember:
            self.remember(request)  # "Always": the one place a remembered answer is kept
        return answer

    async def __call__(self, request: ApprovalRequest) -> bool:
        return (await self.decide(request)).approved


async def decide(approve: ApprovalCallback, request: ApprovalRequest) -> ApprovalDecision:
    """Any approval callback's answer as a decision (a plain callback counts as asked)."""
    deciding = getattr(approve, "decide", None)
    if deciding is not None:
        return await deciding(request)
    return ApprovalDecision(bool(await approve(request)))


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
