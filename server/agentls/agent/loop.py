"""The agent: one conversation with the model, its tools and its session, for a front end to host.

One turn runs at a time. Cancelling it at any point leaves a valid history:
a tool call cut short gets a tool_result saying so, a model call cut short
leaves its partial reply marked as interrupted (the next prompt is its own message).

`Agent` is the façade the front ends and agent/runtime.py call; the work is done
by its collaborators in agent/turn/ (the turn's steps, tool calls, the prompt
head, the recording, restore, compaction, rewind, the one-at-a-time claim),
which share one Conversation.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from ..context import ContextConfig, ContextEngine
from ..context.attachments import Attachment
from ..context.images import ImageAttachment
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from ..context.tokens import estimate_tokens
from ..model import ModelClient, ModelSettings
from ..model.pricing import CostReport
from . import events as ev
from .approval import ApprovalCallback, ApprovalPolicy, deny_all
from .cache_report import CacheReport
from .checkpoints import Checkpoints, RewindResult
from .instructions import Instructions
from .mcp.config import ServerConfig
from .mcp.limits import tool_token_warnings
from .mcp.manager import McpManager
from .plan_mode import ACT, MODE, checked
from .sent import COMPACTED, SentLog, ToolResultView, tool_result_view
from .shell_runner import ShellRunner
from .store import Session
from .subagents.child import Parent
from .subagents.runner import Subagents
from .subagents.tool import TASK
from .subagents.transcript import SUFFIX as TRANSCRIPT
from ..context.store import REF_SCHEME
from .todos import TodoItem, TodoList
from .tools.editor import EditorQueries
from .transcript import TranscriptBuilder, TranscriptEntry, with_checkpoints
from .turn.claim import Claim
from .turn.compaction import Compaction
from .turn.conversation import Conversation
from .turn.head import PromptHead
from .turn.recording import Recording
from .turn.restore import Restorer
from .turn.rewind import Rewinder
from .turn.steps import TurnResult, TurnSteps
from .turn.tool_calls import ToolCalls
from .userconfig import config_dir
from .views import ContextDetails, InstructionFileView
from .workspace import Workspace


class Agent:
    """One conversation: its turns, its views, and the switch to another (new, resumed, rewound)."""

    def __init__(self, workspace: Workspace, model: ModelSettings | None = None, *,
                 context: ContextConfig | None = None, approve: ApprovalCallback = deny_all,
                 session: Session | None = None, clock: Callable[[], float] = time.time,
                 shell_timeout: float = 120.0, editor: EditorQueries | None = None,
                 mcp_servers: tuple[ServerConfig, ...] = (), shell: ShellRunner | None = None) -> None:
        self.workspace = workspace
        self.model_settings = model or ModelSettings()
        self.approve = approve
        self.clock = clock
        self.shell_timeout = shell_timeout
        self.shell = shell  # where commands run (None: in this process)
        self.editor = editor
        self.mcp = McpManager(mcp_servers, cwd=str(workspace.roots[0]) if workspace.roots else None)
        self.instructions = Instructions(config_dir())
        # the collaborators (agent/turn/), all over one Conversation: each reads the engine, the session
        # and the transcript there, so a new chat or a rewind that replaces them is seen by all at once
        conversation = self._conversation = Conversation(ModelClient(self.model_settings),
                                                         context or ContextConfig(text_calls=False), session)
        self._claim = Claim()
        head = self._head = PromptHead(conversation, workspace, self.instructions, self.mcp, editor, self.policy,
                                       offers_task=True)
        conversation.engine = head.new_engine()
        recording = self._recording = Recording(conversation)
        self._restorer = Restorer(conversation, head, workspace, self.instructions)
        self._compaction = Compaction(conversation, head, recording, self._claim)
        tool_calls = ToolCalls(conversation, recording, head, workspace, approve, self.policy, self.mcp,
                               self.instructions, editor=editor, shell=shell, shell_timeout=shell_timeout)
        tool_calls.subagents = self.subagents = Subagents(Parent(
            conversation, head, workspace, self.instructions, self.mcp, editor, approve, self.policy, shell,
            shell_timeout, clock, lambda: self.model_settings, recording))
        self._steps = TurnSteps(conversation, head, recording, tool_calls, self._compaction, clock)
        self._rewinder = Rewinder(conversation, head, self._restorer)
        if session is not None:
            self._restorer.open_checkpoints(session)
            self._restorer.restore(session)
        self.instructions.refresh(self.workspace.roots)
        self._head.resized()

    # -- the conversation's state, as the collaborators share it ------------------

    @property
    def engine(self) -> ContextEngine:
        return self._conversation.engine

    @engine.setter
    def engine(self, engine: ContextEngine) -> None:
        self._conversation.engine = engine

    @property
    def session(self) -> Session | None:
        return self._conversation.session

    @property
    def client(self) -> ModelClient:
        return self._conversation.client

    @property
    def sent(self) -> SentLog:
        return self._conversation.sent

    @property
    def record(self) -> TranscriptBuilder:
        return self._conversation.record

    @property
    def task_list(self) -> TodoList:
        return self._conversation.task_list

    @property
    def checkpoints(self) -> Checkpoints | None:
        return self._conversation.checkpoints

    @property
    def system(self) -> str:
        return self._head.system

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self._head.tools

    @property
    def tool_list_changes(self) -> int:
        return self._head.tool_list_changes

    @property
    def instruction_changes(self) -> int:
        return self._head.instruction_changes

    @property
    def policy(self) -> ApprovalPolicy | None:
        """The approval policy when the front end gave one (it holds the permission rules)."""
        return self.approve if isinstance(self.approve, ApprovalPolicy) else None

    # -- settings and lifetime -----------------------------------------------------

    def session_problems(self) -> list[str]:
        """What the user should hear about the session (damage set aside, not saved). Front ends
        may show them at start; the next turn notes them in the chat (error events), once."""
        return list(self.session.problems) if self.session is not None else []

    def reconfigure(self, model: ModelSettings | None = None, context: ContextConfig | None = None,
                    mcp_servers: tuple[ServerConfig, ...] | None = None) -> None:
        """New settings from the editor, no restart; the conversation is kept."""
        if mcp_servers is not None:
            changed = self.mcp.configure(mcp_servers)  # the tool list follows at the next turn start
            forget = getattr(self.approve, "forget_mcp_servers", None)
            if changed and forget is not None:
                forget(changed)  # an answer remembered for a server is not one for what replaced it
        if model is not None and model != self.model_settings:
            old = self._conversation.client
            self.model_settings = model
            self._conversation.client = ModelClient(model)
            self._conversation.client.costs = old.costs
            # the same conversation goes on: drop_block if it needed it, and diagnostics compared with its last reply
            self._conversation.client.begin_conversation(drop_mismatched_thinking=old.drop_mismatched_thinking,
                                                         previous_message_id=old.previous_message_id)
            old.costs.retarget(model.model, model.prices)  # cost views name the model that answers now
            self.retire(old.aclose)
        if context is not None:
            self._conversation.config = context
            self._head.resized()

    async def aclose(self) -> None:
        await self._claim.stop()  # the turn ends with a valid history before its client is closed
        await self.mcp.aclose()
        await self._claim.close_retired(force=True)
        await self.client.aclose()
        if self.session is not None:
            self.session.close()

    # -- one thing at a time ---------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._claim.busy

    def exclusive(self, what: str) -> AbstractContextManager[None]:
        """Claim the conversation for `what` (turn/claim.py): AgentBusy while another holds it."""
        return self._claim.exclusive(what)

    def retire(self, close: Callable[[], Awaitable[Any]]) -> None:
        """Close something a running call may still use (an old model client, a demo model) once idle."""
        self._claim.retire(close)

    # -- plan mode (agent/plan_mode.py) ------------------------------------------------

    @property
    def mode(self) -> str:
        """"plan" (read and search only, until the user approves a plan) or "act"."""
        return self._conversation.mode

    def set_mode(self, mode: str) -> bool:
        """Switch plan mode on or off (ModeError for a mode there is not); True when it changed. Saved with
        the session at once; the model is told before its next request; mid-turn, the next tool call obeys it."""
        mode = checked(mode)
        conversation = self._conversation
        if mode == conversation.mode:
            return False
        conversation.mode = mode
        self._recording.save(lambda session: session.state({MODE: mode}))
        return True

    # -- a turn, a compaction -------------------------------------------------------

    async def run_turn(self, prompt: str, on_event: ev.EventSink | None = None,
                       attachments: list[Attachment | ImageAttachment] | None = None,
                       turn_id: str | None = None) -> TurnResult:
        """One turn. Attachments are files and selections (text) and images; an image the API
        would refuse, or images too large for the window, raise AgentInputError before anything runs."""
        turn_id = turn_id or uuid.uuid4().hex[:12]
        with self._claim.exclusive("turn"):
            return await self._steps.run(turn_id, prompt, attachments or [], on_event)

    def check_images(self, images: list[ImageAttachment]) -> None:
        """AgentInputError when these images, sent as one message, could not fit a request (a front
        end may ask before it starts a turn; run_turn asks again)."""
        self._steps.check_images(images)

    async def compact(self, instructions: str | None = None, on_event: ev.EventSink | None = None) -> CompactionResult:
        """Manual compaction (/compact); the conversation must not be mid-turn."""
        return await self._compaction.manual(instructions, on_event)

    # -- views -----------------------------------------------------------------------

    def cost(self) -> CostReport:
        """This conversation's costs, its subagents' included (each named: CostReport.subagents)."""
        return self._conversation.subagents.rolled_into(self.client.costs.report())

    def cache_report(self) -> CacheReport | None:
        """Why the prompt cache missed, request by request, and the thinking the API dropped (/cost, /context);
        None while there is nothing to tell (no diagnosed miss, no transformation, no server-side edit)."""
        report = self._conversation.cache.report()
        return report if report.notable else None

    def context_usage(self) -> ContextReport:
        """The meter's figures (status bar, chat header, prompt)."""
        return self._head.meter()

    def todos(self) -> tuple[TodoItem, ...]:
        """The task list as the model last wrote it (todo_write)."""
        return self.task_list.items

    def tool_result(self, tool_use_id: str, with_original: bool = False) -> ToolResultView | None:
        """A tool call's input and its result as the model last saw it (agent/toolResult); for
        `<task call id>/transcript`, that subagent's whole transcript.

        Only this session's calls: a card of the transcript whose call a compaction summarised away
        before this process started still names its own tool and input (from its record)."""
        if tool_use_id.endswith(TRANSCRIPT):  # `<task call>/transcript`: a subagent's whole transcript
            text = self.engine.store.get(f"{REF_SCHEME}{tool_use_id}")
            return None if text is None else ToolResultView(
                tool_use_id, TASK, {}, False, text, True, "", "", None, f"{REF_SCHEME}{tool_use_id}", len(text),
                text if with_original else None)
        view = tool_result_view(self.sent, self.engine, tool_use_id, with_original)
        card = self.record.tool(tool_use_id)
        if card is None or (view is not None and view.tool):
            return view
        if view is None:
            return ToolResultView(tool_use_id, card.name, card.input or {}, card.is_error, "", True, COMPACTED,
                                  COMPACTED, None, "", card.result_chars)
        return replace(view, tool=card.name, input=card.input or {})

    def context(self) -> ContextDetails:
        """The meter's figures and what explains them (agent/context, /context)."""
        files = tuple(InstructionFileView(item.shown, item.scope, estimate_tokens(len(item.text)), item.chars, item.cut)
                      for item in self.instructions.files)
        report = self.context_usage()
        per_server = tuple(self.mcp.tool_tokens(estimate_tokens))  # their definitions' size
        search = self._head.search.view()
        warnings = [*(tool_token_warnings(per_server, report.window) if not search.deferred else ()),
                    *(f"{item.shown}: {item.note}" for item in self.instructions.files if item.left_out)]
        return ContextDetails(report, tuple(self.engine.placeholders()), per_server, self.tool_list_changes,
                              files, self.instruction_changes, tuple(warnings), self.cache_report(),
                              search if search.offered or search.deferred else None)  # None: no MCP tools

    def history(self) -> list[dict[str, Any]]:
        return list(self.engine.history.messages)

    async def transcript(self) -> list[TranscriptEntry]:
        """The conversation as the user saw it (the transcript of record, never the model's rewritten
        history), for a resumed panel, the terminal's /resume or ACP's session/load; each prompt with
        its checkpoint (what a rewind to before it restores)."""
        entries = [replace(e, tools=[replace(t) for t in e.tools]) for e in self.record.entries]
        if self.checkpoints is None:
            return entries
        turns = [(c.id, c.prompt) for c in await self.checkpoints.all() if c.kind == "turn" and not c.cut]
        return with_checkpoints(entries, turns)

    # -- another conversation: new, resumed, rewound ------------------------------------

    def clear(self, new_session: Session | None = None) -> None:
        """A fresh conversation; the old session stays on disk."""
        with self._claim.exclusive("new chat"):
            conversation = self._conversation
            if conversation.session is not None:
                conversation.session.close()
            conversation.session = new_session
            self._restorer.open_checkpoints(new_session)
            self._recording.forget_failure()
            conversation.task_list, conversation.todos_seen = TodoList(), 0
            conversation.mode = ACT  # a new conversation acts until the user turns plan mode on
            self._head.new_conversation()
            # its own cache-diagnostics chain (the first request opts in, naming no reply of another chat) and
            # no drop_block until one of its own blocks needs it; a resumed one takes both back from its records
            conversation.client.begin_conversation()
            conversation.start(self._head.new_engine())
            conversation.view.forget()

    def resume(self, session: Session) -> None:
        """Continue another conversation: its history, its costs; the current one stays on disk."""
        with self._claim.exclusive("session switch"):
            self.clear(session)
            self._restorer.restore(session)

    def note(self, level: str, text: str) -> None:
        """A note into the transcript of record outside a turn (a restore's outcome): a resumed panel shows it."""
        self._recording.note(level, text)

    def require_checkpoints(self) -> Checkpoints:
        return self._rewinder.checkpoints()

    async def rewind(self, checkpoint_id: str, restore: str, confirm) -> RewindResult:
        """Restore the files ("code"), cut the conversation back to before the checkpoint's prompt
        ("conversation"), or both. `confirm(plan)` is asked when files changed outside the agent."""
        with self._claim.exclusive("rewind"):
            return await self._rewinder.rewind(checkpoint_id, restore, confirm)

    async def fork_point(self, checkpoint_id: str) -> tuple[int, float]:
        """(record seq, time) where a fork at this checkpoint cuts the conversation."""
        return await self._rewinder.fork_point(checkpoint_id)
