"""The mock's Models API and the checks the real API makes against a model's entry.

Given a list of models (`MockAnthropicServer(models=[mock_model(...), ...])`), the mock
serves `GET /v1/models` (paginated like the real one: `limit` default 20, `after_id` /
`before_id`, answering `data`, `has_more`, `first_id`, `last_id`) and
`GET /v1/models/{id}`, and refuses what the real API refuses:

- a request naming a model it does not list: 404 `not_found_error` ("model: <id>");
- a `thinking.type` the model does not advertise (`budget_tokens` to an adaptive-only
  model): 400 `invalid_request_error`; likewise an `output_config.effort` level;
- `max_tokens` above the model's `max_tokens`, a prompt above its `max_input_tokens`: 400.

Without a list (the default) it is an endpoint without a Models API: `GET /v1/models`
answers 404 and every model id is accepted, as Anthropic-compatible proxies do.
Entries have the API's shape (field names from the anthropic SDK's ModelInfo and
ModelCapabilities), every capability key present, as the API promises.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .tokens import count_input_tokens

DEFAULT_PAGE = 20  # the API's default `limit`
MAX_PAGE = 1000


def _flag(supported: bool) -> dict[str, bool]:
    return {"supported": supported}


def mock_model(model_id: str, *, window: int = 200_000, max_tokens: int = 64_000,
               thinking: Iterable[str] = ("adaptive",), efforts: Iterable[str] = (),
               display_name: str | None = None, created_at: str = "2026-01-01T00:00:00Z",
               line: str | None = None, lifecycle: str = "active") -> dict[str, Any]:
    """One Models API entry. `thinking`: the `thinking.type` values the model accepts
    ("adaptive", "enabled" = manual budget_tokens, "disabled", "between_tools")."""
    kinds, levels = set(thinking), set(efforts)
    return {
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
            "context_management": {"supported": False},
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
    return 200, {"data": page, "has_more": has_more,
                 "first_id": page[0]["id"] if page else None, "last_id": page[-1]["id"] if page else None}


def model_entry(models: list[dict[str, Any]], model_id: str) -> tuple[int, dict[str, Any]]:
    """(status, body) of `GET /v1/models/{model_id}`."""
    found = next((m for m in models if m["id"] == model_id), None)
    return (200, found) if found is not None else (404, _error("not_found_error", f"model: {model_id}"))


def request_problem(models: list[dict[str, Any]], body: dict[str, Any]) -> tuple[int, str, str] | None:
    """(status, error type, message) the real API would answer a request to a listed-models endpoint."""
    model_id = body.get("model")
    entry = next((m for m in models if m["id"] == model_id), None)
    if entry is None:
        return 404, "not_found_error", f"model: {model_id}"
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
        size = count_input_tokens(body)
        if size > window:
            return 400, "invalid_request_error", f"prompt is too long: {size} tokens > {window} maximum"
    return None


def _error(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}
