"""What happens in a conversation, written down: the transcript of record and the session's records.

The transcript of record is what the user saw (notes, replies, tool cards); the session
holds it and the history's messages, usage and state. A write that fails does not end
the turn: it stays queued in the session and is reported once.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from .. import events as ev
from ..store import Session, StoreError
from ..transcript import marker_record, note_record, reply_record
from .conversation import Conversation

Emit = Callable[[ev.AgentEvent], Awaitable[None]]


async def _emit(sink: ev.EventSink | None, event: ev.AgentEvent) -> None:
    if sink is None:
        return
    outcome = sink(event)
    if inspect.isawaitable(outcome):
        await outcome


LATER_TOOLS = {"appended": "the model was told in the conversation; the prompt cache is kept.",
               "held": "this model cannot be told mid-conversation; the tools change at the next compaction."}


class Recording:
    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self._streamed: list[str] = []  # text of the reply being streamed, shown but not yet in a reply record
        self._unsaved: str | None = None  # why the last write to the session failed, until reported
        self._unsaved_reported = False

    def sink(self, on_event: ev.EventSink | None) -> Emit:
        """The event sink of a turn or a compaction: what the user is shown as a note is recorded too."""
        async def emit(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.ErrorEvent):
                self.note("error", event.message)
            elif isinstance(event, ev.ToolsChanged) and event.delivery in LATER_TOOLS:  # the head kept (turn/head.py)
                named = " ".join([*(f"+{n}" for n in event.added), *(f"−{n}" for n in event.removed)])
                self.note("info", f"Tools changed ({named or 'definitions'}): {LATER_TOOLS[event.delivery]}")
            elif isinstance(event, ev.ToolsChanged):
                changed = " ".join([*(f"+{n}" for n in event.added), *(f"−{n}" for n in event.removed)])
                self.note("info", f"Tools changed ({changed or 'definitions'}): "
                                  "the prompt cache is written again once.")
            elif isinstance(event, ev.ThinkingDropped):
                self.note("warn", event.text)
            elif isinstance(event, ev.LayerApplied) and event.marker:  # the cards' badges, as they were live
                self.remember(marker_record(self.conversation.turn_id, list(event.tool_use_ids), event.marker))
            elif isinstance(event, ev.TextDelta):
                self._streamed.append(event.text)
            elif isinstance(event, ev.RetryEvent) and event.discard_partial:
                self._streamed.clear()
            await _emit(on_event, event)

        return emit

    # -- the transcript of record ------------------------------------------------

    def remember(self, body: dict[str, Any]) -> None:
        """One transcript record: in the panel's order, saved with the session as it happens."""
        self.conversation.record.add(body)
        self.save(lambda session: session.transcript(body))

    def note(self, level: str, text: str) -> None:
        self.remember(note_record(self.conversation.turn_id, level, text))

    def reply_shown(self, content: list[dict[str, Any]]) -> None:
        """A reply was answered in full: its text and the cards of its tool calls."""
        self._streamed.clear()
        text = "\n\n".join(b["text"] for b in content if b.get("type") == "text" and b.get("text"))
        self.remember(reply_record(self.conversation.turn_id, text,
                                   [b for b in content if b.get("type") == "tool_use"]))

    def partial_shown(self) -> str:
        """A reply cut short (stopped, failed): the text already streamed was seen (returned)."""
        text, self._streamed = "".join(self._streamed).strip(), []
        if text:
            self.remember(reply_record(self.conversation.turn_id, text, []))
        return text

    def interrupted(self, partial: str, why: str) -> None:
        """A model call that ended the turn unanswered (stopped, failed) is written down as such: the
        partial reply, if any, then a marker saying why. The history no longer ends with the prompt, so
        the next prompt is a message of its own (not joined to this one) and the model is told that
        the turn before it was interrupted, instead of answering both prompts as one."""
        marker = f"[interrupted: {why}; this reply is incomplete]" if partial else \
            f"[interrupted: {why} before any reply]"
        text = f"{partial}\n\n{marker}" if partial else marker
        engine = self.conversation.engine
        if engine.history.messages and engine.history.messages[-1].get("role") == "user":
            engine.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
            self.log(engine.history.messages[-1])

    # -- the session's records ---------------------------------------------------

    def add_user(self, blocks: list[dict[str, Any]]) -> list[str]:
        """A user message into the history and the session; the ids of the tool results it cut."""
        engine = self.conversation.engine
        cut = engine.append({"role": "user", "content": blocks})
        self.log(engine.history.messages[-1])
        return cut

    def log(self, message: dict[str, Any]) -> None:
        self.save(lambda session: session.message(message))

    def save(self, write: Callable[[Session], None]) -> None:
        """A failed write does not end the turn: it stays queued in the session, and is reported."""
        session = self.conversation.session
        if session is None:
            return
        try:
            write(session)
        except StoreError as error:
            self._unsaved = str(error)
            return
        self._unsaved, self._unsaved_reported = None, False

    def forget_failure(self) -> None:
        """Another session: the last one's failed write is not this one's."""
        self._unsaved, self._unsaved_reported = None, False

    async def report_problems(self, emit: Emit) -> None:
        session = self.conversation.session
        if session is not None:
            for problem in session.take_problems():
                await emit(ev.ErrorEvent(problem))
        if self._unsaved is not None and not self._unsaved_reported:
            self._unsaved_reported = True
            await emit(ev.ErrorEvent(f"the conversation could not be saved ({self._unsaved}); the agent goes on, "
                                     "and saves what is missing with the next message it can write"))
