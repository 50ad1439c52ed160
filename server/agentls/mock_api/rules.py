"""Today's request rules that depend on the beta headers, the model and what the server remembers: one
admission per /v1/messages request, and the answer's blocks and fields built from it.

Each rule lives in its own module (thinking.py, compaction.py, editing.py, diagnostics.py,
system_messages.py, where the documentation is cited); this one only runs them in the API's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .compaction import compaction_block, compaction_request_error, signature_error, summary_of
from .diagnostics import DiagnosticsStore
from .editing import apply_edits, editing_error
from .models import find_model, model_flag
from .script import Reply, Text
from .system_messages import shown, system_message_error
from .thinking import DEFAULT_THOUGHT, ThinkingGate, thinks_first
from .tokens import count_input_tokens
from .tool_search import request_error as tool_search_error


def betas_of(headers: Mapping[str, str]) -> frozenset[str]:
    """The `anthropic-beta` header's names (the SDK sends `betas=[...]` comma-separated)."""
    raw = headers.get("anthropic-beta") or ""
    return frozenset(name.strip() for name in raw.split(",") if name.strip())


@dataclass(frozen=True)
class Admission:
    """A request the rules let through: what the model reads, what is counted, and what to report."""

    view: dict  # the request as the model reads it (failing thinking blocks dropped)
    counted: dict  # the view after server-side context editing: what usage and the prompt cache see
    transformations: list[dict] | None  # input_transformations (None: not reported)
    applied_edits: list[dict] | None  # context_management.applied_edits (None: no context_management)
    compaction: bool  # a compaction request: answered with one compaction block


class RequestRules:
    """The per-server state of the rules: the thinking registry and the diagnostics fingerprints."""

    def __init__(self, thinking_mismatch: str = "error", always_think: bool = False) -> None:
        self.thinking = ThinkingGate(thinking_mismatch)
        self.always_think = always_think
        self.diagnostics = DiagnosticsStore()

    def admit(self, body: dict, headers: Mapping[str, str],
              models: list[dict[str, Any]] | None) -> Admission | str:
        """The Admission, or the invalid_request_error message the API would answer."""
        betas = betas_of(headers)
        entry = find_model(models, body.get("model"))
        problem = (compaction_request_error(body, betas, entry) or editing_error(body, betas, entry)
                   or system_message_error(body, betas, model_flag(entry, "tool_changes"))
                   or tool_search_error(body, model_flag(entry, "tool_search"))
                   or signature_error(self.thinking.registry.secret, body["messages"], betas))
        if problem:
            return problem
        verdict = self.thinking.check(body, betas, bound=model_flag(entry, "thinking_bound"))
        if verdict.error:
            return verdict.error
        view = {**body, "messages": verdict.messages}
        counted, applied = (apply_edits(view, count_input_tokens) if body.get("context_management") is not None
                            else (view, None))
        counted = {**counted, "messages": shown(counted["messages"])}
        return Admission(view, counted, verdict.transformations, applied, body.get("compaction") is not None)

    def fallback(self, admission: Admission) -> Reply | None:
        """The answer when nothing is scripted, for requests whose answer the API decides (compaction)."""
        return Reply([Text(summary_of(admission.view))]) if admission.compaction else None

    def content(self, admission: Admission, blocks: list[dict]) -> tuple[list[dict], str | None]:
        """The answer's blocks (thinking signed, a compaction block made) and its stop_reason if the rules fix it."""
        if admission.compaction:
            text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text") or summary_of(admission.view)
            return [compaction_block(self.thinking.registry.secret, text)], "compaction"
        if thinks_first(admission.view, blocks, self.always_think):
            blocks = [{"type": "thinking", "thinking": DEFAULT_THOUGHT}, *blocks]
        return self.thinking.sign(admission.view, admission.view["messages"], blocks), None

    def fields(self, body: dict, admission: Admission, message_id: str) -> dict[str, Any]:
        """The optional response fields: input_transformations, context_management, diagnostics."""
        return {
            "input_transformations": admission.transformations,
            "context_management": ({"applied_edits": admission.applied_edits}
                                   if admission.applied_edits is not None else None),
            "diagnostics": self.diagnostics.diagnose(body, message_id),
        }
