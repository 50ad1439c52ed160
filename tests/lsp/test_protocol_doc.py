"""lsp/protocol.py mirrors docs/protocol.md field for field, as client-vscode/src/protocol.ts does.

The TypeScript twin of this test is client-vscode/test/unit/protocol.test.ts;
together they make the doc the single source of truth for both ends.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

from agentls.cli import lsp_wire
from agentls.lsp import protocol
from agentls.lsp.converter import camel

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _code(markdown: str) -> str:
    code = "\n".join(re.findall(r"```ts\n(.*?)```", markdown, re.S))
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", code, flags=re.S)


def _body(source: str, name: str) -> str | None:
    """The text between the braces of `interface Name {…}` (brace-matched)."""
    match = re.search(rf"interface\s+{name}\b[^{{]*\{{", source)
    if match is None:
        return None
    depth, i = 1, match.end()
    while depth and i < len(source):
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
    return source[match.end():i - 1]


def _fields(body: str) -> set[str]:
    """Top-level field names of an interface body (nested object literals' fields excluded)."""
    flat, depth = [], 0
    for char in body:
        depth += {"{": 1, "}": -1}.get(char, 0)
        flat.append(char if depth == 0 or char in "{}" else " ")
    return set(re.findall(r"([A-Za-z_]\w*)\??\s*:", "".join(flat)))


DOC_CODE = _code(DOC.read_text(encoding="utf-8"))


def test_every_mirrored_interface_has_the_documented_fields():
    assert len(protocol.DOC_INTERFACES) >= 15
    for name, shape in protocol.DOC_INTERFACES.items():
        body = _body(DOC_CODE, name)
        assert body is not None, f"docs/protocol.md has no interface {name}"
        documented = _fields(body)
        extends = re.search(rf"interface\s+{name}\s+extends\s+(\w+)", DOC_CODE)
        if extends:
            documented |= _fields(_body(DOC_CODE, extends.group(1)) or "")
        assert set(typing.get_type_hints(shape)) == documented, f"fields of {name}"


def test_every_server_result_the_doc_defines_is_mirrored():
    """Results and notifications the server sends: each documented one has its TypedDict here."""
    sent = {"ChatResult", "CompactResult", "CostResult", "ToolResult", "SessionsResult", "NewSessionResult",
            "ResumeResult", "ContextResult", "McpServersResult", "ContextUsage"}
    for name in sent:
        assert _body(DOC_CODE, name) is not None, f"{name} is no longer documented"
    assert sent <= set(protocol.DOC_INTERFACES)


def _event_variants() -> dict[str, set[str]]:
    union = re.search(r"type\s+AgentEvent\s*=(.*?\})\s*;", DOC_CODE, re.S)
    assert union, "AgentEvent is not documented"
    variants = {}
    for variant in re.findall(r"\{([^{}]*)\}", union.group(1)):
        kind = re.search(r'kind:\s*"(\w+)"', variant)
        if kind:
            variants[kind.group(1)] = set(re.findall(r"([A-Za-z_]\w*)\??\s*:", variant))
    return variants


def test_every_event_kind_has_the_documented_fields():
    documented = _event_variants()
    assert set(protocol.EVENT_KINDS.values()) == set(documented)
    for cls, kind in protocol.EVENT_KINDS.items():
        wire = {"turnId", "kind"} | {camel(f.name) for f in dataclasses.fields(cls)}
        assert wire == documented[kind], f"fields of the {kind} event"


def test_every_method_name_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for method in (*protocol.REQUESTS, protocol.EVENT, protocol.CONTEXT_USAGE, protocol.CONFIRM,
                   protocol.EDITOR_QUERY):
        assert f"`{method}`" in text, f"{method} is not in docs/protocol.md"


def test_events_read_back_from_the_wire_as_they_were_sent():
    from agentls.agent import events as ev
    from agentls.context.usage import Usage

    samples = [ev.TextDelta("hi"), ev.ToolEnd("t1", "read_file", "Read a.py", False, 12, "cleared"),
               ev.UsageEvent(Usage(1, 2, 3, 4)), ev.LayerApplied("batch", ["t1", "t2"], "cleared"),
               ev.RetryEvent(2, 1.5, "overloaded", True), ev.ToolsChanged(1, ["a"], [])]
    for event in samples:
        assert lsp_wire.event_from_wire(protocol.event(event, "turn")) == event
    assert lsp_wire.event_from_wire({"kind": "somethingNew", "turnId": "t"}) is None
