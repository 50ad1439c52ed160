"""The session's working view, kept in step with the context engine (issue 22).

After every model call, compaction and turn, the engine's history as the
last request carried it and the policy's state are stored beside the records
(store/views.py; the rows of context/engine_state.py). A start then loads
the view and appends only the messages recorded after it, instead of
replaying every record, and sends the next request exactly as the engine
before the restart would have: the same rewrites, the same stable frontier,
the same breakpoints, so the prompt cache is read, and the meter shows the
same figure. Only rows whose message changed are written (messages are
copy-on-write in the History, so identity tells).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from ..context.blocks import Message, blocks_of
from ..context.engine_state import engine_state, message_row
from .store import INTERRUPTED, StoreError

if TYPE_CHECKING:
    from ..context.pipeline import ContextEngine
    from .store import Session

log = logging.getLogger(__name__)


class SavedView:
    """What the session's stored view holds, so a save writes only what changed since."""

    def __init__(self) -> None:
        self._session_id: str | None = None
        self._saved: list[Message] = []  # the messages the stored rows hold, by identity

    def forget(self) -> None:
        """The next save writes the whole view (another session, or the stored one is unknown)."""
        self._session_id, self._saved = None, []

    def loaded(self, session: Session, messages: list[Message]) -> None:
        """The stored rows hold these messages (restored from them)."""
        self._session_id, self._saved = session.id, list(messages)

    def save(self, session: Session, engine: ContextEngine) -> None:
        """Store the engine's view after every record written so far; a failure only costs the next
        start a replay of the records (which stay the conversation of record)."""
        try:
            session.flush()  # the session may move to a copy here (a lost lease): then all rows are new
            full = session.id != self._session_id
            saved = [] if full else self._saved
            messages = engine.history.messages
            rows = {i: json.dumps(message_row(engine, i), ensure_ascii=False)
                    for i, message in enumerate(messages) if i >= len(saved) or saved[i] is not message}
            session.save_view(rows, len(messages), json.dumps(engine_state(engine), ensure_ascii=False), full=full)
        except StoreError as error:
            log.info("the working view was not saved (%s); the next start replays the records", error)
            self.forget()
            return
        self._session_id, self._saved = session.id, list(messages)


def continue_history(engine: ContextEngine, messages: list[Message]) -> None:
    """Append the messages recorded after the view, as the turn loop appended them.

    What a turn leaves after it is cut short is mended as the full replay would
    (records.repaired): a prompt after an unanswered one joins it, tool calls
    left without results are answered "interrupted". Anything else that does
    not continue the view raises ValueError: the caller replays the records.
    """
    history = engine.history
    for message in messages:
        uses = [b.get("id") for b in blocks_of(message) if b.get("type") == "tool_use"]
        if any(tool_use_id in history.records for tool_use_id in uses):
            raise ValueError("a tool call of the view is recorded again after it")
        if message["role"] == "user" and history.last_role == "user":
            blocks = blocks_of(message)
            if any(b.get("type") == "tool_result" for b in blocks):
                raise ValueError("tool results after a user message")
            engine.add_user_blocks(blocks)  # a prompt after a call that got no answer joins it
            continue
        open_uses = history.open_tool_uses()
        if message["role"] == "assistant" and open_uses:
            engine.append(_interrupted(open_uses))  # the results were lost with the process
        engine.append(message)
    open_uses = history.open_tool_uses()
    if open_uses:
        engine.append(_interrupted(open_uses))


def _interrupted(ids: list[str]) -> Message:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": INTERRUPTED,
                                         "is_error": True} for i in ids]}
