"""The VS Code extension's settings agree with the server's schema (agent/settings_schema.py).

client-vscode/package.json's `contributes.configuration` is compared key by key with
`settings_schema()`: the keys, their types, bounds, choices and defaults, nested objects
included. src/shared/settings.ts must send exactly the server's keys. Issue 28: the
contribution had lost the maximums of contextWindow, outputReserve and maxTokens that the
server enforces, so VS Code accepted values the server then ignored.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentls.agent.settings import parse_settings
from agentls.agent.settings_schema import SPECS, settings_schema
from agentls.model.thinking import THINKING_MODES

CLIENT = Path(__file__).resolve().parents[2] / "client-vscode"
PREFIX = "agentls."
# Settings the extension reads itself and never sends, each with the reason.
CLIENT_ONLY = {
    "pythonPath": "the interpreter that starts the server (launcher.ts): it is needed before there is a server",
}
KEYWORDS = ("enum", "minimum", "exclusiveMinimum", "maximum", "maxLength")  # compared as they are


def contributed() -> dict[str, dict[str, Any]]:
    """package.json's settings by protocol path: `agentls.thresholds.warn` → `thresholds.warn`."""
    manifest = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    assert all(name.startswith(PREFIX) for name in properties)
    return {name[len(PREFIX):]: schema for name, schema in properties.items()}


def types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    return set(declared) if isinstance(declared, list) else {declared} if declared else set()


def same(a: Any, b: Any) -> bool:
    """Equal JSON values (300 == 300.0, but False is not 0)."""
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def default_problems(where: str, declared: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    ours, theirs = declared.get("default"), schema.get("default")
    if ours == "" and "string" in types(declared):
        ours = None  # an empty string is "unset": settings.ts does not send it
    if same(ours, theirs):
        return []
    description = declared.get("markdownDescription", declared.get("description", ""))
    if ours is None and "null" in types(declared) and isinstance(theirs, (int, float)) \
            and f"default ({theirs:g})" in description:
        return []  # empty: "the server default (8192)", named in the description
    return [f"{where}: default {ours!r}, the server's {theirs!r}"]


def at(schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The schema of a dotted setting (`thresholds.warn`), None when there is none."""
    node: dict[str, Any] | None = schema
    for part in name.split("."):
        node = (node or {}).get("properties", {}).get(part)
    return node


def problems_of(where: str, declared: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """What package.json says of one setting (or a part of one) that the server's schema does not."""
    found = []
    if types(declared) - {"null"} != types(schema) - {"null"} or not types(declared) <= types(schema):
        found.append(f"{where}: type {declared.get('type')!r}, the server's {schema['type']!r}")
    for keyword in KEYWORDS:
        if not same(declared.get(keyword), schema.get(keyword)):
            found.append(f"{where}: {keyword} {declared.get(keyword)!r}, the server's {schema.get(keyword)!r}")
    found += default_problems(where, declared, schema)
    ours, theirs = declared.get("properties", {}), schema.get("properties", {})
    if set(ours) != set(theirs):
        found.append(f"{where}: keys {sorted(ours)}, the server's {sorted(theirs)}")
    for name in sorted(ours.keys() & theirs.keys()):
        found += problems_of(f"{where}.{name}", ours[name], theirs[name])
    for keyword in ("additionalProperties", "items"):
        mine, its = declared.get(keyword), schema.get(keyword)
        if isinstance(mine, dict) and isinstance(its, dict):
            found += problems_of(f"{where}.{keyword}", mine, its)
        elif mine != its:
            found.append(f"{where}: {keyword} {mine!r}, the server's {its!r}")
    return found


def disagreements(declared: dict[str, dict[str, Any]], schema: dict[str, Any]) -> list[str]:
    """Every difference between package.json's settings and the server's, one line each.

    VS Code lists the parts of `thresholds` and `approvals` as settings of their own
    (`agentls.thresholds.warn`); the server nests them: both forms are compared."""
    found = []
    sent = {name: value for name, value in declared.items() if name.split(".")[0] not in CLIENT_ONLY}
    for name, value in sorted(sent.items()):
        node = at(schema, name)
        if node is None:
            found.append(f"{name}: the server has no such setting")
        else:
            found += problems_of(name, value, node)
    for key, node in schema["properties"].items():
        parts = {name.split(".", 1)[1] for name in sent if name.startswith(f"{key}.")}
        if key not in sent and not parts:
            found.append(f"{key}: a server setting package.json does not offer")
        elif parts and set(node.get("properties", {})) - parts:  # (a part the server lacks is reported above)
            found.append(f"{key}: package.json lacks {sorted(set(node['properties']) - parts)}")
    return found


def test_package_json_settings_agree_with_the_server():
    declared = contributed()
    assert set(CLIENT_ONLY) <= set(declared)  # a client-only key that went away leaves this list too
    assert disagreements(declared, settings_schema()) == []


def as_contribution(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The server's schema laid out as package.json lays it out (the parts of thresholds and approvals apart)."""
    laid_out = {}
    for key, node in schema["properties"].items():
        if key in ("thresholds", "approvals"):
            laid_out.update({f"{key}.{part}": value for part, value in node["properties"].items()})
        else:
            laid_out[key] = node
    return json.loads(json.dumps(laid_out))


def test_each_kind_of_disagreement_is_found():
    schema = settings_schema()
    declared = as_contribution(schema)
    assert disagreements(declared, schema) == []
    del declared["contextWindow"]["maximum"]  # package.json before issue 28
    declared["maxTokens"]["maximum"] = 2_000_000
    declared["cacheTtl"]["enum"] = ["auto", "5m"]
    declared["thresholds.warn"]["default"] = 0.65
    declared["maxTokens"]["default"] = None  # and its description does not name 8192
    declared["cacheControl"]["type"] = "string"
    declared["diagnosticsWaitMs"]["type"] = "integer"  # dropping null is fine
    declared["mcpServers"]["additionalProperties"]["properties"]["timeout"]["exclusiveMinimum"] = 1
    declared["permissions"]["properties"]["deny"]["items"]["type"] = "number"
    declared["prices"]["additionalProperties"].pop("additionalProperties")
    declared["thresholds.later"] = {"type": "number"}
    del declared["approvals.write"]
    del declared["baseUrl"]
    found = disagreements(declared, schema)
    expected = ("contextWindow: maximum None", "maxTokens: maximum 2000000", "cacheTtl: enum",
                "thresholds.warn: default 0.65", "maxTokens: default None", "cacheControl: type 'string'",
                "mcpServers.additionalProperties.timeout: exclusiveMinimum 1", "permissions.deny.items: type",
                "prices.additionalProperties: additionalProperties None", "thresholds.later: the server has no",
                "approvals: package.json lacks ['write']", "baseUrl: a server setting")
    assert [any(line.startswith(start) for line in found) for start in expected] == [True] * len(expected), found
    assert len(found) == len(expected), found


def test_settings_ts_sends_the_server_keys_and_keeps_the_client_ones():
    source = (CLIENT / "src" / "shared" / "settings.ts").read_text(encoding="utf-8")

    def strings(name: str) -> list[str]:
        found = re.search(rf"export const {name} = \[([^\]]*)\]", source)
        assert found, f"settings.ts no longer declares `export const {name} = [...]`: update this test"
        return re.findall(r'"([^"]+)"', found.group(1))

    assert sorted(strings("SERVER_KEYS")) == sorted(settings_schema()["properties"])
    assert sorted(strings("CLIENT_ONLY")) == sorted(CLIENT_ONLY)


def test_the_schema_is_what_the_server_accepts():
    """The described bounds are the enforced ones: the bounds are kept, one beyond them is reported."""
    for name in ("contextWindow", "outputReserve", "maxTokens", "diagnosticsWaitMs"):
        spec = SPECS[name]
        assert spec.minimum is not None and spec.maximum is not None
        low, high = int(spec.minimum), int(spec.maximum)
        refused = [f"settings.{name} must be an integer from {low:,} to {high:,}"]
        assert parse_settings({name: low})[1] == [] and parse_settings({name: high + 1})[1] == refused
        assert parse_settings({name: low - 1})[1] == refused
        if name != "outputReserve":  # which must also stay below the window
            assert parse_settings({name: high})[1] == []
    warn = SPECS["thresholds"].fields["warn"]
    assert parse_settings({"thresholds": {"warn": warn.maximum}})[1] == []
    assert parse_settings({"thresholds": {"warn": warn.minimum}})[1]  # exclusive: 0 itself is refused
    assert SPECS["thinking"].choices == THINKING_MODES


def test_docs_protocol_names_the_server_keys_and_choices():
    """docs/protocol.md's AgentSettings (which src/protocol.ts mirrors, test/unit/protocol.test.ts) has the
    schema's keys, the parts of thresholds and approvals, and the same choices."""
    doc = (CLIENT.parent / "docs" / "protocol.md").read_text(encoding="utf-8")
    block = re.search(r"^interface AgentSettings \{\n(.*?)^\}", doc, re.S | re.M)
    assert block, "docs/protocol.md no longer declares `interface AgentSettings`"
    declared: dict[str, str] = {}
    group = ""
    for line in block.group(1).splitlines():
        field = re.match(r"( *)(\w+)\?: ([^/]*)", line)
        if field:
            nested = len(field.group(1)) > 2
            group = group if nested else (field.group(2) if field.group(3).strip() == "{" else "")
            declared[f"{group}.{field.group(2)}" if nested else field.group(2)] = field.group(3)
    schema = settings_schema()
    keys = schema["properties"]
    expected = [*keys, *(f"{key}.{part}" for key in ("thresholds", "approvals") for part in keys[key]["properties"])]
    assert sorted(declared) == sorted(expected)
    for name, written in declared.items():
        assert re.findall(r'"([^"]+)"', written) == (at(schema, name) or {}).get("enum", []), name
