"""ModelClient: streaming calls to an Anthropic-compatible API, with our own retries.

The SDK's built-in retries are switched off (max_retries=0): they only cover
failures before the first byte of a response, while a stream can also drop
half-way. Doing every retry here handles both the same way, lets us report
each one as a Retrying event, and honours retry-after uniformly.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from ..context.prompt_cache import stable_ttl
from .assembler import InvalidStreamData, MessageAssembler, emit
from .cache import with_cache_breakpoints
from .errors import ModelError, redact
from .hints import setting_hint
from .events import EventHandler, Retrying
from .pricing import CostTracker
from .response import ModelResponse
from .retry import Failure, backoff_delay, classify, handled_errors
from .settings import ModelSettings
from .thinking import thinking_request

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

# Anthropic-compatible proxies and local servers often need no key, but the
# SDK refuses to send a request without some credential header. (A proxy
# token in ANTHROPIC_AUTH_TOKEN is left for the SDK to pick up.)
_PLACEHOLDER_KEY = "agentls-no-key"


_sdk_loaded = False


def load_sdk() -> None:
    """Import the SDK (slow: the largest import of the server). Blocking: call it in a thread."""
    global _sdk_loaded
    import anthropic  # noqa: F401 - loaded for later: calls find it in sys.modules

    handled_errors()
    _sdk_loaded = True


async def sdk_loaded() -> None:
    """The SDK is imported, without blocking the event loop: a thread imports it, or waits for the
    thread already importing it (nobody waits on the import lock in the loop itself)."""
    if not _sdk_loaded:
        await asyncio.to_thread(load_sdk)


class ModelClient:
    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self.costs = CostTracker(settings.model, settings.prices)
        self._api_name = "Anthropic API" if settings.is_native_anthropic else f"model API at {settings.endpoint_host}"
        self._sdk_client: anthropic.AsyncAnthropic | None = None
        self.clock = time.monotonic
        self._last_call_at: float | None = None
        self.call_gaps: list[float] = []  # seconds between successive calls: they choose the cache TTL
        self.costs.cache_ttl = self.cache_ttl
        self._thinking_note = ""  # the last note of the thinking mapping, logged once

    def _sdk(self) -> anthropic.AsyncAnthropic:
        """The SDK client, made on first use: a missing or broken credential
        then surfaces as a ModelError on the call instead of at startup."""
        if self._sdk_client is None:
            import anthropic  # on first use: the agent is ready (and initialize answered) without it

            key = self.settings.resolved_api_key()
            token = self.settings.resolved_auth_token()
            if key is None and not self.settings.is_native_anthropic and not token:
                key = _PLACEHOLDER_KEY
            try:
                # The SDK takes one credential; the token is passed in (it has left the
                # environment the SDK would look in) when there is no key.
                credential = {"api_key": key} if key is not None or token is None else {"auth_token": token}
                sdk = anthropic.AsyncAnthropic(
                    **credential,  # api_key=None on the native API: the SDK looks for other credentials
                    base_url=self.settings.resolved_base_url(),
                    max_retries=0,
                    timeout=anthropic.Timeout(self.settings.timeout, connect=self.settings.connect_timeout),
                )
            except anthropic.CredentialsError as error:
                message = redact(f"Could not load Anthropic credentials: {error}", *self._secrets())
                raise ModelError(message) from None
            if not (sdk.api_key or sdk.auth_token or sdk.credentials):
                raise ModelError("No API key: set ANTHROPIC_API_KEY or the apiKey initialization option")
            self._sdk_client = sdk
        return self._sdk_client

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._sdk_client is not None:
            await self._sdk_client.close()
            self._sdk_client = None

    # ------------------------------------------------------------ public calls

    async def stream(
        self,
        *,
        system: str | list[dict] | None,
        messages: list[dict],
        tools: list[dict] | None,
        on_event: EventHandler | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        frontier: int | None = None,
        previous_frontier: int | None = None,
    ) -> ModelResponse:
        """Stream one assistant reply, reporting deltas to on_event; retries transient failures.

        ``frontier``: the context pipeline's stable frontier (a cache breakpoint goes
        there); ``previous_frontier``: the one before a batch just applied, read once more.
        """
        request = self._request(system, messages, tools, model or self.settings.model,
                                max_tokens or self.settings.max_tokens, thinking=True,
                                frontier=frontier, previous_frontier=previous_frontier)
        return await self._call_with_retries(request, on_event)

    async def complete(
        self,
        *,
        system: str | list[dict] | None,
        messages: list[dict],
        tools: list[dict] | None = None,
        compact: bool = False,
        model: str | None = None,
        max_tokens: int | None = None,
        on_event: EventHandler | None = None,
        frontier: int | None = None,
    ) -> ModelResponse:
        """A reply without extended thinking, e.g. for summaries; compact=True uses compact_model.

        It still streams underneath: long non-streaming requests hit timeouts.
        """
        chosen = model or (self.settings.effective_compact_model if compact else self.settings.model)
        request = self._request(system, messages, tools, chosen, max_tokens or self.settings.max_tokens,
                                thinking=False, frontier=frontier)
        return await self._call_with_retries(request, on_event)

    async def count_tokens(
        self, *, system: str | list[dict] | None, messages: list[dict], tools: list[dict] | None = None,
        model: str | None = None,
    ) -> int:
        """The API's own count of the prompt's input tokens (one attempt, no retries)."""
        request = self._request(system, messages, tools, model or self.settings.model, 1, thinking=False)
        request.pop("max_tokens")
        await sdk_loaded()
        try:
            result = await self._sdk().messages.count_tokens(**request)
        except handled_errors() as error:
            raise self._error(classify(error), attempts=1, model=request["model"]) from error
        return int(result.input_tokens)

    async def list_models(self) -> list[dict[str, Any]]:
        """Every model the endpoint lists (`GET /v1/models`, all pages, one attempt each), as the
        API sent them: plain dicts, so fields newer than the installed SDK's types are kept."""
        await sdk_loaded()
        try:
            return [item.to_dict(mode="json") async for item in self._sdk().models.list()]
        except handled_errors() as error:
            raise self._error(classify(error), attempts=1) from error

    # ------------------------------------------------------------ internals

    @property
    def cache_ttl(self) -> str:
        """The TTL of the head and frontier breakpoints for the next call."""
        return stable_ttl(self.call_gaps, self.settings.cache_ttl)

    def _request(self, system: Any, messages: list[dict], tools: list[dict] | None, model: str,
                 max_tokens: int, *, thinking: bool, frontier: int | None = None,
                 previous_frontier: int | None = None) -> dict[str, Any]:
        tools = list(tools or [])
        if self.settings.use_cache_control:
            system, tools, messages = with_cache_breakpoints(
                system, tools, messages, frontier=frontier, previous_frontier=previous_frontier,
                placement=self.settings.cache_placement, stable_ttl=self.cache_ttl)
        info = self.settings.model_info(model)
        if info is not None and info.max_tokens:
            max_tokens = min(max_tokens, info.max_tokens)  # more is refused with 400
        request: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": messages}
        if system:
            request["system"] = system
        if tools:
            request["tools"] = tools
        if thinking:
            plan = thinking_request(self.settings.thinking, info, max_tokens=max_tokens,
                                    budget=self.settings.thinking_budget,
                                    max_output=info.max_tokens if info is not None else None)
            request["max_tokens"] = plan.max_tokens
            if plan.thinking is not None:
                request["thinking"] = plan.thinking
            if plan.output_config is not None:
                request["output_config"] = plan.output_config
            if plan.note and plan.note != self._thinking_note:
                self._thinking_note = plan.note
                log.info("thinking: %s", plan.note)
        return request

    async def _call_with_retries(self, request: dict[str, Any], on_event: EventHandler | None) -> ModelResponse:
        await sdk_loaded()
        sdk = self._sdk()
        self._note_call()
        max_attempts = self.settings.max_retries + 1
        log.debug("model call: %s, %d messages, %d tools", request["model"], len(request["messages"]),
                  len(request.get("tools", ())))
        for attempt in range(1, max_attempts + 1):
            assembler = MessageAssembler(on_event)
            try:
                response = await self._stream_once(sdk, request, assembler)
            except handled_errors() as error:
                failure = classify(error)
                if not failure.retryable or attempt == max_attempts:
                    raise self._error(failure, attempts=attempt, model=request["model"]) from error
                delay = backoff_delay(attempt, self.settings.retry_base_delay, self.settings.retry_max_delay,
                                      failure.retry_after)
                log.info("model call failed: %s; attempt %d of %d in %.2f s",
                         failure.reason, attempt + 1, max_attempts, delay)
                await emit(on_event, Retrying(attempt=attempt + 1, delay_seconds=delay, reason=failure.reason,
                                              max_attempts=max_attempts, discard_partial=assembler.emitted_deltas))
                await asyncio.sleep(delay)
                continue
            self.costs.cache_ttl = self.cache_ttl
            self.costs.add(response.model or request["model"], response.usage)
            return response
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _stream_once(self, sdk: anthropic.AsyncAnthropic, request: dict[str, Any],
                           assembler: MessageAssembler) -> ModelResponse:
        try:
            stream = await sdk.messages.create(stream=True, **request)
            # `async with` closes the HTTP response on every exit, cancellation included.
            async with stream:
                async for event in stream:
                    await assembler.feed(event)
        except json.JSONDecodeError as error:  # the SDK parses each event's data as JSON
            raise InvalidStreamData(f"an event's data is not JSON ({error.msg})") from None
        except handled_errors() as error:
            if not assembler.complete:
                raise
            # The reply arrived whole (message_stop seen); only the connection's goodbye failed.
            log.debug("ignoring %s after message_stop", type(error).__name__)
        return assembler.response()  # raises IncompleteStream if message_stop never came

    def _note_call(self) -> None:
        now = self.clock()
        if self._last_call_at is not None:
            self.call_gaps.append(now - self._last_call_at)
        self._last_call_at = now

    def _error(self, failure: Failure, *, attempts: int, model: str = "") -> ModelError:
        if failure.retryable:
            plural = "attempt" if attempts == 1 else "attempts"
            message = f"{self._api_name} {failure.reason} after {attempts} {plural}"
        else:
            message = f"{self._api_name} {failure.reason}" + (f": {failure.detail}" if failure.detail else "")
            compact = model != self.settings.model and model == self.settings.compact_model
            hint = setting_hint(failure.status, failure.detail, model, compact=compact,
                                names=self.settings.setting_names, endpoint=self.settings.endpoint_host)
            message += f". {hint}" if hint and model else ""
        message = redact(message, *self._secrets())
        return ModelError(message, status=failure.status, retryable=failure.retryable)

    def _secrets(self) -> tuple[str | None, str | None]:
        return self.settings.resolved_api_key(), self.settings.resolved_auth_token()
