import assert from "node:assert/strict";
import { test } from "node:test";
import type { McpServersResult } from "../../src/protocol";
import { confirmDetail, confirmTitle, rememberKey } from "../../src/shared/confirm";
import { mcpMarkdown, mcpPickRows } from "../../src/shared/mcp";

const listing: McpServersResult = {
  toolListChanges: 1,
  servers: [
    {
      name: "git", transport: "stdio", target: "uvx mcp-server-git", state: "running", error: "",
      envKeys: ["TOKEN"], headerKeys: [],
      tools: [
        { name: "git_status", qualifiedName: "mcp__git__git_status", approval: "always", description: "Shows the working tree status" },
        { name: "git_reset", qualifiedName: "", approval: "never", description: "" },
      ],
    },
    {
      name: "docs", transport: "http", target: "http://127.0.0.1:8000/mcp", state: "failed",
      error: "MCP server 'docs' could not start: ConnectError\nmore", envKeys: [], headerKeys: ["Authorization"], tools: [],
    },
  ],
};

test("/mcp markdown lists servers, state, tools and hides secret values", () => {
  const md = mcpMarkdown(listing);
  assert.match(md, /\*\*git\*\* — running · stdio `uvx mcp-server-git` \(env TOKEN: hidden\)/);
  assert.match(md, /`mcp__git__git_status` · always — Shows the working tree status/);
  assert.match(md, /git\\_reset \(not offered\) · never/);
  assert.match(md, /\*\*docs\*\* — failed · http .*header Authorization: hidden/);
  assert.match(md, /⚠ MCP server 'docs' could not start: ConnectError$/m);
  assert.match(md, /Tool-list changes this session: 1/);
  assert.match(mcpMarkdown({ servers: [], toolListChanges: 0 }), /No MCP servers configured/);
});

test("quick pick rows: one per server, one per tool", () => {
  const rows = mcpPickRows(listing);
  assert.deepEqual(rows.map((r) => r.kind), ["server", "tool", "tool", "server"]);
  assert.equal(rows[0].description, "running · stdio · 2 tools");
  assert.equal(rows[2].description, "never · not offered");
  assert.equal(rows[3].detail, "MCP server 'docs' could not start: ConnectError");
});

test("mcp approvals: title, arguments, remembered per server and tool", () => {
  const p = { kind: "mcp" as const, server: "git", tool: "git_commit", input: '{\n "message": "x"\n}' };
  assert.equal(confirmTitle(p), "The agent wants to call git_commit on MCP server 'git'");
  assert.equal(confirmDetail(p), p.input);
  assert.equal(rememberKey(p), "mcp:git/git_commit");
});
