"""The slash commands an ACP client offers (available_commands_update), and their answers as text.

A command arrives as a prompt ("/compact keep the API design"); the session
runs it instead of a turn and answers with an agent message. The same four
the terminal and the VS Code panel have: /compact [focus], /cost, /context,
/new, /plan [off]. The user's and the workspace's own commands (Markdown files,
agent/commands.py) follow them: one of those is a turn whose prompt is the
file's text with `$ARGUMENTS` filled in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..agent import cache_text
from ..agent.cache_report import CacheReport
from ..agent.mcp.search_view import view_text
from ..agent.commands import CustomCommand
from ..agent.runtime import ActiveModel
from ..agent.subagents.costs import cost_lines as subagent_cost_lines
from ..agent.tools.base import plural
from ..agent.views import ContextDetails
from ..context.pipeline import CompactionResult
from ..model.pricing import CostReport

CATEGORIES = (("system", "system prompt"), ("tools", "tool definitions"), ("instructions", "instruction files"),
              ("user", "your messages"), ("assistant", "replies"), ("tool_results", "tool results"))


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    hint: str | None = None  # the input it takes, shown while it is empty
    custom: bool = False  # a Markdown command (agent/commands.py): expanded and sent as a prompt


BUILTIN = (
    Command("compact", "Summarise the conversation now, to free the context window",
            "what the summary should keep (optional)"),
    Command("cost", "What this session has cost so far (tokens, cache, dollars)"),
    Command("context", "What fills the context window, and what the pipeline saved"),
    Command("new", "Start a new conversation here (the current one stays in the session list)"),
    Command("plan", "Plan mode: read and search only, then a plan in the task list; `/plan off` approves it",
            "off: approve the plan and act on it (optional)"),
)


def commands(custom: Iterable[CustomCommand] = ()) -> tuple[Command, ...]:
    """The commands this session offers: the built-in ones, then the custom ones (agent/commands.py never
    lets a file take a built-in name)."""
    return BUILTIN + tuple(Command(c.name, c.description or f"custom command ({c.source})", c.argument_hint or None,
                                   custom=True) for c in custom)


def cost_text(cost: CostReport, cache: CacheReport | None = None) -> str:
    usage = cost.usage
    text = (f"**Cost of this session:** ${cost.usd:.4f} ({cost.model})\n\n"
            f"- {plural(cost.requests, 'request')}\n"
            f"- {usage.input_tokens:,} input / {usage.output_tokens:,} output tokens\n"
            f"- prompt cache: {usage.cache_read_input_tokens:,} read, {usage.cache_creation_input_tokens:,} written "
            f"(TTL {cost.cache_ttl}; {usage.cache_write_1h_tokens:,} for 1 h)\n")
    text += "".join(f"- {row}\n" for row in subagent_cost_lines(cost))  # included in the totals above
    if cache is None:
        return text
    head, *rows = cache_text.cost_lines(cache)
    return text + f"\n**{head}**\n\n" + "".join(f"- {row}\n" for row in rows)


def context_text(details: ContextDetails, model: ActiveModel) -> str:
    report = details.report
    who = "the offline demo model" if model.demo else model.model
    head = (f"**Context:** {report.used:,} of {report.effective_window:,} tokens ({report.utilization:.0%}, "
            f"{report.level}) · window {report.window:,} · {who}")
    lines = [head, ""]
    lines += [f"- {name}: {getattr(report.categories, field):,}" for field, name in CATEGORIES]
    saved = [layer for layer in report.layers if layer.count]
    if saved:
        lines += ["", "Saved by the context pipeline:"]
        lines += [f"- {layer.layer}: {layer.count}× ({layer.tokens_saved:,} tokens)" for layer in saved]
    for server in details.mcp_tools:
        lines.append(f"- MCP server {server.server}: {server.tools} tools, {server.tokens:,} tokens per request")
    if details.tool_search is not None and view_text(details.tool_search):
        lines.append(f"- {view_text(details.tool_search)}")
    for item in details.instructions:
        cut = " (cut)" if item.cut else ""
        lines.append(f"- instruction file {item.name} ({item.scope}): {item.tokens:,} tokens{cut}")
    if details.tool_list_changes:
        lines.append(f"- {details.tool_list_changes} tool-list change(s), each one prompt-cache break")
    if details.instruction_changes:
        lines.append(f"- {details.instruction_changes} instruction-file change(s), each one prompt-cache break")
    if details.placeholders:
        lines.append(f"- {len(details.placeholders)} results cut or cleared, still readable via their context:// ref")
    if details.warnings:
        lines += ["", *(f"⚠ {warning}" for warning in details.warnings)]
    if details.cache is not None:
        lines += ["", "**Cache:**", *(f"- {row}" for row in cache_text.context_lines(details.cache))]
    return "\n".join(lines) + "\n"


def compaction_text(result: CompactionResult) -> str:
    if result.compacted:
        return f"Compacted: {result.tokens_before:,} → {result.tokens_after:,} tokens.\n"
    return f"Not compacted: {result.note or 'nothing to gain'}\n"
