"""An MCP CallToolResult → the text of one tool_result.

Text (and embedded text resources) goes in as is, so every context layer
treats an MCP result like any other. Binary items (images, audio, blob
resources) would cost thousands of tokens as base64: each is kept in the
result store under `context://<tool_use_id>/item-<n>` (as a data: URI) and
the result carries a one-line placeholder naming that ref instead.
Items are read by their `type` field, not their class: the SDK has one class
per protocol version.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from ...context.store import ResultStore, result_ref

def item_ref(tool_use_id: str, index: int) -> str:
    return f"{result_ref(tool_use_id)}/item-{index}"


def result_text(result: Any, tool_use_id: str, store: ResultStore | None) -> str:
    parts: list[str] = []
    for index, item in enumerate(getattr(result, "content", None) or [], start=1):
        parts.append(_item_text(item, item_ref(tool_use_id, index), store))
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=1))
    return "\n".join(parts) if parts else "(no content)"


def _item_text(item: Any, ref: str, store: ResultStore | None) -> str:
    kind = getattr(item, "type", "")
    if kind == "text":
        return item.text
    if kind in ("image", "audio"):
        return _stored(kind, item.mime_type, item.data, ref, store)
    if kind == "resource":
        resource = item.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {resource.uri}]\n{text}"
        return _stored(f"resource {resource.uri}", resource.mime_type or "application/octet-stream",
                       resource.blob, ref, store)
    if kind == "resource_link":
        described = f" — {item.description}" if getattr(item, "description", None) else ""
        return f"[resource link {item.uri} ({item.name}){described}]"
    return f"[unsupported {kind or 'unknown'} content]"


def _stored(what: str, mime: str, data: str, ref: str, store: ResultStore | None) -> str:
    size = _decoded_size(data)
    if store is None:
        return f"[{what}: {mime}, {size:,} bytes; not kept (no result store)]"
    store.put(ref, f"data:{mime};base64,{data}")
    return f"[{what}: {mime}, {size:,} bytes, stored as {ref} (a base64 data: URI; read it only to pass the bytes on)]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)
