"""The ACP wire in one place: the core's dataclasses and events ↔ the Agent Client Protocol's schema.

Everything else in agentls.acp speaks core types; this module alone builds and
reads the SDK's pydantic models (`acp.schema`, agent-client-protocol ≥ 1.0,
ACP schema v1; field names checked against the installed SDK's models and the
protocol docs at agentclientprotocol.com/protocol/v1: tool-calls, prompt-turn,
session-setup, session-list, slash-commands, terminals). Pure functions: what
is sent when is the business of session.py and stream.py.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlparse

from acp import schema

from ..agent.approval import ApprovalDecision, ApprovalRequest
from ..agent.mcp.names import is_mcp_name
from ..agent.sent import COMPACTED, ToolResultView
from ..agent.store.sessions import SessionInfo
from ..context.attachments import Attachment
from ..context.images import MEDIA_TYPES, ImageAttachment, image_attachment
from ..context.report import ContextReport
from ..context.store import result_ref
from ..model.pricing import CostReport

Update = (schema.UserMessageChunk | schema.AgentMessageChunk | schema.AgentThoughtChunk | schema.ToolCallStart
          | schema.ToolCallProgress | schema.AgentPlanUpdate | schema.AvailableCommandsUpdate
          | schema.SessionInfoUpdate | schema.UsageUpdate | schema.SessionUpdateCompactionUpdate
          | schema.CurrentModeUpdate)
ToolContent = schema.ContentToolCallContent | schema.FileEditToolCallContent | schema.TerminalToolCallContent

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
PlanStatus = Literal["pending", "in_progress", "completed"]
PermissionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]

AGENT_NAME = "agentls"

# Tool kinds (ToolKind in the schema) help clients pick icons and group calls.
TOOL_KINDS: dict[str, ToolKind] = {"read_file": "read", "edit_file": "edit", "write_file": "edit",
                                   "run_shell": "execute", "grep_search": "search", "list_files": "search"}
# The tools that ask before they run (beside MCP tools): their calls start `pending`.
ASKING_TOOLS = frozenset({"edit_file", "write_file", "run_shell"})
# The model's stop reasons that have an ACP counterpart; anything else ends the turn normally.
STOP_REASONS: dict[str, StopReason] = {"max_tokens": "max_tokens", "refusal": "refusal"}
PLAN_STATUSES: dict[str, PlanStatus] = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}


# ---------------------------------------------------------------- initialize

def initialize_response(protocol_version: int, version: str) -> schema.InitializeResponse:
    """What this agent does: load, list, resume, close and delete sessions; text, embedded context and
    images in prompts (no audio); MCP servers over stdio and HTTP."""
    return schema.InitializeResponse(
        protocol_version=protocol_version,
        agent_info=schema.Implementation(name=AGENT_NAME, title="agentls coding agent", version=version),
        agent_capabilities=schema.AgentCapabilities(
            load_session=True,
            prompt_capabilities=schema.PromptCapabilities(image=True, audio=False, embedded_context=True),
            mcp_capabilities=schema.McpCapabilities(http=True, sse=False),
            session_capabilities=schema.SessionCapabilities(
                list=schema.SessionListCapabilities(), resume=schema.SessionResumeCapabilities(),
                close=schema.SessionCloseCapabilities(), delete=schema.SessionDeleteCapabilities(),
                additional_directories=schema.SessionAdditionalDirectoriesCapabilities()),
        ),
        auth_methods=[],
    )


@dataclass(frozen=True)
class ClientOffers:
    """What the client declared at initialize that changes how the agent works."""

    read_files: bool = False  # fs/read_text_file: its (unsaved) buffers
    write_files: bool = False  # fs/write_text_file
    terminal: bool = False  # terminal/*
    compaction: bool = False  # clientCapabilities.session.compaction: compaction_update (stable since 2026-10-09)


def client_offers(capabilities: schema.ClientCapabilities | None) -> ClientOffers:
    if capabilities is None:
        return ClientOffers()
    fs = capabilities.fs
    session = capabilities.session
    return ClientOffers(read_files=bool(fs and fs.read_text_file), write_files=bool(fs and fs.write_text_file),
                        terminal=bool(capabilities.terminal),
                        compaction=bool(session is not None and session.compaction is not None))


# ---------------------------------------------------------------- sessions

def session_info(info: SessionInfo) -> schema.SessionInfo:
    updated = datetime.fromtimestamp(info.updated, tz=timezone.utc).isoformat().replace("+00:00", "Z")
    return schema.SessionInfo(session_id=info.id, cwd=info.workspace, title=info.title or None,
                              updated_at=updated if info.updated else None)


def mcp_servers(servers: Sequence[Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The client's MCP servers in the settings' `mcpServers` shape (parsed by agent/mcp/config.py),
    and what was left out (SSE and ACP-transport servers: the core speaks stdio and streamable HTTP)."""
    shaped: dict[str, Any] = {}
    skipped: list[str] = []
    for server in servers or ():
        if isinstance(server, schema.McpServerStdio):
            shaped[server.name] = {"command": server.command, "args": list(server.args),
                                   "env": {item.name: item.value for item in server.env}}
        elif isinstance(server, schema.HttpMcpServer):
            shaped[server.name] = {"url": server.url, "headers": {item.name: item.value for item in server.headers}}
        else:
            skipped.append(f"MCP server {getattr(server, 'name', '?')!r}: its transport "
                           f"({getattr(server, 'type', '?')}) is not supported; use stdio or http")
    return shaped, skipped


def stop_reason(reason: str) -> StopReason:
    return STOP_REASONS.get(reason, "end_turn")


# ---------------------------------------------------------------- prompts

@dataclass(frozen=True)
class PromptInput:
    text: str
    attachments: list[Attachment]
    notes: list[str]  # what could not be passed on (audio, binary resources that are not images)
    images: list[ImageAttachment] = field(default_factory=list)

    @property
    def everything(self) -> list[Attachment | ImageAttachment]:
        """What Agent.run_turn takes: the images and the text attachments."""
        return [*self.images, *self.attachments]


def prompt_input(blocks: Sequence[Any], shown: Any) -> PromptInput:
    """A session/prompt's content blocks → the typed text and the attachments the core takes.

    `shown(path) -> str` names a local file the way the tools do (workspace-relative when inside).
    Embedded text resources become attachments (the one attachment format, context/attachments.py);
    images (image blocks, and embedded blob resources of an image type) become the core's image
    attachments, checked as the API checks them (context/images.py: ImageError says why one is
    refused); resource links are named in the text, for the model to read; audio and other binary
    resources are not advertised, and are noted rather than silently dropped.
    """
    texts: list[str] = []
    attachments: list[Attachment] = []
    images: list[ImageAttachment] = []
    notes: list[str] = []
    for block in blocks:
        if isinstance(block, schema.TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, schema.ImageContentBlock):
            images.append(image_attachment(block.data, block.mime_type, _where(block.uri, shown) if block.uri else ""))
        elif isinstance(block, schema.EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, schema.TextResourceContents):
                attachments.append(Attachment(_where(resource.uri, shown), resource.text))
            elif resource.mime_type in MEDIA_TYPES:
                images.append(image_attachment(resource.blob, resource.mime_type, _where(resource.uri, shown)))
            else:
                notes.append(f"{_where(resource.uri, shown)} is binary; it was not attached")
        elif isinstance(block, schema.ResourceContentBlock):
            texts.append(f"[mentioned: {_where(block.uri, shown)}]")
        else:
            notes.append(f"a {getattr(block, 'type', 'content')} block was left out: this agent reads text and images")
    return PromptInput("\n".join(t for t in texts if t), attachments, notes, images)


def _where(uri: str, shown: Any) -> str:
    path = local_path(uri)
    return shown(path) if path is not None else uri


def local_path(uri: str) -> Path | None:
    """A file:// URI (or an absolute path) as a local path; None for anything else."""
    if uri.startswith("file://"):
        return Path(unquote(urlparse(uri).path))
    if os.path.isabs(uri):
        return Path(uri)
    return None


def command_line(text: str, names: Iterable[str]) -> tuple[str, str] | None:
    """(command, argument) when the prompt is one of the advertised slash commands, else None."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    return (name, argument.strip()) if name in set(names) else None


def available_commands(commands: Iterable[tuple[str, str, str | None]]) -> schema.AvailableCommandsUpdate:
    """(name, description, input hint or None) → available_commands_update."""
    return schema.AvailableCommandsUpdate(available_commands=[
        schema.AvailableCommand(name=name, description=description,
                                input=schema.AvailableCommandInput(root=schema.UnstructuredCommandInput(hint=hint))
                                if hint else None)
        for name, description, hint in commands])


# ---------------------------------------------------------------- streamed content

def text(value: str) -> schema.TextContentBlock:
    return schema.TextContentBlock(type="text", text=value)


def agent_text(value: str, message_id: str | None = None) -> schema.AgentMessageChunk:
    return schema.AgentMessageChunk(session_update="agent_message_chunk", content=text(value), message_id=message_id)


def user_text(value: str, message_id: str | None = None) -> schema.UserMessageChunk:
    return schema.UserMessageChunk(session_update="user_message_chunk", content=text(value), message_id=message_id)


def user_image(item: ImageAttachment, message_id: str | None = None) -> schema.UserMessageChunk:
    """An image of a replayed prompt, as the client sent it (an ImageContentBlock is a ContentBlock)."""
    return schema.UserMessageChunk(session_update="user_message_chunk", message_id=message_id,
                                   content=schema.ImageContentBlock(type="image", data=item.data,
                                                                    mime_type=item.media_type))


def thought(value: str) -> schema.AgentThoughtChunk:
    return schema.AgentThoughtChunk(session_update="agent_thought_chunk", content=text(value))


def usage_update(report: ContextReport, cost: CostReport) -> schema.UsageUpdate:
    """used = what the meter shows (tokens the next request carries), size = the working window
    (window − output reserve, what utilization is measured against), cost = the session's so far."""
    return schema.UsageUpdate(session_update="usage_update", used=max(0, report.used),
                              size=max(0, report.effective_window),
                              cost=schema.Cost(amount=round(cost.usd, 6), currency="USD"))


def session_title(title: str) -> schema.SessionInfoUpdate:
    return schema.SessionInfoUpdate(session_update="session_info_update", title=title)


def compaction(compaction_id: str, status: str, summary: str | None = None,
               error: str | None = None) -> schema.SessionUpdateCompactionUpdate:
    """compaction_update: in_progress, then completed (with the summary the model now sees), failed
    (with why) or cancelled. Sent only to a client that opted in (ClientOffers.compaction)."""
    return schema.SessionUpdateCompactionUpdate(
        session_update="compaction_update", compaction_id=compaction_id, status=status,
        summary=[text(summary)] if summary else None, error=error)


def plan(entries: Iterable[tuple[str, str]]) -> schema.AgentPlanUpdate:
    """(content, status) pairs → plan; status is pending, in_progress or completed (others: pending)."""
    return schema.AgentPlanUpdate(session_update="plan", entries=[
        schema.PlanEntry(content=content, priority="medium", status=PLAN_STATUSES.get(status, "pending"))
        for content, status in entries])


# ---------------------------------------------------------------- tool calls

def tool_kind(name: str) -> ToolKind:
    if name in TOOL_KINDS:
        return TOOL_KINDS[name]
    return "fetch" if is_mcp_name(name) and "fetch" in name.lower() else "other"


@dataclass(frozen=True)
class ToolCallSeen:
    """A tool call as the stream knows it when it starts: what the client shows for it throughout."""

    tool_use_id: str
    name: str
    title: str
    kind: ToolKind
    path: Path | None  # the real path it works on (inside the roots), when it names one
    line: int | None = None  # 1-based
    diff: tuple[str | None, str] | None = None  # (old text or None for a new file, new text): edits

    def locations(self) -> list[schema.ToolCallLocation] | None:
        if self.path is None:
            return None
        return [schema.ToolCallLocation(path=str(self.path), line=self.line)]

    def start_content(self) -> list[ToolContent]:
        if self.diff is None or self.path is None:
            return []
        old, new = self.diff
        return [schema.FileEditToolCallContent(type="diff", path=str(self.path), old_text=old, new_text=new)]


def may_ask(name: str) -> bool:
    """Whether a call of this tool may wait for the user's approval before it runs."""
    return name in ASKING_TOOLS or is_mcp_name(name)


def tool_call_start(seen: ToolCallSeen, raw_input: dict[str, Any]) -> schema.ToolCallStart:
    """A call that may ask is `pending` until it is approved (ACP tool-calls: "pending: hasn't started
    running yet because the input is either streaming or we're awaiting approval"); the others run at once."""
    return schema.ToolCallStart(session_update="tool_call", tool_call_id=seen.tool_use_id, title=seen.title,
                                kind=seen.kind, status="pending" if may_ask(seen.name) else "in_progress",
                                locations=seen.locations(), content=seen.start_content() or None,
                                raw_input=raw_input)


def terminal_content(terminal_id: str) -> schema.TerminalToolCallContent:
    return schema.TerminalToolCallContent(type="terminal", terminal_id=terminal_id)


def tool_call_end(seen: ToolCallSeen, view: ToolResultView | None, summary: str, is_error: bool,
                  extra: Sequence[ToolContent] = ()) -> schema.ToolCallProgress:
    """The result as the model saw it (after the pipeline's cuts), and where its full text is kept."""
    content: list[ToolContent] = [*seen.start_content(), *extra, *result_content(view)]
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=seen.tool_use_id,
                                   status="failed" if is_error else "completed", title=summary or seen.title,
                                   content=content or None)


def result_content(view: ToolResultView | None) -> list[ToolContent]:
    if view is None:
        return []
    items: list[ToolContent] = [schema.ContentToolCallContent(type="content", content=text(_shown_result(view)))]
    if view.ref and view.original_chars > len(view.text):
        # The full result stays with the agent: the model can read_file this ref again.
        items.append(schema.ContentToolCallContent(type="content", content=schema.ResourceContentBlock(
            type="resource_link", uri=view.ref or result_ref(view.tool_use_id), name=f"full result of {view.tool}",
            description=f"{view.original_chars} characters; the model saw {len(view.text)}"
                        + (f" ({view.marker})" if view.marker else ""))))
    return items


def _shown_result(view: ToolResultView) -> str:
    """The result as the model saw it; one a compaction summarised away (the model sees only the summary now)
    as the stored original when the agent keeps it, else saying so — never "(empty)", which is what the
    model is sent for a result that really was empty."""
    if view.marker != COMPACTED:
        return view.text or "(empty)"
    if view.original:
        return f"{view.original}\n[summarised by a compaction: the model now sees the summary]"
    return "[summarised by a compaction: the model now sees the summary; the output is not kept]"


def replayed_tool_call(seen: ToolCallSeen, view: ToolResultView | None, summary: str,
                       is_error: bool) -> schema.ToolCallStart:
    """A finished tool call of a loaded conversation, in one update."""
    content: list[ToolContent] = [*seen.start_content(), *result_content(view)]
    return schema.ToolCallStart(session_update="tool_call", tool_call_id=seen.tool_use_id, title=summary or seen.title,
                                kind=seen.kind, status="failed" if is_error else "completed",
                                locations=seen.locations(), content=content or None,
                                raw_input=view.input if view is not None else None)


def tool_cut_short(seen: ToolCallSeen, why: str, extra: Sequence[ToolContent] = ()) -> schema.ToolCallProgress:
    """The final update of a call that never finished (the turn was cancelled or failed): a call always
    ends `completed` or `failed` in the client, and this one says why."""
    content: list[ToolContent] = [*seen.start_content(), *extra,
                                  schema.ContentToolCallContent(type="content", content=text(why))]
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=seen.tool_use_id,
                                   status="failed", title=f"{seen.title} (cancelled)" if "cancel" in why
                                   else seen.title, content=content)


def tool_running(tool_use_id: str) -> schema.ToolCallProgress:
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=tool_use_id, status="in_progress")


def tool_content(tool_use_id: str, content: Sequence[ToolContent]) -> schema.ToolCallProgress:
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=tool_use_id, content=list(content))


def tool_progress(tool_use_id: str, value: str) -> schema.ToolCallProgress:
    """A running call's content as text, whole (a subagent's steps: acp/subagents.py)."""
    return tool_content(tool_use_id, [schema.ContentToolCallContent(type="content", content=text(value))])


# ---------------------------------------------------------------- permissions

ALLOW_ONCE: PermissionKind = "allow_once"
ALLOW_ALWAYS: PermissionKind = "allow_always"
REJECT_ONCE: PermissionKind = "reject_once"
REJECT_ALWAYS: PermissionKind = "reject_always"
ALWAYS_RULES_SHOWN = 3  # rules named in the "allow always" option; more are counted


def permission_options(request: ApprovalRequest) -> list[schema.PermissionOption]:
    """Allow once / always / reject once / always. "Allow always" adds the allow rules the request carries,
    as "Always" does in every front end (agent/approval.py), and names them; a request none can be made for
    (a command line that cannot be parsed) is not offered it."""
    options = [schema.PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind=ALLOW_ONCE)]
    if request.rules:
        shown = ", ".join(rule_shown(rule) for rule in request.rules[:ALWAYS_RULES_SHOWN])
        more = len(request.rules) - ALWAYS_RULES_SHOWN
        shown += f" and {more} more" if more > 0 else ""
        options.append(schema.PermissionOption(option_id=ALLOW_ALWAYS, name=f"Allow always (this session): {shown}",
                                               kind=ALLOW_ALWAYS))
    options += [schema.PermissionOption(option_id=REJECT_ONCE, name="Reject", kind=REJECT_ONCE),
                schema.PermissionOption(option_id=REJECT_ALWAYS, name="Reject always (this session)",
                                        kind=REJECT_ALWAYS)]
    return options


def rule_shown(rule: str) -> str:
    """A rule as the option names it: a file rule's workspace path without the leading "/" that anchors
    it (a .gitignore pattern, permissions/rules.py), `edit_file(/notes.md)` → `edit_file: notes.md in this
    workspace`; other rules as written."""
    match = _PATH_RULE.fullmatch(rule)
    if match is None:
        return rule
    return f"{match.group(1)}: {match.group(2).removeprefix('/')} in this workspace"


_PATH_RULE = re.compile(r"(edit_file|write_file|read_file)\((.+)\)")
DECISIONS: dict[str, ApprovalDecision] = {
    ALLOW_ONCE: ApprovalDecision(True), ALLOW_ALWAYS: ApprovalDecision(True, remember=True),
    REJECT_ONCE: ApprovalDecision(False), REJECT_ALWAYS: ApprovalDecision(False, remember=True)}


def permission_title(request: ApprovalRequest) -> str:
    title = _permission_title(request)
    return f"{title} (asked by subagent “{request.subagent}”)" if request.subagent else title


def _permission_title(request: ApprovalRequest) -> str:
    if request.kind == "shell":
        return f"Run `{request.command}`"
    if request.kind == "mcp":
        return f"Call {request.tool} on MCP server {request.server}"
    if request.kind == "rules":
        return f"Accept the permission rules of {request.path} (its allow rules apply only if you accept)"
    return f"{'Edit' if request.kind == 'edit' else 'Write'} {request.path}"


def permission_tool_call(tool_use_id: str, request: ApprovalRequest,
                         seen: ToolCallSeen | None) -> schema.ToolCallUpdate:
    """What is asked about: the tool call the stream announced (same id). A file change carries ACP's `diff`
    content (path, oldText, newText: clients build their review from it, e.g. CodeCompanion) and the file's
    location; a command carries the command line; an MCP call its input."""
    content: list[ToolContent] = []
    if request.kind in ("write", "edit") and seen is not None and seen.diff is not None:
        content = seen.start_content()
    shown = request.command if request.kind == "shell" else request.input if request.kind == "mcp" \
        else request.diff if not content else None
    if shown:
        content.append(schema.ContentToolCallContent(type="content", content=text(shown)))
    return schema.ToolCallUpdate(tool_call_id=tool_use_id, title=permission_title(request),
                                 kind=seen.kind if seen is not None else "other", status="pending",
                                 content=content or None, locations=seen.locations() if seen is not None else None)


def decision(response: schema.RequestPermissionResponse) -> ApprovalDecision:
    """The user's choice; a cancelled request (the turn was cancelled) or an unknown option is a refusal."""
    outcome = response.outcome
    if isinstance(outcome, schema.AllowedOutcome):
        return DECISIONS.get(outcome.option_id, ApprovalDecision(False))
    return ApprovalDecision(False)
