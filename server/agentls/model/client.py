"""ModelClient: streaming calls to an Anthropic-compatible API, with our own retries.

The SDK's built-in retries are switched off (max_retries=0): they only cover
failures before the first byte of a response, while a stream can also drop
half-way. Doing every retry here handles both the same way, lets us report
each one as a Retrying event, and honours retry-after uniformly.

A request refused because a thinking block failed its prefix check (400 "…is bound to a different
conversation…") is sent once more with `prefix_mismatch_behavior: "drop_block"` (a BindingRetry event
first); the docs say to keep sending that for the rest of the conversation, so the client does while
`drop_mismatched_thinking` is set (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/
fix-bound-to-a-different-conversation, "store the setting with the conversation").
Conversation calls (`stream`, `compact`) ask for cache diagnostics where the settings say so, naming the
previous conversation response (`diagnostics.previous_message_id`; null on the first, to opt in).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from ..context.prompt_cache import stable_ttl
from .assembler import InvalidStreamData, MessageAssembler, emit
from .binding import thinking_binds
from .errors import ModelError, mismatch_path, redact
from .events import BindingRetry, EventHandler, Retrying
from .hints import setting_hint
from .pricing import CostTracker
from .request import build_request, rebound_request, required_betas, with_drop_block
from .response import ModelResponse
from .retry import Failure, backoff_delay, classify, handled_errors
from .sdk_client import open_sdk
from .settings import ModelSettings

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

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
        # Send `drop_block` on every request: set after a prefix-mismatch retry; reset for a new or resumed chat.
        self.drop_mismatched_thinking = False
        # The id of the conversation's last response, named by the next call's cache diagnostics.
        self.previous_message_id: str | None = None

    def _sdk(self) -> anthropic.AsyncAnthropic:
        """The SDK client, made on first use: a missing or broken credential
        then surfaces as a ModelError on the call instead of at startup."""
        if self._sdk_client is None:
            self._sdk_client = open_sdk(self.settings)
        return self._sdk_client

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._sdk_client is not None:
            await self._sdk_client.close()
            self._sdk_client = None

    def begin_conversation(self, *, drop_mismatched_thinking: bool = False,
                           previous_message_id: str | None = None) -> None:
        """Calls from now on belong to another conversation (a new one, or one resumed with what was stored
        with it): whether it sends drop_block, and the response its first cache diagnostics compare with."""
        self.drop_mismatched_thinking = drop_mismatched_thinking
        self.previous_message_id = previous_message_id

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
        context_management: dict | None = None,
    ) -> ModelResponse:
        """Stream one assistant reply, reporting deltas to on_event; retries transient failures.

        ``frontier``: the context pipeline's stable frontier (a cache breakpoint goes
        there); ``previous_frontier``: the one before a batch just applied, read once more;
        ``context_management``: server-side context editing to apply (sent as given).
        """
        request = self._request(system, messages, tools, model or self.settings.model,
                                max_tokens or self.settings.max_tokens, thinking=True,
                                frontier=frontier, previous_frontier=previous_frontier)
        if context_management is not None:
            request["context_management"] = context_management
        return await self._conversation_call(request, on_event)

    async def compact(
        self,
        *,
        system: str | list[dict] | None,
        messages: list[dict],
        tools: list[dict] | None,
        instructions: str | None = None,
        model: str | None = None,
        on_event: EventHandler | None = None,
        frontier: int | None = None,
    ) -> ModelResponse:
        """On-demand server-side compaction of the conversation: `content[0]` of the answer is the signed
        `compaction` block a later request sends first, in place of the messages it summarizes.

        The request is the conversation's own (same system, tools, thinking) so it reads the prompt
        cache; `instructions` replace the server's summarization prompt. Raises ModelError when the
        endpoint answers without a compaction block (it does not compact on demand).
        """
        request = self._request(system, messages, tools, model or self.settings.model, self.settings.max_tokens,
                                thinking=True, frontier=frontier)
        request["compaction"] = {"type": "summarize", **({"instructions": instructions} if instructions else {})}
        response = await self._conversation_call(request, on_event)
        blocks = [b for b in response.content if b.get("type") == "compaction"]
        if not blocks:
            raise ModelError(f"{self._api_name} answered the compaction request without a compaction block "
                             f"(stop_reason {response.stop_reason!r})")
        response.content = blocks + [b for b in response.content if b.get("type") != "compaction"]
        return response

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
            sdk, betas = self._sdk(), required_betas(request)  # system messages with tool changes need a beta
            result = await (sdk.beta.messages.count_tokens(betas=betas, **request) if betas
                            else sdk.messages.count_tokens(**request))
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
        request, note = build_request(self.settings, system, messages, tools, model, max_tokens, thinking=thinking,
                                      stable_ttl=self.cache_ttl, frontier=frontier,
                                      previous_frontier=previous_frontier)
        if note and note != self._thinking_note:
            self._thinking_note = note
            log.info("thinking: %s", note)
        return request

    async def _conversation_call(self, request: dict[str, Any], on_event: EventHandler | None) -> ModelResponse:
        """A call of the conversation: with cache diagnostics naming the previous one, when asked for."""
        if self.settings.use_cache_diagnostics:
            request["diagnostics"] = {"previous_message_id": self.previous_message_id}
        response = await self._call_with_retries(request, on_event)
        self.previous_message_id = response.id or self.previous_message_id
        return response

    async def _call_with_retries(self, request: dict[str, Any], on_event: EventHandler | None) -> ModelResponse:
        await sdk_loaded()
        sdk = self._sdk()
        self._note_call()
        info = self.settings.model_info(request["model"])
        if self.drop_mismatched_thinking and thinking_binds(request["model"], thinking_on=True):
            request = with_drop_block(request, info) or request  # not to a model that checks no binding
        max_attempts = self.settings.max_retries + 1
        log.debug("model call: %s, %d messages, %d tools", request["model"], len(request["messages"]),
                  len(request.get("tools", ())))
        attempt = 1
        while True:
            assembler = MessageAssembler(on_event)
            try:
                response = await self._stream_once(sdk, request, assembler)
            except handled_errors() as error:
                failure = classify(error)
                rebound = rebound_request(request, info, failure.status, failure.detail)
                if rebound is not None:  # not an attempt of its own: the same request, told to drop the blocks
                    request = rebound
                    self.drop_mismatched_thinking = True
                    log.warning("a thinking block failed its prefix check; sending again with drop_block: %s",
                                failure.detail)
                    await emit(on_event, BindingRetry(path=mismatch_path(failure.detail), detail=failure.detail))
                    continue
                if not failure.retryable or attempt == max_attempts:
                    raise self._error(failure, attempts=attempt, model=request["model"]) from error
                delay = backoff_delay(attempt, self.settings.retry_base_delay, self.settings.retry_max_delay,
                                      failure.retry_after)
                log.info("model call failed: %s; attempt %d of %d in %.2f s",
                         failure.reason, attempt + 1, max_attempts, delay)
                await emit(on_event, Retrying(attempt=attempt + 1, delay_seconds=delay, reason=failure.reason,
                                              max_attempts=max_attempts, discard_partial=assembler.emitted_deltas))
                await asyncio.sleep(delay)
                attempt += 1
                continue
            self.costs.cache_ttl = self.cache_ttl
            self.costs.add(response.model or request["model"], response.usage)
            return response

    async def _stream_once(self, sdk: anthropic.AsyncAnthropic, request: dict[str, Any],
                           assembler: MessageAssembler) -> ModelResponse:
        try:
            betas = required_betas(request)
            if betas:  # the SDK's beta client sends them as the anthropic-beta header
                stream = await sdk.beta.messages.create(betas=betas, stream=True, **request)
            else:
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
