"""MCP pieces that need no server: settings parsing, tool names, result text."""

from types import SimpleNamespace

from agentls.agent.mcp.config import parse_servers
from agentls.agent.mcp.names import VALID, qualified_name
from agentls.agent.mcp.results import result_text
from agentls.context import MemoryStore


def test_settings_in_the_mcp_json_shape_and_every_bad_entry_reported_without_secrets():
    servers, problems = parse_servers({
        "b": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer s3cr3t"}, "approval": "always"},
        "a": {"command": "uvx", "args": ["mcp-server-git"], "env": {"TOKEN": "t0k3n"}, "tools": {"git_reset": "never"},
              "timeout": 5},
        "both": {"command": "x", "url": "http://y"},
        "badenv": {"command": "x", "env": {"K": 3}},
        "badmode": {"command": "x", "approval": "sometimes"},
        "badtime": {"command": "x", "timeout": -1},
    })
    assert [s.name for s in servers] == ["a", "b"]  # sorted: a stable tool order
    a, b = servers
    assert (a.transport, a.approval_for("git_reset"), a.approval_for("git_status"), a.timeout) == ("stdio", "never",
                                                                                                   "ask", 5.0)
    assert (b.transport, b.approval_for("anything")) == ("http", "always")
    assert "t0k3n" not in repr(a) and "s3cr3t" not in repr(b) and a.shown() == "uvx mcp-server-git"
    assert sorted(a.secret_values() + b.secret_values()) == ["Bearer s3cr3t", "t0k3n"]
    assert len(problems) == 4 and all("server ignored" in p for p in problems)
    assert not any("3" in p.split(":")[1] for p in problems if "badenv" in p)
    assert parse_servers([]) == ((), []) and parse_servers("x")[1]


def test_qualified_names_always_match_the_api_pattern_and_stay_distinct():
    assert qualified_name("git", "git_status") == "mcp__git__git_status"
    assert qualified_name("my server", "read.file/v2") == "mcp__my_server__read_file_v2"
    long_a = qualified_name("s" * 40, "t" * 40 + "a")
    long_b = qualified_name("s" * 40, "t" * 40 + "b")
    assert long_a != long_b and len(long_a) == 64 and VALID.match(long_a) and VALID.match(long_b)
    assert qualified_name("s" * 40, "t" * 40 + "a") == long_a  # the same in every session


def test_result_text_keeps_text_and_stores_binary_items_behind_refs():
    store = MemoryStore()
    result = SimpleNamespace(content=[
        SimpleNamespace(type="text", text="hello"),
        SimpleNamespace(type="image", mime_type="image/png", data="iVBORw0KGgo="),
        SimpleNamespace(type="resource", resource=SimpleNamespace(uri="file:///a.txt", text="inside", mime_type=None)),
        SimpleNamespace(type="resource", resource=SimpleNamespace(uri="file:///b.bin", blob="AAEC", mime_type=None)),
        SimpleNamespace(type="resource_link", uri="file:///c", name="c", description="a link"),
    ], structured_content=None)
    text = result_text(result, "toolu_9", store)
    assert text.splitlines()[0] == "hello"
    assert "image/png, 8 bytes, stored as context://toolu_9/item-2" in text and "iVBOR" not in text
    assert "[resource file:///a.txt]\ninside" in text
    assert "context://toolu_9/item-4" in text and store.get("context://toolu_9/item-4").endswith("base64,AAEC")
    assert "[resource link file:///c (c) — a link]" in text
    assert store.get("context://toolu_9/item-2") == "data:image/png;base64,iVBORw0KGgo="
    structured = SimpleNamespace(content=[], structured_content={"n": 1})
    assert result_text(structured, "t", store) == '{\n "n": 1\n}'
