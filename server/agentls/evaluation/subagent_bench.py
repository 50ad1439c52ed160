"""What subagents save the parent: the recorded sessions replayed with their exploration run as subagents.

`agentls replay --subagents TRACE.json…` replays each trace twice through the default policy
(replay.py, the same pricing): as recorded (inline), and with every exploration run of at least
MIN_RUN read-only tool calls folded into one `task` call, its result a stand-in answer, while the
run itself is replayed as the child's own conversation. It prints the parent's peak request and
total prompt tokens, subagent against inline, as ratios, and what the children cost beside.

Assumptions (the traces record no subagent, so these stand in for it):
- exploration: consecutive assistant messages whose every tool call only reads (read_file,
  grep_search, list_files, or a shell line made of READ_COMMANDS only), each answered by the next
  user message; a run ends at the first call that writes, edits or runs anything else;
- the child's prompt is the text the run's first assistant message opens with (else a one-line
  task naming its calls), at most PROMPT_CHARS; its answer (the parent's one tool result, and the
  child's last reply) is the first ANSWER_PER_RESULT characters of each result of the run, at most
  ANSWER_CHARS in all;
- prompt tokens = input + cache read + cache write of every request (what fills the window);
  the child's requests are its own trace, priced the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..context.blocks import Message, blocks_of, result_text
from .replay import TraceResult, replay_trace

MIN_RUN = 3  # read-only calls in a row before they are a subagent's
PROMPT_CHARS = 2_000
ANSWER_PER_RESULT = 300
ANSWER_CHARS = 4_000
READ_TOOLS = frozenset({"read_file", "grep_search", "list_files"})
READ_COMMANDS = frozenset({"cat", "grep", "rg", "find", "ls", "head", "tail", "wc", "pwd", "tree", "cd", "file",
                           "stat", "nl", "less", "which", "echo"})
_SEGMENTS = re.compile(r"&&|\|\||;|\|")


def reads_only(block: dict[str, Any]) -> bool:
    """Whether a tool call only reads (what a default subagent may do)."""
    name = block.get("name", "")
    if name in READ_TOOLS:
        return True
    command = (block.get("input") or {}).get("command") if name == "run_shell" else None
    if not isinstance(command, str) or not command.strip() or ">" in command:
        return False
    words = [segment.split() for segment in _SEGMENTS.split(command)]
    return all(w and w[0] in READ_COMMANDS for w in words)


def _uses(message: Message) -> list[dict[str, Any]]:
    return [b for b in blocks_of(message) if b.get("type") == "tool_use"]


@dataclass
class Folded:
    parent: list[Message]
    children: list[list[Message]] = field(default_factory=list)
    calls_moved: int = 0


def fold(messages: list[Message], min_run: int = MIN_RUN) -> Folded:
    """The parent's conversation with its exploration runs as `task` calls, and each child's conversation."""
    folded = Folded([])
    i = 0
    while i < len(messages):
        end, calls = i, 0
        while end + 1 < len(messages) and messages[end]["role"] == "assistant" and _uses(messages[end]) and \
                all(reads_only(b) for b in _uses(messages[end])) and messages[end + 1]["role"] == "user":
            calls += len(_uses(messages[end]))
            end += 2
        if calls < min_run:
            folded.parent.append(messages[i])
            i += 1
            continue
        run = messages[i:end]
        folded.parent.extend(_task_call(run, len(folded.children)))
        folded.children.append(_child(run))
        folded.calls_moved += calls
        i = end
    return folded


def _prompt(run: list[Message]) -> str:
    texts = [b.get("text", "") for b in blocks_of(run[0]) if b.get("type") == "text" and b.get("text")]
    names = ", ".join(sorted({b.get("name", "") for m in run for b in _uses(m)}))
    return ("\n".join(texts) or f"Explore with {names} and report what you find.")[:PROMPT_CHARS]


def _answer(run: list[Message]) -> str:
    parts = [result_text(b)[:ANSWER_PER_RESULT] for m in run if m["role"] == "user"
             for b in blocks_of(m) if b.get("type") == "tool_result"]
    return "\n".join(parts)[:ANSWER_CHARS] or "(nothing found)"


def _task_call(run: list[Message], n: int) -> list[Message]:
    tool_use_id = f"toolu_subagent_{n}"
    texts = [b for b in blocks_of(run[0]) if b.get("type") == "text"]
    use = {"type": "tool_use", "id": tool_use_id, "name": "task",
           "input": {"description": f"explore {n}", "prompt": _prompt(run)}}
    return [{"role": "assistant", "content": [*texts, use]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id,
                                          "content": _answer(run)}]}]


def _child(run: list[Message]) -> list[Message]:
    return [{"role": "user", "content": [{"type": "text", "text": _prompt(run)}]}, *run,
            {"role": "assistant", "content": [{"type": "text", "text": _answer(run)}]}]


def prompt_tokens(result: TraceResult) -> float:
    return result.input_tokens + result.cache_read + result.cache_write


@dataclass
class Comparison:
    trace: str
    inline: TraceResult
    parent: TraceResult
    children: list[TraceResult]
    calls_moved: int

    @property
    def children_tokens(self) -> float:
        return sum(prompt_tokens(c) for c in self.children)


def compare(trace_id: str, messages: list[Message], window: int) -> Comparison:
    folded = fold(messages)
    inline = replay_trace(trace_id, messages, "default", window)
    parent = replay_trace(trace_id, folded.parent, "default", window) if folded.children else inline
    children = [replay_trace(f"{trace_id}#{n}", child, "default", window)
                for n, child in enumerate(folded.children)]
    return Comparison(trace_id, inline, parent, children, folded.calls_moved)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.3f}×" if b else "-"


def format_comparisons(items: list[Comparison], window: int) -> str:
    rows = [f"window={window:,} policy=default min_run={MIN_RUN} (subagent ÷ inline; parent only, then with children)",
            f"{'trace':44} {'moved':>5} {'subs':>4} {'peak in':>8} {'peak sub':>8} {'peak ×':>7} "
            f"{'total in':>11} {'parent':>11} {'parent ×':>8} {'+children ×':>11}"]
    for c in items:
        rows.append(f"{c.trace[:44]:44} {c.calls_moved:>5} {len(c.children):>4} {c.inline.peak_tokens:>8,} "
                    f"{c.parent.peak_tokens:>8,} {_ratio(c.parent.peak_tokens, c.inline.peak_tokens):>7} "
                    f"{prompt_tokens(c.inline):>11,.0f} {prompt_tokens(c.parent):>11,.0f} "
                    f"{_ratio(prompt_tokens(c.parent), prompt_tokens(c.inline)):>8} "
                    f"{_ratio(prompt_tokens(c.parent) + c.children_tokens, prompt_tokens(c.inline)):>11}")
    inline_total = sum(prompt_tokens(c.inline) for c in items)
    parent_total = sum(prompt_tokens(c.parent) for c in items)
    children_total = sum(c.children_tokens for c in items)
    peak_ratios = [c.parent.peak_tokens / c.inline.peak_tokens for c in items if c.inline.peak_tokens]
    mean_peak = sum(peak_ratios) / len(peak_ratios) if peak_ratios else 0.0
    rows.append(f"TOTAL {len(items)} traces, {sum(c.calls_moved for c in items):,} calls moved into "
                f"{sum(len(c.children) for c in items):,} subagents: parent peak × (mean of traces) {mean_peak:.3f}, "
                f"max peak {max((c.parent.peak_tokens for c in items), default=0):,} vs "
                f"{max((c.inline.peak_tokens for c in items), default=0):,} inline; parent total "
                f"{_ratio(parent_total, inline_total)} ({parent_total:,.0f} vs {inline_total:,.0f}); "
                f"parent + children {_ratio(parent_total + children_total, inline_total)}")
    return "\n".join(rows)
