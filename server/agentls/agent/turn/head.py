"""The head of every request: the system prompt (with the instruction files), the tool list, the rules.

The head is the start of the cached prefix, so a change to it is one deliberate cache
break: the tool list changes only at a turn start (MCP servers start lazily), the
instruction files are re-checked before every request, and each change is announced
once with the request that carries it. The engine counts the head's size in every request.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ...context import ContextEngine
from ...context.report import ContextReport
from ...context.tokens import estimate_tokens
from .. import events as ev
from ..approval import ApprovalPolicy
from ..instructions import Instructions
from ..mcp.manager import McpManager
from ..prompt import system_prompt
from ..tools import tool_definitions
from ..tools.editor import EditorQueries
from ..workspace import Workspace
from .conversation import Conversation
from .recording import Emit


def _names(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(added, removed) tool names between two tool lists (a changed definition counts as both)."""
    old = {json.dumps(t, sort_keys=True): t["name"] for t in before}
    new = {json.dumps(t, sort_keys=True): t["name"] for t in after}
    return sorted(new[k] for k in new.keys() - old.keys()), sorted(old[k] for k in old.keys() - new.keys())


class PromptHead:
    def __init__(self, conversation: Conversation, workspace: Workspace, instructions: Instructions,
                 mcp: McpManager, editor: EditorQueries | None, policy: ApprovalPolicy | None) -> None:
        self.conversation = conversation
        self.workspace = workspace
        self.instructions = instructions
        self.mcp = mcp
        self.editor = editor
        self.policy = policy
        self.tools = self._builtin_tools()
        self.tool_list_changes = 0  # requests whose tool list differed from the previous one (cache breaks)
        self._sent_tools: list[dict[str, Any]] | None = None
        self.instruction_changes = 0  # requests whose instruction files differed from the previous one
        self._sent_instructions: dict[str, str] | None = None  # file name → text, as the last request had them

    @property
    def system(self) -> str:
        section = self.instructions.section
        return system_prompt(self.workspace.roots) + (f"\n\n{section}" if section else "")

    def _builtin_tools(self) -> list[dict[str, Any]]:
        """The built-in tools, then the editor's: MCP tools come after them (a stable order)."""
        return tool_definitions(self.editor.kinds if self.editor is not None else ())

    def _tokens(self) -> tuple[int, int]:
        """(the whole head, its tools) in estimated tokens."""
        tools = estimate_tokens(len(json.dumps(self.tools)))
        return estimate_tokens(len(self.system)) + tools, tools

    def new_engine(self) -> ContextEngine:
        total, _ = self._tokens()
        config = self.conversation.config.updated(system_tokens=total)
        session = self.conversation.session
        return ContextEngine(config=config) if session is None else ContextEngine(config=config, store=session.store)

    def resized(self) -> None:
        """The system prompt, the tool list or the settings changed: the engine counts the head in every request."""
        total, _ = self._tokens()
        self.conversation.engine.reconfigure(self.conversation.config.updated(system_tokens=total))

    def meter(self) -> ContextReport:
        """The meter's figures (status bar, chat header, prompt)."""
        _, tools = self._tokens()
        return self.conversation.engine.report(tools_tokens=tools, instructions_tokens=self.instructions.tokens())

    def new_conversation(self) -> None:
        """A new conversation: its first request writes the cache anyway, whatever the instructions were."""
        self.instructions.forget_folders()  # re-read (with the resumed session's folders) before the next request
        self._sent_instructions = None

    # -- refreshed: the tools and rules at a turn start, the instructions before every request ----------

    async def refresh_tools(self) -> None:
        """At a turn start only: MCP servers start lazily and tool lists change between turns, never mid-turn."""
        await self.mcp.refresh()
        tools = self._builtin_tools() + self.mcp.definitions()
        if tools != self.tools:
            self.tools = tools
            self.resized()
            if self._sent_tools is not None:
                self.conversation.engine.prompt_head_changed()  # the tools head the prompt

    async def refresh_rules(self, emit: Emit) -> None:
        """At a turn start: the workspace's .agents/settings.json, re-read when it changed."""
        if self.policy is None:
            return
        for problem in await asyncio.to_thread(self.policy.rules.load_workspace, list(self.workspace.roots)):
            await emit(ev.ErrorEvent(f"permission rules: {problem}"))

    async def refresh_instructions(self) -> None:
        """Before every request: instruction files re-checked (size, time); a change is a new system prompt."""
        if await asyncio.to_thread(self.instructions.refresh, list(self.workspace.roots)):
            self.resized()
            if self._sent_instructions is not None:
                self.conversation.engine.prompt_head_changed()  # the system prompt heads the cached prefix

    # -- announced: once, with the request that carries the change ----------------------------------------

    async def announce(self, emit: Emit) -> None:
        """A request about to be sent: a tool list or instruction files that differ from the previous one's."""
        if self._sent_tools is not None and self._sent_tools is not self.tools:
            self.tool_list_changes += 1  # one deliberate cache break: the tools head the prompt
            added, removed = _names(self._sent_tools, self.tools)
            await emit(ev.ToolsChanged(self.tool_list_changes, added, removed))
        self._sent_tools = self.tools
        now = {item.shown: item.text for item in self.instructions.files}
        before, self._sent_instructions = self._sent_instructions, now
        if before is None or before == now:
            return
        self.instruction_changes += 1
        await emit(ev.InstructionsChanged(self.instruction_changes, sorted(now.keys() - before.keys()),
                                          sorted(before.keys() - now.keys()),
                                          sorted(k for k in now.keys() & before.keys() if now[k] != before[k])))
