"""The terminal chat client's side of the LSP wire: the server's answers read back into core objects,
and the few params this client builds.

The server writes its shapes through lsp/converter.py; this module reads them
with the same converter's structure side (camelCase renames included), adding
hooks only where a shape carries less than its dataclass (a checkpoint's file
hashes, a model's price beside it, a compaction's reason).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cattrs import BaseValidationError

from ..agent import events as ev
from ..agent.approval import ApprovalDecision, ApprovalRequest
from ..agent.cache_report import CacheReport
from ..agent.checkpoints.model import Checkpoint, FileChange, RewindResult, Skipped
from ..agent.commands import CustomCommand
from ..agent.endpoint_models import ModelOffer, ModelsView
from ..agent.mcp.status import McpServerStatus
from ..agent.permissions import Rule
from ..agent.runtime import ActiveModel
from ..agent.todos import TodoItem
from ..agent.transcript import TranscriptEntry
from ..agent.views import ContextDetails, CostDetails
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from ..context.usage import Usage
from ..lsp.converter import WIRE
from ..lsp.protocol import EVENT_KINDS
from ..model.catalog import ModelInfo
from ..model.pricing import CostReport, Price, SubagentCost

if TYPE_CHECKING:  # the store (sqlite3) loads with the agent
    from ..agent.store.sessions import SessionInfo

_EVENT_BY_KIND = {kind: cls for cls, kind in EVENT_KINDS.items()}
_THINKING = {"adaptive": frozenset({"adaptive"}), "manual": frozenset({"enabled"})}


def _model_offer(data: dict[str, Any], _: Any) -> ModelOffer:
    """A ModelInfo: the catalog's model with its price beside it (null members: the price is unknown)."""
    thinking = _THINKING.get(str(data.get("thinking")), frozenset())
    model = ModelInfo(str(data.get("id", "")), str(data.get("label", "")), str(data.get("createdAt", "")),
                      data.get("contextWindow"), data.get("maxOutput"), thinking, tuple(data.get("efforts") or ()),
                      lifecycle=str(data.get("lifecycle", "active")))
    prices = [data.get(k) for k in ("inputPerMTok", "outputPerMTok", "cacheWritePerMTok", "cacheReadPerMTok")]
    known = [float(p) for p in prices if isinstance(p, (int, float))]
    price = Price(known[0], known[1], known[2], known[3]) if len(known) == len(prices) else None  # else: unknown
    return ModelOffer(model, price)


def _checkpoint(data: dict[str, Any], _: Any) -> Checkpoint:
    """A listed checkpoint as a terminal shows it (its files' content hashes stay with the server)."""
    files = [FileChange(str(f.get("path", "")), None if f.get("change") == "added" else "",
                        None if f.get("change") == "deleted" else "") for f in data.get("files") or []]
    return Checkpoint(str(data.get("id", "")), str(data.get("prompt", "")), float(data.get("at", 0)), 0,
                      "rewind" if data.get("kind") == "rewind" else "turn", files,
                      READ.structure(data.get("skipped") or [], list[Skipped]), rewound=bool(data.get("rewound")))


READ = WIRE.copy()  # the server's converter, plus the hooks for shapes that carry less than their dataclass
READ.register_structure_hook(ModelOffer, _model_offer)
READ.register_structure_hook(Checkpoint, _checkpoint)


def event_from_wire(data: dict[str, Any]) -> ev.AgentEvent | None:
    """The core event an `agent/event` payload stands for; None for a kind this version does not know
    or a payload missing a field."""
    cls = _EVENT_BY_KIND.get(str(data.get("kind")))
    if cls is None:
        return None
    if cls is ev.SubagentStep:
        step = data.get("step")
        inner = event_from_wire({**step, "turnId": data.get("turnId")}) if isinstance(step, dict) else None
        return ev.SubagentStep(str(data.get("toolUseId", "")), inner) if inner is not None else None
    try:
        return READ.structure(data, cls)
    except (BaseValidationError, TypeError, ValueError, AttributeError):
        return None


def context_report_from_wire(data: dict[str, Any]) -> ContextReport:
    return READ.structure(data, ContextReport)


def model_info_from_wire(data: dict[str, Any]) -> ActiveModel:
    return READ.structure(data, ActiveModel)


def models_from_wire(data: dict[str, Any]) -> ModelsView:
    return READ.structure(data, ModelsView)


def context_from_wire(data: dict[str, Any]) -> ContextDetails:
    """ContextResult: the meter's report (ContextUsage's fields) with what explains it beside."""
    return READ.structure({**data, "report": data}, ContextDetails)


def todos_from_wire(items: Any) -> list[TodoItem]:
    return READ.structure(items or [], list[TodoItem])


def commands_from_wire(items: Any) -> list[CustomCommand]:
    return [READ.structure({**c, "path": Path()}, CustomCommand) for c in items or []]


def permissions_from_wire(items: Any) -> list[Rule]:
    """The rules as listed: each rule's whole text stands in the tool's place (the terminal prints it)."""
    return [Rule(str(r.get("decision", "allow")), str(r.get("rule", "")), None, str(r.get("source", "")))  # type: ignore[arg-type]
            for r in items or [] if isinstance(r, dict)]


def _subagent_cost(c: dict[str, Any]) -> SubagentCost:
    return SubagentCost(str(c.get("toolUseId", "")), str(c.get("name", "")), str(c.get("model", "")),
                        int(c.get("requests", 0)), READ.structure(c, Usage), float(c.get("usd", 0.0)))


def cost_from_wire(data: dict[str, Any]) -> CostDetails:
    """CostResult: the usage's counts sit flat beside the model; the cache report when there is one."""
    total = replace(READ.structure(data, Usage), cache_write_1h_tokens=int(data.get("cacheWrite1hTokens", 0)))
    report = CostReport(str(data.get("model", "")), int(data.get("requests", 0)), total, float(data.get("usd", 0.0)),
                        str(data.get("cacheTtl", "5m")), tuple(data.get("unpricedModels") or ()),
                        tuple(_subagent_cost(c) for c in data.get("subagents") or () if isinstance(c, dict)))
    cache = data.get("cache")
    return CostDetails(report, READ.structure(cache, CacheReport) if isinstance(cache, dict) else None)


def compaction_from_wire(data: dict[str, Any]) -> CompactionResult:
    return READ.structure({"reason": "manual", **data}, CompactionResult)  # only /compact asks


def session_from_wire(data: dict[str, Any]) -> tuple[SessionInfo, bool]:
    """(the session, whether it is the window's current one)."""
    from ..agent.store.sessions import SessionInfo

    return READ.structure(data, SessionInfo), bool(data.get("current", False))


def transcript_from_wire(entries: list[dict[str, Any]]) -> list[TranscriptEntry]:
    return READ.structure(entries, list[TranscriptEntry])


def checkpoint_from_wire(item: dict[str, Any]) -> Checkpoint:
    return READ.structure(item, Checkpoint)


def rewind_from_wire(item: dict[str, Any]) -> RewindResult:
    return READ.structure(item, RewindResult)


def mcp_servers_from_wire(servers: list[dict[str, Any]]) -> list[McpServerStatus]:
    return READ.structure(servers, list[McpServerStatus])


def approval_request_from_wire(params: dict[str, Any]) -> ApprovalRequest:
    return READ.structure(params, ApprovalRequest)


# ---------------------------------------------------------------- what this client sends

def initialization_options(supports_confirm: bool, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a terminal client declares at initialize (the extension builds its own in TypeScript)."""
    options: dict[str, Any] = {"supportsConfirm": supports_confirm}
    if settings is not None:
        options["settings"] = settings
    return options


def resume_params(session_id: str) -> dict[str, str]:
    return {"sessionId": session_id}


def rewind_params(checkpoint_id: str, restore: str) -> dict[str, str]:
    return {"checkpoint": checkpoint_id, "restore": restore}


def confirm_result(approved: bool, remember: bool, reason: str = "") -> dict[str, Any]:
    """ConfirmResult: the reason only when there is one."""
    return WIRE.unstructure(ApprovalDecision(approved, remember, reason))
