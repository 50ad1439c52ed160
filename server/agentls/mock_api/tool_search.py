"""The tool search tool on the mock's side: the request rules, the search, and the blocks of a scripted search.

Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool (read 2026-12-05) and the
anthropic SDK's types (ToolSearchToolBm25_20251119Param, ToolSearchToolRegex20251119Param, ToolParam
`defer_loading`, ServerToolUseBlock, ToolSearchToolResultBlock, ToolSearchToolSearchResultBlock,
ToolReferenceBlock, ToolSearchToolResultErrorCode). Kept apart from the agent's code on purpose: this is the
API's side of the contract.

- The request may declare a search tool: `tool_search_tool_bm25_20251119` named `tool_search_tool_bm25`, or
  `tool_search_tool_regex_20251119` named `tool_search_tool_regex`; it cannot itself be deferred. A tool with
  `defer_loading: true` is left out of the model's context (and of the prompt's tokens and cache prefix) until a
  `tool_reference` names it; at least one tool must stay loaded. A model that does not take tool search refuses
  the search tool (the mock-only model flag `tool_search`).
- A scripted `ToolSearch(query)` becomes a `server_tool_use` and its `tool_search_tool_result`: the deferred tools
  whose name, description, parameter names and descriptions match — Python `re.search` for the regex variant
  (at most 200 characters), Okapi BM25 for the bm25 one — at most RESULTS of them, as `tool_reference`s. A query
  that is no valid pattern is answered with `tool_search_tool_result_error` (`invalid_tool_input`).
- A `tool_use` of a deferred tool that no earlier `tool_reference` loaded is refused: in a request's history
  (400), and in a scripted reply (the mock refuses to play a call the model could not have made).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from .script import ToolSearch

SEARCH_TOOLS = {"tool_search_tool_bm25_20251119": "tool_search_tool_bm25",
                "tool_search_tool_regex_20251119": "tool_search_tool_regex"}
REGEX_QUERY_MAX = 200
RESULTS = 5  # "typically 3-5" tools per search


def _tools(body: dict) -> list[dict]:
    return [t for t in body.get("tools") or [] if isinstance(t, dict)]


def deferred_tools(body: dict) -> dict[str, dict]:
    return {t["name"]: t for t in _tools(body) if t.get("defer_loading") is True and isinstance(t.get("name"), str)}


def search_tool(body: dict) -> dict | None:
    return next((t for t in _tools(body) if t.get("type") in SEARCH_TOOLS), None)


def _blocks(message: Any) -> list:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def references(block: dict) -> list[str]:
    """The tool names a block's `tool_reference`s load (a search result's, or a tool_result's own)."""
    if block.get("type") == "tool_search_tool_result":
        content = block.get("content")
        found = content.get("tool_references") if isinstance(content, dict) else None
    elif block.get("type") == "tool_result":
        found = block.get("content")
    else:
        return []
    return [str(r.get("tool_name")) for r in found or [] if isinstance(r, dict) and r.get("type") == "tool_reference"]


def _walk(body: dict) -> Iterator[tuple[str, dict]]:
    for i, message in enumerate(body.get("messages") or []):
        for j, block in enumerate(_blocks(message)):
            if isinstance(block, dict):
                yield f"messages.{i}.content.{j}", block


def request_error(body: dict, takes_tool_search: bool) -> str | None:
    """The 400 for a malformed or refused use of tool search (None: fine)."""
    tools = _tools(body)
    for i, tool in enumerate(tools):
        kind, flag = tool.get("type"), tool.get("defer_loading")
        if flag is not None and not isinstance(flag, bool):
            return f"tools.{i}.defer_loading: Input should be a valid boolean"
        if isinstance(kind, str) and kind.startswith("tool_search_tool_") and kind not in SEARCH_TOOLS:
            return f"tools.{i}.type: Input should be {' or '.join(repr(k) for k in SEARCH_TOOLS)}"
        if kind in SEARCH_TOOLS:
            if tool.get("name") != SEARCH_TOOLS[kind]:
                return f"tools.{i}.name: Input should be '{SEARCH_TOOLS[kind]}'"
            if flag:
                return f"tools.{i}: the tool search tool cannot have defer_loading set"
            if not takes_tool_search:
                return f"tools.{i}.type: '{kind}' is not supported on {body.get('model')}"
    deferred = deferred_tools(body)
    if deferred and len(deferred) == len(tools):
        return "tools: all tools have defer_loading set; at least one tool must be loaded"
    loaded: set[str] = set()
    for path, block in _walk(body):
        for name in references(block):
            if name not in deferred and name not in {t.get("name") for t in tools}:
                return f"{path}: tool_reference names '{name}', which is not defined in `tools`"
            loaded.add(name)
        if block.get("type") == "server_tool_use" and str(block.get("name", "")).startswith("tool_search_tool_") \
                and search_tool(body) is None:
            return f"{path}: `{block.get('name')}` was used but no tool search tool is defined in `tools`"
        if block.get("type") == "tool_use" and block.get("name") in deferred and block.get("name") not in loaded:
            return (f"{path}: tool '{block.get('name')}' is deferred (defer_loading) and no earlier tool_reference "
                    "loaded it")
    return None


def loaded_names(body: dict) -> set[str]:
    return {name for _, block in _walk(body) for name in references(block)}


def _searchable(tool: dict) -> str:
    schema = tool.get("input_schema") or {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    parts = [str(tool.get("name", "")), str(tool.get("description", ""))]
    for name, spec in (properties or {}).items() if isinstance(properties, dict) else ():
        parts += [str(name), str(spec.get("description", "")) if isinstance(spec, dict) else ""]
    return " ".join(parts)


def search(tools: list[dict], variant: str, query: str) -> list[str] | None:
    """The names of the best matches (None: the query is not valid for the variant)."""
    if variant == "tool_search_tool_regex":
        if len(query) > REGEX_QUERY_MAX:
            return None
        try:
            pattern = re.compile(query)
        except re.error:
            return None
        return [t["name"] for t in tools if pattern.search(_searchable(t))][:RESULTS]
    words = re.findall(r"[a-z0-9]+", query.lower())
    if not words or not tools:
        return []
    from rank_bm25 import BM25Okapi

    corpus = [re.findall(r"[a-z0-9]+", _searchable(t).lower()) or ["-"] for t in tools]
    scores = BM25Okapi(corpus).get_scores(words)
    order = sorted(range(len(tools)), key=lambda i: -scores[i])
    return [tools[i]["name"] for i in order if scores[i] > 0][:RESULTS]


def searched(body: dict, search_block: ToolSearch, new_id: Callable[[], str]) -> list[dict]:
    """A scripted search as the API answers it: its server_tool_use, then its tool_search_tool_result."""
    declared = search_tool(body)
    if declared is None:
        raise ScriptRefused("the script searches for tools, but the request declares no tool search tool")
    use_id = search_block.id or new_id()
    result: dict[str, Any]
    names = search(list(deferred_tools(body).values()), declared["name"], search_block.query)
    if names is None:
        result = {"type": "tool_search_tool_result_error", "error_code": "invalid_tool_input"}
    else:
        result = {"type": "tool_search_tool_search_result",
                  "tool_references": [{"type": "tool_reference", "tool_name": n} for n in names]}
    return [{"type": "server_tool_use", "id": use_id, "name": declared["name"], "input": {"query": search_block.query}},
            {"type": "tool_search_tool_result", "tool_use_id": use_id, "content": result}]


class ScriptRefused(Exception):
    """A scripted reply the model could not give (answered 400, naming the script's mistake)."""


def check_reply(body: dict, content: list[dict]) -> None:
    """Refuse a scripted call of a deferred tool that neither the history nor this reply's searches loaded."""
    deferred, loaded = deferred_tools(body), loaded_names(body)
    for block in content:
        loaded.update(references(block))
        name = block.get("name")
        if block.get("type") == "tool_use" and name in deferred and name not in loaded:
            raise ScriptRefused(f"mock: the script calls '{name}', a deferred tool (defer_loading) no tool_reference "
                                "loaded: the model cannot see it")


def expanded_tokens_text(body: dict, block: dict) -> str:
    """The definitions a block's tool_references bring into the context (counted where they are loaded)."""
    deferred = deferred_tools(body)
    return "".join(json.dumps(deferred[n], sort_keys=True) for n in references(block) if n in deferred)
