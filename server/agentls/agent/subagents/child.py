"""One subagent: the agent's own turn machinery (agent/turn/) over a history, window and tool set of its own.

Nothing is duplicated: a child is a Conversation with its own ModelClient (so its own costs),
its own ContextEngine (its own pipeline and window), a PromptHead that offers only its tools,
a ToolCalls that refuses the others and asks the user on the parent's `task` card naming the
child, and the same TurnSteps. It shares with its parent what is the user's and the workspace's:
the approval policy and rules, the instruction files as the parent has them, the editor, where
commands run, the result store (its originals stay readable as context:// refs) and the parent
turn's checkpoint (a child's writes are rewound with the turn).

A fork starts from the parent's working view exactly as the parent last sent it (its rows and
policy state, context/engine_state.py) with the parent's system prompt and tools, so its first
request repeats the parent's prefix byte for byte and reads it from the prompt cache; a model
that binds thinking to its prefix (model/binding.py) accepts it for the same reason.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...context import ContextEngine
from ...context.blocks import blocks_of
from ...context.engine_state import engine_state, message_row, restore
from ...model import ModelClient, ModelSettings
from .. import events as ev
from ..approval import ApprovalCallback, ApprovalPolicy
from ..checkpoints import TurnRecorder
from ..instructions import Instructions
from ..mcp.manager import McpManager
from ..shell_runner import ShellRunner
from ..tool_approval import CallApproval
from ..tools import ToolOutput
from ..tools.editor import EditorQueries
from ..turn.claim import Claim
from ..turn.compaction import Compaction
from ..turn.conversation import Conversation
from ..turn.head import PromptHead
from ..turn.recording import Emit, Recording
from ..turn.steps import TurnSteps
from ..turn.tool_calls import ToolCalls
from ..workspace import Workspace
from .tool import TASK, TaskInput, allowed

SUBAGENT_NOTE = (
    "\n\n# You are a subagent\n\nAnother agent started you for one task, described in the first message. It sees "
    "none of your work except your final reply, which is returned to it as the result of its `task` call: end "
    "with a complete, self-contained answer (what you found, with file paths and line numbers, or what you "
    "did). Use only the tools you were given.")
FORKED = ("[This call started you: a subagent forked from this conversation. Do the task below yourself with "
          "the tools you were given (not `task`); your final reply is returned as this call's result.]")
SIBLING = "[Not yours: this call runs elsewhere (the parent agent or another subagent).]"


@dataclass
class Parent:
    """What a subagent takes from the agent that starts it (read when each task starts)."""

    conversation: Conversation
    head: PromptHead
    workspace: Workspace
    instructions: Instructions
    mcp: McpManager
    editor: EditorQueries | None
    approve: ApprovalCallback
    policy: ApprovalPolicy | None
    shell: ShellRunner | None
    shell_timeout: float
    clock: Callable[[], float]
    settings: Callable[[], ModelSettings]  # the parent's model settings now (a reconfigure changes them)
    recording: Recording | None = None  # the parent's: a child's card is kept in its transcript of record


class ChildHead(PromptHead):
    """The prompt head of a subagent: its tools only, and the parent's instructions as they are now (never
    re-read: the parent does that). A fork's head is the parent's, unchanged (its cached prefix)."""

    def __init__(self, conversation: Conversation, parent: Parent, tools: frozenset[str], fork: bool) -> None:
        self.allowed, self.fork = tools, fork
        self._store = parent.conversation.engine.store
        self._fork_head = (parent.head.system, copy.deepcopy(parent.head.tools)) if fork else None
        super().__init__(conversation, parent.workspace, parent.instructions, parent.mcp, parent.editor,
                         parent.policy)

    @property
    def live_system(self) -> str:
        return self._fork_head[0] if self._fork_head is not None else super().live_system + SUBAGENT_NOTE

    def _builtin_tools(self) -> list[dict[str, Any]]:
        if self._fork_head is not None:
            return copy.deepcopy(self._fork_head[1])
        return [tool for tool in super()._builtin_tools() if tool["name"] in self.allowed]

    def new_engine(self) -> ContextEngine:
        return ContextEngine(config=self._config(), store=self._store)  # the parent's originals, and its own

    async def refresh_tools(self) -> None:
        if self._fork_head is not None:
            return
        tools = self._builtin_tools() + [t for t in self.mcp.definitions() if t["name"] in self.allowed]
        if tools != self.live_tools:
            self.live_tools = tools
            self.resized()

    async def refresh_rules(self, emit: Emit) -> None:
        return None  # read by the parent at its turn start; the child runs within that turn

    async def refresh_instructions(self) -> None:
        self.resized()
        self.tell_mode()


class ChildToolCalls(ToolCalls):
    """The child's tool calls: only its tools run; approvals are asked on the parent's `task` card, naming it;
    a file it changes goes into the parent turn's checkpoint."""

    allowed: frozenset[str] = frozenset()
    task_call, name = "", ""
    parent_recorder: TurnRecorder | None = None

    def _approval(self, bound: ApprovalCallback, tool_use_id: str) -> CallApproval:
        return CallApproval(bound, self.task_call, subagent=self.name)

    def _outside(self, name: str) -> ToolOutput | None:
        if name in self.allowed:
            return None
        given = ", ".join(sorted(self.allowed)) or "none"
        return ToolOutput(f"Not run: this subagent was not given `{name}` (its tools: {given}). Do the task "
                          "with those, or say in your answer what else is needed.", True, f"{name}: not given")

    def _activate(self, inputs: list[Any]) -> list[Any]:
        return []  # the instruction folders are the parent's to activate

    async def run(self, uses: list[dict[str, Any]], emit: Emit, cut_off: bool,
                  recorder: TurnRecorder | None = None) -> None:
        await super().run(uses, emit, cut_off, recorder or self.parent_recorder)


class SharedRecorder(TurnRecorder):
    """A child's part of the parent turn's checkpoint. Children run side by side, so each keeps its own
    "before" snapshot (one shared one would let a second write go unrecorded), and every change it sees goes
    into the parent's record of the turn, which the parent alone finishes."""

    def __init__(self, parent: TurnRecorder) -> None:  # not super(): the parent's checkpoint, not a new one
        self.owner, self.checkpoint = parent.owner, parent.checkpoint
        self._before, self._paths = None, None
        self._changes = parent._changes  # the same dict: the turn's changes, path → [first before, last after]


class ChildRecording(Recording):
    """Keeps what the child said and did (its transcript) and the text of its last reply (its answer)."""

    def __init__(self, conversation: Conversation) -> None:
        super().__init__(conversation)
        self.messages: list[dict[str, Any]] = []
        self.answer = ""

    def log(self, message: dict[str, Any]) -> None:
        self.messages.append(copy.deepcopy(message))

    def reply_shown(self, content: list[dict[str, Any]]) -> None:
        super().reply_shown(content)
        self.answer = "\n\n".join(b["text"] for b in content if b.get("type") == "text" and b.get("text"))


class Child:
    """A subagent, ready to run its one turn."""

    def __init__(self, parent: Parent, task: TaskInput, task_call: str, recorder: TurnRecorder | None) -> None:
        self.task, self.task_call = task, task_call
        settings = parent.settings()
        if task.model:
            settings = replace(settings, model=task.model)
        self.model = settings.model
        self.client = ModelClient(settings)
        conversation = self.conversation = Conversation(self.client, parent.conversation.config, None)
        conversation.mode = parent.conversation.mode  # a child of plan mode only reads too
        self.tools = allowed(task)
        head = ChildHead(conversation, parent, self.tools, task.fork)
        conversation.engine = head.new_engine()
        if task.fork:
            self._fork(parent.conversation)
        self.recording = ChildRecording(conversation)
        compaction = Compaction(conversation, head, self.recording, Claim())
        tool_calls = ChildToolCalls(conversation, self.recording, head, parent.workspace, parent.approve,
                                    parent.policy, parent.mcp, parent.instructions, editor=parent.editor,
                                    shell=parent.shell, shell_timeout=parent.shell_timeout)
        tool_calls.allowed, tool_calls.task_call, tool_calls.name = self.tools, task_call, task.name
        tool_calls.parent_recorder = SharedRecorder(recorder) if recorder is not None else None
        self._steps = TurnSteps(conversation, head, self.recording, tool_calls, compaction, parent.clock)

    def _fork(self, parent: Conversation) -> None:
        """The parent's working view as it last sent it, then the answers to its last reply's calls."""
        source = parent.engine
        rows = [copy.deepcopy(message_row(source, i)) for i in range(len(source.history.messages))]
        restore(self.conversation.engine, rows, copy.deepcopy(engine_state(source)))
        self.client.begin_conversation(drop_mismatched_thinking=parent.client.drop_mismatched_thinking,
                                       previous_message_id=parent.client.previous_message_id)
        engine = self.conversation.engine
        last = engine.history.messages[-1] if engine.history.messages else {}
        uses = [b.get("id") for b in blocks_of(last) if b.get("type") == "tool_use"] \
            if last.get("role") == "assistant" else []
        if uses:
            engine.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": i, "content": FORKED if i == self.task_call else SIBLING}
                for i in uses]})

    async def run(self, on_event: ev.EventSink) -> str:
        """The child's one turn; its final reply (AgentError when the model failed, CancelledError when stopped)."""
        await self._steps.run(f"sub-{uuid.uuid4().hex[:10]}", self.task.prompt, [], on_event)
        return self.recording.answer

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.recording.messages

    def cost(self) -> tuple[int, Any, float]:
        report = self.client.costs.report()
        return report.requests, report.usage, report.usd

    async def aclose(self) -> None:
        await self.client.aclose()


__all__ = ["TASK", "Child", "Parent"]
