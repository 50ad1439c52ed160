/**
 * Issue 34 item 1 in real Chromium: a subagent is ONE card (its `task` call) with its live steps inside,
 * expandable; closed, it says how many steps and the latest; its steps never become cards of the turn.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const ev = (event: Record<string, unknown>) => ({ type: "event", event: { turnId: "t1", ...event } });
const step = (s: Record<string, unknown>) => ev({ kind: "subagentStep", toolUseId: "tu_task", step: s });

test("a subagent is one card whose steps arrive inside it, live, and expand", async () => {
  await host(page, { type: "userMessage", text: "explore", attachments: [] }, { type: "turnStarted" });
  await host(page, ev({ kind: "toolStart", toolUseId: "tu_task", tool: "task", summary: "task find callers" }));
  await host(page, ev({ kind: "subagentStarted", toolUseId: "tu_task", name: "find callers", model: "claude-sonnet-5-5", fork: false, tools: ["read_file"] }));
  await host(page, step({ kind: "textDelta", text: "Looking for callers." }));
  await host(page, step({ kind: "toolStart", toolUseId: "c1", tool: "grep_search", summary: "grep_search main" }));
  assert.equal(await page.locator(".tool-card").count(), 1); // the child's call is no card of its own
  assert.match((await page.textContent(".subagent-card .subagent-meta")) ?? "", /1 step · grep_search main/);
  await page.click(".subagent-card > summary");
  await page.locator(".subagent-card .subagent-steps").waitFor(); // the body comes with the toggle event, a task later
  assert.equal(await page.locator(".subagent-card .subagent-step.running").count(), 1);
  await host(page, step({ kind: "toolEnd", toolUseId: "c1", tool: "grep_search", summary: "3 matches", isError: false, resultChars: 90, marker: "", approval: "", diff: "", reason: "" }));
  await host(page, step({ kind: "toolStart", toolUseId: "c2", tool: "read_file", summary: "read_file app.py" }));
  const lines = await page.locator(".subagent-card .subagent-lines li").allTextContents();
  assert.deepEqual(lines.map((l) => l.replace(/\s+/g, " ").trim()), ["Looking for callers.", "✓grep_search 3 matches", "⟳read_file read_file app.py"]);
  await host(page, step({ kind: "toolEnd", toolUseId: "c2", tool: "read_file", summary: "Read app.py", isError: false, resultChars: 40, marker: "", approval: "", diff: "", reason: "" }));
  await host(page, ev({ kind: "subagentFinished", toolUseId: "tu_task", name: "find callers", isError: false, usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 }, requests: 3, usd: 0.0081, transcript: "context://tu_task/transcript" }));
  await host(page, ev({ kind: "toolEnd", toolUseId: "tu_task", tool: "task", summary: "find callers: done", isError: false, resultChars: 120, marker: "", approval: "", diff: "", reason: "" }));
  assert.match((await page.textContent(".subagent-card .subagent-meta")) ?? "", /2 steps · 1\.5K tokens · \$0\.0081/);
  assert.match((await page.textContent(".subagent-card .subagent-transcript")) ?? "", /context:\/\/tu_task\/transcript/);
  assert.equal(await page.locator(".tool-card").count(), 1);
  await clearPosted(page);
  await page.click(".subagent-transcript a.open-original");
  for (let i = 0; i < 200 && !(await posted(page)).some((m) => m.type === "openOriginal"); i++) {
    await page.evaluate(() => new Promise((r) => setTimeout(r, 10)));
  }
  assert.deepEqual((await posted(page)).filter((m) => m.type === "openOriginal"), [{ type: "openOriginal", toolUseId: "tu_task/transcript" }]);
});

test("an open subagent card asks for its result only once it ended (never the running call's)", async () => {
  await clearPosted(page);
  await host(page, { type: "userMessage", text: "explore", attachments: [] }, { type: "turnStarted" });
  await host(page, ev({ kind: "toolStart", toolUseId: "tu_run", tool: "task", summary: "task look" }));
  await host(page, ev({ kind: "subagentStarted", toolUseId: "tu_run", name: "look", model: "m", fork: false, tools: [] }));
  await page.click(".subagent-card > summary");
  await page.locator(".subagent-card .subagent-steps").waitFor(); // opened: the toggle handler has run
  await host(page, ev({ kind: "subagentStep", toolUseId: "tu_run", step: { kind: "textDelta", text: "hm" } }));
  assert.deepEqual((await posted(page)).filter((m) => m.type === "toolResult"), []);
  await host(page, ev({ kind: "toolEnd", toolUseId: "tu_run", tool: "task", summary: "look: done", isError: false, resultChars: 9, marker: "", approval: "", diff: "", reason: "" }));
  for (let i = 0; i < 200 && !(await posted(page)).some((m) => m.type === "toolResult"); i++) {
    await page.evaluate(() => new Promise((r) => setTimeout(r, 10)));
  }
  assert.deepEqual((await posted(page)).filter((m) => m.type === "toolResult"), [{ type: "toolResult", toolUseId: "tu_run" }]);
});
