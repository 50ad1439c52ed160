"""The objects nested in the LSP server's results and notifications (docs/protocol.md, by the same names).

Each method's own result is in protocol.py; these are its parts (a session in a
list, a transcript entry, a checkpoint's file…). Fields are the wire's
camelCase; lsp/converter.py builds them from the core's dataclasses and
tests/lsp/test_protocol_doc.py checks them against the doc.
"""

from __future__ import annotations

from typing import Any, TypedDict


class UsageWire(TypedDict):
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int


class SubagentCostWire(TypedDict):
    toolUseId: str
    name: str
    model: str
    requests: int
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    usd: float


class SessionInfoWire(TypedDict):
    id: str
    title: str
    workspace: str
    created: float
    updated: float
    turns: int
    tokens: int
    costUsd: float
    inUse: bool
    current: bool


class TranscriptToolWire(TypedDict):
    id: str
    name: str
    summary: str
    isError: bool
    resultChars: int
    marker: str
    input: dict[str, Any] | None
    diff: str
    approval: str
    reason: str
    done: bool
    subagent: SubagentMarkWire | None


class SubagentStepMarkWire(TypedDict):
    tool: str
    summary: str
    isError: bool


class SubagentMarkWire(TypedDict):
    name: str
    model: str
    fork: bool
    steps: list[SubagentStepMarkWire]
    isError: bool
    requests: int
    tokens: int
    usd: float
    transcript: str


class CompactionMarkWire(TypedDict):
    tokensBefore: int
    tokensAfter: int
    reason: str
    summary: str


class _TranscriptEntryBase(TypedDict):
    kind: str
    role: str
    text: str
    tools: list[TranscriptToolWire]
    turnId: str


class TranscriptEntryWire(_TranscriptEntryBase, total=False):
    checkpoint: str  # user entries: the checkpoint taken before that prompt
    attachments: list[str]  # user entries
    compaction: CompactionMarkWire  # kind "compaction"
    level: str  # kind "note"


class CategoriesWire(TypedDict):
    system: int
    tools: int
    instructions: int
    user: int
    assistant: int
    toolResults: int


class LayerStat(TypedDict):
    layer: str
    count: int
    tokensSaved: int


class PlaceholderWire(TypedDict):
    toolUseId: str
    tool: str
    layer: str
    ref: str
    originalChars: int


class McpToolTokensWire(TypedDict):
    server: str
    tools: int
    tokens: int


class ToolSearchWire(TypedDict):
    mode: str  # "native" | "builtin" | "upfront"
    offered: int
    deferred: int
    loaded: int
    savedTokens: int


class ContextUsageWire(TypedDict):
    used: int
    window: int
    effectiveWindow: int
    utilization: float
    level: str
    categories: CategoriesWire
    layers: list[LayerStat]
    nextRequest: str
    autoCompactAt: float | None
    model: str
    demo: bool
    modelWindow: int | None


class InstructionFileWire(TypedDict):
    name: str
    scope: str
    tokens: int
    chars: int
    cut: bool


class TodoWire(TypedDict):
    content: str
    status: str


class CommandInfo(TypedDict):
    name: str
    description: str
    source: str
    argumentHint: str


class PermissionRuleWire(TypedDict):
    rule: str
    decision: str
    source: str


class McpToolStatusWire(TypedDict):
    name: str
    qualifiedName: str
    approval: str
    description: str


class McpServerStatusWire(TypedDict):
    name: str
    transport: str
    target: str
    state: str
    error: str
    envKeys: list[str]
    headerKeys: list[str]
    tools: list[McpToolStatusWire]


class ModelInfoWire(TypedDict):
    id: str
    label: str
    contextWindow: int | None
    maxOutput: int | None
    createdAt: str
    thinking: str
    efforts: list[str]
    lifecycle: str
    inputPerMTok: float | None
    outputPerMTok: float | None
    cacheReadPerMTok: float | None
    cacheWritePerMTok: float | None


class CheckpointFile(TypedDict):
    path: str
    change: str


class SkippedFile(TypedDict):
    path: str
    change: str
    reason: str


class CheckpointInfo(TypedDict):
    id: str
    prompt: str
    at: float
    kind: str
    files: list[CheckpointFile]
    skipped: list[SkippedFile]
    rewound: bool


class CheckpointFileDiff(TypedDict):
    path: str
    change: str
    diff: str
    conflict: bool


class CacheMissWire(TypedDict):
    kind: str
    text: str
    missedTokens: int | None


class RequestCacheWire(TypedDict):
    number: int
    model: str
    inputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    miss: CacheMissWire | None
    thinkingDropped: int
    serverEdits: int


class MissTotalWire(TypedDict):
    kind: str
    text: str
    count: int
    missedTokens: int


class DropTotalWire(TypedDict):
    reason: str
    text: str
    count: int


class CacheReportWire(TypedDict):
    requests: list[RequestCacheWire]
    totalRequests: int
    misses: list[MissTotalWire]
    recentMisses: list[RequestCacheWire]
    thinkingDropped: list[DropTotalWire]
    thinkingLetThrough: int
    serverEdits: int
