"""The endpoint's Models API as the catalog: fetched in the background, cached per endpoint.

`GET /v1/models` (the SDK's `models.list()`, every page) gives each model's id, name,
release date, window (`max_input_tokens`), output limit (`max_tokens`) and
capabilities (`capabilities.thinking.types.*.supported`, `capabilities.effort.*`,
`capabilities.compaction.summarize.supported`, `capabilities.context_management.<strategy>.supported`).
The answer is kept per (base URL, key fingerprint) for CATALOG_TTL seconds: a fingerprint
is a short hash of the credential, never the credential itself. A failed or missing
Models API gives the offline table (catalog.py), marked as the fallback; nothing here
ever makes a turn wait for more than the caller's bounded `wait`.

The API reference gives a model's `id` only as "Unique model identifier" (a string; no
length or alphabet: platform.claude.com/docs/en/api/models), and compatible endpoints
use other forms (`MiniMax-M2.7`, Bedrock's `anthropic.…-v1:0`, Vertex's `…@20241022`).
An endpoint is not trusted with the rest: an id longer than MODEL_ID_MAX characters or
with anything but printable ASCII (no space, no control character) is dropped, named in
the log by its first characters, so it can never become the default model; a display
name is cut at DISPLAY_NAME_MAX.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
from dataclasses import replace
from typing import Any
from collections.abc import Awaitable, Callable

from .catalog import CONTEXT_EDITS, EFFORT_LEVELS, ENDPOINT, THINKING_TYPES, Catalog, ModelInfo, fallback_catalog
from .errors import ModelError
from .settings import ModelSettings

log = logging.getLogger(__name__)

CATALOG_TTL = 600.0  # seconds a fetched list is trusted; then the next look refreshes it in the background
LIST_TIMEOUT = 20.0  # seconds one list may take (each page is one request)
DEFAULT_BASE_URL = "https://api.anthropic.com"
MODEL_ID_MAX = 256  # characters of a model id agentls accepts from a list (ids in use are under 64)
DISPLAY_NAME_MAX = 200  # characters of a model's display name shown
_MODEL_ID = re.compile(rf"[\x21-\x7e]{{1,{MODEL_ID_MAX}}}")  # printable ASCII, no space

EndpointKey = tuple[str, str]


def endpoint_key(settings: ModelSettings) -> EndpointKey:
    """(base URL, credential fingerprint): which list a cached catalog is."""
    credential = settings.resolved_api_key() or settings.resolved_auth_token() or ""
    fingerprint = hashlib.sha256(credential.encode()).hexdigest()[:16] if credential else ""
    return (settings.resolved_base_url() or DEFAULT_BASE_URL).rstrip("/"), fingerprint


def _supported(capabilities: Any, *path: str) -> bool:
    node = capabilities
    for name in path:
        node = node.get(name) if isinstance(node, dict) else None
    return isinstance(node, dict) and node.get("supported") is True


def is_model_id(text: str) -> bool:
    """Whether agentls would use `text` as a model id (printable ASCII, no space, at most MODEL_ID_MAX)."""
    return bool(_MODEL_ID.fullmatch(text))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def parse_model(raw: dict[str, Any]) -> ModelInfo | None:
    """A ModelInfo from one entry of the list (None when it has no id); fields it lacks stay unknown."""
    model_id = raw.get("id")
    if not isinstance(model_id, str) or not model_id:
        return None
    if not _MODEL_ID.fullmatch(model_id):
        log.warning("the model list names an id agentls does not use (over %d characters, or not printable "
                    "ASCII): %r… (%d characters)", MODEL_ID_MAX, model_id[:40], len(model_id))
        return None
    capabilities = raw.get("capabilities")
    display_name, created_at = raw.get("display_name"), raw.get("created_at")
    if isinstance(display_name, str) and len(display_name) > DISPLAY_NAME_MAX:
        display_name = display_name[:DISPLAY_NAME_MAX - 1] + "…"
    line = raw.get("line")
    lifecycle = raw.get("lifecycle")
    return ModelInfo(
        id=model_id,
        display_name=display_name if isinstance(display_name, str) else "",
        created_at=created_at if isinstance(created_at, str) else "",
        max_input_tokens=_int(raw.get("max_input_tokens")),
        max_tokens=_int(raw.get("max_tokens")),
        thinking_types=frozenset(t for t in THINKING_TYPES if _supported(capabilities, "thinking", "types", t)),
        efforts=tuple(level for level in EFFORT_LEVELS if _supported(capabilities, "effort", level)),
        line=line if isinstance(line, str) else None,
        lifecycle=lifecycle if isinstance(lifecycle, str) else "active",
        compaction=_supported(capabilities, "compaction", "summarize"),
        context_editing=frozenset(s for s in CONTEXT_EDITS if _supported(capabilities, "context_management", s)),
    )


async def fetch_catalog(settings: ModelSettings) -> Catalog:
    """The endpoint's list, else the fallback table with the reason (never raises for the API's sake)."""
    from .client import ModelClient, sdk_loaded  # the client imports the SDK; keep this module light to import

    host = settings.endpoint_host
    await sdk_loaded()  # local work, slow on a loaded machine: LIST_TIMEOUT is for the endpoint's answer
    # One attempt, no retries: a list that fails falls back at once and is tried again later.
    client = ModelClient(replace(settings, max_retries=0, catalog=None))
    try:
        raw = await asyncio.wait_for(client.list_models(), LIST_TIMEOUT)
    except ModelError as error:
        if error.status is None:  # no answer at all (refused, unknown host, TLS, cut off): not "lists no models"
            return fallback_catalog(f"{host} could not be reached ({error.message}); this is agentls' offline list",
                                    host)
        reason = "it has no Models API" if error.status == 404 else f"listing its models failed: {error.message}"
        return fallback_catalog(f"{host} lists no models ({reason}); this is agentls' offline list", host)
    except asyncio.TimeoutError:
        return fallback_catalog(f"{host} did not list its models within {LIST_TIMEOUT:.0f} s; "
                                "this is agentls' offline list", host)
    finally:
        await client.aclose()
    models = tuple(m for m in map(parse_model, raw) if m is not None and m.lifecycle != "retired")
    if not models:
        return fallback_catalog(f"{host} lists no models; this is agentls' offline list", host)
    return Catalog(models, ENDPOINT, "", host)


class ModelCatalog:
    """The catalog of the endpoint in use: cached per endpoint key, refreshed in the background.

    `refresh(settings)` starts a fetch when the endpoint or credential changed or the cached
    list is older than the TTL; `current(settings)` answers at once (cached, else the fallback);
    `wait(settings, seconds)` waits for a fetch under way, at most that long. `on_update` is
    called (synchronously: it schedules what it needs) with each fetched catalog of the
    endpoint in use.
    """

    def __init__(self, on_update: Callable[[Catalog], None] | None = None, *, ttl: float = CATALOG_TTL,
                 clock: Callable[[], float] = time.monotonic,
                 fetch: Callable[[ModelSettings], Awaitable[Catalog]] = fetch_catalog) -> None:
        self.on_update = on_update
        self.ttl = ttl
        self.clock = clock
        self._fetch = fetch
        self._cache: dict[EndpointKey, tuple[float, Catalog]] = {}
        self._tasks: dict[EndpointKey, asyncio.Task[Catalog]] = {}
        self._key: EndpointKey | None = None

    def refresh(self, settings: ModelSettings, *, force: bool = False) -> None:
        key = endpoint_key(settings)
        self._key = key
        cached = self._cache.get(key)
        fresh = cached is not None and self.clock() - cached[0] < self.ttl
        if (fresh and not force) or key in self._tasks:
            return
        task = asyncio.ensure_future(self._run(key, replace(settings)))
        self._tasks[key] = task

    def fetching(self, settings: ModelSettings) -> bool:
        return endpoint_key(settings) in self._tasks

    def current(self, settings: ModelSettings) -> Catalog | None:
        """The cached list of this endpoint (however old), None before the first fetch ended."""
        cached = self._cache.get(endpoint_key(settings))
        return cached[1] if cached is not None else None

    async def wait(self, settings: ModelSettings, seconds: float | None) -> Catalog | None:
        """The list of this endpoint, waiting up to `seconds` (None: until it ends) for a fetch under way."""
        task = self._tasks.get(endpoint_key(settings))
        if task is not None:
            await asyncio.wait([task], timeout=seconds)
        return self.current(settings)

    async def _run(self, key: EndpointKey, settings: ModelSettings) -> Catalog:
        try:
            catalog = await self._fetch(settings)
        except Exception as error:  # noqa: BLE001 - a broken list must never break the agent
            log.warning("listing the models of %s failed: %s", settings.endpoint_host, error)
            catalog = fallback_catalog(f"listing the models of {settings.endpoint_host} failed; "
                                       "this is agentls' offline list", settings.endpoint_host)
        finally:
            self._tasks.pop(key, None)
        self._cache[key] = (self.clock(), catalog)
        log.info("models of %s: %s (%d)", settings.endpoint_host, catalog.source, len(catalog.models))
        if key == self._key and self.on_update is not None:
            self.on_update(catalog)  # synchronous: a caller waiting for this fetch may hold its locks
        return catalog

    async def aclose(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks.values()), timeout=5)
        self._tasks.clear()
