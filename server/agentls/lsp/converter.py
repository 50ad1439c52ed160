"""The one converter between the core's dataclasses and the LSP wire (cattrs, as pygls itself uses).

Every dataclass goes on the wire as an object of its fields, renamed to camelCase
(`tool_use_id` → `toolUseId`), tuples as arrays. A shape that is not exactly
its dataclass says how in OVERRIDES (a field named otherwise, left out, written
another way), and the few built from more than one object have a hand hook
below. `WIRE.structure` reads the same shapes back (the terminal client,
cli/lsp_wire.py); left-out fields take their dataclass defaults there.
"""

from __future__ import annotations

import time
from dataclasses import fields, is_dataclass
from collections.abc import Callable
from typing import Any

import cattrs
from cattrs.gen import AttributeOverride, make_dict_structure_fn, make_dict_unstructure_fn, override

from ..agent.approval import ApprovalDecision, ApprovalRequest
from ..agent.checkpoints.model import ChangedFile, Checkpoint, FileChange, RewindResult
from ..agent.commands import CustomCommand
from ..agent.editor_queries import EditorQuery
from ..agent.endpoint_models import ModelOffer, ModelsView
from ..agent.permissions import Rule
from ..agent.sent import ToolResultView
from ..agent.transcript import TranscriptEntry
from ..agent.views import ContextDetails
from ..context.pipeline import CompactionResult
from ..context.usage import Usage
from ..model.pricing import CostReport


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _iso(at: float | None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at)) if at is not None else ""


def _changed_files(files: list[FileChange]) -> list[dict[str, Any]]:
    """A checkpoint lists each file's path and change; the content hashes stay with the server."""
    return [WIRE.unstructure(ChangedFile(f.path, f.change)) for f in files]


_OMIT = override(omit=True)

# Where a wire shape is not its dataclass renamed: fields named otherwise, left out, or written another way.
OVERRIDES: dict[type, dict[str, AttributeOverride]] = {
    Usage: {"cache_creation_input_tokens": override(rename="cacheWriteTokens"),
            "cache_read_input_tokens": override(rename="cacheReadTokens"), "cache_write_1h_tokens": _OMIT},
    CompactionResult: {"reason": _OMIT, "message": _OMIT},
    ToolResultView: {"rewritten_at": override(rename="rewrittenAt", unstruct_hook=_iso)},
    Checkpoint: {"files": override(unstruct_hook=_changed_files), "seq": _OMIT, "target": _OMIT, "cut": _OMIT,
                 "pending": _OMIT},  # a rewind not yet done: recovery confirms or drops it, never listed as done
    RewindResult: {"cannot": override(rename="skipped")},
    ModelsView: {"offers": override(rename="models")},
    # its report's fields sit beside (ContextResult extends ContextUsage); `cache` only when there is one
    ContextDetails: {"report": _OMIT, "cache": override(omit_if_default=True),
                     "tool_search": override(rename="toolSearch", omit_if_default=True)},
    CustomCommand: {"path": _OMIT},
    EditorQuery: {"line": _OMIT, "character": _OMIT},  # sent as one `position`
    ApprovalRequest: {"config": _OMIT},  # the fingerprint a remembered answer is tied to stays in the core
    ApprovalDecision: {"asked": _OMIT, "remember": override(omit_if_default=False)},
}
# Optional members: a field at its default is left out rather than sent as null, 0 or "".
OMIT_DEFAULTS = (EditorQuery, ApprovalRequest, ApprovalDecision)


def _overrides(cls: type) -> dict[str, Any]:
    renamed = {f.name: override(rename=camel(f.name)) for f in fields(cls)}
    return {**renamed, **OVERRIDES.get(cls, {})}


def _unstructure_fn(cls: type, converter: cattrs.Converter) -> Callable[[Any], dict[str, Any]]:
    return make_dict_unstructure_fn(cls, converter, _cattrs_omit_if_default=cls in OMIT_DEFAULTS, **_overrides(cls))


def _structure_fn(cls: type, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """Reading: the same renames; a field the wire leaves out takes its dataclass default."""
    renamed: dict[str, Any] = {name: override(rename=o.rename) for name, o in _overrides(cls).items() if o.rename}
    return make_dict_structure_fn(cls, converter, **renamed)


def _model_offer(offer: ModelOffer) -> dict[str, Any]:
    """One ModelInfo: the catalog's model and its price side by side; a price the table lacks is null."""
    model, price = offer.model, offer.price
    return {"id": model.id, "label": model.label, "contextWindow": model.max_input_tokens,
            "maxOutput": model.max_tokens, "createdAt": model.created_at, "thinking": model.thinking,
            "efforts": list(model.efforts), "lifecycle": model.lifecycle,
            "inputPerMTok": price.input if price else None, "outputPerMTok": price.output if price else None,
            "cacheReadPerMTok": price.cache_read if price else None,
            "cacheWritePerMTok": price.cache_write if price else None}


def _cost(report: CostReport) -> dict[str, Any]:
    """CostResult: the usage's counts flat beside the model, the 1-hour writes included, dollars rounded."""
    return {"model": report.model, "requests": report.requests, **WIRE.unstructure(report.usage),
            "cacheWrite1hTokens": report.usage.cache_write_1h_tokens, "cacheTtl": report.cache_ttl,
            "usd": round(report.usd, 6), "unpricedModels": list(report.unpriced_models),
            "subagents": [{"toolUseId": item.tool_use_id, "name": item.name, "model": item.model,
                           "requests": item.requests, **WIRE.unstructure(item.usage), "usd": round(item.usd, 6)}
                          for item in report.subagents]}


def _transcript_entry(entry: TranscriptEntry) -> dict[str, Any]:
    """A TranscriptEntry: its images named in its text, and the members only some kinds of entry carry."""
    item: dict[str, Any] = {"kind": entry.kind, "role": entry.role, "text": _with_images(entry),
                            "tools": WIRE.unstructure(entry.tools), "turnId": entry.turn_id}
    if entry.checkpoint is not None:
        item["checkpoint"] = entry.checkpoint
    if entry.role == "user":
        item["attachments"] = list(entry.attachments)
    if entry.compaction is not None:
        item["compaction"] = WIRE.unstructure(entry.compaction)
    if entry.kind == "note":
        item["level"] = entry.level
    return item


def _with_images(entry: TranscriptEntry) -> str:
    """A prompt's text, its images named before it (the panel shows text; the images stay with the agent)."""
    named = [f"[image: {image.describe()}]" for image in entry.images]
    return "\n".join([*named, entry.text]) if named and entry.text else "\n".join(named) or entry.text


def _rule(rule: Rule) -> dict[str, Any]:
    return {"rule": rule.text, "decision": rule.decision, "source": rule.source}


WIRE = cattrs.Converter(unstruct_collection_overrides={tuple: list})
WIRE.register_unstructure_hook_factory(is_dataclass, _unstructure_fn)
WIRE.register_structure_hook_factory(is_dataclass, _structure_fn)
for _cls, _hook in ((ModelOffer, _model_offer), (CostReport, _cost), (TranscriptEntry, _transcript_entry),
                    (Rule, _rule)):
    WIRE.register_unstructure_hook(_cls, _hook)
