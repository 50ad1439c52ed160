/**
 * Issue 33 (Low list) in real Chromium: an empty chat says what the offline demo model can do while it is the
 * one answering (a newcomer without a key otherwise types prompts it has no rule for), and says nothing of it
 * once a real model answers.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { host, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const shots = path.resolve(root, "..", "test-output", "webview");
const usage = (demo: boolean) => ({
  type: "contextUsage",
  usage: { model: demo ? "demo model (offline)" : "claude-sonnet-5-5", demo, used: 2_000, window: 30_000, effectiveWindow: 28_000, utilization: 0.07,
    level: "ok", nextRequest: "", categories: { system: 0, tools: 0, instructions: 0, user: 0, assistant: 0, toolResults: 0 }, layers: [] },
});

test("an empty chat lists what the demo model can do while it answers, and not once a real model does", async () => {
  await page.setViewportSize({ width: 360, height: 600 });
  await host(page, { type: "init", items: [], busy: false, server: { phase: "running" }, modelLabel: "" });
  assert.equal(await page.locator(".empty .demo-can").count(), 0, "nothing said of the demo before the usage says who answers");
  await host(page, usage(true));
  const hint = (await page.locator(".empty").innerText()).replace(/\s+/g, " ");
  for (const prompt of ["read README.md", "list the files", "search for TODO", "run ls -la", "edit notes.md"]) {
    assert.ok(hint.includes(prompt), `the hint shows "${prompt}": ${hint}`);
  }
  assert.match(hint, /offline demo model answers/);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "empty-chat-demo.png") });
  await host(page, usage(false));
  assert.equal(await page.locator(".empty .demo-can").count(), 0, "a real model answers: the demo's list goes");
  assert.match(await page.locator(".empty").innerText(), /Ask the agent about your workspace/);
});
