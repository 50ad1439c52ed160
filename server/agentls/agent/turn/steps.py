"""The turn: the user's message → prepare the request → call the model → run its tools → repeat.

Cancelling at any point leaves a valid history: a tool call cut short gets a tool_result
saying so (tool_calls.py), a model call cut short leaves its partial reply and a marker
saying it was interrupted (recording.interrupted): the next prompt is its own message.
The turn's checkpoint is finished either way.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from ...context.attachments import Attachment, attachment_block
from ...context.images import ImageAttachment, ImageError, image_block
from ...context.oversize import USER_SHARE
from ...context.pipeline import Prepared
from ...context.rewrite import FOLD, MARKER
from ...context.usage import Usage
from ...model import ModelError
from ...model import events as model_events
from ...model.errors import is_too_long
from ...model.response import ModelResponse
from .. import events as ev
from ..cache_report import facts_of
from ..read_ledger import STATE_KEY as READS_KEY
from ..checkpoints import TurnRecorder
from ..errors import AgentError, AgentInputError
from ..store import StoreError
from ..thinking_notice import dropped_text, retry_text
from ..transcript import attachment_name, user_record
from .compaction import Compaction
from .conversation import Conversation
from .head import PromptHead
from .recording import Emit, Recording
from .tool_calls import ToolCalls

# After the API refused a request as too long, user texts are cut to this share of the window.
REPAIR_SHARE = 0.1
STOPPED = "Stopped."


@dataclass
class TurnResult:
    turn_id: str
    text: str
    stop_reason: str
    usage: Usage


def user_blocks(prompt: str, attachments: list[Attachment | ImageAttachment]) -> list[dict[str, Any]]:
    """Images first (the vision guide: images before text work best), then texts, then the prompt."""
    images = [image_block(item) for item in attachments if isinstance(item, ImageAttachment)]
    texts = [attachment_block(item) for item in attachments if isinstance(item, Attachment)]
    typed = [{"type": "text", "text": prompt}] if prompt or not (images or texts) else []
    return [*images, *texts, *typed]


class TurnSteps:
    def __init__(self, conversation: Conversation, head: PromptHead, recording: Recording, tool_calls: ToolCalls,
                 compaction: Compaction, clock: Callable[[], float]) -> None:
        self.conversation = conversation
        self.head = head
        self.recording = recording
        self.tool_calls = tool_calls
        self.compaction = compaction
        self.clock = clock

    def check_images(self, images: list[ImageAttachment]) -> None:
        """AgentInputError when these images, sent as one message, could not fit a request."""
        try:
            self.conversation.engine.check_images([image_block(item) for item in images])
        except ImageError as error:
            raise AgentInputError(str(error)) from None

    async def run(self, turn_id: str, prompt: str, attachments: list[Attachment | ImageAttachment],
                  on_event: ev.EventSink | None) -> TurnResult:
        self.check_images([item for item in attachments if isinstance(item, ImageAttachment)])
        emit = self.recording.sink(on_event)
        conversation = self.conversation
        conversation.turn_id = turn_id
        try:
            await self.head.refresh_tools()
            await self.head.refresh_rules(emit)
            checkpoints = conversation.checkpoints
            recorder = checkpoints.begin(turn_id, prompt) if checkpoints is not None else None
            try:
                return await self._steps(turn_id, prompt, attachments, emit, recorder)
            except asyncio.CancelledError:
                self.recording.note("info", STOPPED)
                raise
            finally:
                conversation.save_view()  # the turn's last messages: a restart appends nothing after the view
                if recorder is not None:
                    await self._finish_checkpoint(recorder, emit)
        finally:
            conversation.turn_id = ""

    async def _steps(self, turn_id: str, prompt: str, attachments: list[Attachment | ImageAttachment], emit: Emit,
                     recorder: TurnRecorder | None) -> TurnResult:
        engine, recording = self.conversation.engine, self.recording
        new_blocks = user_blocks(prompt, attachments)
        note = await self.conversation.reads.changed_note(self.tool_calls.workspace)
        if note:  # before the prompt: a message's last text is its prompt (its title, the demo's request)
            new_blocks.insert(len(new_blocks) - 1, {"type": "text", "text": note})
        try:
            blocks = engine.add_user_turn(new_blocks)
        except ImageError as error:  # checked before the turn began; the tool list may have grown since
            raise AgentInputError(str(error)) from None
        # the prompt's transcript record first: a session's records start with one (transcript.entries_of)
        images = [a for a in attachments if isinstance(a, ImageAttachment)]
        self.conversation.record.know_images(images)
        recording.remember(user_record(turn_id, prompt, [attachment_name(a.where, a.lines) for a in attachments
                                                         if isinstance(a, Attachment)], images))
        recording.log({"role": "user", "content": blocks})  # the loader joins it to an unanswered user message
        if (reads := self.conversation.reads.unsaved_state()) is not None:  # the files named are forgotten
            recording.save(lambda session: session.state({READS_KEY: reads}))
        texts: list[str] = []
        total = Usage()
        stop_reason = "end_turn"
        while True:
            await self.head.refresh_instructions()
            prepared = await self._prepare(emit)
            # Text of successive replies is joined by a blank line, in the stream as in the result.
            response = await self._call_model(prepared, emit, lead="\n\n" if texts else "")
            total = total + response.usage
            content = [b for b in response.content if b.get("type") != "text" or b.get("text")]
            if not content:
                content = [{"type": "text", "text": "(no reply)"}]
            content = self._unique_tool_ids(content)
            assistant = {"role": "assistant", "content": content}
            self.conversation.engine.append(assistant)
            recording.log(assistant)
            recording.reply_shown(content)
            await emit(ev.ContextUsage(self.head.meter()))  # the reply is part of the next request
            texts.extend(b["text"] for b in content if b.get("type") == "text")
            stop_reason = response.stop_reason or "end_turn"
            uses = [b for b in content if b.get("type") == "tool_use"]
            if not uses:
                if stop_reason == "pause_turn":
                    recording.add_user([{"type": "text", "text": "Continue."}])
                    continue
                break
            await self.tool_calls.run(uses, emit, cut_off=stop_reason == "max_tokens", recorder=recorder)
        await recording.report_problems(emit)
        await emit(ev.UsageEvent(total))
        return TurnResult(turn_id, "\n\n".join(texts), stop_reason, total)

    def _unique_tool_ids(self, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Tool call ids are unique in a session (cards, refs and results are found by them): a model
        that repeats one (the demo model across compactions, a proxy) gets it renamed here."""
        conversation = self.conversation
        used = conversation.engine.history.records.keys() | conversation.record.tool_ids() | \
            conversation.sent.calls.keys()
        unique = []
        for block in content:
            if block.get("type") == "tool_use":
                if block.get("id") in used:
                    block = {**block, "id": f"{block.get('id')}_{uuid.uuid4().hex[:8]}"}
                used = used | {block["id"]}
            unique.append(block)
        return unique

    async def _finish_checkpoint(self, recorder: TurnRecorder, emit: Emit) -> None:
        try:
            checkpoint = await recorder.finish()
        except (OSError, StoreError) as error:
            await emit(ev.ErrorEvent(f"the checkpoint of this turn could not be saved ({error}); "
                                     "its changes cannot be rewound"))
            return
        if checkpoint.changed:
            await emit(ev.CheckpointTaken(checkpoint.id, checkpoint.changed_files(), tuple(checkpoint.skipped)))

    # -- one request -------------------------------------------------------------

    async def _prepare(self, emit: Emit) -> Prepared:
        engine, sent = self.conversation.engine, self.conversation.sent
        await self.recording.report_problems(emit)
        prepared = engine.prepare(self.clock())
        sent.prepared(prepared.batch)
        if prepared.compaction_due:
            await self.compaction.run(emit, reason="auto", frontier=prepared.cached_frontier)
            prepared = engine.prepare(self.clock(), allow_compaction=False)
            sent.prepared(prepared.batch)
        # Still over the window after the pipeline: user texts are what is left to cut. (An estimate
        # only a little over is sent as is: if the API refuses it, _call_model repairs and retries once.)
        if prepared.estimate > engine.config.effective_window and engine.fit_user_texts(USER_SHARE):
            prepared = engine.prepare(self.clock(), allow_compaction=False)
            sent.prepared(prepared.batch)
        return prepared

    async def _call_model(self, prepared: Prepared, emit: Emit, lead: str = "", *,
                          may_repair: bool = True) -> ModelResponse:
        conversation, engine = self.conversation, self.conversation.engine
        pending_lead = [lead]
        retried: list[str] = []  # the blocks a prefix-mismatch 400 named (the request went again with drop_block)

        async def forward(event: model_events.ModelEvent) -> None:
            if isinstance(event, model_events.TextDelta):
                await emit(ev.TextDelta(pending_lead.pop() + event.text if pending_lead else event.text))
            elif isinstance(event, model_events.ThinkingDelta):
                await emit(ev.ThinkingDelta(event.text))
            elif isinstance(event, model_events.Retrying):
                await emit(ev.RetryEvent(event.attempt, event.delay_seconds, event.reason, event.discard_partial))
            elif isinstance(event, model_events.BindingRetry):
                text, ids = retry_text(event.path, event.detail, prepared.messages)
                retried.append(event.path)
                await emit(ev.ThinkingDropped(text, event.path, ids, retried=True))

        raw_estimate = engine.raw_estimate
        await self.head.announce(emit)
        client = conversation.client  # read after the announcements: a reconfigure may have replaced it
        ttl = client.cache_ttl  # what this request gives its head and frontier breakpoints
        try:
            response = await client.stream(system=self.head.system, messages=prepared.messages,
                                           tools=self.head.tools, on_event=forward, frontier=prepared.frontier,
                                           previous_frontier=prepared.previous_frontier,
                                           context_management=prepared.context_management)
        except asyncio.CancelledError:
            self.recording.interrupted(self.recording.partial_shown(), "the user stopped this turn")
            raise
        except ModelError as error:
            partial = self.recording.partial_shown()
            # Refused for its size: cut the user texts further and try exactly once more.
            if may_repair and is_too_long(error.status, error.message) and engine.fit_user_texts(REPAIR_SHARE):
                prepared = engine.prepare(self.clock(), allow_compaction=False)
                conversation.sent.prepared(prepared.batch)
                return await self._call_model(prepared, emit, lead, may_repair=False)
            self.recording.interrupted(partial, "the request to the model failed")
            await emit(ev.ErrorEvent(str(error)))
            raise AgentError(str(error)) from error
        engine.record_usage(response.usage, self.clock(), estimate_at_call=raw_estimate, cache_ttl=ttl)
        engine.record_applied_edits(response.applied_edits)  # () too: the ids describe the last request only
        await self._announce_sent(prepared, emit)
        client = conversation.client  # the one answering now (its costs go on across a reconfigure)
        model = response.model or client.settings.model
        usd = client.costs.price(model, response.usage)
        await self._record_cache(prepared, response, model, usd, emit, retried=bool(retried))
        conversation.save_view()  # this request's rewrites and the policy's state: what the next one continues
        await emit(ev.UsageEvent(response.usage))
        return response

    async def _record_cache(self, prepared: Prepared, response: ModelResponse, model: str, usd: float | None,
                            emit: Emit, *, retried: bool) -> None:
        """The request's usage and what the API said of it (cache diagnosis, input_transformations, server
        edits): into the session's usage record and the ledger /cost and /context read; dropped thinking the
        user was not already told of (the 400's retry says so) is announced."""
        changed_at = self.conversation.cache.changed_at(prepared.messages)
        client = self.conversation.client
        facts = facts_of(response.cache_miss, response.input_transformations, response.applied_edits, changed_at,
                         message_id=response.id, drop_block=client.drop_mismatched_thinking)
        self.conversation.cache.add(model, response.usage, facts)
        self.recording.save(lambda session: session.usage(model, asdict(response.usage), usd, facts))
        text, path, ids, blocks = dropped_text(response.input_transformations, prepared.messages)
        if text and not retried:
            await emit(ev.ThinkingDropped(text, path, ids, blocks=blocks))

    async def _announce_sent(self, prepared: Prepared, emit: Emit) -> None:
        """Badges describe the request that was sent: announced once it was answered."""
        engine = self.conversation.engine
        history = engine.history.records
        for batch in self.conversation.sent.sent(prepared.messages, engine, self.clock()):
            by_marker: dict[str, list[str]] = {}
            for item in batch.rewrites:
                if not item.on_input and (item.tool_use_id in history or item.layer == FOLD):
                    by_marker.setdefault(MARKER[item.layer], []).append(item.tool_use_id)
            for marker, ids in by_marker.items():
                await emit(ev.LayerApplied(batch.reason, ids, marker))
