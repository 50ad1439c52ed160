/**
 * Issue 33 (Low list) in real Chromium: an approval that waits is one key away. Scrolled off by a long reply
 * and left for the input, it is announced under the input ("Approval waiting ↑"), the next Tab stop; Enter
 * there scrolls to the question and focuses its Approve. Answered, the button goes.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { host, posted, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const shots = path.resolve(root, "..", "test-output", "webview");
const ev = (e: object) => ({ type: "event", event: { turnId: "t1", ...e } });

async function active(): Promise<string> {
  return page.evaluate(() => {
    const a = document.activeElement as HTMLElement;
    if (a.closest(".approval")) return `approval:${a.dataset.choice ?? a.tagName.toLowerCase()}`;
    return a.id || a.className || a.tagName;
  });
}

test("an approval that waits is one Tab from the input, and Enter goes to it", async () => {
  await page.setViewportSize({ width: 420, height: 600 });
  const jump = page.locator("#go-approval");
  assert.equal(await jump.isVisible(), false, "no button while nothing waits");
  await host(page, { type: "userMessage", text: "clean up", attachments: [] }, { type: "turnStarted" });
  await host(page, ev({ kind: "toolStart", toolUseId: "u1", tool: "run_shell", summary: "run_shell rm -rf build" }));
  await host(page, { type: "approval", id: "a1", params: { kind: "shell", command: "rm -rf build", toolUseId: "u1" } });
  // the user goes back to the input and the question scrolls out of sight under a long reply of another view
  await page.focus("#input");
  await page.keyboard.type("meanwhile, a draft");
  await host(page, { type: "notice", markdown: Array.from({ length: 80 }, (_, i) => `line ${i}`).join("\n\n"), level: "info" });
  const question = page.locator('.approval[data-approval-id="a1"]');
  assert.equal(await question.evaluate((q) => q.getBoundingClientRect().bottom < (q.closest(".log")?.getBoundingClientRect().top ?? 0)), true, "the question is out of sight");
  assert.equal(await jump.isVisible(), true);
  assert.match((await jump.textContent()) ?? "", /Approval waiting/);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "approval-waiting-button.png") });

  await page.keyboard.press("Tab");
  assert.equal(await active(), "go-approval", "the next Tab stop after the input");
  await page.keyboard.press("Enter");
  assert.equal(await active(), "approval:approve");
  assert.equal(await question.evaluate((q) => {
    const r = q.getBoundingClientRect(), l = (q.closest(".log") as HTMLElement).getBoundingClientRect();
    return r.top >= l.top - 1 && r.bottom <= l.bottom + 1;
  }), true, "scrolled into sight");
  await page.keyboard.press("Enter");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "approvalAnswer").map((m) => m.choice), ["approve"]);
  assert.equal(await jump.isVisible(), false, "answered: the button goes");
  assert.equal(await page.inputValue("#input"), "meanwhile, a draft", "the draft is kept");
});
