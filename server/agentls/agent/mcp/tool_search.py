"""Tool search: many MCP tools' schemas stay out of every request until the model looks for them.

When the MCP servers offer more than MAX_UPFRONT tools, or their definitions take more than UPFRONT_SHARE of the
context window, their schemas are deferred (README "Tool search"); the built-in tools never are. How:
- NATIVE, on a model Anthropic's documentation lists for its tool search tool (model/tool_search.py) unless the
  `toolSearch` setting says the endpoint lacks it: the request declares the tool search tool and every MCP tool
  with `defer_loading: true`; the API searches, and expands the tools it found, without changing `tools`;
- BUILTIN elsewhere: agentls' own `search_tools` tool ranks the deferred tools (Okapi BM25 over names,
  descriptions and parameter names, as the server tool searches) and loads the schemas of what it found; a loaded
  schema joins the live tool list and reaches the model the way any MCP tool change does (agent/turn/head.py):
  a `tool_addition` appended to a fixed head, or the next request's `tools` (one counted cache break) where the
  head is not fixed. A fixed head on a model that takes no tool changes could not show a loaded schema before the
  next compaction, so there nothing is deferred.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...context.tokens import estimate_tokens
from ...model.tool_search import SEARCH_TOOL
from ..tools.base import ToolOutput, error
from .names import is_mcp_name
from .search_view import BUILTIN, NATIVE, UPFRONT, ToolSearchView

MAX_UPFRONT = 30  # MCP tools whose schemas go in every request; more are deferred
UPFRONT_SHARE = 0.10  # or when their definitions take more than this share of the window
RESULTS = 5  # tools a search returns and loads (the server tool returns 3-5 "most relevant")
QUERY_MAX = 500  # characters of a search_tools query

SEARCH_TOOLS = "search_tools"
SEARCH_TOOLS_DEFINITION: dict[str, Any] = {
    "name": SEARCH_TOOLS,
    "description": (
        "Find tools of the connected MCP servers whose schemas are not loaded yet (there are too many to send "
        "every time). Give a few words saying what you need, or exact tool names; the best matches are listed "
        "with their descriptions and loaded, and you can call them from your next step."),
    "input_schema": {"type": "object", "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words, or tool names."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 10,
                  "description": f"How many tools to find and load (default {RESULTS})."}},
        "required": ["query"]},
}


def definitions_tokens(definitions: list[dict[str, Any]]) -> int:
    return estimate_tokens(len(json.dumps(definitions))) if definitions else 0


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)  # camelCase → camel Case
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def _searchable(definition: dict[str, Any]) -> list[str]:
    """A tool's words: its name, description, parameter names and their descriptions."""
    schema = definition.get("input_schema") or {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    parts = [definition.get("name", ""), definition.get("description", "")]
    if isinstance(properties, dict):
        for name, spec in properties.items():
            parts += [str(name), str(spec.get("description", "")) if isinstance(spec, dict) else ""]
    return _words(" ".join(parts))


def ranked(definitions: list[dict[str, Any]], query: str, limit: int) -> list[dict[str, Any]]:
    """The best `limit` matches of `query`: the tools it names exactly (only those), else by BM25 score (ties: list
    order)."""
    named = [d for d in definitions if d["name"] in query.split() or d["name"].split("__")[-1] in query.split()]
    if named:
        return named[:limit]
    terms = _words(query)
    scored: list[dict[str, Any]] = []
    if terms and definitions:
        from rank_bm25 import BM25Okapi  # numpy comes with it: imported on the first search only

        scores = BM25Okapi([_searchable(d) or ["-"] for d in definitions]).get_scores(terms)
        order = sorted(range(len(definitions)), key=lambda i: -scores[i])
        scored = [definitions[i] for i in order if scores[i] > 0]
    return scored[:limit]


class ToolSearch:
    """Which MCP tools are deferred, and (BUILTIN) which of them search_tools has loaded."""

    def __init__(self) -> None:
        self.mode = UPFRONT
        self.loaded: list[str] = []  # BUILTIN: names search_tools loaded, in loading order
        self._mcp: list[dict[str, Any]] = []

    def tools(self, builtin: list[dict[str, Any]], mcp: list[dict[str, Any]], *, native: bool, can_load: bool,
              window: int) -> list[dict[str, Any]]:
        """The tool list a request carries: the built-in tools, then the MCP tools or what stands for them."""
        self._mcp = mcp
        over = len(mcp) > MAX_UPFRONT or definitions_tokens(mcp) > UPFRONT_SHARE * window
        self.mode = UPFRONT if not over else NATIVE if native else BUILTIN if can_load else UPFRONT
        if self.mode == NATIVE:
            return [*builtin, dict(SEARCH_TOOL), *({**d, "defer_loading": True} for d in mcp)]
        if self.mode == BUILTIN:
            by_name = {d["name"]: d for d in mcp}
            return [*builtin, SEARCH_TOOLS_DEFINITION, *(by_name[n] for n in self.loaded if n in by_name)]
        return [*builtin, *mcp]

    def restore(self, told: list[dict[str, Any]]) -> None:
        """A resumed conversation: the tools its head told the model of stay loaded."""
        if any(t.get("name") == SEARCH_TOOLS for t in told):
            self.loaded = [t["name"] for t in told if is_mcp_name(str(t.get("name")))]

    def view(self) -> ToolSearchView:
        if self.mode == UPFRONT:
            return ToolSearchView(UPFRONT, len(self._mcp), 0, 0, 0)
        loaded = set(self.loaded) if self.mode == BUILTIN else set()
        deferred = [d for d in self._mcp if d["name"] not in loaded]
        return ToolSearchView(self.mode, len(self._mcp) - len(deferred), len(deferred), len(loaded & {
            d["name"] for d in self._mcp}), definitions_tokens(deferred))

    def run(self, tool_input: Any) -> ToolOutput:
        """search_tools: the matches, named and described, and their schemas loaded for the next request."""
        if self.mode != BUILTIN:
            return error("search_tools is not in use: every tool's schema is already offered.",
                         "search_tools (not in use)")
        query = tool_input.get("query") if isinstance(tool_input, dict) else None
        limit = tool_input.get("limit", RESULTS) if isinstance(tool_input, dict) else RESULTS
        if not isinstance(query, str) or not query.strip() or len(query) > QUERY_MAX:
            return error(f"search_tools needs a `query`: a few words or tool names (at most {QUERY_MAX} characters).",
                         "search_tools (invalid query)")
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 10:
            return error("search_tools: `limit` must be an integer from 1 to 10.", "search_tools (invalid limit)")
        found = ranked(self._mcp, query, limit)
        if not found:
            return ToolOutput(f"No tool matches {query!r} among the {len(self._mcp)} deferred tools; try other words.",
                              False, f"search_tools: no match for {query[:40]!r}")
        new = [d["name"] for d in found if d["name"] not in self.loaded]
        self.loaded += new
        lines = [f"- {d['name']}: {_first_line(d.get('description', ''))}" for d in found]
        text = "\n".join([f"Found {len(found)} tool(s); their schemas are loaded, call them from your next step:",
                          *lines])
        return ToolOutput(text, False, f"search_tools: {len(found)} found, {len(new)} loaded")


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 1] + "…"
