"""A session's conversation, as the last request before a restart (or a resume, or a rewind) left it.

From the session's working view when there is a usable one (only the records after it
are read), else by replaying every record; then the costs, the transcript of record,
the task list, the instruction folders and the head its requests sent (turn/fixed_head.py).
Checkpoints open with the session.
"""

from __future__ import annotations

import logging
from typing import Any

from ...context.engine_state import StateError, restore as restore_engine
from ...context.oversize import USER_SHARE
from ...context.usage import Usage
from ..subagents.costs import SUBAGENT
from ..cache_report import chain_of
from ..checkpoints import Checkpoints, folder_for
from ..instructions import Instructions
from ..plan_mode import mode_of_state
from ..read_ledger import STATE_KEY as READS_KEY
from ..saved_view import continue_history
from ..store import Session
from ..todos import TodoList, todos_from_state
from ..todos import render as render_todos
from ..transcript import entries_of
from ..workspace import Workspace
from .conversation import Conversation
from .head import PromptHead

log = logging.getLogger(__name__)


class Restorer:
    def __init__(self, conversation: Conversation, head: PromptHead, workspace: Workspace,
                 instructions: Instructions) -> None:
        self.conversation = conversation
        self.head = head
        self.workspace = workspace
        self.instructions = instructions

    def restore(self, session: Session) -> None:
        conversation = self.conversation
        restored = session.restore(use_view=True)
        if restored.view is not None:
            try:
                restore_engine(conversation.engine, restored.view.rows, restored.view.state)
                conversation.view.loaded(session, list(conversation.engine.history.messages))
                continue_history(conversation.engine, restored.messages)
            except (StateError, ValueError) as error:
                log.info("the working view of session %s cannot be used (%s); replaying its records", session.id,
                         error)
                conversation.engine = self.head.new_engine()
                restored = session.restore()
        if restored.view is None:
            self._replay(session, restored.messages)
        engine = conversation.engine
        for (model, numbers, usd), facts in zip(restored.usage, restored.facts, strict=True):
            if conversation.subagents.restore(model, Usage(**numbers), usd, facts.get(SUBAGENT)):
                continue  # a subagent's: named in /cost, and not a request of this conversation's cache
            conversation.client.costs.add(model, Usage(**numbers), usd)
            conversation.cache.add(model, Usage(**numbers), facts)
        # the conversation goes on as it was: drop_block if it needed it, diagnostics against its last reply
        drop_block, last_id = chain_of(restored.facts)
        conversation.client.begin_conversation(drop_mismatched_thinking=drop_block, previous_message_id=last_id)
        # the transcript of record is read whole (a view holds only what the next request needs)
        _, conversation.record = entries_of(restored.rows if restored.view is None else session.transcript_rows())
        conversation.task_list = TodoList(todos_from_state(restored.state.get("todos")))
        conversation.mode = mode_of_state(restored.state)  # plan mode survives a restart
        conversation.reads.load(restored.state.get(READS_KEY))  # so does what the model read (read_ledger.py)
        conversation.todos_seen = conversation.task_list.version
        engine.pinned = render_todos(conversation.task_list.items)
        folders = restored.state.get("instruction_folders")
        self.instructions.restore(folders if isinstance(folders, list) else [])
        self.head.restored(restored.state)  # the conversation's head, where the model needs it unchanged
        engine.fit_user_texts(USER_SHARE)  # a session saved with an oversized message must not stay stuck
        # the restored history is what the last request before the reload carried
        conversation.sent.sent(list(engine.history.messages), engine, None)
        if restored.view is None:
            conversation.save_view()  # the next start reads the view, not every record

    def _replay(self, session: Session, messages: list[dict[str, Any]]) -> None:
        self.conversation.view.forget()
        try:
            for message in messages:
                self.conversation.engine.append(message)
        except ValueError as error:  # the store hands a valid history; should that ever fail, start empty
            self.conversation.engine = self.head.new_engine()
            session.problems.append(f"This conversation could not be restored ({error}); it starts empty.")

    def open_checkpoints(self, session: Session | None) -> None:
        """Checkpoints need a saved session (an unsaved one has nowhere to keep file contents)."""
        if session is None or (folder := folder_for(session)) is None:
            self.conversation.checkpoints = None
            return
        checkpoints = self.conversation.checkpoints = Checkpoints(self.workspace, session, folder)
        try:
            done = checkpoints.recover()
        except OSError as error:
            done = f"a rewind interrupted earlier could not be finished ({error})"
        if done:
            session.problems.append(f"Checkpoints: {done}.")
