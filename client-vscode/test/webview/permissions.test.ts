/**
 * Issue 33 (Low list) in real Chromium: /permissions in a 290 px panel wraps between words (the table it
 * replaces broke words) and names the settings file of each rule.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { permissionsMarkdown } from "../../src/shared/permissions";
import { host, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const shots = path.resolve(root, "..", "test-output", "webview");

test("/permissions at 290 px: one rule a line, wrapped between words, each naming its settings file", async () => {
  await page.setViewportSize({ width: 290, height: 500 });
  const markdown = permissionsMarkdown([
    { rule: "run_shell(npm test*)", decision: "allow", source: "settings" },
    { rule: "write_file(secrets/**)", decision: "deny", source: ".agents/settings.json" },
    { rule: "run_shell(git push*)", decision: "ask", source: "settings" },
  ], { globalValue: { allow: ["run_shell(npm test*)"] }, workspaceValue: { ask: ["run_shell(git push*)"] } });
  await host(page, { type: "notice", markdown, level: "info" });
  const notice = page.locator(".msg.notice").last();
  assert.equal(await notice.locator("table").count(), 0);
  assert.equal(await notice.locator("li").count(), 3);
  const text = await notice.innerText();
  assert.match(text, /user settings/);
  assert.match(text, /workspace settings/);
  // no word is cut: every word of the notice's text nodes fits on one line (a word broken across lines has two rects)
  const broken = await notice.evaluate((n) => {
    const cut: string[] = [];
    const walker = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const s = t.textContent ?? "";
      for (const m of s.matchAll(/\S+/g)) {
        const r = document.createRange();
        r.setStart(t, m.index!);
        r.setEnd(t, m.index! + m[0].length);
        const lines = new Set([...r.getClientRects()].map((rect) => Math.round(rect.top)));
        if (lines.size > 1) cut.push(m[0]);
      }
    }
    return cut;
  });
  assert.deepEqual(broken, [], `words broken across lines: ${broken}`);
  assert.ok(await notice.evaluate((n) => n.scrollWidth <= n.clientWidth + 1), "nothing sticks out sideways");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "permissions-290px.png") });
});
