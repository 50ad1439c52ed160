/**
 * Issue 9 in real Chromium: expandable tool cards (input, result as the model saw
 * it, the layer that rewrote it and a link to the original), path:line links,
 * the compaction divider that opens the summary, and the header meter.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { ToolResult } from "../../src/protocol";
import { clearPosted, host, posted, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const DEEP = "zebra-7731";
const ev = (event: Record<string, unknown>) => ({ type: "event", event: { turnId: "t1", ...event } });

function result(over: Partial<ToolResult>): ToolResult {
  return {
    toolUseId: "tu_ls", tool: "run_shell", input: { command: "ls -la" }, isError: false,
    text: "total 8\n" + "-rw-r--r-- file\n".repeat(40) + `src/app.py:12: ${DEEP}\n`,
    sent: true, marker: "", layer: "", rewrittenAt: "", ref: "", originalChars: 700, original: null, ...over,
  };
}

async function waitPosted(type: string, n = 1): Promise<{ type: string; [k: string]: unknown }[]> {
  for (let i = 0; i < 200; i++) {
    const found = (await posted(page)).filter((m) => m.type === type);
    if (found.length >= n) return found;
    await page.evaluate(() => new Promise((r) => setTimeout(r, 10)));
  }
  throw new Error(`no ${type} message posted`);
}

async function aTurnWithOneCard(tool = "run_shell", summary = "run_shell ls -la", id = "tu_ls"): Promise<void> {
  await host(page, { type: "userMessage", text: "list", attachments: [] }, { type: "turnStarted" });
  await host(page, ev({ kind: "toolStart", toolUseId: id, tool, summary }));
  await host(page, ev({ kind: "toolEnd", toolUseId: id, tool, summary, isError: false, resultChars: 700, marker: "" }));
}


test("a tool card expands to its input and the result as the model saw it, deep lines included", async () => {
  await aTurnWithOneCard();
  assert.equal(await page.isVisible(`text=${DEEP}`), false);
  await clearPosted(page);
  await page.click(".tool-card > summary");
  assert.deepEqual(await waitPosted("toolResult"), [{ type: "toolResult", toolUseId: "tu_ls" }]);
  await host(page, { type: "toolResult", toolUseId: "tu_ls", result: result({}) });
  assert.equal(await page.textContent(".tool-card .tool-input pre"), "$ ls -la");
  assert.match((await page.textContent(".tool-card .tool-output")) ?? "", new RegExp(DEEP));
  assert.match((await page.textContent(".tool-card .tool-body")) ?? "", /Result as the model saw it/);
  // path:line in the output opens the file at that line
  await clearPosted(page);
  await page.click(".tool-output a.path-link");
  assert.deepEqual(await waitPosted("openFile"), [{ type: "openFile", path: "src/app.py", line: 12 }]);
});

test("a cleared result says which layer, when, and opens its original", async () => {
  await aTurnWithOneCard();
  await host(page, ev({ kind: "layer", layer: "threshold", toolUseIds: ["tu_ls"], marker: "cleared" }));
  assert.equal(await page.textContent(".tool-card .badge.marker-cleared"), "cleared");
  await page.click(".tool-card > summary");
  await waitPosted("toolResult");
  const cleared = result({
    text: "[old result cleared (700 chars); full text: read_file path=\"context://tu_ls\"]",
    marker: "cleared", layer: "clear", rewrittenAt: "2026-12-01T10:02:03Z", ref: "context://tu_ls",
  });
  await host(page, { type: "toolResult", toolUseId: "tu_ls", result: cleared });
  const rewrite = (await page.textContent(".tool-card .rewrite")) ?? "";
  assert.match(rewrite, /Cleared by the clear layer at 10:02:03 UTC/);
  await clearPosted(page);
  await page.click(".tool-card a.open-original");
  assert.deepEqual(await waitPosted("openOriginal"), [{ type: "openOriginal", toolUseId: "tu_ls" }]);
});

test("a folded call shows the index line the model sees, the fold layer, and opens its original", async () => {
  await aTurnWithOneCard();
  await host(page, ev({ kind: "layer", layer: "payback", toolUseIds: ["tu_ls"], marker: "folded" }));
  assert.equal(await page.textContent(".tool-card .badge.marker-folded"), "folded");
  await page.click(".tool-card > summary");
  await waitPosted("toolResult");
  const line = "- run_shell ls -la (700 chars): context://tu_ls; said: Listing the files.";
  const folded = result({ text: line, marker: "folded", layer: "fold", rewrittenAt: "2026-12-01T10:02:03Z", ref: "context://tu_ls" });
  await host(page, { type: "toolResult", toolUseId: "tu_ls", result: folded });
  assert.equal(await page.textContent(".tool-card .tool-output"), line);
  assert.match((await page.textContent(".tool-card .rewrite")) ?? "", /Folded by the fold layer at 10:02:03 UTC/);
  assert.ok(await page.isVisible(".tool-card a.open-original"));
});

test("an open card fetches again when a layer rewrites its result", async () => {
  await aTurnWithOneCard();
  await page.click(".tool-card > summary");
  await waitPosted("toolResult");
  await host(page, { type: "toolResult", toolUseId: "tu_ls", result: result({}) });
  await clearPosted(page);
  await host(page, ev({ kind: "layer", layer: "threshold", toolUseIds: ["tu_ls"], marker: "snipped" }));
  assert.deepEqual(await waitPosted("toolResult"), [{ type: "toolResult", toolUseId: "tu_ls" }]);
});

test("the badge follows what the server says was sent (e.g. a stale badge after a reload)", async () => {
  await aTurnWithOneCard();
  await host(page, ev({ kind: "layer", layer: "threshold", toolUseIds: ["tu_ls"], marker: "cleared" }));
  await page.click(".tool-card > summary");
  await waitPosted("toolResult");
  await host(page, { type: "toolResult", toolUseId: "tu_ls", result: result({}) });
  assert.equal(await page.locator(".tool-card .badge.marker-cleared").count(), 0);
});

test("an edit shows as a diff", async () => {
  await aTurnWithOneCard("edit_file", "edit_file src/app.py", "tu_edit");
  await page.click(".tool-card > summary");
  await waitPosted("toolResult");
  const edit = result({ toolUseId: "tu_edit", tool: "edit_file", input: { path: "src/app.py", old_text: "x = 1\ny = 2\n", new_text: "x = 1\ny = 3\n" }, text: "edited src/app.py" });
  await host(page, { type: "toolResult", toolUseId: "tu_edit", result: edit });
  assert.equal(await page.textContent(".tool-diff .del"), "-y = 2\n");
  assert.equal(await page.textContent(".tool-diff .add"), "+y = 3\n");
});

test("path:line mentions in the reply are links", async () => {
  await host(page, { type: "userMessage", text: "where?", attachments: [] }, { type: "turnStarted" });
  await host(page, ev({ kind: "textDelta", text: "The TODO is in src/app.py:3 and `lib/util.ts:40`." }));
  const links = await page.$$eval(".msg.assistant a.path-link", (as) => as.map((a) => [a.getAttribute("data-path"), a.getAttribute("data-line")]));
  assert.deepEqual(links, [["src/app.py", "3"], ["lib/util.ts", "40"]]);
});

test("the compaction divider shows before → after and opens the summary the model sees", async () => {
  await host(page, { type: "userMessage", text: "hi", attachments: [] }, { type: "turnStarted" }, ev({ kind: "textDelta", text: "hello" }));
  await host(page, { type: "turnEnded", outcome: "done" });
  const summary = "[Conversation summary: earlier turns were compacted]\n\n1. Goal: greet";
  await host(page, { type: "event", event: { turnId: "compact-1", kind: "compactionFinished", tokensBefore: 27_000, tokensAfter: 6_000, summary, reason: "manual", compacted: true } });
  assert.match((await page.textContent(".compaction-divider")) ?? "", /Compacted: 27K → 6K tokens \(asked for\)/);
  await clearPosted(page);
  await page.click(".compaction-divider button");
  const [open] = await waitPosted("openSummary");
  assert.equal(open.summary, summary);
});

test("the header meter is the status bar's: used over the usable window, reserve in the tooltip", async () => {
  const usage = { model: "m", demo: false, used: 29_400, window: 30_000, effectiveWindow: 28_000, utilization: 1.05, level: "high",
    nextRequest: "compact", categories: { system: 0, tools: 0, instructions: 0, user: 0, assistant: 0, toolResults: 0 }, layers: [] };
  await host(page, { type: "contextUsage", usage });
  assert.equal(await page.textContent("header .ctx"), "105% · 29.4K/28K · compacts next");
  assert.match((await page.getAttribute("header .ctx", "title")) ?? "", /28K usable: 30K window − 2K reserved for the reply[\s\S]*compacts the conversation/);
});
