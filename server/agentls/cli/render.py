"""How the terminal shows the agent: one renderer of core events and views for every terminal front end.

`agentls ask`, `agentls repl` (the agent in-process) and `agentls chat` (an
LSP client of a spawned server) all print through a Renderer, so a tool line,
a cost line or a resumed transcript reads the same everywhere. Every string
that comes from outside (the model's text, tool summaries, titles, MCP names
and errors, error messages, server messages) goes through `visible()`: every
line and every streamed piece is passed through it on its way out, so no
escape sequence reaches the terminal whatever a caller forgot.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..agent import cache_text
from ..agent import events as ev
from ..agent.approval import ApprovalRequest
from ..agent.checkpoints.model import Checkpoint, RewindResult
from ..agent.commands import CustomCommand
from ..agent.endpoint_models import ModelsView
from ..agent.mcp.status import McpServerStatus
from ..agent.permissions import Rule
from ..agent.runtime import ActiveModel
from ..agent.store.sessions import SessionInfo
from ..agent.subagents.costs import cost_lines as subagent_cost_lines
from ..agent.todos import TodoItem, progress
from ..agent.tools.base import plural
from ..agent.transcript import TranscriptEntry
from ..agent.mcp.search_view import view_text
from ..agent.views import ContextDetails, CostDetails
from ..agent.visible import visible
from .subagent_view import SubagentBlocks, mark_lines
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from .lines import (checkpoint_lines, dollars, instructions_changed_text, k, mcp_lines, model_lines, rewind_lines,
                    session_lines, tools_changed_text)

HELP = """\
commands: /compact [instructions]  /cost  /model [ID]  /new (or /clear)  /sessions [words]  /resume N|ID  /checkpoints
          /rewind N [code|conversation|both]  /context  /mcp  /tasks  /plan [off]  /permissions  /help  /quit
Ctrl-C cancels a running turn; Ctrl-D or /quit leaves."""
REWIND_USAGE = "/rewind N [code|conversation|both] (N from /checkpoints; default both)"

DIM, RED, YELLOW, GREEN, CYAN = "2", "31", "33", "32", "36"
# The names the protocol gives the categories: what docs/protocol.md and Show Context call them.
CATEGORY_NAMES = (("system", "system"), ("tools", "tools"), ("instructions", "instructions"), ("user", "user"),
                  ("assistant", "assistant"), ("tool_results", "toolResults"))
TODO_MARKS = {"completed": "☑", "in_progress": "▶", "pending": "☐"}
WARN_POINTS = 0.10  # the prompt warns when auto-compaction is this close (as the VS Code status bar does)


def status_text(report: ContextReport, model: ActiveModel | None) -> str:
    """`42% · 75.6K/180K`: used over the usable window, as every view shows it (docs/protocol.md, Utilization)."""
    text = f"{round(report.utilization * 100)}% · {k(report.used)}/{k(report.effective_window)}"
    warning = compact_warning(report)
    return text + (f" · {warning}" if warning else "") + (" demo" if model is not None and model.demo else "")


def compact_warning(report: ContextReport) -> str:
    """`auto-compact at 85%: 3% left` when auto-compaction is near (within ten points); "" otherwise."""
    at = report.auto_compact_at
    if at is None or report.utilization < at - WARN_POINTS or report.utilization >= at:
        return ""
    return f"auto-compact at {round(at * 100)}%: {max(0, round(at * 100) - round(report.utilization * 100))}% left"


class Renderer:
    """Streamed text on `out`; notes (tools, compaction, retries, errors) on `notes` (stderr for `ask`)."""

    def __init__(self, out: TextIO | None = None, notes: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.notes = notes or self.out
        self.color = self.out.isatty()
        self._mid_line = False
        self._thinking = False
        self._subagents = SubagentBlocks()

    # ---- pieces ------------------------------------------------------------

    def _style(self, text: str, code: str, stream: TextIO | None = None) -> str:
        color = (stream or self.out).isatty() if stream is not None else self.color
        return f"\033[{code}m{text}\033[0m" if color and code else text

    def write(self, text: str) -> None:
        """Streamed text from outside (the model's): shown, never obeyed as terminal controls."""
        self._emit(visible(text))

    def _emit(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def _end_text(self) -> None:
        if self._mid_line:
            self._emit("\n")

    def line(self, text: str, style: str = "") -> None:
        """A line of its own on `out` (after ending any streamed text). Every line goes through visible()
        (idempotent): titles, ids, tool names, summaries, server messages all come from outside."""
        self._end_text()
        self._emit(self._style(visible(text), style) + "\n")

    def note(self, text: str, style: str = "") -> None:
        """A line about what happens (tools, compaction, errors): on `notes`, through visible() too."""
        self._end_text()
        if self.notes is self.out:
            self.line(text, style)
            return
        self.notes.write(self._style(visible(text), style, self.notes) + "\n")
        self.notes.flush()

    def ask(self, question: str) -> None:
        """A question on `notes`, the answer typed after it on the same line."""
        self._end_text()
        self.notes.write(question)
        self.notes.flush()
        if self.notes is self.out:
            self._mid_line = True

    def end_turn(self) -> None:
        self._end_text()
        self._thinking = False

    def prompt(self, report: ContextReport | None, model: ActiveModel | None) -> str:
        """`[42% · 75.6K/180K] > `, coloured by the meter's level."""
        if report is None:
            return "> "
        style = {"warn": YELLOW, "high": RED}.get(report.level, DIM)
        return f"{self._style('[' + status_text(report, model) + ']', style)} > "

    # ---- a turn ------------------------------------------------------------------

    def __call__(self, event: ev.AgentEvent) -> None:
        """An EventSink: every event of a turn as it happens."""
        if isinstance(event, ev.TextDelta):
            if self._thinking:
                self._thinking = False
                self._end_text()
            self.write(event.text)
        elif isinstance(event, ev.ThinkingDelta):
            if not self._thinking:
                self._thinking = True
                self.note("thinking…", DIM)
        elif isinstance(event, ev.ToolStart):
            self.note(f"  ⏺ {visible(event.summary or event.tool)}", CYAN)
        elif isinstance(event, ev.ToolEnd):
            mark = "✗" if event.is_error else "✓"
            badge = f" [{event.marker}]" if event.marker else ""
            self.note(f"    {mark} {visible(event.summary)} ({event.result_chars:,} chars){badge}",
                      RED if event.is_error else DIM)
        elif isinstance(event, ev.RetryEvent):
            self.note(f"  ↻ retry {event.attempt} in {event.delay_seconds:.1f}s: {visible(event.reason)}", YELLOW)
        elif isinstance(event, ev.ThinkingDropped):
            self.note(f"  ! {visible(event.text)}", YELLOW)
        elif isinstance(event, ev.CompactionStarted):
            self.note(f"  ⋯ compacting the conversation ({event.reason})", DIM)
        elif isinstance(event, ev.CompactionFinished):
            self.note(f"  ⋯ compacted: {k(event.tokens_before)} → {k(event.tokens_after)}", DIM)
        elif isinstance(event, ev.ToolsChanged):
            self.note(f"  ⋯ {tools_changed_text(event.added, event.removed)}", DIM)
        elif isinstance(event, ev.CheckpointTaken):
            count = len(event.files) + len(event.skipped)
            self.note(f"  ⋯ checkpoint: {count} file{'s' if count != 1 else ''} changed (/checkpoints, /rewind)", DIM)
        elif isinstance(event, ev.InstructionsChanged):
            self.note(f"  ⋯ {instructions_changed_text(event)}", DIM)
        elif isinstance(event, ev.TodosChanged):
            self.todos(event.todos)
        elif isinstance(event, ev.ErrorEvent):
            self.note(f"  ! {visible(event.message)}", RED)
        elif isinstance(event, (ev.SubagentStarted, ev.SubagentStep, ev.SubagentFinished)):
            for text, failed in self._subagents.lines(event):  # an indented block under the task call
                self.note(text, RED if failed else DIM)

    def error(self, message: str) -> None:
        self.note(f"! {visible(message)}", RED)

    # ---- answers to commands ------------------------------------------------------

    def cost(self, details: CostDetails) -> None:
        cost = details.report
        u = cost.usage
        self.line(f"{plural(cost.requests, 'request')} · {u.input_tokens:,} in / {u.output_tokens:,} out tokens "
                  f"· cache {u.cache_read_input_tokens:,} read / {u.cache_creation_input_tokens:,} written "
                  f"(TTL {cost.cache_ttl}, {u.cache_write_1h_tokens:,} for 1 h) "
                  f"· {dollars(cost)} ({visible(cost.model)})")
        for row in subagent_cost_lines(cost):  # included in the totals above
            self.line(f"  {visible(row)}")
        if details.cache is not None:
            for row in cache_text.cost_lines(details.cache):
                self.line(f"  {visible(row)}", DIM)

    def models(self, view: ModelsView) -> None:
        for row in model_lines(view):
            self.line(row)

    def compaction(self, result: CompactionResult) -> None:
        if result.compacted:
            self.line(f"compacted: {result.tokens_before:,} → {result.tokens_after:,} tokens")
        else:
            self.line(f"not compacted: {result.note or 'nothing to gain'}")

    def context(self, details: ContextDetails, model: ActiveModel | None) -> None:
        report = details.report
        who = " · demo model" if model is not None and model.demo else f" · {visible(model.model)}" if model else ""
        self.line(f"{report.used:,} of {report.effective_window:,} tokens ({report.utilization:.0%}, {report.level})"
                  f" · window {report.window:,}{who}")
        for field, name in CATEGORY_NAMES:
            self.line(f"  {name:<12} {getattr(report.categories, field):>9,}")
        for layer in report.layers:
            if layer.count:
                self.line(f"  {layer.layer:<12} {layer.count:>4}× saved {layer.tokens_saved:,} tokens", DIM)
        for server in details.mcp_tools:
            self.line(f"  mcp {visible(server.server):<8} {server.tools:>4} tools {server.tokens:>7,} tokens", DIM)
        if details.tool_search is not None and view_text(details.tool_search):
            self.line(f"  {view_text(details.tool_search)}", DIM)
        if details.tool_list_changes:
            self.line(f"  {details.tool_list_changes} tool-list change(s): each one prompt-cache break", DIM)
        for item in details.instructions:
            cut = " (cut at the cap)" if item.cut else ""
            self.line(f"  instructions {visible(item.name):<24} {item.tokens:>7,} tokens{cut}", DIM)
        if details.instruction_changes:
            self.line(f"  {details.instruction_changes} instruction change(s): each one prompt-cache break", DIM)
        if details.placeholders:
            self.line(f"  {len(details.placeholders)} placeholders (re-readable via context://…)", DIM)
        for warning in details.warnings:
            self.line(f"  ! {warning}", YELLOW)
        if details.cache is not None:
            self.line("  cache:")
            for row in cache_text.context_lines(details.cache):
                self.line(f"    {visible(row)}", DIM)

    def sessions(self, sessions: list[tuple[SessionInfo, bool]]) -> None:
        for row in session_lines(sessions, time.time()):
            self.line(row)

    def transcript(self, entries: list[TranscriptEntry], last: int = 6) -> None:
        """The end of a resumed conversation (its transcript of record), so the user knows where it stands."""
        if len(entries) > last:
            self.line(f"  … {len(entries) - last} earlier messages", DIM)
        for entry in entries[-last:]:
            if entry.kind == "compaction" and entry.compaction is not None:
                mark = entry.compaction
                self.line(f"  ── compacted: {mark.tokens_before:,} → {mark.tokens_after:,} tokens ({mark.reason}) ──",
                          DIM)
                continue
            if entry.kind == "note":
                self.line(f"  {visible(entry.text)[:160]}", RED if entry.level == "error" else DIM)
                continue
            who = "you" if entry.role == "user" else "agent"
            text = " ".join(visible(entry.text).split())
            chips = f" [+ {', '.join(visible(a) for a in entry.attachments)}]" if entry.attachments else ""
            self.line(f"  {who}: {text[:160]}{'…' if len(text) > 160 else ''}{chips}", DIM if who == "agent" else "")
            for tool in entry.tools:
                outcome = f" ({visible(tool.approval)})" if tool.approval in ("rejected", "refused") else ""
                self.line(f"    ⏺ {visible(tool.summary)}{outcome}", RED if tool.is_error else CYAN)
                for row in mark_lines(tool.subagent) if tool.subagent is not None else []:
                    self.line(row, DIM)  # a task call: its subagent's steps, indented under it

    def checkpoints(self, listed: list[Checkpoint]) -> None:
        for row in checkpoint_lines(listed):
            self.line(row)

    def rewind(self, result: RewindResult) -> None:
        for row in rewind_lines(result):
            self.line(row)

    def mcp(self, servers: list[McpServerStatus], tool_list_changes: int) -> None:
        for row in mcp_lines(servers, tool_list_changes):
            self.line(row)

    def todos(self, items: list[TodoItem] | tuple[TodoItem, ...]) -> None:
        """The task list, whole, whenever the model changes it (and for /tasks)."""
        if not items:
            self.note("  tasks: (none)", DIM)
            return
        self.note(f"  tasks ({progress(tuple(items))}):", CYAN)
        for item in items:
            style = DIM if item.status == "completed" else YELLOW if item.status == "in_progress" else ""
            self.note(f"    {TODO_MARKS.get(item.status, '?')} {visible(item.content)}", style)

    def permissions(self, rules: list[Rule]) -> None:
        if not rules:
            self.line("no permission rules (settings `permissions`, or .agents/settings.json in the workspace)")
        for rule in rules:
            self.line(f"  {rule.decision:<5} {visible(rule.text):<40} {visible(rule.source)}")

    def commands(self, found: list[CustomCommand]) -> None:
        """Custom commands after the built-in help."""
        for command in found:
            hint = f" {visible(command.argument_hint)}" if command.argument_hint else ""
            self.line(f"  /{visible(command.name)}{hint} — {visible(command.description)} ({command.source})")

    def rules_added(self, rules: tuple[str, ...]) -> None:
        """What "always" added: the rules, and how to keep them."""
        for rule in rules:
            self.note(f"    + allow {visible(rule)} (for this session; to keep it, add it to permissions.allow "
                      "in .agents/settings.json or your settings)", GREEN)

    def approval(self, request: ApprovalRequest) -> None:
        """What is asked, with every control character visible: what is approved is what runs."""
        if request.subagent:
            self.note(f"  ? subagent “{visible(request.subagent)}” asks:", YELLOW)
        if request.kind == "shell":
            self.note(f"  ? run: {visible(request.command or '')}", YELLOW)
        elif request.kind == "rewind":
            paths = ", ".join(visible(path) for path in request.paths or ())
            self.note(f"  ? rewind: overwrite files changed outside the agent: {paths}", YELLOW)
            for row in visible(request.diff or "").split("\n")[:60]:
                self.note(f"    {row}", GREEN if row.startswith("+") else RED if row.startswith("-") else DIM)
        elif request.kind == "rules":
            self.note(f"  ? accept the permission rules of {visible(request.path or '')} (its allow rules apply "
                      "only if you accept; asked again when it changes):", YELLOW)
            for row in visible(request.diff or "").split("\n")[:60]:
                self.note(f"    {row}", DIM)
        elif request.kind == "mcp":
            self.note(f"  ? call {visible(request.tool or '')} on MCP server '{visible(request.server or '')}'",
                      YELLOW)
            for row in visible(request.input or "").splitlines()[:40]:
                self.note(f"    {row}", DIM)
        else:
            self.note(f"  ? {visible(request.kind)} {visible(request.path or '')}", YELLOW)
            for row in visible(request.diff or "").split("\n")[:60]:
                self.note(f"    {row}", GREEN if row.startswith("+") else RED if row.startswith("-") else DIM)
        if request.rules:
            self.note(f"    [a]lways allows: {', '.join(visible(rule) for rule in request.rules)}", DIM)
