"""The tool calls of one reply: screened by the rules, approved, run, capped, answered.

Every call gets its tool_result, in the order of the calls: a call a deny rule forbids
is refused (nobody is asked), one cut off by max_tokens is not run, and a cancel answers
the calls that did not finish. Then what the calls changed beside the history: the task
list, and the folders whose instruction files now apply.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from .. import events as ev
from ..approval import ApprovalCallback, ApprovalPolicy
from ..checkpoints import TurnRecorder
from ..instructions import Instructions
from ..mcp.manager import McpManager
from ..mcp.names import is_mcp_name
from ..mcp.tool_search import SEARCH_TOOLS
from ..permissions import Verdict
from ..plan_mode import PLAN, PLAN_REASON, refused_in_plan
from ..read_ledger import STATE_KEY as READS_KEY
from ..result_cap import capped
from ..shell_runner import ShellRunner
from ..todos import as_state
from ..todos import render as render_todos
from ..tool_approval import CallApproval
from ..tools import ToolContext, ToolOutput, run_tool
from ..tools.base import Withheld
from ..tools.editor import EditorQueries
from ..transcript import TranscriptTool, card_diff, tool_record, tool_summary
from ..workspace import Workspace
from .conversation import Conversation
from .head import PromptHead
from .recording import Emit, Recording


class TaskRunner(Protocol):
    """Runs the calls that start subagents (agent/subagents/runner.py: Subagents)."""

    def runs(self, name: str) -> bool: ...

    def start(self, use: dict[str, Any], emit: Emit, recorder: TurnRecorder | None) -> asyncio.Task[ToolOutput]: ...

    async def wait(self, running: dict[str, asyncio.Task[ToolOutput]]) -> dict[str, ToolOutput]: ...

    async def stop(self, running: dict[str, asyncio.Task[ToolOutput]]) -> None: ...

CANCELLED = "[cancelled by the user before this tool call finished]"
CUT_OFF = "[not run: the reply was cut off (max_tokens) before this tool call was complete; send it again, shorter]"


def refusal(verdict: Verdict) -> ToolOutput:
    """What the model is told when a deny rule stops a call: the rule, where it is written, and what it hit."""
    rule = verdict.rule
    assert rule is not None
    text = (f"Not run: the permission rule `{rule.text}` (deny, from {rule.source}) forbids `{verdict.subject}`. "
            "Do not retry it or look for a way around it; if it is needed, ask the user to change the rule.")
    return ToolOutput(text, True, f"denied by {rule.text}")


class ToolCalls:
    def __init__(self, conversation: Conversation, recording: Recording, head: PromptHead, workspace: Workspace,
                 approve: ApprovalCallback, policy: ApprovalPolicy | None, mcp: McpManager,
                 instructions: Instructions, *, editor: EditorQueries | None, shell: ShellRunner | None,
                 shell_timeout: float) -> None:
        self.conversation = conversation
        self.recording = recording
        self.head = head
        self.workspace = workspace
        self.approve = approve
        self.policy = policy  # the front end's approval policy, when it gave one (Agent.policy)
        self.mcp = mcp
        self.instructions = instructions
        self.editor = editor
        self.shell = shell  # where commands run (None: in this process)
        self.shell_timeout = shell_timeout
        self.subagents: TaskRunner | None = None  # runs `task` calls (agent/subagents), when the agent offers them

    async def run(self, uses: list[dict[str, Any]], emit: Emit, cut_off: bool,
                  recorder: TurnRecorder | None = None) -> None:
        conversation, recording, policy = self.conversation, self.recording, self.policy
        outputs: dict[str, ToolOutput] = {}
        approvals: dict[str, CallApproval] = {}
        running: dict[str, asyncio.Task[ToolOutput]] = {}  # `task` calls: their subagents run side by side
        try:
            for use in uses:
                name, tool_input = use.get("name", ""), use.get("input") or {}
                await emit(ev.ToolStart(use["id"], name, tool_summary(name, tool_input)))
                verdict = policy.screen(name, tool_input, self._relative) if policy is not None and \
                    isinstance(tool_input, dict) else None
                # The call's own verdict (not worked out again when asked), asked on its own card, then the
                # checkpoint's snapshot once it is approved.
                bound = policy.bound(verdict) if policy is not None and verdict is not None else self.approve
                approval = approvals[use["id"]] = self._approval(bound, use["id"])
                approve: ApprovalCallback = recorder.watching(approval) if recorder is not None else approval
                store = conversation.engine.store
                ctx = ToolContext(self.workspace, approve, store=store, shell_timeout=self.shell_timeout,
                                  editor=self.editor, shell=self.shell, todos=conversation.task_list,
                                  withheld=self._withheld(name))
                if cut_off:
                    output = ToolOutput(CUT_OFF, True, f"{name}: cut off")
                elif conversation.mode == PLAN and (refused := refused_in_plan(name)) is not None:
                    output = refused  # plan mode: only reading and searching run, and nobody is asked
                    approval.outcome, approval.reason = "refused", PLAN_REASON
                elif verdict is not None and verdict.decision == "deny":
                    output = refusal(verdict)  # not run, and nobody is asked
                    approval.outcome = "refused"
                elif (outside := self._outside(name)) is not None:
                    output = outside  # a tool this (sub)agent was not given: not run, nobody is asked
                    approval.outcome = "refused"
                elif name == SEARCH_TOOLS:
                    output = self.head.search.run(tool_input)  # loads schemas: the next request offers them
                elif self.subagents is not None and self.subagents.runs(name):
                    running[use["id"]] = self.subagents.start(use, emit, recorder)
                    continue  # its answer comes when its subagent ends (below), with the others'
                elif is_mcp_name(name):
                    output = await self.mcp.call(name, tool_input, approve=approve, store=store, tool_use_id=use["id"])
                else:
                    output = await run_tool(name, tool_input, ctx)
                # at most RESULT_CAP_BYTES of any result is kept (result_cap.py); a refusal's reason is told
                outputs[use["id"]] = replace(output, text=approval.told(capped(output.text)))
                if not output.is_error:
                    await conversation.reads.saw(self.workspace, name, tool_input)
                if recorder is not None:
                    await recorder.tool_done()
            if running:
                assert self.subagents is not None
                for tool_use_id, output in (await self.subagents.wait(running)).items():
                    outputs[tool_use_id] = replace(output, text=capped(output.text))
                    if recorder is not None:
                        await recorder.tool_done()
        except asyncio.CancelledError:
            if running:  # no subagent goes on (or sends a request) once the turn is stopped
                assert self.subagents is not None
                await self.subagents.stop(running)
            self._answer(uses, outputs, default=ToolOutput(CANCELLED, True, "cancelled"))
            for use in uses:
                if use["id"] not in outputs:
                    recording.remember(tool_record(conversation.turn_id, TranscriptTool(
                        use["id"], use.get("name", ""), "cancelled", True, len(CANCELLED), done=False)))
            raise
        await self._after(uses, outputs, emit)
        cut = self._answer(uses, outputs)
        for use in uses:
            output, approval = outputs[use["id"]], approvals[use["id"]]
            marker = "truncated" if use["id"] in cut else ""
            card = TranscriptTool(use["id"], use.get("name", ""), output.summary, output.is_error, len(output.text),
                                  marker, diff=card_diff(approval.diff),  # bounded: stored, sent on resume
                                  approval=approval.outcome, reason=approval.reason)
            recording.remember(tool_record(conversation.turn_id, card))
            await emit(ev.ToolEnd(use["id"], card.name, card.summary, card.is_error, card.result_chars, marker,
                                  card.approval, card.diff, card.reason))
        await emit(ev.ContextUsage(self.head.meter()))

    def _approval(self, bound: ApprovalCallback, tool_use_id: str) -> CallApproval:
        """The approval callback of one call (a subagent's names itself and asks on its task's card)."""
        return CallApproval(bound, tool_use_id)

    def _outside(self, name: str) -> ToolOutput | None:
        """The refusal of a tool this agent was not given (a subagent's subset); None: it may run."""
        return None

    def _relative(self, raw: str) -> str | None:
        """A path as the model wrote it → workspace-relative (what path rules match); None outside the roots."""
        try:
            path = self.workspace.resolve(raw)
        except Exception:  # noqa: BLE001 - refused or malformed: no path rule can match it
            return None
        root = self.workspace.root_of(path)
        return path.relative_to(root).as_posix() if root is not None else None

    def _withheld(self, tool: str) -> Withheld | None:
        """What the deny rules keep from a listing or a search by this tool (by workspace-relative path)."""
        policy = self.policy
        if policy is None:
            return None

        def withheld(path: Path, is_dir: bool) -> bool:
            root = self.workspace.root_of(path)
            if root is None:
                return False
            relative = path.relative_to(root).as_posix()
            return policy.rules.withholds(tool, relative + "/" if is_dir and relative != "." else relative)

        return withheld

    def _answer(self, uses: list[dict[str, Any]], outputs: dict[str, ToolOutput],
                default: ToolOutput | None = None) -> list[str]:
        blocks = []
        for use in uses:
            output = outputs.get(use["id"], default)
            assert output is not None  # without a default (a turn not cancelled), every use ran and has its output
            block = {"type": "tool_result", "tool_use_id": use["id"], "content": output.text or "(empty)"}
            if output.is_error:
                block["is_error"] = True
            blocks.append(block)
        return self.recording.add_user(blocks)

    # -- what the calls changed beside the history --------------------------------------

    async def _after(self, uses: list[dict[str, Any]], outputs: dict[str, ToolOutput], emit: Emit) -> None:
        """The task list, the files read, the instruction folders the calls reached."""
        conversation = self.conversation
        todos = conversation.task_list
        if todos.version != conversation.todos_seen:
            conversation.todos_seen = todos.version
            conversation.engine.pinned = render_todos(todos.items)
            self.recording.save(lambda session: session.state({"todos": as_state(todos.items)}))
            await emit(ev.TodosChanged(list(todos.items)))
        touched = [use.get("input") or {} for use in uses
                   if use["id"] in outputs and not outputs[use["id"]].is_error]
        if (reads := conversation.reads.unsaved_state()) is not None:  # a restart still knows what was read
            self.recording.save(lambda session: session.state({READS_KEY: reads}))
        new = await asyncio.to_thread(self._activate, touched)
        if new:
            folders = [str(folder) for folder in self.instructions.activated]
            self.recording.save(lambda session: session.state({"instruction_folders": folders}))

    def _activate(self, inputs: list[Any]) -> list[Path]:
        """Paths the calls named (a `path`, or a shell command's words that are paths here): their folders'
        instruction files apply from now on. Runs in a thread (it looks at the disk)."""
        paths: list[Path] = []
        for tool_input in inputs:
            if not isinstance(tool_input, dict):
                continue
            raw = tool_input.get("path")
            words = [raw] if isinstance(raw, str) and raw else []
            command = tool_input.get("command")
            if isinstance(command, str):
                try:
                    words += [w for w in shlex.split(command) if not w.startswith("-")]
                except ValueError:
                    words += command.split()
            for word in words:
                with contextlib.suppress(Exception):
                    path = self.workspace.resolve(word)
                    if path.exists():
                        paths.append(path)
        return self.instructions.activate(paths, list(self.workspace.roots)) if paths else []
