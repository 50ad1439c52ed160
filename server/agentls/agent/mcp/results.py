"""An MCP CallToolResult → the text of one tool_result.

Text (and embedded text resources) goes in as is, so every context layer
treats an MCP result like any other. Binary items (images, audio, blob
resources) would cost thousands of tokens as base64: each is kept in the
result store under `context://<tool_use_id>/item-<n>` (as a data: URI) and
the result carries a one-line placeholder naming that ref instead.
Items are read by their `type` field, not their class: the SDK has one class
per protocol version.

One result keeps at most RESULT_CAP_BYTES (context/caps.py) in all, its
text and the binary items it stores together: the budget is checked before an
item is copied, decoded or stored, and what does not fit is cut with a note.
"""

from __future__ import annotations

import json
from typing import Any

from ...context.caps import RESULT_CAP_BYTES
from ...context.store import ResultStore, result_ref
from ..result_cap import base64_bytes, capped, cut_note, utf8_prefix


def item_ref(tool_use_id: str, index: int) -> str:
    return f"{result_ref(tool_use_id)}/item-{index}"


def result_text(result: Any, tool_use_id: str, store: ResultStore | None, cap: int = RESULT_CAP_BYTES) -> str:
    budget = _Budget(cap)
    parts: list[str] = []
    for index, item in enumerate(getattr(result, "content", None) or [], start=1):
        if budget.left <= 0:
            parts.append(f"[… {len(result.content) - index + 1} more items cut: one tool result keeps at most "
                         f"{cap:,} bytes]")
            break
        parts.append(_item_text(item, item_ref(tool_use_id, index), store, budget))
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(budget.take(json.dumps(structured, ensure_ascii=False, indent=1)))
    return capped("\n".join(parts), cap) if parts else "(no content)"


class _Budget:
    """Bytes one result may still keep."""

    def __init__(self, cap: int) -> None:
        self.cap, self.left = cap, cap

    def take(self, text: str) -> str:
        """`text`, or its head and a cut note, within what is left."""
        kept = utf8_prefix(text, self.left)
        if len(kept) < len(text):
            note = cut_note(len(text), self.cap)
            kept = utf8_prefix(text, self.left - len(note.encode("utf-8"))) + note
        self.left -= len(kept.encode("utf-8", "surrogatepass"))
        return kept


def _item_text(item: Any, ref: str, store: ResultStore | None, budget: _Budget) -> str:
    kind = getattr(item, "type", "")
    if kind == "text":
        return budget.take(item.text)
    if kind in ("image", "audio"):
        return _stored(kind, item.mime_type, item.data, ref, store, budget)
    if kind == "resource":
        resource = item.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return budget.take(f"[resource {resource.uri}]\n{text}")
        return _stored(f"resource {resource.uri}", resource.mime_type or "application/octet-stream",
                       resource.blob, ref, store, budget)
    if kind == "resource_link":
        described = f" — {item.description}" if getattr(item, "description", None) else ""
        return budget.take(f"[resource link {item.uri} ({item.name}){described}]")
    return f"[unsupported {kind or 'unknown'} content]"


def _stored(what: str, mime: str, data: str, ref: str, store: ResultStore | None, budget: _Budget) -> str:
    size = base64_bytes(data)
    if store is None:
        return f"[{what}: {mime}, {size:,} bytes; not kept (no result store)]"
    uri = f"data:{mime};base64,"
    if len(uri) + len(data) > budget.left:  # checked before anything is copied or stored
        return (f"[{what}: {mime}, {size:,} bytes; not kept: one tool result keeps at most {budget.cap:,} bytes]")
    budget.left -= len(uri) + len(data)
    store.put(ref, uri + data)
    return f"[{what}: {mime}, {size:,} bytes, stored as {ref} (a base64 data: URI; read it only to pass the bytes on)]"
