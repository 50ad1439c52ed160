/**
 * Issue 33 in real Chromium: a failed turn's Retry is offered until a prompt follows it (after Retry the old
 * button stayed under the failed turn, seen in the e2e's 33c screenshot).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { host, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

test("a failed turn's Retry goes once a prompt follows it", async () => {
  await host(page, { type: "userMessage", text: "a question the endpoint dies on", attachments: [] }, { type: "turnStarted" });
  await host(page, { type: "turnEnded", outcome: "error", message: "model API at 127.0.0.1 unavailable (503) after 5 attempts" });
  const retry = page.locator(".msg.assistant.error button.retry");
  assert.equal(await retry.isVisible(), true);
  await host(page, { type: "userMessage", text: "a question the endpoint dies on", attachments: [] }, { type: "turnStarted" });
  assert.equal(await retry.isVisible(), false, "retried: the old failed turn offers it no more");
});
