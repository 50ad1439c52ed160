/**
 * Issue 33 (Low list) in real Chromium: the notice after a restore has an Undo button; pressing it asks the
 * extension to restore the files to the checkpoint taken before the restore.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

test("the restore notice's Undo posts the undo's restore", async () => {
  const action = { label: "Undo", title: "Put the files back as they were before this restore", post: { type: "restore", checkpoint: "u1", restore: "code", prompt: "Undo restore of “edit README.md”" } };
  await host(page, { type: "notice", markdown: "Restored `README.md`. Undo puts the files back as they were before this restore.", level: "info", action });
  const undo = page.locator(".msg.notice button.notice-action");
  assert.equal(await undo.textContent(), "Undo");
  assert.equal(await undo.getAttribute("title"), action.title);
  await clearPosted(page);
  await undo.click();
  assert.deepEqual((await posted(page)).filter((m) => m.type === "restore"), [action.post]);
  // a notice without one has no button
  await host(page, { type: "notice", markdown: "Restore cancelled: nothing changed.", level: "warn" });
  assert.equal(await page.locator(".msg.notice").last().locator("button.notice-action").count(), 0);
});
