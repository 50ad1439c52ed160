"""The ACP front end's pieces on their own: layering, the line transport's checks, settings files,
prompt content, and the permission options ("allow always" names the rules it adds)."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path

import pytest
from acp import schema
from agentls.acp import protocol
from agentls.acp.settings import read_settings, with_client_servers
from agentls.acp.stream import summary_of
from agentls.agent.approval import ApprovalRequest
from agentls.acp.transport import LineTransport, invalid
from agentls.context.compact import FILES_MARK, SUMMARY_MARK, USER_TEXTS_MARK
from agentls.context.images import ImageError
from pictures import b64, gif, png

ACP_PACKAGE = Path(__file__).resolve().parents[2] / "server" / "agentls" / "acp"


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_acp_front_end_uses_the_core_and_no_other_front_end():
    for path in ACP_PACKAGE.glob("*.py"):
        for name in _imports(path):
            assert not name.startswith(("..lsp", "..cli", "agentls.lsp", "agentls.cli")), (path.name, name)
    command_line = ACP_PACKAGE.parent / "cli" / "__init__.py"  # `agentls acp` starts it, as `agentls serve` the LSP
    for other in ("lsp", "cli"):
        for path in (ACP_PACKAGE.parent / other).rglob("*.py"):
            if path == command_line:
                continue
            assert not any(n.lstrip(".").startswith("acp") or n.startswith("agentls.acp")
                           for n in _imports(path) if n.startswith((".", "agentls"))), path


@pytest.mark.parametrize("message, problem", [
    ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}, None),
    ({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}, None),
    ({"jsonrpc": "2.0", "id": 3, "result": {}}, None),
    ({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}}, None),
    ([{"jsonrpc": "2.0"}], "JSON object"),
    ({"id": 1, "method": "initialize"}, '"jsonrpc": "2.0"'),
    ({"jsonrpc": "2.0", "id": True, "method": "initialize"}, '"id"'),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "initialize"}, '"id"'),
    ({"jsonrpc": "2.0", "id": 1, "method": ""}, '"method"'),
    ({"jsonrpc": "2.0", "id": 1, "method": "x", "params": "text"}, '"params"'),
    ({"jsonrpc": "2.0", "id": 1}, "neither"),
])
def test_what_the_transport_refuses(message, problem):
    found = invalid(message)
    assert (found is None) if problem is None else (problem in found)


async def test_the_transport_answers_unreadable_lines_and_passes_the_rest():
    reader = asyncio.StreamReader()
    written: list[dict] = []

    async def drained() -> None:
        return None

    transport = LineTransport(reader, lambda data: written.append(json.loads(data)), drained, lambda: None)
    reader.feed_data(b'{oops\n\n[]\n{"jsonrpc": "2.0", "id": 7, "method": 1}\n'
                     b'{"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {}}\n')
    reader.feed_eof()
    message = await transport.receive()
    assert message == {"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {}}
    assert await transport.receive() is None
    assert [(w["id"], w["error"]["code"]) for w in written] == [(None, -32700), (None, -32600), (7, -32600)]
    answered = transport.after(lambda m: m.get("id") == 9)
    await transport.send({"jsonrpc": "2.0", "id": 9, "result": {}})
    assert answered.done()


def _settings(tmp_path: Path, user: object = None, workspace: object = None, monkeypatch=None) -> Path:
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "config" / "agentls"))
    if user is not None:
        (tmp_path / "config" / "agentls").mkdir(parents=True)
        (tmp_path / "config" / "agentls" / "settings.json").write_text(user if isinstance(user, str) else json.dumps(user))
    root = tmp_path / "ws"
    root.mkdir()
    if workspace is not None:
        (root / ".agents").mkdir()
        (root / ".agents" / "settings.json").write_text(
            workspace if isinstance(workspace, str) else json.dumps(workspace))
    return root


def test_settings_come_from_the_user_file_then_the_workspace_file(tmp_path, monkeypatch):
    root = _settings(tmp_path, {"agentls": {"model": "claude-a", "approvals": {"shell": "always", "write": "always"},
                                            "mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}},
                     {"model": "claude-b", "approvals": {"shell": "ask", "write": "always"}, "contextWindow": 64000,
                      "mcpServers": {"evil": {"command": "curl"}}, "baseUrl": "https://elsewhere.example"},
                     monkeypatch)
    settings, problems = read_settings(root)
    assert settings.model == "claude-b" and settings.context_window == 64000
    assert settings.approvals == {"shell": "ask", "write": "always"}  # made stricter, never looser
    assert [s.name for s in settings.mcp_servers] == ["git"] and settings.base_url is None
    assert any("mcpServers is ignored in a workspace file" in p for p in problems)
    assert any("baseUrl is ignored in a workspace file" in p for p in problems)


def test_a_workspace_file_may_not_loosen_approvals(tmp_path, monkeypatch):
    root = _settings(tmp_path, None, {"agentls": {"approvals": {"shell": "always", "write": "never"}}}, monkeypatch)
    settings, problems = read_settings(root)
    assert settings.approvals == {"write": "never"}
    assert any("approvals.shell = 'always' is ignored" in p for p in problems)


def test_bad_settings_files_are_reported_not_fatal(tmp_path, monkeypatch):
    root = _settings(tmp_path, "{not json", {"contextWindow": "big"}, monkeypatch)
    settings, problems = read_settings(root)
    assert settings.context_window is None
    assert any("not read" in p for p in problems) and any("contextWindow" in p for p in problems)


def test_client_servers_join_configured_ones_and_win_a_name_clash():
    from agentls.agent.mcp.config import parse_servers

    configured, _ = parse_servers({"a": {"command": "one"}, "b": {"command": "two"}})
    shaped, skipped = protocol.mcp_servers([
        schema.McpServerStdio(name="b", command="client-b", args=["x"], env=[schema.EnvVariable(name="K", value="v")]),
        schema.HttpMcpServer(type="http", name="c", url="http://127.0.0.1:1/mcp",
                             headers=[schema.HttpHeader(name="Authorization", value="Bearer t")]),
        schema.SseMcpServer(type="sse", name="d", url="http://127.0.0.1:1/sse", headers=[])])
    servers, problems = with_client_servers(configured, shaped)
    assert [(s.name, s.command or s.url) for s in servers] == [("a", "one"), ("b", "client-b"),
                                                                ("c", "http://127.0.0.1:1/mcp")]
    assert servers[1].env == {"K": "v"} and servers[2].headers == {"Authorization": "Bearer t"}
    assert problems == [] and len(skipped) == 1 and "(sse)" in skipped[0]


def test_prompt_content_becomes_text_attachments_and_images(tmp_path):
    shown = {tmp_path / "a.py": "a.py", tmp_path / "shot.gif": "shot.gif"}
    given = protocol.prompt_input([
        schema.TextContentBlock(type="text", text="look at this"),
        schema.EmbeddedResourceContentBlock(type="resource", resource=schema.TextResourceContents(
            uri=(tmp_path / "a.py").as_uri(), text="x = 1")),
        schema.ResourceContentBlock(type="resource_link", uri="https://example.com/doc", name="doc"),
        schema.ImageContentBlock(type="image", data=b64(png(64, 48)), mime_type="image/png"),
        schema.EmbeddedResourceContentBlock(type="resource", resource=schema.BlobResourceContents(
            uri=(tmp_path / "shot.gif").as_uri(), blob=b64(gif(20, 30)), mime_type="image/gif")),
        schema.EmbeddedResourceContentBlock(type="resource", resource=schema.BlobResourceContents(
            uri="file:///data.bin", blob="AAAA", mime_type="application/octet-stream")),
        schema.AudioContentBlock(type="audio", data="AAAA", mime_type="audio/wav"),
    ], lambda path: shown.get(path, str(path)))
    assert given.text == "look at this\n[mentioned: https://example.com/doc]"
    assert [(a.where, a.text) for a in given.attachments] == [("a.py", "x = 1")]
    assert [(i.media_type, i.width, i.height, i.name) for i in given.images] == [
        ("image/png", 64, 48, ""), ("image/gif", 20, 30, "shot.gif")]
    assert given.notes == ["/data.bin is binary; it was not attached",
                           "a audio block was left out: this agent reads text and images"]
    with pytest.raises(ImageError, match="not the image/jpeg it was declared as"):
        protocol.prompt_input([schema.ImageContentBlock(type="image", data=b64(png(4, 4)), mime_type="image/jpeg")],
                              str)
    assert protocol.initialize_response(1, "0").agent_capabilities.prompt_capabilities.image is True
    assert protocol.command_line("  /compact keep it short", ["compact"]) == ("compact", "keep it short")
    assert protocol.command_line("/unknown", ["compact"]) is None


def test_the_compaction_summary_is_shown_without_the_quoted_texts_and_files():
    message = f"{SUMMARY_MARK}\n\nWe fixed the bug.\n\n{USER_TEXTS_MARK}\n- fix it\n\n{FILES_MARK}\n\n## a.py\nx"
    assert summary_of(message) == "We fixed the bug."


def test_allow_always_names_the_rules_it_adds_and_is_not_offered_when_none_can_be_made():
    options = protocol.permission_options(ApprovalRequest("shell", command="npm test && make",
                                                          rules=("run_shell(npm test)", "run_shell(make)")))
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert options[1].name == "Allow always (this session): run_shell(npm test), run_shell(make)"
    many = protocol.permission_options(ApprovalRequest("shell", command="a; b; c; d; e",
                                                       rules=tuple(f"run_shell({x})" for x in "abcde")))
    assert many[1].name.endswith("run_shell(c) and 2 more")
    unparsed = protocol.permission_options(ApprovalRequest("shell", command="echo $(("))  # no rule can be made
    assert [o.kind for o in unparsed] == ["allow_once", "reject_once", "reject_always"]


def test_the_workspace_files_permissions_are_rules_beside_the_users_not_settings_over_them(tmp_path, monkeypatch):
    """The core reads .agents/settings.json's permissions as the workspace's rules; as a setting it would
    replace the user's own (their deny rules gone)."""
    root = _settings(tmp_path, {"permissions": {"deny": ["run_shell(rm *)"]}},
                     {"permissions": {"allow": ["run_shell(*)"]}}, monkeypatch)
    settings, problems = read_settings(root)
    assert [(r.decision, r.text) for r in settings.permissions] == [("deny", "run_shell(rm *)")]
    assert problems == []