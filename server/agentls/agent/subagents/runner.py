"""Running the `task` calls of a reply: each in a subagent, side by side, at most PARALLEL_LIMIT at once.

The parent's ToolCalls starts one asyncio task per `task` call (start), goes on with the
reply's other calls, then waits for them all (wait); a cancelled turn stops every child and
waits until each has ended (stop), so no request leaves after the user stopped. A child that
fails (an API error, a bug) answers its call with an error result; the parent's turn goes on.
Each child's progress reaches the front ends as SubagentStarted / SubagentStep / SubagentFinished
events of the parent's turn; its cost is entered in the conversation's SubagentLedger and saved
with the session; its transcript is kept in the result store (transcript.py).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict
from typing import Any

from ...context.usage import Usage
from ...model import ModelError
from .. import events as ev
from ..checkpoints import TurnRecorder
from ..errors import AgentError
from ..tools import ToolOutput
from ..tools.base import error
from ..visible import excerpt
from ..store import StoreError
from ..turn.recording import Emit
from .child import Child, Parent
from .costs import subagent_fact, tokens
from .marks import SubagentMark, SubagentStepMark, subagent_record
from .tool import PARALLEL_LIMIT, TASK, TaskInput, TaskInputError, task_input
from .transcript import render, transcript_ref

log = logging.getLogger(__name__)

# The events of a child its card shows; the others (its meter, thinking, badges) stay the child's own.
SHOWN = (ev.TextDelta, ev.ToolStart, ev.ToolEnd, ev.RetryEvent, ev.ErrorEvent, ev.UsageEvent, ev.CompactionStarted,
         ev.CompactionFinished, ev.TodosChanged, ev.ThinkingDropped)


class Subagents:
    """The `task` calls of one agent."""

    def __init__(self, parent: Parent, limit: int = PARALLEL_LIMIT) -> None:
        self.parent = parent
        self.limit = limit
        self._slots: asyncio.Semaphore | None = None
        self.running = 0  # children running now (not waiting for a slot): what the limit bounds
        self.most = 0  # the most that ran at once (tests of the limit read it)

    def runs(self, name: str) -> bool:
        return name == TASK

    def start(self, use: dict[str, Any], emit: Emit, recorder: TurnRecorder | None) -> asyncio.Task[ToolOutput]:
        return asyncio.ensure_future(self._run(use, emit, recorder))

    async def wait(self, running: dict[str, asyncio.Task[ToolOutput]]) -> dict[str, ToolOutput]:
        """Every call's output, in the calls' order, once all have ended."""
        outputs = await asyncio.gather(*running.values())
        return dict(zip(running, outputs, strict=True))

    async def stop(self, running: dict[str, asyncio.Task[ToolOutput]]) -> None:
        """Cancel the children and wait until each has ended (its request closed)."""
        for task in running.values():
            task.cancel()
        await asyncio.gather(*running.values(), return_exceptions=True)

    # -- one call ------------------------------------------------------------------

    async def _run(self, use: dict[str, Any], emit: Emit, recorder: TurnRecorder | None) -> ToolOutput:
        tool_use_id = use["id"]
        try:
            task = self._checked(task_input(use.get("input")))
        except TaskInputError as problem:
            return error(f"Invalid input for task: {problem}.", "task (invalid input)")
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        async with self._slots:
            self.running += 1
            self.most = max(self.most, self.running)
            try:
                return await self._child(task, tool_use_id, emit, recorder)
            finally:
                self.running -= 1

    def _checked(self, task: TaskInput) -> TaskInput:
        if task.tools is not None:
            offered = {tool["name"] for tool in self.parent.head.tools} - {TASK}
            unknown = sorted(task.tools - offered)
            if unknown:  # named, a few: the input is the model's own, of any length
                more = f" (+{len(unknown) - 5})" if len(unknown) > 5 else ""
                named = ", ".join(excerpt(name) for name in unknown[:5]) + more
                raise TaskInputError(f"no tool named {named}; tools: {', '.join(sorted(offered))}")
        if task.fork and task.model and task.model != self.parent.settings().model:
            raise TaskInputError("a fork answers with your model (its cached prefix is that model's); "
                                 "leave `model` out or set `fork` to false")
        return task

    async def _child(self, task: TaskInput, tool_use_id: str, emit: Emit, recorder: TurnRecorder | None) -> ToolOutput:
        try:
            child = Child(self.parent, task, tool_use_id, recorder)
        except Exception as failure:  # noqa: BLE001 - a child that cannot start is its call's error
            log.exception("subagent %s could not start", tool_use_id)
            return error(f"The subagent “{task.name}” could not start: {type(failure).__name__}: {failure}",
                         f"{task.name}: failed")
        await emit(ev.SubagentStarted(tool_use_id, task.name, child.model, task.fork, sorted(child.tools)))

        steps: list[SubagentStepMark] = []  # what its card keeps in the transcript of record

        async def step(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.ToolEnd):
                steps.append(SubagentStepMark(event.tool, event.summary, event.is_error))
            if isinstance(event, SHOWN):
                await emit(ev.SubagentStep(tool_use_id, event))

        output: ToolOutput | None = None
        try:
            answer = await child.run(step)
            output = ToolOutput(answer or "(the subagent gave no answer)", False, f"{task.name}: done")
        except (AgentError, ModelError) as failure:
            output = error(f"The subagent “{task.name}” failed: {failure}", f"{task.name}: failed")
        except Exception as failure:  # noqa: BLE001 - a child's bug is its call's error, never the parent's crash
            log.exception("subagent %s failed", tool_use_id)
            output = error(f"The subagent “{task.name}” failed unexpectedly: {type(failure).__name__}: {failure}",
                           f"{task.name}: failed")
        finally:
            ref = self._keep(child, task, output)
            requests, usage, usd = self._count(child, task, tool_use_id)
            self._remember(tool_use_id, SubagentMark(task.name, child.model, task.fork, tuple(steps),
                                                     output is None or output.is_error, requests, tokens(usage), usd,
                                                     ref))
            await child.aclose()
            await emit(ev.SubagentFinished(tool_use_id, task.name, output is None or output.is_error, usage,
                                           requests, usd, ref))
        return ToolOutput(f"{output.text}\n\n[Subagent transcript: read_file {ref}]" if ref else output.text,
                          output.is_error, output.summary)

    def _keep(self, child: Child, task: TaskInput, output: ToolOutput | None) -> str:
        """The child's transcript into the parent's result store; its ref ("" when it did nothing)."""
        if not child.messages:
            return ""
        header = [f"Model: {child.model}", f"Forked: {'yes' if task.fork else 'no'}",
                  f"Tools: {', '.join(sorted(child.tools))}",
                  f"Outcome: {'stopped' if output is None else 'failed' if output.is_error else 'answered'}"]
        ref = transcript_ref(child.task_call)
        try:
            self.parent.conversation.engine.store.put(ref, render(task.name, header, child.messages))
        except Exception as problem:  # noqa: BLE001 - a full disk costs the transcript, not the answer
            log.warning("the transcript of subagent %s was not kept: %s", child.task_call, problem)
            return ""
        return ref

    def _remember(self, tool_use_id: str, mark: SubagentMark) -> None:
        """The card's subagent into the parent's transcript of record (a resumed panel shows its steps)."""
        recording = self.parent.recording
        if recording is not None:
            recording.remember(subagent_record(self.parent.conversation.turn_id, tool_use_id, mark))

    def _count(self, child: Child, task: TaskInput, tool_use_id: str) -> tuple[int, Usage, float]:
        """The child's costs into the conversation's ledger and the session (each request's usage record)."""
        conversation = self.parent.conversation
        requests, usage, usd = child.cost()
        if requests:
            conversation.subagents.add(tool_use_id, task.name, child.model, requests, usage, usd)
            session = conversation.session
            if session is not None:
                try:
                    session.usage(child.model, asdict(usage), usd, subagent_fact(tool_use_id, task.name, requests))
                except StoreError as problem:  # queued by the session, reported with the parent's next write
                    log.info("the subagent's usage was not saved: %s", problem)
        return requests, usage, usd
