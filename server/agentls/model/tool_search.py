"""Anthropic's tool search tool: which models take it, and the shapes a request and a reply use.

Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool (read 2026-12-05;
its `featureMetadata.supportedModels`, the same in every language version of the page) and the installed
anthropic SDK's types (ToolSearchToolBm25_20251119Param / ToolSearchToolRegex20251119Param, ToolParam's
`defer_loading`, ServerToolUseBlock, ToolSearchToolResultBlock, ToolSearchToolSearchResultBlock,
ToolReferenceBlock, ToolSearchToolResultErrorCode). The feature is stable: no beta header.

- The request declares one search tool, `{"type": "tool_search_tool_bm25_20251119", "name":
  "tool_search_tool_bm25"}` (natural-language queries) or the regex variant (`tool_search_tool_regex_20251119`,
  Python `re.search` patterns, at most 200 characters), and marks every deferred tool `defer_loading: true`;
  a deferred tool is not in the model's context until a search returns it.
- The model's search is a `server_tool_use` block (`input: {"query": …}`), answered in the same reply by a
  `tool_search_tool_result` whose `content` is a `tool_search_tool_search_result` with `tool_references`
  (`{"type": "tool_reference", "tool_name": …}`) or a `tool_search_tool_result_error` (`error_code`); the API
  expands each reference into the tool's definition, so `tools` never changes.
- The Models API's `capabilities` name no tool search (ModelCapabilities.server_tools covers web search and
  code execution only), so support is this documented list; an endpoint that lacks it (a proxy, Bedrock's
  Converse API) is told with the `toolSearch` setting (`builtin`: agentls' own search_tools instead).
"""

from __future__ import annotations

from .binding import base_id

BM25_TYPE = "tool_search_tool_bm25_20251119"
BM25_NAME = "tool_search_tool_bm25"
REGEX_TYPE = "tool_search_tool_regex_20251119"
REGEX_NAME = "tool_search_tool_regex"
SEARCH_TOOL_TYPES = {BM25_TYPE: BM25_NAME, REGEX_TYPE: REGEX_NAME}  # versioned type → the name it must have
REGEX_QUERY_MAX = 200  # characters of a regex variant's pattern (the page's "Maximum query length")

# The page's supportedModels (dated snapshots as base ids: base_id strips the date).
TOOL_SEARCH_MODELS = frozenset({
    "claude-fable-5-2", "claude-mythos-5-2", "claude-fable-5-1", "claude-mythos-5-1", "claude-fable-5",
    "claude-mythos-5", "claude-mythos-preview", "claude-opus-5-5", "claude-opus-5", "claude-sonnet-5-5",
    "claude-sonnet-5", "claude-haiku-5-5", "claude-haiku-4-5", "claude-opus-4-8", "claude-opus-4-7",
    "claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5", "claude-sonnet-4-5",
})

SEARCH_TOOL = {"type": BM25_TYPE, "name": BM25_NAME}  # what agentls declares: the model writes plain words

TOOL_SEARCH_MODES = ("auto", "builtin", "off")  # the `toolSearch` setting


def takes_tool_search(model: str) -> bool:
    """Whether the documentation lists `model` (or the model a snapshot or alias names) for tool search."""
    return base_id(model) in TOOL_SEARCH_MODELS
