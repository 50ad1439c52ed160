"""Asking the user before the agent runs commands or changes files.

Tools only see an `ApprovalCallback` (request → bool). `ApprovalPolicy` is
one: it applies the permission rules and the configured mode per kind
("ask" | "always" | "never") before falling back to an `Asker` (the LSP
confirm round-trip, the ACP permission request, the terminal prompt), which
may answer with a plain bool or an `ApprovalDecision` carrying
`remember=True` ("Always", ACP's "allow always" / "reject always").

A workspace rules file's allow rules apply only once the user accepted them
(`review_rules`, a request of kind "rules" showing the file's rules, asked once
per content and kept with the user's data); a write to a rules or
instructions file is asked whatever the mode (permissions/guarded.py).

Permission rules (agent/permissions) come first: a call a deny rule matches
is refused without asking (the agent loop does not even run the tool), an ask
rule asks whatever the mode, an allow rule approves without asking (unless the
mode is "never"). Only calls no rule covers go by the mode. "Always" in an
answer (`remember=True`) adds allow rules — the ones the request carries in
`rules`: each simple command of a shell line, the file's path, the MCP tool —
which the front end shows and may keep in the user's settings; a request that
carries none (a command line that cannot be parsed) is approved once. A
remembered refusal ("reject always", ACP) is kept for the session only, per
exact command, per MCP tool, or for all file changes, and refuses before any
allow rule.
An answer about an MCP tool is tied to the server's configuration: a server
whose configuration changes (or that is removed) is asked about again,
whether the answer was "allow always" or "reject always".
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from .mcp.names import server_prefix
from .permissions import Permissions, Relative, Verdict, request_call

Kind = Literal["shell", "write", "edit", "mcp", "rewind", "rules"]
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
    rules: tuple[str, ...] = ()  # the allow rules "Always" adds (filled in by the policy before it asks)
    config: str | None = None  # mcp: the server configuration's fingerprint (a remembered answer is tied to it)
    tool_use_id: str | None = None  # the tool call asking (set by the agent): the panel shows the question on its card
    subagent: str | None = None  # the subagent asking (its `task` description); tool_use_id is then its task call


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


def _refusal_key(request: ApprovalRequest) -> tuple[str, str | None]:
    """What a remembered refusal covers: the exact command, the MCP tool, or every file change."""
    if request.kind == "shell":
        return ("shell", request.command)
    if request.kind == "mcp":  # the same name pointed at another program is another server
        return ("mcp", f"{request.server}\x00{request.config}\x00{request.tool}")
    return ("files", None)  # write and edit share one "refuse file changes" answer


def _as_is(path: str) -> str | None:
    """A request's path as rules read it when its call was not screened: the workspace-relative path shown."""
    if not path or path.startswith("/") or ".." in path.split("/"):
        return None
    return path.removeprefix("./")


class ApprovalPolicy:
    """Permission rules, then the mode per kind, in front of an asker. Callable as an ApprovalCallback."""

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
        self.rules = Permissions()
        # Told of every approval (asked or not) before the call runs: a front end shows the call as running
        # from then on rather than waiting for its approval (ACP's tool call status, acp/stream.py).
        self.on_approved: Callable[[ApprovalRequest], Awaitable[None]] | None = None
        self._refused: set[tuple[str, str | None]] = set()  # "reject always" answers (this session)

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
        """"Always": the request's allow rules apply from now on (until the settings change);
        "reject always": the same request is refused for the rest of the session."""
        key = _refusal_key(request)
        if approved:
            self._refused.discard(key)
            self.rules.add(request.rules)
        else:
            self._refused.add(key)

    def forget(self) -> None:
        """Drop what "Always" and "reject always" added this session (new session)."""
        self.rules.forget()
        self._refused.clear()

    def screen(self, tool: str, tool_input: Mapping[str, Any], relative: Relative) -> Verdict:
        """What the rules say about a call before it runs (the agent loop refuses a deny at once)."""
        return self.rules.decide(tool, tool_input, relative)

    def bound(self, verdict: Verdict) -> ApprovalCallback:
        """The approval callback of one screened call: its verdict is not worked out again."""
        return _BoundApproval(self, verdict)

    def forget_mcp_servers(self, names: set[str]) -> None:
        """Drop the answers, yes or no, given for servers whose configuration changed or that were removed:
        the allow rules "Always" added for their tools and the remembered refusals."""
        prefixes = tuple(server_prefix(name) for name in names)
        self.rules.forget_added(lambda rule: rule.tool.startswith(prefixes))
        self._refused = {key for key in self._refused
                         if not (key[0] == "mcp" and str(key[1]).split("\x00", 1)[0] in names)}

    async def review_rules(self) -> None:
        """Ask the user about each workspace rules file whose allow rules wait for an answer (once per content;
        kind "rules": `path` the file, `diff` its rules). Until accepted, the file only tightens."""
        for pending in self.rules.pending():
            if self.ask is None:
                return  # nobody to ask: the files keep only tightening
            answer = await self.ask(ApprovalRequest("rules", path=pending.source, diff=pending.listing()))
            accepted = answer.approved if isinstance(answer, ApprovalDecision) else bool(answer)
            await asyncio.to_thread(self.rules.answer, pending, accepted)

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        """The decision and how it was reached (asked or not, the user's reason)."""
        tool, tool_input = request_call(request.kind, request.command, request.path, request.server, request.tool)
        return await self._decide(request, self.rules.decide(tool, tool_input, _as_is))

    async def __call__(self, request: ApprovalRequest) -> bool:
        return (await self.decide(request)).approved

    async def _decide(self, request: ApprovalRequest, verdict: Verdict) -> ApprovalDecision:
        decision = await self._decision(request, verdict)
        if decision.approved and self.on_approved is not None:
            await self.on_approved(request)
        return decision

    async def _decision(self, request: ApprovalRequest, verdict: Verdict) -> ApprovalDecision:
        mode = self.modes.get(request.kind, "ask")
        if verdict.decision == "deny" or mode == "never":
            return ApprovalDecision(False, asked=False)
        if _refusal_key(request) in self._refused:
            return ApprovalDecision(False, asked=False)
        if verdict.decision == "allow":
            return ApprovalDecision(True, asked=False)
        if mode == "always" and verdict.decision != "ask":
            return ApprovalDecision(True, asked=False)
        if self.ask is None:
            return ApprovalDecision(False, asked=False)
        request = replace(request, rules=verdict.suggestions) if verdict.suggestions else request
        answer = await self.ask(request)
        if not isinstance(answer, ApprovalDecision):
            return ApprovalDecision(bool(answer))
        if answer.remember:
            self.remember(request, answer.approved)  # the one place a remembered answer is kept
        return answer


class _BoundApproval:
    """The approval callback of one screened call (`ApprovalPolicy.bound`), which can also say how it decided."""

    def __init__(self, policy: ApprovalPolicy, verdict: Verdict) -> None:
        self._policy, self._verdict = policy, verdict

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return await self._policy._decide(request, self._verdict)

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
