"""What the one converter (lsp/converter.py) writes has exactly the documented fields, and the terminal
client (cli/lsp_wire.py) reads it back into the objects it was built from.

test_protocol_doc.py checks the TypedDicts against docs/protocol.md; this checks
the converter's output against the TypedDicts, so the doc, the TypeScript
mirror and the bytes on the wire are one contract.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path

from agentls.agent.approval import ApprovalRequest
from agentls.agent.checkpoints.model import Checkpoint, FileChange, FileDiff, RewindResult, Skipped
from agentls.agent.commands import CustomCommand
from agentls.agent.conversations import Rewound
from agentls.agent.endpoint_models import ModelOffer, ModelsView
from agentls.agent.mcp.status import McpServerStatus, McpToolStatus, McpToolTokens
from agentls.agent.permissions import Rule
from agentls.agent.runtime import ActiveModel
from agentls.agent.sent import ToolResultView
from agentls.agent.store.sessions import SessionInfo
from agentls.agent.todos import TodoItem
from agentls.agent.transcript import CompactionMark, TranscriptEntry, TranscriptTool
from agentls.agent.views import ContextDetails, InstructionFileView
from agentls.cli import lsp_wire
from agentls.context.pipeline import CompactionResult
from agentls.context.report import Categories, ContextReport, LayerFigure, Placeholder
from agentls.context.usage import Usage
from agentls.lsp import protocol, shapes
from agentls.model.catalog import ModelInfo
from agentls.model.pricing import CostReport, Price

REPORT = ContextReport(1000, 900, 500, 0.55, "warn", Categories(1, 2, 3, 4, 5, 6), (LayerFigure("L1", 2, 30),),
                       "compact", 0.8)
MODEL = ActiveModel("claude-x", False, 200_000)
DETAILS = ContextDetails(REPORT, (Placeholder("tu", "read_file", "L1", "r", 9),), (McpToolTokens("srv", 2, 30),), 3,
                         (InstructionFileView("AGENTS.md", "workspace", 10, 40, False),), 2, ("w1",))
ENTRIES = [TranscriptEntry("user", "hello", [], "cp1", "message", ["a.py"], "t1"),
           TranscriptEntry("assistant", "ok", [TranscriptTool("i", "read_file", "Read a.py", True, 5, "", {"p": 1})],
                           turn_id="t1"),
           TranscriptEntry("system", "", kind="compaction", turn_id="t2",
                           compaction=CompactionMark(10, 5, "auto", "s")),
           TranscriptEntry("system", "careful", kind="note", turn_id="t3", level="warn")]
CHECKPOINT = Checkpoint("c1", "edit a", 3.5, 7, "turn", [FileChange("a", None, "h"), FileChange("b", "h", None)],
                        [Skipped("big", "modified", "too large")], rewound=True)
MODELS = ModelsView((ModelOffer(ModelInfo("m1", "One", "2025-01-01", 200_000, 64_000, frozenset({"adaptive"}),
                                          ("low", "high")), Price(3.0, 15.0, 3.75, 0.3)),
                     ModelOffer(ModelInfo("m2", lifecycle="deprecated"), None)), "api", "", "m1", "m1", False)
SERVER = McpServerStatus("s", "stdio", "cmd", "failed", "boom", ("K",), ("H",),
                         (McpToolStatus("t", "mcp__s__t", "ask", "desc"),))
SESSION = SessionInfo("s1", "/w", "", 1.0, 2.0, 3, 4, 0.1234567, True)
REWOUND = RewindResult("c1", "u1", ["a"], ["b"], [Skipped("c", "deleted", "symlink")], True)
REWIND = Rewound(REWOUND, None, (TodoItem("fix it", "pending"),), [CHECKPOINT])

# (the TypedDict, what the server sends); nested shapes are checked through their own samples
SAMPLES: list[tuple[type, typing.Any]] = [
    (shapes.UsageWire, protocol.usage(Usage(1, 2, 3, 4, 5))),
    (protocol.ChatResult, protocol.chat_result("t1", "hi", "end_turn", Usage(1, 2))),
    (protocol.CompactResult, protocol.compact_result(CompactionResult(10, 5, "sum", "manual", "msg"))),
    (protocol.CostResult, protocol.cost(CostReport("m", 3, Usage(1, 2, 3, 4, 5), 0.12345678, "1h", ("x",)))),
    (protocol.ToolResult, protocol.tool_result(ToolResultView("tu", "read_file", {}, False, "t", True, "cleared",
                                                              "L1", 1_700_000_000.0, "r", 9, "orig"))),
    (shapes.SessionInfoWire, protocol.session_info(SESSION, "s2")),
    *[(shapes.TranscriptEntryWire, entry) for entry in protocol.transcript(ENTRIES)],
    (shapes.TranscriptToolWire, protocol.transcript(ENTRIES)[1]["tools"][0]),
    (shapes.CompactionMarkWire, protocol.transcript(ENTRIES)[2]["compaction"]),
    (shapes.CheckpointInfo, protocol.checkpoint_info(CHECKPOINT)),
    (shapes.CheckpointFile, protocol.checkpoint_info(CHECKPOINT)["files"][0]),
    (shapes.SkippedFile, protocol.checkpoint_info(CHECKPOINT)["skipped"][0]),
    (protocol.CheckpointDiffResult, protocol.checkpoint_diff("c1", [FileDiff("a", "modified", "@@", True)], [])),
    (shapes.CheckpointFileDiff, protocol.checkpoint_diff("c1", [FileDiff("a", "added", "@@", False)], [])["files"][0]),
    (protocol.RewindResultWire, protocol.rewind_result(REWIND)),
    (protocol.RewindResultWire, protocol.rewind_result(Rewound(REWOUND, ENTRIES, (), []))),
    (shapes.ContextUsageWire, protocol.context_usage(REPORT, MODEL)),
    (shapes.LayerStat, protocol.context_usage(REPORT, MODEL)["layers"][0]),
    (protocol.ContextResult, protocol.context(DETAILS, MODEL)),
    (shapes.PlaceholderWire, protocol.context(DETAILS, MODEL)["placeholders"][0]),
    (shapes.McpToolTokensWire, protocol.context(DETAILS, MODEL)["mcpTools"][0]),
    (shapes.InstructionFileWire, protocol.context(DETAILS, MODEL)["instructions"][0]),
    (protocol.ModelsResult, protocol.models(MODELS)),
    *[(shapes.ModelInfoWire, info) for info in protocol.models(MODELS)["models"]],
    (protocol.TodosResult, protocol.todos([TodoItem("a", "pending")])),
    (shapes.TodoWire, protocol.todos([TodoItem("a", "pending")])["todos"][0]),
    (shapes.CommandInfo, protocol.commands([CustomCommand("c", "d", "workspace", Path("/x"), "[a]")])["commands"][0]),
    (shapes.PermissionRuleWire, protocol.permissions([Rule("allow", "run_shell", "git *", "user")])["rules"][0]),
    (shapes.McpServerStatusWire, protocol.mcp_server(SERVER)),
    (shapes.McpToolStatusWire, protocol.mcp_server(SERVER)["tools"][0]),
]


def test_what_the_converter_writes_has_exactly_the_documented_fields():
    for shape, wire in SAMPLES:
        declared = set(typing.get_type_hints(shape))
        required = set(getattr(shape, "__required_keys__", declared))
        assert required <= set(wire) <= declared, f"{shape.__name__}: {sorted(set(wire) ^ declared)}"
        json.dumps(wire)  # plain JSON all the way down: no dataclass, tuple or Path left


def test_optional_members_appear_only_where_they_apply():
    user, assistant, compaction, note = protocol.transcript(ENTRIES)
    assert "attachments" in user and "attachments" not in assistant
    assert "compaction" in compaction and "level" in note and "level" not in user
    assert "transcript" not in protocol.rewind_result(REWIND)
    assert protocol.confirm_params(ApprovalRequest("shell", command="ls", config="fingerprint")) == {
        "kind": "shell", "command": "ls"}


def test_the_terminal_client_reads_back_what_the_server_wrote():
    assert lsp_wire.transcript_from_wire(protocol.transcript(ENTRIES)) == ENTRIES
    assert lsp_wire.rewind_from_wire(protocol.rewind_result(REWIND)) == REWOUND
    assert lsp_wire.mcp_servers_from_wire([protocol.mcp_server(SERVER)]) == [SERVER]
    assert lsp_wire.context_from_wire(protocol.context(DETAILS, MODEL)) == DETAILS
    assert lsp_wire.model_info_from_wire(protocol.context_usage(REPORT, MODEL)) == MODEL
    assert lsp_wire.session_from_wire(protocol.session_info(SESSION, "s1"))[1] is True
    read = lsp_wire.models_from_wire(protocol.models(MODELS))
    assert [(o.model.id, o.price) for o in read.offers] == [(o.model.id, o.price) for o in MODELS.offers]
    listed = lsp_wire.checkpoint_from_wire(protocol.checkpoint_info(CHECKPOINT))
    assert listed.changed_files() == CHECKPOINT.changed_files() and listed.rewound
    request = ApprovalRequest("rewind", checkpoint="c1", paths=("a",), tool_use_id="tu")
    assert lsp_wire.approval_request_from_wire(protocol.confirm_params(request)) == request
