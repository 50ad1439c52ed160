"""The settings' schema, declared once: every AgentSettings key (docs/protocol.md) with its type, bounds,
choices and default.

agent/settings.py validates with these specs; `settings_schema()` describes them as JSON Schema (the
vocabulary of VS Code's `contributes.configuration`), and tests/unit/test_settings_schema.py checks the
extension's package.json and src/shared/settings.ts against it. A bound changed here is a bound changed
for every front end, and a client that disagrees fails that test.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..model.thinking import THINKING_MODES
from ..model.tool_search import TOOL_SEARCH_MODES
from .mcp.config import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, MAX_SECONDS, MODES
from .permissions.rules import DECISIONS


@dataclass(frozen=True)
class Elsewhere:
    """A default the server keeps with the code that uses it: a field of ModelSettings or ContextConfig."""

    owner: str  # "model" or "context"
    name: str


@dataclass(frozen=True)
class Spec:
    type: str  # the JSON Schema type: string, integer, number, boolean, object, array
    default: Any = None  # what the server uses when the key is absent; None: it depends (the model, the endpoint)
    minimum: int | float | None = None
    maximum: int | float | None = None
    above: bool = False  # the minimum itself is refused (JSON Schema's exclusiveMinimum)
    choices: tuple[str, ...] = ()
    max_length: int | None = None
    nullable: bool = False  # null is accepted: as "absent", or as a value of its own (autoCompact: off)
    fields: Mapping[str, Spec] = field(default_factory=dict)  # an object's named keys
    values: Spec | None = None  # an object's other keys (a map), or an array's items
    closed: bool = False  # other keys are reported and ignored (else ignored quietly)

    def in_range(self, value: Any) -> bool:
        """A number of this spec's type within its bounds (a bool is no number, an integer no float)."""
        if isinstance(value, bool) or not isinstance(value, int if self.type == "integer" else (int, float)):
            return False
        if self.minimum is not None and not (value > self.minimum if self.above else value >= self.minimum):
            return False
        return self.maximum is None or value <= self.maximum

    def describe(self, defaults: Mapping[Elsewhere, Any]) -> dict[str, Any]:
        """This spec as JSON Schema, defaults kept elsewhere filled in from `defaults`."""
        out: dict[str, Any] = {"type": [self.type, "null"] if self.nullable else self.type}
        default = defaults[self.default] if isinstance(self.default, Elsewhere) else self.default
        if default is not None:
            out["default"] = default
        if self.choices:
            out["enum"] = list(self.choices)
        if self.minimum is not None:
            out["exclusiveMinimum" if self.above else "minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.fields:
            out["properties"] = {name: spec.describe(defaults) for name, spec in self.fields.items()}
        if self.values is not None:
            out["items" if self.type == "array" else "additionalProperties"] = self.values.describe(defaults)
        elif self.closed:
            out["additionalProperties"] = False
        return out


MODEL_CHARS = 200
MAX_PRICE = 1_000_000  # USD per million tokens
PRICE_FIELDS = ("input", "output", "cache_write", "cache_read", "cache_write_1h")  # model/pricing.py
APPROVAL_MODES = ("ask", "always", "never")
CONFIRM_TIMEOUT = 300.0  # seconds an agent/confirm may stay unanswered before it counts as a refusal
MAX_CONFIRM_TIMEOUT = 86_400
DIAGNOSTICS_WAIT_MS = 2000  # after an edit, for the file's diagnostics to settle
MAX_DIAGNOSTICS_WAIT_MS = 60_000
MAX_THRESHOLD = 10  # thresholds are fractions of the window: this bound only keeps absurd values out
# protocol name → ContextConfig field
THRESHOLDS = {"budgetSoft": "budget_soft_at", "budgetHard": "budget_hard_at", "autoCompact": "compact_at",
              "warn": "warn_at", "high": "high_at"}

_MODEL_ID = Spec("string", max_length=MODEL_CHARS, nullable=True)
_STRINGS = Spec("object", values=Spec("string"))  # a map of names to strings (env, headers)
_MCP_SERVER = Spec("object", fields={  # described here; agent/mcp/config.py validates them, with its constants
    "command": Spec("string"), "args": Spec("array", values=Spec("string")), "env": _STRINGS, "cwd": Spec("string"),
    "url": Spec("string"), "headers": _STRINGS, "approval": Spec("string", default="ask", choices=MODES),
    "tools": Spec("object", values=Spec("string", choices=MODES)),
    "timeout": Spec("number", default=DEFAULT_TIMEOUT, minimum=0, above=True, maximum=MAX_SECONDS["timeout"]),
    "startupTimeout": Spec("number", default=DEFAULT_STARTUP_TIMEOUT, minimum=0, above=True,
                           maximum=MAX_SECONDS["startupTimeout"]),
    "disabled": Spec("boolean", default=False),
})
PRICE = Spec("number", minimum=0, maximum=MAX_PRICE)

# Integer settings: a 401-digit contextWindow used to stop the agent ("OverflowError"), a maxTokens of
# 10^400 went to the API as is.
SPECS: dict[str, Spec] = {
    "model": _MODEL_ID,
    "compactModel": _MODEL_ID,
    "baseUrl": Spec("string", nullable=True),
    "contextWindow": Spec("integer", minimum=1_000, maximum=10_000_000, nullable=True),
    "outputReserve": Spec("integer", minimum=0, maximum=10_000_000, nullable=True),
    "maxTokens": Spec("integer", default=Elsewhere("model", "max_tokens"), minimum=1, maximum=1_000_000,
                      nullable=True),
    "thinking": Spec("string", default=Elsewhere("model", "thinking"), choices=THINKING_MODES, nullable=True),
    "prices": Spec("object", default={}, nullable=True, values=Spec(  # model id fragment → prices
        "object", fields=dict.fromkeys(PRICE_FIELDS, PRICE), closed=True)),
    "cacheTtl": Spec("string", default=Elsewhere("model", "cache_ttl"), choices=("auto", "5m", "1h"), nullable=True),
    "cacheControl": Spec("boolean", nullable=True),  # None: only to the native API
    "cacheDiagnostics": Spec("boolean", nullable=True),  # None: only the native API
    "toolSearch": Spec("string", default=Elsewhere("model", "tool_search"), choices=TOOL_SEARCH_MODES, nullable=True),
    "thresholds": Spec("object", nullable=True, fields={
        name: Spec("number", default=Elsewhere("context", target), minimum=0, above=True, maximum=MAX_THRESHOLD,
                   nullable=True)  # null: absent, but autoCompact null turns auto-compaction off
        for name, target in THRESHOLDS.items()}),
    "approvals": Spec("object", nullable=True, fields={
        **{kind: Spec("string", default="ask", choices=APPROVAL_MODES, nullable=True) for kind in ("shell", "write")},
        "timeoutSeconds": Spec("number", default=CONFIRM_TIMEOUT, minimum=0, above=True, maximum=MAX_CONFIRM_TIMEOUT,
                               nullable=True),
    }),
    "diagnosticsWaitMs": Spec("integer", default=DIAGNOSTICS_WAIT_MS, minimum=0, maximum=MAX_DIAGNOSTICS_WAIT_MS,
                              nullable=True),
    "mcpServers": Spec("object", default={}, nullable=True, values=_MCP_SERVER),  # server name → configuration
    "permissions": Spec("object", default={}, nullable=True, closed=True, fields={
        decision: Spec("array", values=Spec("string"), nullable=True) for decision in DECISIONS}),
}
APPROVAL_KINDS = tuple(kind for kind, spec in SPECS["approvals"].fields.items() if spec.type == "string")


def settings_schema() -> dict[str, Any]:
    """AgentSettings as a JSON Schema object: what every front end's settings are checked against."""
    from ..context.config import ContextConfig
    from ..model.settings import ModelSettings

    owners = {"model": ModelSettings, "context": ContextConfig}
    defaults = {Elsewhere(owner, f.name): f.default for owner, kind in owners.items() for f in fields(kind)}
    return Spec("object", fields=SPECS, closed=False).describe(defaults)
