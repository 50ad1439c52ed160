"""AgentSettings (docs/protocol.md), the user's settings → ModelSettings + ContextConfig + approval modes.

One format for every front end: VS Code's `agentls.*` settings, an LSP client's
initializationOptions or didChangeConfiguration, and the terminal's options.

Parsing never fails: a bad field is reported (the editor shows it) and left
at its default, so a typo in settings.json cannot keep the agent from starting.
The model/context packages are imported lazily: they pull in the anthropic
SDK, which is slow to import, and initialize should not wait for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import credentials
from .mcp.config import ServerConfig, parse_servers, valid_url
from .permissions import SETTINGS, Rule, parse_rules
from .settings_schema import (APPROVAL_KINDS, CONFIRM_TIMEOUT, DIAGNOSTICS_WAIT_MS, MAX_PRICE, MODEL_CHARS,
                              PRICE, PRICE_FIELDS, SPECS, THRESHOLDS)

if TYPE_CHECKING:
    from ..context import ContextConfig
    from ..model import ModelSettings
    from ..model.catalog import ModelInfo

SECTION = "agentls"
KNOWN_KEYS = set(SPECS)


@dataclass(frozen=True)
class AgentSettings:
    model: str | None = None
    compact_model: str | None = None
    base_url: str | None = None
    context_window: int | None = None
    output_reserve: int | None = None
    max_tokens: int | None = None
    cache_ttl: str | None = None  # "auto", "5m" or "1h": the head and frontier breakpoints' TTL
    cache_control: bool | None = None  # send prompt-cache breakpoints; None: only to the native API
    cache_diagnostics: bool | None = None  # ask why the cache missed (diagnostics); None: only the native API
    thinking: str | None = None  # "auto" (default), "off" or an effort level
    tool_search: str | None = None  # "auto" (default), "builtin" or "off" (model/tool_search.py)
    prices: dict[str, dict[str, float]] = field(default_factory=dict)  # model fragment → USD per MTok
    thresholds: dict[str, Any] = field(default_factory=dict)  # ContextConfig field → fraction (auto_compact: off)
    approvals: dict[str, str] = field(default_factory=dict)
    diagnostics_wait_ms: int | None = None
    confirm_timeout: float = CONFIRM_TIMEOUT  # approvals.timeoutSeconds
    mcp_servers: tuple[ServerConfig, ...] = ()
    permissions: tuple[Rule, ...] = ()  # the user's permission rules (agent/permissions)

    def diagnostics_wait(self) -> int:
        return DIAGNOSTICS_WAIT_MS if self.diagnostics_wait_ms is None else self.diagnostics_wait_ms

    def approval_modes(self) -> dict[str, str]:
        """Both kinds, defaults filled in: a setting removed goes back to "ask"."""
        return {kind: self.approvals.get(kind, "ask") for kind in APPROVAL_KINDS}


def settings_section(payload: Any) -> dict[str, Any] | None:
    """Our settings in a didChangeConfiguration payload: `{agentls: {...}}` or the object itself.

    None when the payload says nothing about us (e.g. Neovim's default `{}`):
    the current settings then stay as they are.
    """
    if not isinstance(payload, dict):
        return None
    if isinstance(payload.get(SECTION), dict):
        return payload[SECTION]
    if KNOWN_KEYS & set(payload):
        return payload
    return None


def parse_settings(raw: Any) -> tuple[AgentSettings, list[str]]:
    """The settings and one message per field that was ignored. Never raises: the agent always starts."""
    try:
        return _parse_settings(raw)
    except Exception as error:  # noqa: BLE001 - a value nobody foresaw must not keep the agent from starting
        return AgentSettings(), [f"the settings could not be read ({type(error).__name__}); using the defaults"]


def _parse_settings(raw: Any) -> tuple[AgentSettings, list[str]]:
    problems: list[str] = []
    if raw is None or raw == []:  # Lua clients encode an empty table as []
        return AgentSettings(), problems
    if not isinstance(raw, dict):
        return AgentSettings(), ["settings must be an object; using defaults"]

    def text(name: str) -> str | None:
        value = raw.get(name)
        if value is None or (isinstance(value, str) and value.strip()):
            return value.strip() if isinstance(value, str) else None
        problems.append(f"settings.{name} must be a non-empty string")
        return None

    def model_name(name: str) -> str | None:
        value = text(name)
        if value is not None and (len(value) > MODEL_CHARS or not value.isprintable()):
            problems.append(f"settings.{name} must be a model id (printable, at most {MODEL_CHARS} characters)")
            return None
        return value

    def count(name: str) -> int | None:
        value = raw.get(name)
        if value is None:
            return None
        spec = SPECS[name]
        if not spec.in_range(value):
            # never the value
            problems.append(f"settings.{name} must be an integer from {spec.minimum:,} to {spec.maximum:,}")
            return None
        return value

    base_url = text("baseUrl")
    if base_url is not None and not valid_url(base_url):
        problems.append("settings.baseUrl must be an http:// or https:// URL (no spaces or control characters)")
        base_url = None
    window = count("contextWindow")
    reserve = count("outputReserve")
    if reserve is not None and reserve >= (window or 200_000):
        problems.append("settings.outputReserve must be smaller than the context window")
        reserve = None
    cache_ttl = raw.get("cacheTtl")
    if cache_ttl is not None and cache_ttl not in SPECS["cacheTtl"].choices:
        problems.append(f"settings.cacheTtl must be one of {', '.join(SPECS['cacheTtl'].choices)}")
        cache_ttl = None
    cache_control = raw.get("cacheControl")
    if cache_control is not None and not isinstance(cache_control, bool):
        problems.append("settings.cacheControl must be a boolean")
        cache_control = None
    cache_diagnostics = raw.get("cacheDiagnostics")
    if cache_diagnostics is not None and not isinstance(cache_diagnostics, bool):
        problems.append("settings.cacheDiagnostics must be a boolean")
        cache_diagnostics = None
    thinking = raw.get("thinking")
    if thinking is not None and thinking not in SPECS["thinking"].choices:
        problems.append(f"settings.thinking must be one of {', '.join(SPECS['thinking'].choices)}")
        thinking = None
    tool_search = raw.get("toolSearch")
    if tool_search is not None and tool_search not in SPECS["toolSearch"].choices:
        problems.append(f"settings.toolSearch must be one of {', '.join(SPECS['toolSearch'].choices)}")
        tool_search = None
    mcp_servers, mcp_problems = parse_servers(raw.get("mcpServers"))
    problems.extend(mcp_problems)
    permissions, rule_problems = parse_rules(raw.get("permissions"), SETTINGS, "settings.permissions")
    problems.extend(rule_problems)
    return AgentSettings(
        permissions=permissions, mcp_servers=mcp_servers, model=model_name("model"),
        compact_model=model_name("compactModel"), base_url=base_url, context_window=window, output_reserve=reserve,
        max_tokens=count("maxTokens"), cache_ttl=cache_ttl, cache_control=cache_control,
        cache_diagnostics=cache_diagnostics,
        thinking=thinking, tool_search=tool_search, prices=_prices(raw.get("prices"), problems),
        thresholds=_thresholds(raw.get("thresholds"), problems), approvals=_approvals(raw.get("approvals"), problems),
        diagnostics_wait_ms=count("diagnosticsWaitMs"),
        confirm_timeout=_confirm_timeout(raw.get("approvals"), problems),
    ), problems


def _prices(raw: Any, problems: list[str]) -> dict[str, dict[str, float]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append("settings.prices must be an object (model name fragment → prices)")
        return {}
    found: dict[str, dict[str, float]] = {}
    for fragment, entry in raw.items():
        if not isinstance(entry, dict):
            problems.append(f"settings.prices.{fragment} must be an object of prices")
            continue
        values = {}
        for name, value in entry.items():
            if name not in PRICE_FIELDS or not PRICE.in_range(value):  # a 400-digit integer would overflow float()
                problems.append(f"settings.prices.{fragment}.{name}: one of {', '.join(PRICE_FIELDS)}, "
                                f"a number from 0 to {MAX_PRICE:,} (USD per million tokens)")
                continue
            values[name] = float(value)
        if values:
            found[fragment] = values
    return found


def _thresholds(raw: Any, problems: list[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append("settings.thresholds must be an object")
        return {}
    found: dict[str, Any] = {}
    if "autoCompact" in raw and raw["autoCompact"] is None:
        found["auto_compact"] = False  # `autoCompact: null`: the conversation is never summarised on its own
    for name, target in THRESHOLDS.items():
        value = raw.get(name)
        if value is None:
            continue
        if not SPECS["thresholds"].fields[name].in_range(value):
            problems.append(f"settings.thresholds.{name} must be a number above 0 (a fraction of the window)")
            continue
        found[target] = float(value)
    return found


def _approvals(raw: Any, problems: list[str]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append("settings.approvals must be an object")
        return {}
    found = {}
    for kind in APPROVAL_KINDS:
        value = raw.get(kind)
        if value is None:
            continue
        modes = SPECS["approvals"].fields[kind].choices
        if value not in modes:
            problems.append(f"settings.approvals.{kind} must be one of {', '.join(modes)}")
            continue
        found[kind] = value
    return found


def _confirm_timeout(raw: Any, problems: list[str]) -> float:
    value = raw.get("timeoutSeconds") if isinstance(raw, dict) else None
    if value is None:
        return CONFIRM_TIMEOUT
    spec = SPECS["approvals"].fields["timeoutSeconds"]
    if not spec.in_range(value):
        problems.append(f"settings.approvals.timeoutSeconds must be a number of seconds above {spec.minimum} "
                        f"(at most {spec.maximum})")
        return CONFIRM_TIMEOUT
    return float(value)


# ---------------------------------------------------------------- what the agent gets

def wants_demo(settings: AgentSettings, api_key: str | None) -> bool:
    """No key and nowhere to send requests: run the offline demo model."""
    has_key = bool(api_key or any(credentials.get(name) for name in credentials.NAMES))
    has_url = bool(settings.base_url or os.environ.get("ANTHROPIC_BASE_URL"))
    return not has_key and not has_url


def model_settings(settings: AgentSettings, api_key: str | None, demo_url: str | None = None) -> ModelSettings:
    from ..model import ModelSettings
    from ..model.settings import for_demo_model

    values: dict[str, Any] = {"api_key": api_key, "base_url": settings.base_url}
    if settings.model:
        values["model"] = settings.model
    if settings.compact_model:
        values["compact_model"] = settings.compact_model
    if settings.max_tokens:
        values["max_tokens"] = settings.max_tokens
    if settings.cache_ttl:
        values["cache_ttl"] = settings.cache_ttl
    if settings.cache_control is not None:
        values["force_cache_control"] = settings.cache_control
    if settings.cache_diagnostics is not None:
        values["cache_diagnostics"] = settings.cache_diagnostics
    if settings.thinking:
        values["thinking"] = settings.thinking
    if settings.tool_search:
        values["tool_search"] = settings.tool_search
    if settings.prices:
        values["prices"] = {k: dict(v) for k, v in settings.prices.items()}
    if demo_url is not None:
        return for_demo_model(ModelSettings(**values), demo_url)
    return ModelSettings(**values)


def context_config(settings: AgentSettings, model: ModelInfo | None = None) -> ContextConfig:
    """The context settings; the window is the working window (model/catalog.py working_window):
    contextWindow (within the model's own window), else min(the model's window, 200K).

    The reply's reserve (outputReserve, else 10% of the window) grows to what the reply may take of the
    working window where the model's window is known: prompt + max_tokens over the model's window is a
    validation error on models with extended thinking (docs: about-claude/models/extended-thinking-models,
    "max_tokens ... is enforced as a strict limit"), so a prompt that fills the working window must leave
    the request's max_tokens room within the model's own window."""
    from ..context import ContextConfig
    from ..model import ModelSettings
    from ..model.catalog import working_window
    from ..model.request import reply_tokens_asked

    values: dict[str, Any] = dict(settings.thresholds)
    values["window"] = window = working_window(model, settings.context_window)
    # this agent calls its tools with tool_use blocks: a user message is the user's, also after a reply that
    # ends in a code block (never a result to clear, always quoted by a summary; text_results.py)
    values["text_calls"] = False
    if settings.output_reserve is not None:
        values["output_reserve"] = settings.output_reserve
    config = ContextConfig(**values)
    if settings.output_reserve is None and model is not None and model.max_input_tokens:
        asked = reply_tokens_asked(settings.max_tokens or ModelSettings.max_tokens, model, settings.thinking or "auto")
        needed = asked - (model.max_input_tokens - window)  # what of the reply the working window must hold
        if needed > config.reserve:
            config = config.updated(output_reserve=min(needed, window // 2))
    return config
