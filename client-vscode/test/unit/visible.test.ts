import assert from "node:assert/strict";
import { test } from "node:test";
import { confirmDetail, confirmTitle } from "../../src/shared/confirm";
import { visible } from "../../src/shared/visible";

// Issue 8, point 5: the dialog shows exactly what will run.
const SPOOF = "rm -rf ~/precious\r\x1b[2Kls -la";
const HIDDEN = ["\r", "\x1b", "\b", "\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\u200b", "\u2028", "\ufeff"];

test("visible escapes hidden characters and keeps the rest (same output as the Python one)", () => {
  assert.equal(visible(SPOOF), "rm -rf ~/precious\\r\\x1b[2Kls -la");
  assert.equal(visible("a\bb\x00c\x7fd\x9be"), "a\\bb\\x00c\\x7fd\\x9be");
  assert.equal(visible("safe\u202e.txt\u2066x\u200by"), "safe\\u202e.txt\\u2066x\\u200by");
  assert.equal(visible("line 1\n\tline 2 café 😀 → λ"), "line 1\n\tline 2 café 😀 → λ");
  for (const char of HIDDEN) assert.ok(!visible(`x${char}y`).includes(char), JSON.stringify(char));
});

test("the approval dialog escapes commands, paths and diffs", () => {
  const shell = confirmDetail({ kind: "shell", command: SPOOF });
  assert.equal(shell, "rm -rf ~/precious\\r\\x1b[2Kls -la");
  const title = confirmTitle({ kind: "write", path: "a\u202eb.txt" });
  const detail = confirmDetail({ kind: "edit", path: "a\u202eb.txt", diff: "-x\n+ok\r\x1b[1Ahidden\n" });
  assert.match(title, /a\\u202eb\.txt/);
  assert.match(detail, /\+ok\\r\\x1b\[1Ahidden/);
  for (const char of HIDDEN) assert.ok(!(shell + title + detail).includes(char), JSON.stringify(char));
});

test("MCP approvals escape the server, the tool and the arguments too", () => {
  const p = { kind: "mcp" as const, server: "git\u202e", tool: "run\x1b[2K", input: JSON.stringify({ cmd: "x" }) + "\r\x1b[2K{}" };
  const title = confirmTitle(p);
  const detail = confirmDetail(p);
  assert.match(title, /run\\x1b\[2K on MCP server 'git\\u202e'/);
  assert.match(detail, /\\r\\x1b\[2K\{\}$/);
  for (const char of HIDDEN) assert.ok(!(title + detail).includes(char), JSON.stringify(char));
});
