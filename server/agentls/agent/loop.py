"""The agent turn: user text -> pipeline -> model stream -> tools -> repeat.

One turn runs at a time. Cancelling it at any point leaves a valid history:
a tool call cut short gets a tool_result saying so, a model call cut short
leaves the history ending with the user's message (the next prompt joins it).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import shlex
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..context import ContextConfig, ContextEngine
from ..context.attachments import Attachment, attachment_block
from ..context.compact import SummaryError
from ..context.engine_state import StateError, restore as restore_engine
from ..context.images import ImageAttachment, ImageError, image_block
from ..context.oversize import USER_SHARE
from ..context.pipeline import CompactionResult, NothingToGain, Prepared
from ..context.report import ContextReport
from ..context.rewrite import MARKER
from ..context.usage import Usage
from ..model import ModelClient, ModelError, ModelSettings
from ..model import events as model_events
from ..model.errors import is_too_long
from ..model.pricing import CostReport
from . import events as ev
from .approval import ApprovalCallback, ApprovalPolicy, deny_all
from .checkpoints import CheckpointError, Checkpoints, RewindResult, TurnRecorder, folder_for
from .errors import AgentBusy, AgentError, AgentInputError
from .instructions import Instructions
from .mcp.config import ServerConfig
from .mcp.limits import tool_token_warnings
from .mcp.manager import McpManager
from .mcp.names import is_mcp_name
from .prompt import system_prompt
from .result_cap import capped
from .saved_view import SavedView, continue_history
from .sent import COMPACTED, SentLog, ToolResultView, tool_result_view
from .permissions import Verdict
from .store import Session, StoreError
from .todos import TodoItem, TodoList, as_state, todos_from_state
from .todos import render as render_todos
from .tool_approval import CallApproval
from .transcript import (CompactionMark, TranscriptBuilder, TranscriptEntry, TranscriptTool, attachment_name,
                         compaction_record, entries_of, note_record, reply_record, tool_record, tool_summary,
                         user_record, with_checkpoints)
from .userconfig import config_dir
from .views import ContextDetails, InstructionFileView
from .tools import ToolContext, ToolOutput, run_tool, tool_definitions
from .tools.editor import EditorQueries
from .shell_runner import ShellRunner
from .workspace import Workspace

CANCELLED = "[cancelled by the user before this tool call finished]"
# After the API refused a request as too long, user texts are cut to this share of the window.
REPAIR_SHARE = 0.1
CUT_OFF = "[not run: the reply was cut off (max_tokens) before this tool call was complete; send it again, shorter]"
STOPPED = "Stopped."

log = logging.getLogger(__name__)


def refusal(verdict: Verdict) -> ToolOutput:
    """What the model is told when a deny rule stops a call: the rule, where it is written, and what it hit."""
    rule = verdict.rule
    assert rule is not None
    text = (f"Not run: the permission rule `{rule.text}` (deny, from {rule.source}) forbids `{verdict.subject}`. "
            "Do not retry it or look for a way around it; if it is needed, ask the user to change the rule.")
    return ToolOutput(text, True, f"denied by {rule.text}")


@dataclass
class TurnResult:
    turn_id: str
    text: str
    stop_reason: str
    usage: Usage


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # called outside a running loop (a synchronous caller)
        return None


async def _emit(sink: ev.EventSink | None, event: ev.AgentEvent) -> None:
    if sink is None:
        return
    outcome = sink(event)
    if inspect.isawaitable(outcome):
        await outcome


class Agent:
    def __init__(self, workspace: Workspace, model: ModelSettings | None = None, *,
                 context: ContextConfig | None = None, approve: ApprovalCallback = deny_all,
                 session: Session | None = None, clock: Callable[[], float] = time.time,
                 shell_timeout: float = 120.0, editor: EditorQueries | None = None,
                 mcp_servers: tuple[ServerConfig, ...] = (), shell: ShellRunner | None = None) -> None:
        self.workspace = workspace
        self.model_settings = model or ModelSettings()
        self.client = ModelClient(self.model_settings)
        self.approve = approve
        self.clock = clock
        self.shell_timeout = shell_timeout
        self.shell = shell  # where commands run (None: in this process)
        self.session = session
        self.editor = editor
        self.mcp = McpManager(mcp_servers, cwd=str(workspace.roots[0]) if workspace.roots else None)
        self.tools = self._builtin_tools()
        self.tool_list_changes = 0  # requests whose tool list differed from the previous one (cache breaks)
        self._sent_tools: list[dict[str, Any]] | None = None
        self.instructions = Instructions(config_dir())
        self.instruction_changes = 0  # requests whose instruction files differed from the previous one
        self._sent_instructions: dict[str, str] | None = None  # file name → text, as the last request had them
        self.task_list = TodoList()
        self._todos_seen = 0  # the TodoList version last reported and saved
        self._context_config = context or ContextConfig()
        self.engine = self._new_engine()
        self.sent = SentLog()
        self._view = SavedView()  # the session's stored working view (what a restart resumes from)
        self._busy: str | None = None  # what holds the conversation now (exclusive())
        self._busy_task: asyncio.Task[Any] | None = None
        self._retired: list[Callable[[], Awaitable[Any]]] = []  # closers of what a running call may still use
        self._background: set[asyncio.Future[Any]] = set()
        self._unsaved: str | None = None  # why the last write to the session failed, until reported
        self._unsaved_reported = False
        self.checkpoints: Checkpoints | None = None
        self.record = TranscriptBuilder()  # the transcript of record: what the user saw (agent/transcript.py)
        self._turn_id = ""  # the turn running now ("" outside one): transcript records name it
        self._streamed: list[str] = []  # text of the reply being streamed, shown but not yet in a reply record
        if session is not None:
            self._open_checkpoints(session)
            self._restore(session)
        self.instructions.refresh(self.workspace.roots)
        self._static_changed()

    # -- setup -----------------------------------------------------------------

    @property
    def system(self) -> str:
        section = self.instructions.section
        return system_prompt(self.workspace.roots) + (f"\n\n{section}" if section else "")

    @property
    def policy(self) -> ApprovalPolicy | None:
        """The approval policy when the front end gave one (it holds the permission rules)."""
        return self.approve if isinstance(self.approve, ApprovalPolicy) else None

    def _builtin_tools(self) -> list[dict[str, Any]]:
        """The built-in tools, then the editor's: MCP tools come after them (a stable order)."""
        return tool_definitions(self.editor.kinds if self.editor is not None else ())

    def _static_tokens(self) -> tuple[int, int]:
        tools = len(json.dumps(self.tools)) // 4
        return len(self.system) // 4 + tools, tools

    def _new_engine(self) -> ContextEngine:
        total, _ = self._static_tokens()
        config = self._context_config.updated(system_tokens=total)
        store = self.session.store if self.session is not None else None
        return ContextEngine(config=config, store=store) if store is not None else ContextEngine(config=config)

    def _static_changed(self) -> None:
        """The system prompt or the tool list changed size: the engine counts them in every request."""
        total, _ = self._static_tokens()
        self.engine.reconfigure(self._context_config.updated(system_tokens=total))

    def _restore(self, session: Session) -> None:
        """The session's conversation as the last request before the restart left it: from its working
        view when there is a usable one (only the records after it are read), else from every record."""
        restored = session.restore(use_view=True)
        if restored.view is not None:
            try:
                restore_engine(self.engine, restored.view.rows, restored.view.state)
                self._view.loaded(session, list(self.engine.history.messages))
                continue_history(self.engine, restored.messages)
            except (StateError, ValueError) as error:
                log.info("the working view of session %s cannot be used (%s); replaying its records", session.id,
                         error)
                self.engine = self._new_engine()
                restored = session.restore()
        if restored.view is None:
            self._replay(session, restored.messages)
        for model, numbers, usd in restored.usage:
            self.client.costs.add(model, Usage(**numbers), usd)
        # the transcript of record is read whole (a view holds only what the next request needs)
        _, self.record = entries_of(restored.rows if restored.view is None else session.transcript_rows())
        self.task_list = TodoList(todos_from_state(restored.state.get("todos")))
        self._todos_seen = self.task_list.version
        self.engine.pinned = render_todos(self.task_list.items)
        folders = restored.state.get("instruction_folders")
        self.instructions.restore(folders if isinstance(folders, list) else [])
        self.engine.fit_user_texts(USER_SHARE)  # a session saved with an oversized message must not stay stuck
        # the restored history is what the last request before the reload carried
        self.sent.sent(list(self.engine.history.messages), self.engine, None)
        if restored.view is None:
            self._save_view()  # the next start reads the view, not every record

    def _replay(self, session: Session, messages: list[dict[str, Any]]) -> None:
        self._view.forget()
        try:
            for message in messages:
                self.engine.append(message)
        except ValueError as error:  # the store hands a valid history; should that ever fail, start empty
            self.engine = self._new_engine()
            session.problems.append(f"This conversation could not be restored ({error}); it starts empty.")

    def _save_view(self) -> None:
        if self.session is not None:
            self._view.save(self.session, self.engine)

    def _open_checkpoints(self, session: Session | None) -> None:
        """Checkpoints need a saved session (an unsaved one has nowhere to keep file contents)."""
        if session is None or (folder := folder_for(session)) is None:
            self.checkpoints = None
            return
        self.checkpoints = Checkpoints(self.workspace, session, folder)
        try:
            done = self.checkpoints.recover()
        except OSError as error:
            done = f"a rewind interrupted earlier could not be finished ({error})"
        if done:
            session.problems.append(f"Checkpoints: {done}.")

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
            costs, old = self.client.costs, self.client
            self.model_settings = model
            self.client = ModelClient(model)
            self.client.costs = costs
            costs.retarget(model.model, model.prices)  # cost views name the model that answers now
            self.retire(old.aclose)
        if context is not None:
            self._context_config = context
            self._static_changed()

    async def aclose(self) -> None:
        task = self._busy_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()  # the turn ends with a valid history before its client is closed
            await asyncio.wait([task], timeout=5)
        await self.mcp.aclose()
        await self._close_retired(force=True)
        await self.client.aclose()
        if self.session is not None:
            self.session.close()

    # -- one thing at a time ---------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy is not None

    @contextlib.contextmanager
    def exclusive(self, what: str) -> Iterator[None]:
        """Claim the conversation for `what` (a turn, a compaction, a session switch…).

        Check and claim are synchronous, so two requests cannot interleave; the
        task that holds the claim may claim again (a front end that claims around
        several steps calls run_turn, clear or resume inside). Anything else
        asked meanwhile raises AgentBusy.
        """
        task = _current_task()
        if self._busy is not None:
            if task is not None and task is self._busy_task:
                yield
                return
            if self._busy == "turn":
                raise AgentBusy("a turn is already running; cancel it or wait")
            raise AgentBusy(f"a {self._busy} is running; wait for it to end")
        self._busy, self._busy_task = what, task
        try:
            yield
        finally:
            self._busy, self._busy_task = None, None
            self._schedule(self._close_retired())

    def retire(self, close: Callable[[], Awaitable[Any]]) -> None:
        """Close something a running call may still use (an old model client, a demo model) once idle."""
        self._retired.append(close)
        self._schedule(self._close_retired())

    async def _close_retired(self, force: bool = False) -> None:
        if self.busy and not force:
            return  # a stream may still use them; the claim's end closes them
        closers, self._retired = self._retired, []
        for close in closers:
            with contextlib.suppress(Exception):  # closing is best effort
                await close()

    def _schedule(self, coroutine: Awaitable[Any]) -> None:
        try:
            task = asyncio.ensure_future(coroutine)
        except RuntimeError:  # no running loop (a synchronous caller): closed at aclose
            if inspect.iscoroutine(coroutine):
                coroutine.close()
            return
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- a turn ----------------------------------------------------------------

    async def run_turn(self, prompt: str, on_event: ev.EventSink | None = None,
                       attachments: list[Attachment | ImageAttachment] | None = None,
                       turn_id: str | None = None) -> TurnResult:
        """One turn. Attachments are files and selections (text) and images; an image the API
        would refuse, or images too large for the window, raise AgentInputError before anything runs."""
        turn_id = turn_id or uuid.uuid4().hex[:12]
        with self.exclusive("turn"):
            return await self._turn(turn_id, prompt, attachments or [], on_event)

    def check_images(self, images: list[ImageAttachment]) -> None:
        """AgentInputError when these images, sent as one message, could not fit a request (a front
        end may ask before it starts a turn; run_turn asks again)."""
        try:
            self.engine.check_images([image_block(item) for item in images])
        except ImageError as error:
            raise AgentInputError(str(error)) from None

    def _user_blocks(self, prompt: str, attachments: list[Attachment | ImageAttachment]) -> list[dict[str, Any]]:
        """Images first (the vision guide: images before text work best), then texts, then the prompt."""
        images = [image_block(item) for item in attachments if isinstance(item, ImageAttachment)]
        texts = [attachment_block(item) for item in attachments if isinstance(item, Attachment)]
        typed = [{"type": "text", "text": prompt}] if prompt or not (images or texts) else []
        return [*images, *texts, *typed]

    async def _turn(self, turn_id: str, prompt: str, attachments: list[Attachment | ImageAttachment],
                    on_event: ev.EventSink | None) -> TurnResult:
        self.check_images([item for item in attachments if isinstance(item, ImageAttachment)])
        emit = self._recording(on_event)
        self._turn_id = turn_id
        try:
            await self._refresh_tools()
            await self._refresh_rules(emit)
            recorder = self.checkpoints.begin(turn_id, prompt) if self.checkpoints is not None else None
            try:
                return await self._turn_steps(turn_id, prompt, attachments, emit, recorder)
            except asyncio.CancelledError:
                self._note("info", STOPPED)
                raise
            finally:
                self._save_view()  # the turn's last messages: a restart appends nothing after the view
                if recorder is not None:
                    await self._finish_checkpoint(recorder, emit)
        finally:
            self._turn_id = ""

    # -- the transcript of record ------------------------------------------------

    def _recording(self, on_event: ev.EventSink | None):
        """The event sink of a turn or a compaction: what the user is shown as a note is recorded too."""
        async def emit(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.ErrorEvent):
                self._note("error", event.message)
            elif isinstance(event, ev.ToolsChanged):
                changed = " ".join([*(f"+{n}" for n in event.added), *(f"−{n}" for n in event.removed)])
                self._note("info", f"Tools changed ({changed or 'definitions'}): "
                                   "the prompt cache is written again once.")
            elif isinstance(event, ev.TextDelta):
                self._streamed.append(event.text)
            elif isinstance(event, ev.RetryEvent) and event.discard_partial:
                self._streamed.clear()
            await _emit(on_event, event)

        return emit

    def _remember(self, body: dict[str, Any]) -> None:
        """One transcript record: in the panel's order, saved with the session as it happens."""
        self.record.add(body)
        self._save(lambda session: session.transcript(body))

    def _note(self, level: str, text: str) -> None:
        self._remember(note_record(self._turn_id, level, text))

    def _reply_shown(self, content: list[dict[str, Any]]) -> None:
        """A reply was answered in full: its text and the cards of its tool calls."""
        self._streamed.clear()
        text = "\n\n".join(b["text"] for b in content if b.get("type") == "text" and b.get("text"))
        self._remember(reply_record(self._turn_id, text, [b for b in content if b.get("type") == "tool_use"]))

    def _partial_shown(self) -> None:
        """A reply cut short (stopped, failed): the text already streamed was seen."""
        text, self._streamed = "".join(self._streamed).strip(), []
        if text:
            self._remember(reply_record(self._turn_id, text, []))

    def _unique_tool_ids(self, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Tool call ids are unique in a session (cards, refs and results are found by them): a model
        that repeats one (the demo model across compactions, a proxy) gets it renamed here."""
        used = self.engine.history.records.keys() | self.record.tool_ids() | self.sent.calls.keys()
        unique = []
        for block in content:
            if block.get("type") == "tool_use":
                if block.get("id") in used:
                    block = {**block, "id": f"{block.get('id')}_{uuid.uuid4().hex[:8]}"}
                used = used | {block["id"]}
            unique.append(block)
        return unique

    async def _finish_checkpoint(self, recorder: TurnRecorder, emit) -> None:
        try:
            checkpoint = await recorder.finish()
        except (OSError, StoreError) as error:
            await emit(ev.ErrorEvent(f"the checkpoint of this turn could not be saved ({error}); "
                                     "its changes cannot be rewound"))
            return
        if checkpoint.changed:
            await emit(ev.CheckpointTaken(checkpoint.id, checkpoint.changed_files(), tuple(checkpoint.skipped)))

    async def _turn_steps(self, turn_id: str, prompt: str, attachments: list[Attachment | ImageAttachment], emit,
                          recorder: TurnRecorder | None) -> TurnResult:
        try:
            blocks = self.engine.add_user_turn(self._user_blocks(prompt, attachments))
        except ImageError as error:  # checked before the turn began; the tool list may have grown since
            raise AgentInputError(str(error)) from None
        # the prompt's transcript record first: a session's records start with one (transcript.entries_of)
        images = [a for a in attachments if isinstance(a, ImageAttachment)]
        self.record.know_images(images)
        self._remember(user_record(turn_id, prompt, [attachment_name(a.where, a.lines) for a in attachments
                                                     if isinstance(a, Attachment)], images))
        self._log({"role": "user", "content": blocks})  # the loader joins it to an unanswered user message
        texts: list[str] = []
        total = Usage()
        stop_reason = "end_turn"
        while True:
            await self._refresh_instructions()
            prepared = await self._prepare(emit)
            # Text of successive replies is joined by a blank line, in the stream as in the result.
            response = await self._call_model(prepared, emit, lead="\n\n" if texts else "")
            total = total + response.usage
            content = [b for b in response.content if b.get("type") != "text" or b.get("text")]
            if not content:
                content = [{"type": "text", "text": "(no reply)"}]
            content = self._unique_tool_ids(content)
            assistant = {"role": "assistant", "content": content}
            self.engine.append(assistant)
            self._log(assistant)
            self._reply_shown(content)
            await emit(ev.ContextUsage(self.context_usage()))  # the reply is part of the next request
            texts.extend(b["text"] for b in content if b.get("type") == "text")
            stop_reason = response.stop_reason or "end_turn"
            uses = [b for b in content if b.get("type") == "tool_use"]
            if not uses:
                if stop_reason == "pause_turn":
                    self._append_user([{"type": "text", "text": "Continue."}])
                    continue
                break
            await self._run_tools(uses, emit, cut_off=stop_reason == "max_tokens", recorder=recorder)
        await self._report_store_problems(emit)
        await emit(ev.UsageEvent(total))
        return TurnResult(turn_id, "\n\n".join(texts), stop_reason, total)

    async def _refresh_tools(self) -> None:
        """At a turn start only: MCP servers start lazily and tool lists change between turns, never mid-turn."""
        await self.mcp.refresh()
        tools = self._builtin_tools() + self.mcp.definitions()
        if tools != self.tools:
            self.tools = tools
            self._static_changed()
            if self._sent_tools is not None:
                self.engine.prompt_head_changed()  # the tools head the prompt

    async def _refresh_rules(self, emit) -> None:
        """At a turn start: the workspace's .agents/settings.json, re-read when it changed."""
        if self.policy is None:
            return
        for problem in await asyncio.to_thread(self.policy.rules.load_workspace, list(self.workspace.roots)):
            await emit(ev.ErrorEvent(f"permission rules: {problem}"))

    async def _refresh_instructions(self) -> None:
        """Before every request: instruction files re-checked (size, time); a change is a new system prompt."""
        if await asyncio.to_thread(self.instructions.refresh, list(self.workspace.roots)):
            self._static_changed()
            if self._sent_instructions is not None:
                self.engine.prompt_head_changed()  # the system prompt heads the cached prefix

    def _append_user(self, blocks: list[dict[str, Any]]) -> list[str]:
        message = {"role": "user", "content": blocks}
        cut = self.engine.append(message)
        self._log(self.engine.history.messages[-1])
        return cut

    def _log(self, message: dict[str, Any]) -> None:
        self._save(lambda session: session.message(message))

    def _save(self, write: Callable[[Session], None]) -> None:
        """A failed write does not end the turn: it stays queued in the session, and is reported."""
        if self.session is None:
            return
        try:
            write(self.session)
        except StoreError as error:
            self._unsaved = str(error)
            return
        self._unsaved, self._unsaved_reported = None, False

    async def _report_store_problems(self, emit) -> None:
        if self.session is not None:
            for problem in self.session.take_problems():
                await emit(ev.ErrorEvent(problem))
        if self._unsaved is not None and not self._unsaved_reported:
            self._unsaved_reported = True
            await emit(ev.ErrorEvent(f"the conversation could not be saved ({self._unsaved}); the agent goes on, "
                                     "and saves what is missing with the next message it can write"))

    async def _prepare(self, emit) -> Prepared:
        await self._report_store_problems(emit)
        prepared = self.engine.prepare(self.clock())
        self.sent.prepared(prepared.batch)
        if prepared.compaction_due:
            await self._compact(emit, reason="auto", frontier=prepared.cached_frontier)
            prepared = self.engine.prepare(self.clock(), allow_compaction=False)
            self.sent.prepared(prepared.batch)
        # Still over the window after the pipeline: user texts are what is left to cut. (An estimate
        # only a little over is sent as is: if the API refuses it, _call_model repairs and retries once.)
        if prepared.estimate > self.engine.config.effective_window and self.engine.fit_user_texts(USER_SHARE):
            prepared = self.engine.prepare(self.clock(), allow_compaction=False)
            self.sent.prepared(prepared.batch)
        return prepared

    async def _announce_sent(self, prepared: Prepared, emit) -> None:
        """Badges describe the request that was sent: announced once it was answered."""
        history = self.engine.history.records
        for batch in self.sent.sent(prepared.messages, self.engine, self.clock()):
            by_marker: dict[str, list[str]] = {}
            for item in batch.rewrites:
                if not item.on_input and item.tool_use_id in history:
                    by_marker.setdefault(MARKER[item.layer], []).append(item.tool_use_id)
            for marker, ids in by_marker.items():
                await emit(ev.LayerApplied(batch.reason, ids, marker))

    async def _call_model(self, prepared: Prepared, emit, lead: str = "", *, may_repair: bool = True):
        pending_lead = [lead]

        async def forward(event) -> None:
            if isinstance(event, model_events.TextDelta):
                await emit(ev.TextDelta(pending_lead.pop() + event.text if pending_lead else event.text))
            elif isinstance(event, model_events.ThinkingDelta):
                await emit(ev.ThinkingDelta(event.text))
            elif isinstance(event, model_events.Retrying):
                await emit(ev.RetryEvent(event.attempt, event.delay_seconds, event.reason, event.discard_partial))

        raw_estimate = self.engine.raw_estimate
        if self._sent_tools is not None and self._sent_tools is not self.tools:
            self.tool_list_changes += 1  # one deliberate cache break: the tools head the prompt
            added, removed = _names(self._sent_tools, self.tools)
            await emit(ev.ToolsChanged(self.tool_list_changes, added, removed))
        self._sent_tools = self.tools
        await self._announce_instructions(emit)
        ttl = self.client.cache_ttl  # what this request gives its head and frontier breakpoints
        try:
            response = await self.client.stream(system=self.system, messages=prepared.messages,
                                                tools=self.tools, on_event=forward, frontier=prepared.frontier,
                                                previous_frontier=prepared.previous_frontier)
        except asyncio.CancelledError:
            self._partial_shown()
            raise
        except ModelError as error:
            self._partial_shown()
            # Refused for its size: cut the user texts further and try exactly once more.
            if may_repair and is_too_long(error.status, error.message) and self.engine.fit_user_texts(REPAIR_SHARE):
                prepared = self.engine.prepare(self.clock(), allow_compaction=False)
                self.sent.prepared(prepared.batch)
                return await self._call_model(prepared, emit, lead, may_repair=False)
            await emit(ev.ErrorEvent(str(error)))
            raise AgentError(str(error)) from error
        self.engine.record_usage(response.usage, self.clock(), estimate_at_call=raw_estimate, cache_ttl=ttl)
        await self._announce_sent(prepared, emit)
        model = response.model or self.model_settings.model
        usd = self.client.costs.price(model, response.usage)
        self._save(lambda session: session.usage(model, asdict(response.usage), usd))
        self._save_view()  # this request's rewrites and the policy's state: what the next one continues
        await emit(ev.UsageEvent(response.usage))
        return response

    async def _announce_instructions(self, emit) -> None:
        """A request whose instruction files differ from the previous one's: one counted cache break."""
        now = {item.shown: item.text for item in self.instructions.files}
        before, self._sent_instructions = self._sent_instructions, now
        if before is None or before == now:
            return
        self.instruction_changes += 1
        await emit(ev.InstructionsChanged(self.instruction_changes, sorted(now.keys() - before.keys()),
                                          sorted(before.keys() - now.keys()),
                                          sorted(k for k in now.keys() & before.keys() if now[k] != before[k])))

    def _relative(self, raw: str) -> str | None:
        """A path as the model wrote it → workspace-relative (what path rules match); None outside the roots."""
        try:
            path = self.workspace.resolve(raw)
        except Exception:  # noqa: BLE001 - refused or malformed: no path rule can match it
            return None
        root = self.workspace.root_of(path)
        return path.relative_to(root).as_posix() if root is not None else None

    async def _run_tools(self, uses: list[dict[str, Any]], emit, cut_off: bool,
                         recorder: TurnRecorder | None = None) -> None:
        outputs: dict[str, ToolOutput] = {}
        approvals: dict[str, CallApproval] = {}
        policy = self.policy
        try:
            for use in uses:
                name, tool_input = use.get("name", ""), use.get("input") or {}
                await emit(ev.ToolStart(use["id"], name, tool_summary(name, tool_input)))
                verdict = policy.screen(name, tool_input, self._relative) if policy is not None and \
                    isinstance(tool_input, dict) else None
                # The call's own verdict (not worked out again when asked), asked on its own card, then the
                # checkpoint's snapshot once it is approved.
                bound = policy.bound(verdict) if policy is not None and verdict is not None else self.approve
                approval = approvals[use["id"]] = CallApproval(bound, use["id"])
                approve: ApprovalCallback = recorder.watching(approval) if recorder is not None else approval
                ctx = ToolContext(self.workspace, approve, store=self.engine.store, shell_timeout=self.shell_timeout,
                                  editor=self.editor, shell=self.shell, todos=self.task_list)
                if cut_off:
                    output = ToolOutput(CUT_OFF, True, f"{name}: cut off")
                elif verdict is not None and verdict.decision == "deny":
                    output = refusal(verdict)  # not run, and nobody is asked
                    approval.outcome = "refused"
                elif is_mcp_name(name):
                    output = await self.mcp.call(name, tool_input, approve=approve,
                                                 store=self.engine.store, tool_use_id=use["id"])
                else:
                    output = await run_tool(name, tool_input, ctx)
                # at most RESULT_CAP_BYTES of any result is kept (result_cap.py); a refusal's reason is told
                outputs[use["id"]] = replace(output, text=approval.told(capped(output.text)))
                if recorder is not None:
                    await recorder.tool_done()
        except asyncio.CancelledError:
            self._answer(uses, outputs, default=ToolOutput(CANCELLED, True, "cancelled"))
            for use in uses:
                if use["id"] not in outputs:
                    self._remember(tool_record(self._turn_id, TranscriptTool(
                        use["id"], use.get("name", ""), "cancelled", True, len(CANCELLED), done=False)))
            raise
        await self._after_tools(uses, outputs, emit)
        cut = self._answer(uses, outputs)
        for use in uses:
            output, approval = outputs[use["id"]], approvals[use["id"]]
            marker = "truncated" if use["id"] in cut else ""
            card = TranscriptTool(use["id"], use.get("name", ""), output.summary, output.is_error, len(output.text),
                                  marker, diff=approval.diff, approval=approval.outcome, reason=approval.reason)
            self._remember(tool_record(self._turn_id, card))
            await emit(ev.ToolEnd(use["id"], card.name, card.summary, card.is_error, card.result_chars, marker,
                                  card.approval, card.diff, card.reason))
        await emit(ev.ContextUsage(self.context_usage()))

    async def _after_tools(self, uses: list[dict[str, Any]], outputs: dict[str, ToolOutput], emit) -> None:
        """What the calls changed beside the history: the task list, the instruction folders they reached."""
        todos = self.task_list
        if todos.version != self._todos_seen:
            self._todos_seen = todos.version
            self.engine.pinned = render_todos(todos.items)
            self._save(lambda session: session.state({"todos": as_state(todos.items)}))
            await emit(ev.TodosChanged(list(todos.items)))
        touched = [use.get("input") or {} for use in uses
                   if use["id"] in outputs and not outputs[use["id"]].is_error]
        new = await asyncio.to_thread(self._activate, touched)
        if new:
            folders = [str(folder) for folder in self.instructions.activated]
            self._save(lambda session: session.state({"instruction_folders": folders}))

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

    def _answer(self, uses, outputs: dict[str, ToolOutput], default: ToolOutput | None = None) -> list[str]:
        blocks = []
        for use in uses:
            output = outputs.get(use["id"], default)
            assert output is not None  # without a default (a turn not cancelled), every use ran and has its output
            block = {"type": "tool_result", "tool_use_id": use["id"], "content": output.text or "(empty)"}
            if output.is_error:
                block["is_error"] = True
            blocks.append(block)
        return self._append_user(blocks)

    # -- compaction, cost, context ----------------------------------------------

    async def _compact(self, emit, reason: str, instructions: str | None = None,
                       frontier: int | None = None) -> CompactionResult | None:
        """``frontier``: where the cache holds the conversation (default: the last request's frontier)."""
        request = self.engine.summary_request(instructions, manual=reason == "manual")
        if request is None:
            return None
        await emit(ev.CompactionStarted(reason))
        try:
            response = await self.client.complete(system=self.system, messages=request.messages, tools=self.tools,
                                                  compact=True, max_tokens=request.max_tokens,
                                                  frontier=self.engine.sent_frontier if frontier is None else frontier)
            raw = "".join(b.get("text", "") for b in response.content if b.get("type") == "text")
            result = self.engine.apply_summary(request, raw, reason)
        except ModelError as error:
            self.engine.summary_failed()
            await emit(ev.ErrorEvent(f"compaction failed: {error}"))
            return None
        except NothingToGain as error:
            before = self.engine.estimate()
            note = f"Nothing to gain: {error}."
            self._note("info", f"Nothing compacted: {error} ({before:,} tokens, unchanged).")
            await emit(ev.CompactionFinished(before, before, "", reason, False))
            return CompactionResult(before, before, "", reason, compacted=False, note=note)
        except SummaryError as error:
            await emit(ev.ErrorEvent(f"compaction failed: {error}"))
            return None
        messages = self.engine.history.messages
        self._save(lambda session: session.compaction(messages, result.summary, result.tokens_before,
                                                      result.tokens_after))
        # the divider of the transcript of record: the conversation the user saw stays as it was
        self._remember(compaction_record(self._turn_id, CompactionMark(
            result.tokens_before, result.tokens_after, reason, result.message)))
        self._save_view()
        await self._report_store_problems(emit)
        await emit(ev.CompactionFinished(result.tokens_before, result.tokens_after, result.message, reason, True))
        await emit(ev.ContextUsage(self.context_usage()))
        return result

    async def compact(self, instructions: str | None = None, on_event: ev.EventSink | None = None) -> CompactionResult:
        """Manual compaction (/compact); the conversation must not be mid-turn."""
        with self.exclusive("compaction"):
            emit = self._recording(on_event)
            before = self.engine.estimate()
            if self.engine.summary_request(instructions, manual=True) is None:
                note = "Nothing to compact yet." if len(self.engine.history.messages) < 2 else \
                    "Nothing to gain: the conversation is already as short as a summary would be."
                self._note("info", note)
                return CompactionResult(before, before, "", "manual", compacted=False, note=note)
            result = await self._compact(emit, "manual", instructions)
            if result is None:
                raise AgentError("compaction failed; the conversation is unchanged")
            return result

    def cost(self) -> CostReport:
        return self.client.costs.report()

    def context_usage(self) -> ContextReport:
        """The meter's figures (status bar, chat header, prompt)."""
        _, tools = self._static_tokens()
        return self.engine.report(tools_tokens=tools, instructions_tokens=self.instructions.tokens())

    def todos(self) -> tuple[TodoItem, ...]:
        """The task list as the model last wrote it (todo_write)."""
        return self.task_list.items

    def tool_result(self, tool_use_id: str, with_original: bool = False) -> ToolResultView | None:
        """A tool call's input and its result as the model last saw it (agent/toolResult).

        Only this session's calls: a card of the transcript whose call a compaction summarised away
        before this process started still names its own tool and input (from its record)."""
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
        files = tuple(InstructionFileView(item.shown, item.scope, len(item.text) // 4, item.chars, item.cut)
                      for item in self.instructions.files)
        report = self.context_usage()
        per_server = tuple(self.mcp.tool_tokens(lambda chars: chars // 4))  # as _static_tokens counts
        return ContextDetails(report, tuple(self.engine.placeholders()), per_server, self.tool_list_changes,
                              files, self.instruction_changes, tuple(tool_token_warnings(per_server, report.window)))

    def clear(self, new_session: Session | None = None) -> None:
        """A fresh conversation; the old session stays on disk."""
        with self.exclusive("new chat"):
            if self.session is not None:
                self.session.close()
            self.session = new_session
            self._open_checkpoints(new_session)
            self._unsaved, self._unsaved_reported = None, False
            self.task_list, self._todos_seen = TodoList(), 0
            self.instructions.forget_folders()  # re-read (with the resumed session's folders) before the next request
            self._sent_instructions = None  # a new conversation: its first request writes the cache anyway
            self.engine = self._new_engine()
            self.sent.clear()
            self.record = TranscriptBuilder()
            self._view.forget()
            self.client.costs.reset()

    def resume(self, session: Session) -> None:
        """Continue another conversation: its history, its costs; the current one stays on disk."""
        with self.exclusive("session switch"):
            self.clear(session)
            self._restore(session)

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

    # -- checkpoints and rewind ----------------------------------------------------

    def require_checkpoints(self) -> Checkpoints:
        if self.checkpoints is None:
            raise CheckpointError("this conversation is not saved (see the session problems), so it has no checkpoints")
        return self.checkpoints

    async def rewind(self, checkpoint_id: str, restore: str, confirm) -> RewindResult:
        """Restore the files ("code"), cut the conversation back to before the checkpoint's prompt
        ("conversation"), or both. `confirm(plan)` is asked when files changed outside the agent."""
        with self.exclusive("rewind"):
            checkpoints = self.require_checkpoints()
            _, target = await checkpoints.find(checkpoint_id)
            if restore != "code" and target.kind != "turn":
                raise CheckpointError("this checkpoint was taken before a rewind: it restores files only "
                                      "(restore: code)")
            if restore in ("code", "both"):
                result = await checkpoints.rewind_code(checkpoint_id, confirm)
                if result.cancelled:
                    return result
            else:
                result = RewindResult(checkpoint_id, None, [], [], [], False)
            if restore in ("conversation", "both"):
                await self._cut_conversation(target.seq)
                result.conversation = True
            return result

    async def _cut_conversation(self, seq: int) -> None:
        """The conversation as it was before the prompt at record seq+1; stored, so a restart agrees."""
        from .store.rewind import cut_after

        session = self.session
        assert session is not None
        await asyncio.to_thread(session.flush)
        await asyncio.to_thread(cut_after, session.db, session.id, seq)
        self.engine = self._new_engine()
        self.sent.clear()
        self.record = TranscriptBuilder()
        self.client.costs.reset()
        self._restore(session)  # a deliberate rewrite: the next request is a prefix of earlier ones

    async def fork_point(self, checkpoint_id: str) -> tuple[int, float]:
        """(record seq, time) where a fork at this checkpoint cuts the conversation."""
        _, target = await self.require_checkpoints().find(checkpoint_id)
        if target.kind != "turn":
            raise CheckpointError("a fork starts before a prompt; this checkpoint was taken before a rewind")
        return target.seq, target.at


def _names(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(added, removed) tool names between two tool lists (a changed definition counts as both)."""
    old = {json.dumps(t, sort_keys=True): t["name"] for t in before}
    new = {json.dumps(t, sort_keys=True): t["name"] for t in after}
    return sorted(new[k] for k in new.keys() - old.keys()), sorted(old[k] for k in old.keys() - new.keys())
