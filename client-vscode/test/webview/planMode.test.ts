/** Plan mode's controls beside Send (issue 34), in real Chromium: the toggle asks, the server's answer shows. */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const shots = path.resolve(root, "..", "test-output", "webview");

test("the Plan toggle asks for plan mode; in plan mode Approve plan shows and asks to act", async () => {
  assert.equal(await page.getAttribute("#plan-toggle", "aria-pressed"), "false");
  assert.equal(await page.isVisible("#approve-plan"), false, "acting: nothing to approve");
  await clearPosted(page);
  await page.click("#plan-toggle");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "setMode"), [{ type: "setMode", mode: "plan" }]);
  assert.equal(await page.getAttribute("#plan-toggle", "aria-pressed"), "false", "the server's answer decides");

  await host(page, { type: "mode", mode: "plan" });
  assert.equal(await page.getAttribute("#plan-toggle", "aria-pressed"), "true");
  assert.equal(await page.isVisible("#approve-plan"), true);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "plan-mode.png") });
  await clearPosted(page);
  await page.click("#approve-plan");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "approvePlan"), [{ type: "approvePlan" }]);

  await host(page, { type: "mode", mode: "act" });
  assert.equal(await page.isVisible("#approve-plan"), false);
  assert.equal(await page.getAttribute("#plan-toggle", "aria-pressed"), "false");
});
