"""The conversation the agent's collaborators share, and a new chat, a resume or a rewind replace.

One object, so that an engine or a transcript replaced by one collaborator is the one every
other reads next (none keeps its own reference to them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cache_report import CacheLedger
from ..read_ledger import ReadLedger
from ..plan_mode import ACT
from ..saved_view import SavedView
from ..sent import SentLog
from ..todos import TodoList
from ..subagents.costs import SubagentLedger
from ..transcript import TranscriptBuilder

if TYPE_CHECKING:
    from ...context import ContextConfig, ContextEngine
    from ...model import ModelClient
    from ..checkpoints import Checkpoints
    from ..store import Session


class Conversation:
    engine: ContextEngine  # set by the prompt head (agent/turn/head.py), which knows the size it counts

    def __init__(self, client: ModelClient, config: ContextConfig, session: Session | None) -> None:
        self.client = client  # the model answering (reconfigure replaces it; its costs are the conversation's)
        self.config = config  # the context settings; the engine's add the prompt head's size
        self.session = session
        self.checkpoints: Checkpoints | None = None
        self.sent = SentLog()
        self.record = TranscriptBuilder()  # the transcript of record: what the user saw (agent/transcript.py)
        self.task_list = TodoList()
        self.todos_seen = 0  # the TodoList version last reported and saved
        self.view = SavedView()  # the session's stored working view (what a restart resumes from)
        self.turn_id = ""  # the turn running now ("" outside one): transcript records name it
        self.cache = CacheLedger()  # each request's cache diagnosis and thinking transformations (/cost, /context)
        self.reads = ReadLedger()  # the files the model saw, as it saw them: changed ones are named to it
        self.mode = ACT  # plan mode or acting (agent/plan_mode.py): saved with the session
        self.subagents = SubagentLedger()  # what each subagent (`task` call) cost: /cost names them

    def start(self, engine: ContextEngine) -> None:
        """An empty conversation on this engine, before a new session's (or a cut one's) is read."""
        self.engine = engine
        self.sent.clear()
        self.record = TranscriptBuilder()
        self.client.costs.reset()
        self.subagents.reset()
        self.cache.reset()
        self.reads.forget()

    def save_view(self) -> None:
        if self.session is not None:
            self.view.save(self.session, self.engine)
