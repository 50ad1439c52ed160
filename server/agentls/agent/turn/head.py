"""The head of every request: the system prompt (with the instruction files), the tool list, the rules.

The head is the start of the cached prefix. On a model that binds thinking to its prefix or takes
mid-conversation system messages (model_facts.py) the first request of a conversation fixes it
(fixed_head.py, saved with the session) and later changes are appended instead: an instruction file
as a `role: "system"` message (or, where the model takes none, a text block of the next user
message), an MCP tool as `tool_addition` / `tool_removal` where the model takes those, else held until
the next compaction, which fixes a new head. Elsewhere a change is one deliberate cache break, as
before: the tool list changes only at a turn start (MCP servers start lazily), the instruction files
are re-checked before every request. Each change is announced once, with the request that carries
it. The engine counts the head's size in every request, and knows the model's facts (model_facts.py).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ...context import ContextConfig, ContextEngine
from ...context.report import ContextReport
from ...context.tokens import estimate_tokens
from .. import events as ev
from ..approval import ApprovalPolicy
from ..permissions import ADDED
from ..instructions import Instructions
from ..mcp.manager import McpManager
from ..mcp.tool_search import BUILTIN, ToolSearch
from ..plan_mode import last_told, told_text
from ..instructions import changes_text
from ..prompt import system_prompt
from ..store import StoreError
from ..subagents.tool import definition as task_definition
from ..tools import TOOLS, tool_definitions
from ..tools.editor import EditorQueries
from ..workspace import Workspace
from .conversation import Conversation
from .fixed_head import FixedHead, permissions_text, tool_change_blocks, tool_changes
from .model_facts import HeadRules, head_rules, with_model_facts
from ...model.tool_search import takes_tool_search
from .recording import Emit

APPENDED, HELD = "appended", "held"  # how a change reached the model (events' `delivery`; "head": a new head)


class PromptHead:
    def __init__(self, conversation: Conversation, workspace: Workspace, instructions: Instructions,
                 mcp: McpManager, editor: EditorQueries | None, policy: ApprovalPolicy | None, *,
                 offers_task: bool = False) -> None:
        self.conversation = conversation
        self.offers_task = offers_task  # the `task` tool (agent/subagents) after the built-ins
        self.workspace = workspace
        self.instructions = instructions
        self.mcp = mcp
        self.editor = editor
        self.policy = policy
        self.search = ToolSearch()  # many MCP tools: their schemas deferred (mcp/tool_search.py)
        self._mcp_tools: list[dict[str, Any]] = []  # the MCP tools' definitions as the last turn start listed them
        self.live_tools = self._builtin_tools()  # the tools as they are now (the head's unless it is fixed)
        self.fixed: FixedHead | None = None  # the conversation's head, on a model that needs it unchanged
        self.tool_list_changes = 0  # requests whose tool list differed from the previous one (cache breaks)
        self._sent_tools: list[dict[str, Any]] | None = None  # the tools as the last request told the model
        self.instruction_changes = 0  # requests whose instruction files differed from the previous one
        self._sent_instructions: dict[str, str] | None = None  # file name → text, as the last request had them
        self._pending: list[ev.AgentEvent] = []  # appended or held changes, announced with the next request
        self._held: list[dict[str, Any]] | None = None  # the tool list last announced as held

    @property
    def live_system(self) -> str:
        section = self.instructions.section
        return system_prompt(self.workspace.roots) + (f"\n\n{section}" if section else "")

    @property
    def system(self) -> str:
        return self.fixed.system if self.fixed is not None else self.live_system

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.fixed.tools if self.fixed is not None else self.live_tools

    @property
    def rules(self) -> HeadRules:
        return head_rules(self.conversation.client.settings)

    def _builtin_tools(self) -> list[dict[str, Any]]:
        """The built-in tools (`task` among them), then the editor's: MCP tools come after them (a stable order)."""
        tools = tool_definitions(self.editor.kinds if self.editor is not None else ())
        if not self.offers_task:
            return tools
        core = len(TOOLS)  # `task` after the core tools, the editor's still last
        return [*tools[:core], task_definition(), *tools[core:]]

    def _composed(self) -> list[dict[str, Any]]:
        """The built-in tools, then the MCP tools: offered, deferred to Anthropic's tool search tool, or deferred
        to search_tools with the schemas it loaded (mcp/tool_search.py)."""
        settings = self.conversation.client.settings
        rules = self.rules
        return self.search.tools(
            self._builtin_tools(), self._mcp_tools, window=self.conversation.engine.config.window,
            native=settings.tool_search == "auto" and takes_tool_search(settings.model),
            can_load=settings.tool_search != "off" and (not rules.fixed or rules.tool_changes))

    def _tokens(self) -> tuple[int, int]:
        """(the whole head, its tools) in estimated tokens; a deferred tool's schema is not in the prompt."""
        offered = [t for t in self.tools if not t.get("defer_loading")]
        tools = estimate_tokens(len(json.dumps(offered))) if offered else 0
        return estimate_tokens(len(self.system)) + tools, tools

    def _config(self) -> ContextConfig:
        total, _ = self._tokens()
        return with_model_facts(self.conversation.config, self.conversation.client.settings).updated(
            system_tokens=total)

    def new_engine(self) -> ContextEngine:
        config = self._config()
        session = self.conversation.session
        return ContextEngine(config=config) if session is None else ContextEngine(config=config, store=session.store)

    def resized(self) -> None:
        """The system prompt, the tool list, the settings or the model changed: the engine counts the head in
        every request and knows the model's facts."""
        config = self._config()
        if config != self.conversation.engine.config:
            self.conversation.engine.reconfigure(config)

    def meter(self) -> ContextReport:
        """The meter's figures (status bar, chat header, prompt)."""
        _, tools = self._tokens()
        return self.conversation.engine.report(tools_tokens=tools, instructions_tokens=self.instructions.tokens())

    def new_conversation(self) -> None:
        """A new conversation: its first request writes the cache anyway, whatever the instructions were."""
        self.instructions.forget_folders()  # re-read (with the resumed session's folders) before the next request
        self._sent_instructions = None
        self.fixed, self._held = None, None

    def restored(self, state: dict[str, Any]) -> None:
        """A session resumed (a restart, a resume, a fork, a rewind): the head it saved, if it has one, is sent
        again as it was, and what was told since is the baseline of the next change."""
        self.fixed, self._held = FixedHead.from_state(state), None
        if self.fixed is not None:
            self.search.restore(self.fixed.told_tools)  # what search_tools loaded stays loaded
            self._sent_tools, self._sent_instructions = self.fixed.told_tools, dict(self.fixed.instructions)

    def compacted(self) -> None:
        """A compaction replaced the history: the next request fixes a new head (held changes apply there)."""
        self.fixed, self._held = None, None

    # -- refreshed: the tools and rules at a turn start, the instructions before every request ----------

    async def refresh_tools(self) -> None:
        """At a turn start only: MCP servers start lazily and tool lists change between turns, never mid-turn."""
        await self.mcp.refresh()
        self._mcp_tools = self.mcp.definitions()
        tools = self._composed()
        if tools != self.live_tools:
            self.live_tools = tools
            if self.fixed is not None:
                return  # told by append_changes before the next request, or held
            self.resized()
            if self._sent_tools is not None:
                self.conversation.engine.prompt_head_changed()  # the tools head the prompt

    async def refresh_rules(self, emit: Emit) -> None:
        """At a turn start: the workspace's .agents/settings.json, re-read when it changed."""
        if self.policy is None:
            return
        for problem in await asyncio.to_thread(self.policy.rules.load_workspace, list(self.workspace.roots)):
            await emit(ev.ErrorEvent(f"permission rules: {problem}"))
        await self.policy.review_rules()  # a file's allow rules: only once the user accepted this content

    async def refresh_instructions(self) -> None:
        """Before every request: instruction files re-checked (size, time); a change is a new system prompt,
        or, with a fixed head, appended to the conversation (append_changes)."""
        loaded = self._load_searched()
        changed = await asyncio.to_thread(self.instructions.refresh, list(self.workspace.roots))
        if self.fixed is not None and not self.rules.fixed:
            # another model, which needs no fixed head: the head is built as it is now, one cache break
            self.fixed, changed = None, changed or self.live_system != self.system or self.live_tools != self.tools
        self.resized()  # on a change of size, or of model (its facts)
        if self.fixed is not None:
            self.append_changes()
        elif (changed and self._sent_instructions is not None) or (loaded and self._sent_tools is not None):
            self.conversation.engine.prompt_head_changed()  # the system prompt and tools head the cached prefix
        self.tell_mode()

    def _load_searched(self) -> bool:
        """Before every request: schemas search_tools loaded since the last one join the live tools (mid-turn:
        the model asked for them), told like any MCP tool change (append_changes, or the next `tools`)."""
        if self.search.mode != BUILTIN:
            return False
        tools = self._composed()
        if tools == self.live_tools:
            return False
        self.live_tools = tools
        return True

    def tell_mode(self) -> None:
        """Plan mode turned on or off since the model was last told (as the history says): told by an appended
        message, with a fixed head or not (the system prompt is never rewritten for it; agent/plan_mode.py)."""
        mode = self.conversation.mode
        if last_told(self.conversation.engine.history.messages) != mode:
            self._tell(told_text(mode))

    def append_changes(self) -> None:
        """With a fixed head: what changed since the model was last told, appended before the next request."""
        fixed, rules, engine = self.fixed, self.rules, self.conversation.engine
        assert fixed is not None
        files = {item.shown: item.text for item in self.instructions.files}
        permissions = self._permissions()
        if permissions != fixed.permissions:
            self._tell(permissions)
            fixed.permissions = permissions
            self._save(fixed.told_state())
        if files != fixed.instructions:
            text = changes_text(fixed.instructions, self.instructions.files)
            if text:
                self._tell(text)
            before, fixed.instructions = fixed.instructions, files
            self._sent_instructions = dict(files)
            self._pending.append(ev.InstructionsChanged(
                self.instruction_changes, sorted(files.keys() - before.keys()), sorted(before.keys() - files.keys()),
                sorted(k for k in files.keys() & before.keys() if files[k] != before[k]), delivery=APPENDED))
            self._save(fixed.told_state())
        if self.live_tools == fixed.told_tools:
            return
        added, removed = tool_changes(fixed.told_tools, self.live_tools)
        if rules.tool_changes:
            engine.add_system_message(tool_change_blocks(fixed.told_tools, self.live_tools))
            fixed.told_tools = self._sent_tools = self.live_tools
            self._pending.append(ev.ToolsChanged(self.tool_list_changes, added, removed, delivery=APPENDED))
            self._save(fixed.told_state())
        elif self.live_tools != self._held:
            self._held = self.live_tools  # announced once; the next compaction's head carries it
            self._pending.append(ev.ToolsChanged(self.tool_list_changes, added, removed, delivery=HELD))

    def _permissions(self) -> str:
        """The approval modes and the rules of the settings files, as the model is told them ("" without a
        policy); rules "Always" added this session are the user's answers, not settings, and are left out."""
        if self.policy is None:
            return ""
        rules: list[tuple[str, str, str]] = [(r.decision, r.text, r.source) for r in self.policy.rules.rules()
                                             if r.source != ADDED]
        return permissions_text(dict(self.policy.modes), rules)

    def _tell(self, text: str) -> None:
        """Text the model is told mid-conversation: a system message where it takes one, else a text block of
        the user message no request has carried yet (binding-safe too: appended)."""
        block = {"type": "text", "text": text}
        if self.rules.system_messages:
            self.conversation.engine.add_system_message([block])
        else:
            self.conversation.engine.add_user_blocks([block])

    def _save(self, state: dict[str, Any]) -> None:
        session = self.conversation.session
        if session is None:
            return
        try:
            session.state(state)
        except StoreError:
            pass  # the record stays queued and goes with the session's next write (store/session.py flush)

    # -- announced: once, with the request that carries the change ----------------------------------------

    async def announce(self, emit: Emit) -> None:
        """A request about to be sent: its head fixed where the model needs that, then what changed since the
        previous request: appended or held changes, a tool list or instruction files of a new head."""
        if self.fixed is None and self.rules.fixed:
            files = {item.shown: item.text for item in self.instructions.files}
            self.fixed = FixedHead(self.live_system, self.live_tools, files, self.live_tools, self._permissions())
            self._held = None
            self._save({**self.fixed.head_state(), **self.fixed.told_state()})
            self.resized()
        pending, self._pending = self._pending, []
        for event in pending:
            await emit(event)
        tools = self.fixed.told_tools if self.fixed is not None else self.tools
        if self._sent_tools is not None and self._sent_tools != tools:
            self.tool_list_changes += 1  # one deliberate cache break: the tools head the prompt
            added, removed = tool_changes(self._sent_tools, tools)
            await emit(ev.ToolsChanged(self.tool_list_changes, added, removed))
        self._sent_tools = tools
        now = self.fixed.instructions if self.fixed is not None else \
            {item.shown: item.text for item in self.instructions.files}
        before, self._sent_instructions = self._sent_instructions, dict(now)
        if before is None or before == now:
            return
        self.instruction_changes += 1
        await emit(ev.InstructionsChanged(self.instruction_changes, sorted(now.keys() - before.keys()),
                                          sorted(before.keys() - now.keys()),
                                          sorted(k for k in now.keys() & before.keys() if now[k] != before[k])))
