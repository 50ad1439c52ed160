"""Compaction: the conversation replaced by the model's summary of it, automatic or asked (/compact).

The summary is stored with the session and a divider joins the transcript of record
(the conversation the user saw stays as it was). A failed summary changes nothing.
"""

from __future__ import annotations

from ...context.compact import SummaryError
from ...context.pipeline import CompactionResult, NothingToGain
from ...model import ModelError
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

    async def run(self, emit: Emit, reason: str, instructions: str | None = None,
                  frontier: int | None = None) -> CompactionResult | None:
        """``frontier``: where the cache holds the conversation (default: the last request's frontier)."""
        conversation, engine = self.conversation, self.conversation.engine
        request = engine.summary_request(instructions, manual=reason == "manual")
        if request is None:
            return None
        await emit(ev.CompactionStarted(reason))
        try:
            response = await conversation.client.complete(
                system=self.head.system, messages=request.messages, tools=self.head.tools, compact=True,
                max_tokens=request.max_tokens, frontier=engine.sent_frontier if frontier is None else frontier)
            raw = "".join(b.get("text", "") for b in response.content if b.get("type") == "text")
            result = engine.apply_summary(request, raw, reason)
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
            if engine.summary_request(instructions, manual=True) is None:
                note = "Nothing to compact yet." if len(engine.history.messages) < 2 else \
                    "Nothing to gain: the conversation is already as short as a summary would be."
                self.recording.note("info", note)
                return CompactionResult(before, before, "", "manual", compacted=False, note=note)
            result = await self.run(emit, "manual", instructions)
            if result is None:
                raise AgentError("compaction failed; the conversation is unchanged")
            return result
