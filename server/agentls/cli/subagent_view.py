"""A subagent in the terminal: an indented block under its `task` call, one line per step.

Several children of one reply run at once, so their text is held per child and shown as a
line of the block at its next step (never streamed into the parent's reply).
"""

from __future__ import annotations

from ..agent import events as ev
from ..agent.subagents.marks import SubagentMark
from ..agent.tools.base import plural
from ..agent.visible import visible

BAR = "    │ "
TEXT_CHARS = 200


class SubagentBlocks:
    def __init__(self) -> None:
        self._text: dict[str, str] = {}
        self._names: dict[str, str] = {}

    def lines(self, event: ev.AgentEvent) -> list[tuple[str, bool]]:
        """(line, is an error) for each line this event adds to its child's block."""
        if isinstance(event, ev.SubagentStarted):
            self._names[event.tool_use_id] = event.name
            fork = ", forked" if event.fork else ""
            return [(f"    ┌ subagent “{visible(event.name)}” ({visible(event.model)}{fork})", False)]
        if isinstance(event, ev.SubagentFinished):
            tokens = (event.usage.input_tokens + event.usage.output_tokens + event.usage.cache_read_input_tokens
                      + event.usage.cache_creation_input_tokens)
            where = f" · {visible(event.transcript)}" if event.transcript else ""
            end = (f"    └ “{visible(event.name)}” {'failed' if event.is_error else 'done'}: "
                   f"{plural(event.requests, 'request')} · {tokens:,} tokens · ${event.usd:.4f}{where}")
            self._names.pop(event.tool_use_id, None)
            return [*self._flush(event.tool_use_id), (end, event.is_error)]
        if not isinstance(event, ev.SubagentStep):
            return []
        step, call = event.step, event.tool_use_id
        if isinstance(step, ev.TextDelta):
            self._text[call] = self._text.get(call, "") + step.text
            return []
        if isinstance(step, ev.ToolStart):
            line = (f"{BAR}⏺ {visible(step.summary or step.tool)}", False)
        elif isinstance(step, ev.ToolEnd):
            line = (f"{BAR}  {'✗' if step.is_error else '✓'} {visible(step.summary)}", step.is_error)
        elif isinstance(step, ev.ErrorEvent):
            line = (f"{BAR}! {visible(step.message)}", True)
        elif isinstance(step, ev.RetryEvent):
            line = (f"{BAR}↻ retry {step.attempt} in {step.delay_seconds:.1f}s: {visible(step.reason)}", False)
        else:
            return []
        return [*self._flush(call), line]

    def _flush(self, call: str) -> list[tuple[str, bool]]:
        text = " ".join(self._text.pop(call, "").split())
        if not text:
            return []
        name = self._names.get(call, "")
        shown = text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"
        return [(f"{BAR}{visible(name)}: {visible(shown)}" if name else f"{BAR}{visible(shown)}", False)]


def mark_lines(mark: SubagentMark, last: int = 8) -> list[str]:
    """A resumed task card's subagent: its last steps and how it ended, as an indented block."""
    rows = [f"{BAR}{'✗' if step.is_error else '✓'} {visible(step.summary or step.tool)}" for step in mark.steps[-last:]]
    more = [f"{BAR}… {len(mark.steps) - last} earlier steps"] if len(mark.steps) > last else []
    end = (f"    └ “{visible(mark.name)}” {'failed' if mark.is_error else 'done'}: "
           f"{plural(mark.requests, 'request')} · {mark.tokens:,} tokens")
    return [*more, *rows, end]
