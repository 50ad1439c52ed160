"""The mock's Models API and the checks the real API makes against a model's entry.

Given a list of models (`MockAnthropicServer(models=[mock_model(...), ...])`), the mock
serves `GET /v1/models` (paginated like the real one: `limit` default 20, `after_id` /
`before_id`, answering `data`, `has_more`, `first_id`, `last_id`) and
`GET /v1/models/{id}`, and refuses what the real API refuses:

- a request naming a model it does not list: 404 `not_found_error` ("model: <id>");
- a `thinking.type` the model does not advertise (`budget_tokens` to an adaptive-only
  model): 400 `invalid_request_error`; likewise an `output_config.effort` level;
- `max_tokens` above the model's `max_tokens`, a prompt above its `max_input_tokens`: 400; on a model
  that thinks, also a prompt that leaves less than `max_tokens` of its window (the reply's room).

Without a list (the default) it is an endpoint without a Models API: `GET /v1/models`
answers 404 and every model id is accepted, as Anthropic-compatible proxies do.
Entries have the API's shape (field names from the anthropic SDK's ModelInfo and
ModelCapabilities), every capability key present, as the API promises.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping

from .tokens import count_input_tokens

DEFAULT_PAGE = 20  # the API's default `limit`
MAX_PAGE = 1000
# BetaContextManagementCapability's strategies
CONTEXT_STRATEGIES = ("clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112")
MOCK_FLAGS = "_mock"  # an entry's facts the Models API does not carry; never served


def served(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as the Models API serves it."""
    return {k: v for k, v in entry.items() if k != MOCK_FLAGS}


def model_flag(entry: dict[str, Any] | None, name: str) -> bool:
    """A mock-only fact of a listed model (True for a model of an endpoint without a Models API)."""
    return entry is None or bool(entry.get(MOCK_FLAGS, {}).get(name, True))


def find_model(models: list[dict[str, Any]] | None, model_id: Any) -> dict[str, Any] | None:
    return next((m for m in models or [] if m["id"] == model_id), None)


def _flag(supported: bool) -> dict[str, bool]:
    return {"supported": supported}


def mock_model(model_id: str, *, window: int = 200_000, max_tokens: int = 64_000,
               thinking: Iterable[str] = ("adaptive",), efforts: Iterable[str] = (),
               display_name: str | None = None, created_at: str = "2026-01-01T00:00:00Z",
               line: str | None = None, lifecycle: str = "active", compaction: bool = False,
               context_management: Iterable[str] = (), thinking_bound: bool = True,
               system_messages: bool = True, tool_changes: bool = True, tool_search: bool = True) -> dict[str, Any]:
    """One Models API entry. `thinking`: the `thinking.type` values the model accepts
    ("adaptive", "enabled" = manual budget_tokens, "disabled", "between_tools"); `compaction`: on-demand
    `summarize` compaction; `context_management`: the editing strategies it takes (CONTEXT_STRATEGIES).
    What the Models API does not say, the mock still needs (kept out of what it serves): whether the model's
    thinking is bound to its prefix, whether it takes mid-conversation system messages and tool changes, and whether
    it takes the tool search tool (the Models API's capabilities do not name it)."""
    kinds, levels, strategies = set(thinking), set(efforts), set(context_management)
    unknown = strategies - set(CONTEXT_STRATEGIES)
    if unknown:
        raise ValueError(f"unknown context_management strategies {sorted(unknown)}; expected {CONTEXT_STRATEGIES}")
    return {
        MOCK_FLAGS: {"thinking_bound": thinking_bound, "system_messages": system_messages,
                     "tool_changes": tool_changes, "tool_search": tool_search},
        "type": "model",
        "id": model_id,
        "display_name": display_name or model_id,
        "created_at": created_at,
        "lifecycle": lifecycle,
        "line": line,
        "max_input_tokens": window,
        "max_tokens": max_tokens,
        "capabilities": {
            "batch": _flag(True), "citations": _flag(True), "code_execution": _flag(False),
            "compaction": {"supported": compaction, "summarize": _flag(compaction)},
            "context_management": {"supported": bool(strategies),
                                   **{name: _flag(name in strategies) for name in CONTEXT_STRATEGIES}},
            "effort": {"supported": bool(levels), **{level: _flag(level in levels)
                                                      for level in ("low", "medium", "high", "xhigh", "max")}},
            "image_input": _flag(True), "pdf_input": _flag(True),
            "server_tools": {"supported": False, "code_execution": _flag(False), "web_search": _flag(False)},
            "structured_outputs": _flag(True),
            "thinking": {"supported": bool(kinds - {"disabled"}),
                         "types": {kind: _flag(kind in kinds)
                                   for kind in ("adaptive", "between_tools", "disabled", "enabled")}},
        },
    }


def models_page(models: list[dict[str, Any]], query: Mapping[str, list[str]]) -> tuple[int, dict[str, Any]]:
    """(status, body) of `GET /v1/models?…`: one page of the list, in the list's order."""
    def first(name: str) -> str | None:
        values = query.get(name)
        return values[0] if values else None

    raw_limit = first("limit")
    try:
        limit = DEFAULT_PAGE if raw_limit is None else int(raw_limit)
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_PAGE:
        return 400, _error("invalid_request_error", f"limit: Input should be between 1 and {MAX_PAGE}")
    ids = [m["id"] for m in models]
    after, before = first("after_id"), first("before_id")
    start, end = 0, len(models)
    if after is not None:
        if after not in ids:
            return 400, _error("invalid_request_error", f"after_id: unknown model {after!r}")
        start = ids.index(after) + 1
    if before is not None:
        if before not in ids:
            return 400, _error("invalid_request_error", f"before_id: unknown model {before!r}")
        end = ids.index(before)
        start = max(start, end - limit)
    page = models[start:start + limit] if before is None else models[start:end]
    has_more = (start + len(page) < end) if before is None else start > 0
    return 200, {"data": [served(m) for m in page], "has_more": has_more,
                 "first_id": page[0]["id"] if page else None, "last_id": page[-1]["id"] if page else None}


def model_entry(models: list[dict[str, Any]], model_id: str) -> tuple[int, dict[str, Any]]:
    """(status, body) of `GET /v1/models/{model_id}`."""
    found = find_model(models, model_id)
    return (200, served(found)) if found is not None else (404, _error("not_found_error", f"model: {model_id}"))


def request_problem(models: list[dict[str, Any]], body: dict[str, Any],
                    size: int | None = None) -> tuple[int, str, str] | None:
    """(status, error type, message) the real API would answer a request to a listed-models endpoint;
    `size`: the prompt's tokens when the API counts fewer than were sent (server-side context editing)."""
    model_id = body.get("model")
    entry = find_model(models, model_id)
    if entry is None:
        return 404, "not_found_error", f"model: {model_id}"
    system_at = next((i for i, m in enumerate(body.get("messages") or [])
                      if isinstance(m, dict) and m.get("role") == "system"), None)
    if system_at is not None and not model_flag(entry, "system_messages"):
        return 400, "invalid_request_error", (
            f"messages.{system_at}.role: role 'system' is not supported on {model_id}; use the top-level "
            "`system` parameter")
    capabilities = entry.get("capabilities") or {}
    thinking = body.get("thinking")
    if isinstance(thinking, dict):
        kind = thinking.get("type")
        types = capabilities.get("thinking", {}).get("types", {})
        if not types.get(kind, {}).get("supported"):
            offered = ", ".join(k for k, v in types.items() if v.get("supported")) or "none"
            return 400, "invalid_request_error", (
                f"thinking.type: '{kind}' is not supported for {model_id} (supported: {offered})")
    output_config = body.get("output_config")
    effort = output_config.get("effort") if isinstance(output_config, dict) else None
    if effort is not None and not capabilities.get("effort", {}).get(effort, {}).get("supported"):
        return 400, "invalid_request_error", f"output_config.effort: '{effort}' is not supported for {model_id}"
    limit = entry.get("max_tokens")
    if isinstance(limit, int) and isinstance(body.get("max_tokens"), int) and body["max_tokens"] > limit:
        return 400, "invalid_request_error", (
            f"max_tokens: {body['max_tokens']} > {limit}, which is the maximum allowed number of output "
            f"tokens for {model_id}")
    window = entry.get("max_input_tokens")
    if isinstance(window, int):
        size = count_input_tokens(body) if size is None else size
        if size > window:
            return 400, "invalid_request_error", f"prompt is too long: {size} tokens > {window} maximum"
        # extended-thinking models hold max_tokens as a strict limit: the prompt and the whole reply must
        # fit the window (docs: about-claude/models/extended-thinking-models; the API's own wording)
        reply = body.get("max_tokens")
        thinks = any(t.get("supported") for t in capabilities.get("thinking", {}).get("types", {}).values())
        if thinks and isinstance(reply, int) and size + reply > window:
            return 400, "invalid_request_error", (
                f"input length and `max_tokens` exceed context limit: {size} + {reply} > {window}, decrease "
                "input length or `max_tokens` and try again")
    return None


def _error(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}
