"""Views of the agent's state that combine the engine's figures with the agent's own (plain data)."""

from __future__ import annotations

from dataclasses import dataclass

from ..context.report import ContextReport, Placeholder
from ..model.pricing import CostReport
from .cache_report import CacheReport
from .mcp.status import McpToolTokens
from .mcp.search_view import ToolSearchView


@dataclass(frozen=True)
class InstructionFileView:
    """One instruction file the system prompt carries (agent/instructions.py)."""

    name: str  # as the prompt names it: "AGENTS.md", "src/AGENTS.md", "~user/AGENTS.md"
    scope: str  # "user", "root" or "nested"
    tokens: int
    chars: int  # the file's full length
    cut: bool  # over the cap: only its beginning is in the prompt


@dataclass(frozen=True)
class ContextDetails:
    """agent/context and /context: the meter's report plus what explains it."""

    report: ContextReport
    placeholders: tuple[Placeholder, ...] = ()
    mcp_tools: tuple[McpToolTokens, ...] = ()
    tool_list_changes: int = 0
    instructions: tuple[InstructionFileView, ...] = ()
    instruction_changes: int = 0  # requests whose instruction files differed from the previous one
    warnings: tuple[str, ...] = ()  # what the user should act on (an MCP server's tools taking much of the window)
    cache: CacheReport | None = None  # cache misses and dropped thinking; None: nothing to tell
    tool_search: ToolSearchView | None = None  # the MCP tools offered vs deferred (mcp/tool_search.py)


@dataclass(frozen=True)
class CostDetails:
    """/cost: the session's costs, and why the prompt cache missed (None: nothing to tell)."""

    report: CostReport
    cache: CacheReport | None = None
