"""Compaction: the conversation replaced by the model's summary of it, automatic or asked (/compact).

Where the model binds thinking and compacts on the server (ContextConfig.server_compaction), the API
compacts it (ModelClient.compact, ContextEngine.apply_server_compaction); otherwise the client asks
for a summary, which the engine installs in a binding-safe form where thinking is bound. Either way
the next request fixes a new head (turn/head.py): changes held until then apply there.

The summary is stored with the session and a divider joins the transcript of record
(the conversation the user saw stays as it was). A failed summary changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ...context.compact import SummaryError
from ...context.pipeline import CompactionResult, NothingToGain
from ...model import ModelError
from ...model.response import ModelResponse
from .. import events as ev
from ..errors import AgentError
from ..transcript import CompactionMark, compaction_record
from .claim import Claim
from .conversation import Conversation
from .head import PromptHead
from .recording import Emit, Recording


class Compaction:
    def __init__(self, conversation: Conversation, head: PromptHead, recording: Recording, claim: Claim) -> None:
        self.conversation = conversation
        self.head = head
        self.recording = recording
        self.claim = claim

    def on_server(self) -> Callable[..., Awaitable[ModelResponse]] | None:
        """The client's on-demand compaction when the API compacts this conversation: a model that binds
        thinking and advertises it (ContextConfig, set from the model by the prompt head); else None."""
        config = self.conversation.engine.config
        if not (config.thinking_bound and config.server_compaction):
            return None
        # ModelClient.compact comes with the model branch of issue 29: read defensively until it is merged
        compact: Callable[..., Awaitable[ModelResponse]] | None = getattr(self.conversation.client, "compact", None)
        return compact

    def possible(self, instructions: str | None, manual: bool) -> bool:
        engine = self.conversation.engine
        if self.on_server():
            return engine.compaction_cut(manual) is not None
        return engine.summary_request(instructions, manual=manual) is not None

    async def _summarised(self, reason: str, instructions: str | None, frontier: int | None,
                          emit: Emit) -> CompactionResult | None:
        """The summary the client asks for (the engine makes it binding-safe where thinking is bound)."""
        conversation, engine = self.conversation, self.conversation.engine
        request = engine.summary_request(instructions, manual=reason == "manual")
        if request is None:
            return None
        await emit(ev.CompactionStarted(reason))
        response = await conversation.client.complete(
            system=self.head.system, messages=request.messages, tools=self.head.tools, compact=True,
            max_tokens=request.max_tokens, frontier=engine.sent_frontier if frontier is None else frontier)
        raw = "".join(b.get("text", "") for b in response.content if b.get("type") == "text")
        return engine.apply_summary(request, raw, reason)

    async def _on_server(self, reason: str, instructions: str | None, frontier: int | None,
                         emit: Emit) -> CompactionResult | None:
        """The API's on-demand compaction of the turns before the engine's cut: the conversation's own head,
        the returned block put first (https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand)."""
        engine, compact = self.conversation.engine, self.on_server()
        cut = engine.compaction_cut(reason == "manual")
        if cut is None or compact is None:
            return None
        await emit(ev.CompactionStarted(reason))
        # the breakpoint on the frontier the cache holds (on bound thinking: the last cut, compaction_timing.py)
        # lets the call read the prefix before the cut instead of writing it again
        held = engine.sent_frontier if frontier is None else frontier
        response = await compact(system=self.head.system, messages=list(engine.history.messages[:cut]),
                                 tools=self.head.tools, instructions=engine.compaction_instructions(cut, instructions),
                                 frontier=held if held is not None and held < cut - 1 else None)
        return engine.apply_server_compaction(response.content[0], reason, upto=cut)

    async def run(self, emit: Emit, reason: str, instructions: str | None = None,
                  frontier: int | None = None) -> CompactionResult | None:
        """``frontier``: where the cache holds the conversation (default: the last request's frontier)."""
        conversation, engine = self.conversation, self.conversation.engine
        try:
            if self.on_server():
                result = await self._on_server(reason, instructions, frontier, emit)
            else:
                result = await self._summarised(reason, instructions, frontier, emit)
            if result is None:
                return None
            if not result.compacted:  # the API could not compact (a block without content): nothing changed
                engine.summary_failed()
                await emit(ev.ErrorEvent(f"compaction failed: {result.note}"))
                return None
        except ModelError as error:
            engine.summary_failed()
            await emit(ev.ErrorEvent(f"compaction failed: {error}"))
            return None
        except NothingToGain as error:
            before = engine.estimate()
            note = f"Nothing to gain: {error}."
            self.recording.note("info", f"Nothing compacted: {error} ({before:,} tokens, unchanged).")
            await emit(ev.CompactionFinished(before, before, "", reason, False))
            return CompactionResult(before, before, "", reason, compacted=False, note=note)
        except SummaryError as error:
            await emit(ev.ErrorEvent(f"compaction failed: {error}"))
            return None
        self.head.compacted()  # the next request fixes a new head: changes held until now apply there
        messages = engine.history.messages
        self.recording.save(lambda session: session.compaction(messages, result.summary, result.tokens_before,
                                                               result.tokens_after))
        # the divider of the transcript of record: the conversation the user saw stays as it was
        self.recording.remember(compaction_record(conversation.turn_id, CompactionMark(
            result.tokens_before, result.tokens_after, reason, result.message)))
        conversation.save_view()
        await self.recording.report_problems(emit)
        await emit(ev.CompactionFinished(result.tokens_before, result.tokens_after, result.message, reason, True))
        await emit(ev.ContextUsage(self.head.meter()))
        return result

    async def manual(self, instructions: str | None = None, on_event: ev.EventSink | None = None) -> CompactionResult:
        """Manual compaction (/compact); the conversation must not be mid-turn."""
        with self.claim.exclusive("compaction"):
            emit = self.recording.sink(on_event)
            engine = self.conversation.engine
            before = engine.estimate()
            if not self.possible(instructions, manual=True):
                note = "Nothing to compact yet." if len(engine.history.messages) < 2 else \
                    "Nothing to gain: the conversation is already as short as a summary would be."
                self.recording.note("info", note)
                return CompactionResult(before, before, "", "manual", compacted=False, note=note)
            result = await self.run(emit, "manual", instructions)
            if result is None:
                raise AgentError("compaction failed; the conversation is unchanged")
            return result
