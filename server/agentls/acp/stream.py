"""One session's session/update stream: the core's events (agent/events.py) as ACP updates.

The same events the language server turns into agent/event notifications:

    TextDelta        → agent_message_chunk
    ThinkingDelta    → agent_thought_chunk
    ToolStart        → tool_call (kind, locations from the input's path, a diff for edits);
                        `pending` when it may ask for approval, `in_progress` once approved
    ToolEnd          → tool_call_update (completed/failed; the result as the model saw it,
                        and a resource link to its context:// ref when the model saw less);
                        a call cut short (cancel) gets a final `failed` update saying so (end())
    UsageEvent, ContextUsage → usage_update (used, size, cost), whenever the figures changed
    CompactionStarted/Finished → compaction_update (client opted in), else an agent message
    ErrorEvent, RetryEvent → an agent message / a thought
    TodosChanged (todo_write) → plan
    SubagentStarted/Step/Finished → tool_call_update of the `task` call: the child's steps as its content

LayerApplied, ToolsChanged and InstructionsChanged have no ACP counterpart: the tool call's content
already is the result as the model saw it when it arrived; later rewrites show
in the next usage_update. The stream also knows which tool call is running,
so a permission request names it, and replays a loaded conversation.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import TerminalToolCallContent

from .. import credentials
from ..agent import events as ev
from ..agent.secrets import mask_values
from ..agent.transcript import tool_summary
from ..agent.turn.tool_calls import CANCELLED
from ..agent.workspace import WorkspaceError
from ..context.compact import FILES_MARK, IMAGES_MARK, SUMMARY_MARK, USER_TEXTS_MARK
from ..context.store import is_ref
from . import protocol
from .subagents import SubagentProgress

if TYPE_CHECKING:
    from ..agent.approval import ApprovalRequest
    from ..agent.loop import Agent
    from ..agent.workspace import Workspace

log = logging.getLogger(__name__)

def summary_of(message: str) -> str:
    """The summary itself from the compacted conversation's first message (without the user's quoted
    texts, re-attached files and the list of images summarised away that follow it)."""
    text = message.split(SUMMARY_MARK, 1)[-1]
    for mark in (USER_TEXTS_MARK, FILES_MARK, IMAGES_MARK):
        text = text.split(mark, 1)[0]
    return text.strip()


class UpdateStream:
    def __init__(self, client: Any, offers: protocol.ClientOffers, agent: Callable[[], Agent | None],
                 workspace: Workspace) -> None:
        self.client = client
        self.offers = offers
        self.agent = agent
        self.workspace = workspace
        self.session_id = ""  # set once the session is open
        self._tools: dict[str, protocol.ToolCallSeen] = {}
        self._terminals: dict[str, str] = {}  # tool_use_id → terminal id shown in it
        self._running: str | None = None  # the tool call running now
        self._compaction: str | None = None  # the compaction in progress
        self._usage: tuple[int, int, float] | None = None
        self._subagents = SubagentProgress()

    async def send(self, update: protocol.Update) -> None:
        await self.client.session_update(session_id=self.session_id, update=update)

    async def note(self, text: str) -> None:
        await self.send(protocol.agent_text(text if text.endswith("\n") else text + "\n"))

    # ---- the core's events ----------------------------------------------------------

    async def __call__(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.TextDelta):
            await self.send(protocol.agent_text(event.text))
        elif isinstance(event, ev.ThinkingDelta):
            await self.send(protocol.thought(event.text))
        elif isinstance(event, ev.ToolStart):
            await self._tool_start(event)
        elif isinstance(event, ev.ToolEnd):
            await self._tool_end(event)
        elif isinstance(event, (ev.UsageEvent, ev.ContextUsage)):
            await self.usage()
        elif isinstance(event, ev.CompactionStarted):
            await self._compaction_started(event)
        elif isinstance(event, ev.CompactionFinished):
            await self._compaction_finished(event)
        elif isinstance(event, ev.ErrorEvent):
            await self._error(self.scrub(event.message))
        elif isinstance(event, ev.RetryEvent):
            dropped = " (the reply so far is discarded; it starts again)" if event.discard_partial else ""
            await self.send(protocol.thought(f"\n[retrying in {event.delay_seconds:.0f} s: {event.reason}{dropped}]\n"))
        elif isinstance(event, ev.TodosChanged):
            await self.send(protocol.plan((item.content, item.status) for item in event.todos))
        elif isinstance(event, ev.ThinkingDropped):
            await self.note(f"\n⚠ {self.scrub(event.text)}\n")
        elif isinstance(event, (ev.SubagentStarted, ev.SubagentStep, ev.SubagentFinished)):
            update = self._subagents.update(event)  # the `task` call's content: the child's steps
            if update is not None:
                await self.send(update)

    async def usage(self, force: bool = False) -> None:
        agent = self.agent()
        if agent is None:
            return
        update = protocol.usage_update(agent.context_usage(), agent.cost())
        figures = (update.used, update.size, update.cost.amount if update.cost else 0.0)
        if force or figures != self._usage:
            self._usage = figures
            await self.send(update)

    # ---- tool calls ---------------------------------------------------------------------

    def asking_for(self, tool_use_id: str | None) -> tuple[str | None, protocol.ToolCallSeen | None]:
        """(the tool call a permission request is about, what the client was shown for it)."""
        tool_use_id = tool_use_id if tool_use_id in self._tools else self._running
        return tool_use_id, self._tools.get(tool_use_id or "")

    async def approved(self, request: ApprovalRequest) -> None:
        """A pending call was approved (asked or by the rules): it runs now."""
        tool_use_id = request.tool_use_id or self._running
        if tool_use_id in self._tools and protocol.may_ask(self._tools[tool_use_id].name):
            await self.send(protocol.tool_running(tool_use_id))

    async def terminal(self, terminal_id: str) -> None:
        """The running command's terminal, embedded in its tool call (the client shows it live)."""
        seen = self._tools.get(self._running or "")
        if seen is None:
            return
        self._terminals[seen.tool_use_id] = terminal_id
        await self.send(protocol.tool_content(seen.tool_use_id, [*seen.start_content(),
                                                                 protocol.terminal_content(terminal_id)]))

    async def _tool_start(self, event: ev.ToolStart) -> None:
        tool_input = self._input_of(event.tool_use_id)
        seen = await self._seen(event.tool_use_id, event.tool, tool_input, live=True)
        self._tools[event.tool_use_id] = seen
        self._running = event.tool_use_id
        await self.send(protocol.tool_call_start(seen, tool_input))

    async def _tool_end(self, event: ev.ToolEnd) -> None:
        agent = self.agent()
        seen = (self._tools.pop(event.tool_use_id, None)
                or await self._seen(event.tool_use_id, event.tool, {}, live=False))
        if self._running == event.tool_use_id:
            self._running = None
        view = agent.tool_result(event.tool_use_id) if agent is not None else None
        terminal = self._terminals.pop(event.tool_use_id, None)
        extra: list[TerminalToolCallContent] = [protocol.terminal_content(terminal)] if terminal else []
        await self.send(protocol.tool_call_end(seen, view, event.summary, event.is_error, extra))

    def _input_of(self, tool_use_id: str) -> dict[str, Any]:
        """The tool call's input, from the assistant message that asked for it (already in the history)."""
        agent = self.agent()
        for message in reversed(agent.history() if agent is not None else []):
            if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
                continue
            for block in message["content"]:
                if block.get("type") == "tool_use" and block.get("id") == tool_use_id:
                    return dict(block.get("input") or {})
        return {}

    async def _seen(self, tool_use_id: str, name: str, tool_input: dict[str, Any], live: bool) -> protocol.ToolCallSeen:
        """What the client is shown for a call: title, kind, the real path it touches, a diff for edits."""
        raw = tool_input.get("path")
        path: Path | None = None
        if isinstance(raw, str) and raw and not is_ref(raw):
            try:
                path = self.workspace.resolve(raw)
            except WorkspaceError:
                path = None  # refused: the tool says why in its result
        line = tool_input.get("start_line") if name == "read_file" else None
        diff: tuple[str | None, str] | None = None
        if name == "edit_file" and isinstance(tool_input.get("new_text"), str):
            diff = (str(tool_input.get("old_text") or ""), tool_input["new_text"])
        elif name == "write_file" and isinstance(tool_input.get("content"), str) and live and path is not None:
            diff = (await self._current_text(path), tool_input["content"])
        return protocol.ToolCallSeen(tool_use_id, name, tool_summary(name, tool_input), protocol.tool_kind(name), path,
                                     line if isinstance(line, int) and line > 0 else None, diff)

    async def _current_text(self, path: Path) -> str | None:
        """What a write replaces (None: a new file), for its diff; read as the tool will read it."""
        try:
            return await self.workspace.read_text(path) if await self.workspace.exists(path) else None
        except Exception:  # noqa: BLE001 - unreadable: the tool refuses it and says why
            return None

    # ---- compaction and errors ----------------------------------------------------------

    async def _compaction_started(self, event: ev.CompactionStarted) -> None:
        self._compaction = uuid.uuid4().hex[:12]
        if self.offers.compaction:
            await self.send(protocol.compaction(self._compaction, "in_progress"))
        else:
            await self.note(f"\n[compacting the conversation ({event.reason})…]")

    async def _compaction_finished(self, event: ev.CompactionFinished) -> None:
        compaction_id, self._compaction = self._compaction or uuid.uuid4().hex[:12], None
        if not event.compacted:
            if self.offers.compaction:
                await self.send(protocol.compaction(compaction_id, "cancelled"))
            await self.note("[nothing to gain from compacting: the conversation stays as it is]")
            return
        summary = summary_of(event.summary)
        if self.offers.compaction:
            await self.send(protocol.compaction(compaction_id, "completed", summary=summary))
        else:
            await self.note(f"[compacted: {event.tokens_before} → {event.tokens_after} tokens]\n\n{summary}")

    async def _error(self, message: str) -> None:
        if self._compaction is not None and message.startswith("compaction failed"):
            compaction_id, self._compaction = self._compaction, None
            if self.offers.compaction:
                await self.send(protocol.compaction(compaction_id, "failed", error=message))
                return
        await self.note(f"\n⚠ {message}")

    async def end(self, cancelled: bool = False) -> None:
        """A turn or command is over (or was cancelled): nothing stays in progress. A call that started and
        got no result (the turn was cancelled, or failed) ends `failed` with a final update saying why."""
        cut = list(self._tools.values())
        terminals = dict(self._terminals)
        self._running = None
        self._tools.clear()
        self._terminals.clear()
        why = CANCELLED if cancelled else "[stopped: the turn ended before this tool call finished]"
        agent = self.agent()
        for seen in cut:
            terminal = terminals.get(seen.tool_use_id)
            extra = [protocol.terminal_content(terminal)] if terminal else []
            view = agent.tool_result(seen.tool_use_id) if agent is not None else None
            # a call that finished before a later call of the same reply was cut: its own result
            finished = view is not None and view.tool and view.text and view.text != CANCELLED
            try:
                await self.send(protocol.tool_call_end(seen, view, "", view.is_error, extra) if finished and view
                                else protocol.tool_cut_short(seen, why, extra))
            except Exception as error:  # noqa: BLE001 - the client left (the session is closing): nobody to tell
                log.debug("final tool_call_update for %s not sent: %s", seen.tool_use_id, error)
                break
        if self._compaction is not None:
            compaction_id, self._compaction = self._compaction, None
            if self.offers.compaction:
                await self.send(protocol.compaction(compaction_id, "cancelled"))

    def scrub(self, text: str) -> str:
        """The API key and MCP secrets never reach the client (errors may quote a request)."""
        agent = self.agent()
        secrets = [credentials.get(name) for name in credentials.NAMES]
        secrets += agent.mcp.secret_values() if agent is not None else []
        return mask_values(text, [s for s in secrets if s])  # any length (agent/mask.py)

    # ---- a loaded conversation -----------------------------------------------------------

    async def replay(self) -> None:
        """session/load: the transcript of record (what the user saw, not the model's compacted history),
        as the updates a live turn sends: prompts, replies, tool calls, compaction dividers, notes."""
        agent = self.agent()
        if agent is None:
            return
        said = False  # the turn's replies so far had text: the next one's is led by a blank line, as live
        for n, entry in enumerate(await agent.transcript()):
            message_id = f"replay-{n}"
            if entry.kind == "compaction":
                mark = entry.compaction
                summary = summary_of(mark.summary if mark is not None else entry.text)
                if self.offers.compaction:
                    await self.send(protocol.compaction(message_id, "completed", summary=summary))
                else:
                    told = f"[compacted: {mark.tokens_before} → {mark.tokens_after} tokens]" if mark is not None \
                        else "[earlier turns were compacted]"
                    await self.send(protocol.agent_text(f"{told}\n\n{summary}\n", message_id))
                continue
            if entry.kind == "note":
                await self.send(protocol.agent_text(f"\n⚠ {self.scrub(entry.text)}\n" if entry.level == "error"
                                                    else f"[{self.scrub(entry.text)}]\n", message_id))
                continue
            if entry.role == "user":
                said = False
                for image in entry.images:  # before the text, as they were sent
                    await self.send(protocol.user_image(image, message_id))
                if entry.text:
                    await self.send(protocol.user_text(entry.text, message_id))
                continue
            if entry.text:
                await self.send(protocol.agent_text(f"\n\n{entry.text}" if said else entry.text, message_id))
                said = True
            for tool in entry.tools:
                view = agent.tool_result(tool.id, with_original=True)  # summarised away: the stored original
                seen = await self._seen(tool.id, tool.name, view.input if view is not None else {}, live=False)
                await self.send(protocol.replayed_tool_call(seen, view, tool.summary, tool.is_error))
        await self.usage(force=True)
