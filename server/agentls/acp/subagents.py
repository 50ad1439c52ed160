"""A subagent's progress as the content of its `task` tool call (session/update tool_call_update).

ACP has no nested tool calls: the child's steps are lines of the `task` call's content, sent
again (whole: a tool_call_update's content replaces the previous one) at each step worth a
line — a tool started or ended, a retry, an error — and with the text the child has written
since. The `task` call's own tool_call_update (completed/failed, the answer) follows as usual.
"""

from __future__ import annotations

from acp.schema import ToolCallProgress

from ..agent import events as ev
from ..agent.tools.base import plural
from ..agent.visible import visible
from . import protocol

SHOWN_LINES = 40  # the last lines of a long run (the full transcript is kept: context://…/transcript)
TEXT_CHARS = 300  # of the child's text between two steps


class SubagentProgress:
    """The lines shown in each running `task` call, by its id."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}
        self._text: dict[str, str] = {}

    def update(self, event: ev.AgentEvent) -> ToolCallProgress | None:
        """The tool_call_update this event makes (None: nothing new to show yet)."""
        if isinstance(event, ev.SubagentStarted):
            fork = ", forked from this conversation" if event.fork else ""
            self._lines[event.tool_use_id] = [f"Subagent “{visible(event.name)}” ({visible(event.model)}{fork})"]
            self._text[event.tool_use_id] = ""
            return self._content(event.tool_use_id)
        if isinstance(event, ev.SubagentFinished):
            self._flush(event.tool_use_id)
            lines = self._lines.setdefault(event.tool_use_id, [])
            total = event.usage.input_tokens + event.usage.output_tokens + event.usage.cache_read_input_tokens + \
                event.usage.cache_creation_input_tokens
            ended = 'failed' if event.is_error else 'done'
            lines.append(f"{ended}: {plural(event.requests, 'request')}, {total:,} tokens"
                         + (f"; transcript: {event.transcript}" if event.transcript else ""))
            update = self._content(event.tool_use_id)
            self._lines.pop(event.tool_use_id, None)
            self._text.pop(event.tool_use_id, None)
            return update
        if not isinstance(event, ev.SubagentStep):
            return None
        step, call = event.step, event.tool_use_id
        if isinstance(step, ev.TextDelta):
            self._text[call] = self._text.get(call, "") + step.text
            return None
        line = _line(step)
        if line is None:
            return None
        self._flush(call)
        self._lines.setdefault(call, []).append(line)
        return self._content(call)

    def _flush(self, call: str) -> None:
        text = " ".join(self._text.pop(call, "").split())
        if text:
            shown = text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"
            self._lines.setdefault(call, []).append(visible(shown))

    def _content(self, call: str) -> ToolCallProgress:
        lines = self._lines.get(call, [])
        cut = len(lines) - SHOWN_LINES
        shown = ([f"… {cut} earlier steps"] if cut > 0 else []) + lines[-SHOWN_LINES:]
        return protocol.tool_progress(call, "\n".join(shown))


def _line(step: ev.AgentEvent) -> str | None:
    if isinstance(step, ev.ToolStart):
        return f"→ {visible(step.summary or step.tool)}"
    if isinstance(step, ev.ToolEnd):
        return f"{'✗' if step.is_error else '✓'} {visible(step.summary or step.tool)}"
    if isinstance(step, ev.ErrorEvent):
        return f"error: {visible(step.message)}"
    if isinstance(step, ev.RetryEvent):
        return f"retrying in {step.delay_seconds:.0f} s: {visible(step.reason)}"
    if isinstance(step, ev.CompactionFinished):
        return f"compacted: {step.tokens_before:,} → {step.tokens_after:,} tokens"
    return None
