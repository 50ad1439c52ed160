/**
 * Issue 18 in real Chromium: approvals asked inside the transcript and answered by keyboard only,
 * pasted text that keeps its lines, card summaries that wrap at 180 px, a visible focus ring, and a
 * resumed conversation whose cards fetch their own results.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import * as T from "../../src/shared/transcript";
import { fromSession } from "../../src/shared/transcriptOfRecord";
import type { TranscriptEntry } from "../../src/protocol";
import { clearPosted, host, posted, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const shots = path.resolve(root, "..", "test-output", "webview");
const ev = (e: object) => ({ type: "event", event: { turnId: "t1", ...e } });
const start = (id: string, tool: string, summary: string) => ev({ kind: "toolStart", toolUseId: id, tool, summary });
const end = (id: string, tool: string, summary: string, extra: object = {}) =>
  ev({ kind: "toolEnd", toolUseId: id, tool, summary, isError: false, resultChars: 120, marker: "", approval: "", diff: "", reason: "", ...extra });

const DIFF = "--- a/notes.md\n+++ b/notes.md\n@@ -80,3 +80,4 @@\n line 77\n line 78\n line 79\n+<!-- edited -->\n";

async function active(): Promise<string> {
  return page.evaluate(() => {
    const a = document.activeElement as HTMLElement;
    if (a.closest(".approval")) return `approval:${a.dataset.choice ?? a.tagName.toLowerCase()}`;
    return a.id || a.className || a.tagName;
  });
}

async function answers(): Promise<unknown[]> {
  return (await posted(page)).filter((m) => m.type === "approvalAnswer");
}

test("an approval is asked inside the transcript and answered with the keyboard only (Tab / Enter)", async () => {
  await page.setViewportSize({ width: 420, height: 700 });
  await host(page, { type: "userMessage", text: "clean up and mark the notes", attachments: [] }, { type: "turnStarted" });
  await host(page, ev({ kind: "textDelta", text: "Cleaning the build first." }), start("u1", "run_shell", "run_shell rm -rf build"));
  await page.focus("#input");
  await page.keyboard.type("a draft");
  await clearPosted(page);
  await host(page, { type: "approval", id: "a1", params: { kind: "shell", command: "rm -rf build", toolUseId: "u1" } });

  // on the asking card, which waits; the card takes the focus (Approve) as it appears
  const card = page.locator('.tool-card[data-tool-use-id="u1"]');
  assert.match((await card.textContent()) ?? "", /waiting for approval/);
  const approval = page.locator('.approval[data-approval-id="a1"]');
  assert.equal(await card.evaluate((c) => c.nextElementSibling?.getAttribute("data-approval-id")), "a1", "asked right under its card");
  assert.match((await approval.textContent()) ?? "", /wants to run a shell command\$ rm -rf build/);
  assert.equal(await active(), "approval:approve");
  await mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "approval-inline-shell.png") });
  await page.keyboard.press("Enter");
  assert.deepEqual(await answers(), [{ type: "approvalAnswer", id: "a1", choice: "approve", reason: "" }]);
  assert.equal(await approval.count(), 0, "answered: the question leaves the transcript");
  assert.equal(await active(), "input", "the focus goes back to the input");
  assert.equal(await page.inputValue("#input"), "a draft", "the draft is kept");
  assert.match((await card.textContent()) ?? "", /running/);
  await host(page, end("u1", "run_shell", "rm -rf build → exit 0", { approval: "approved" }));
  assert.match((await card.textContent()) ?? "", /approved/);

  // an edit: the diff with the file's line numbers; Tab to the reason, type it, Enter rejects with it
  await host(page, start("u2", "edit_file", "edit_file notes.md"));
  await clearPosted(page);
  await host(page, { type: "approval", id: "a2", params: { kind: "edit", path: "notes.md", diff: DIFF, toolUseId: "u2" } });
  const edit = page.locator('.approval[data-approval-id="a2"]');
  assert.deepEqual(await edit.locator(".tool-diff span").allTextContents(), ["@@ -80,3 +80,4 @@\n", " line 77\n", " line 78\n", " line 79\n", "+<!-- edited -->\n"]);
  assert.equal(await active(), "approval:approve");
  const stops: string[] = [];
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("Tab");
    stops.push(await active());
  }
  assert.deepEqual(stops, ["approval:always", "approval:reject", "approval:input"]);
  await page.keyboard.type("not on the main branch");
  await host(page, ev({ kind: "usage", usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } }));
  assert.equal(await active(), "approval:input", "a re-render keeps the focus and what was typed");
  await page.screenshot({ path: path.join(shots, "approval-inline-edit-reason.png") });
  await page.keyboard.press("Enter");
  assert.deepEqual(await answers(), [{ type: "approvalAnswer", id: "a2", choice: "reject", reason: "not on the main branch" }]);
  await host(page, end("u2", "edit_file", "Edit notes.md → not approved", { isError: true, approval: "rejected", reason: "not on the main branch", diff: DIFF }));
  const rejected = page.locator('.tool-card[data-tool-use-id="u2"]');
  assert.equal(await rejected.locator(".badge.outcome").textContent(), "rejected");
  assert.match((await rejected.locator(".badge.outcome").getAttribute("title")) ?? "", /not on the main branch/);

  // Always (the card says which permission rules it adds), by Tab then Enter; Escape rejects
  const rules = ["run_shell(ls)"];
  await host(page, start("u3", "run_shell", "run_shell ls"), { type: "approval", id: "a3", params: { kind: "shell", command: "ls", toolUseId: "u3", rules } });
  const always = page.locator('.approval[data-approval-id="a3"] .approval-always');
  assert.equal(await always.textContent(), '"Always" allows from now on: run_shell(ls)');
  await clearPosted(page);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await host(page, start("u4", "run_shell", "run_shell make"), { type: "approval", id: "a4", params: { kind: "shell", command: "make", toolUseId: "u4" } });
  await page.keyboard.press("Escape");
  assert.deepEqual(await answers(), [
    { type: "approvalAnswer", id: "a3", choice: "always", reason: "" },
    { type: "approvalAnswer", id: "a4", choice: "reject", reason: "" },
  ]);
  assert.equal((await posted(page)).some((m) => m.type === "stop"), false, "Escape in the question is no Stop");

  // withdrawn by the server (its timeout): the question goes, the card stays
  await host(page, start("u5", "run_shell", "run_shell sleep 1"), { type: "approval", id: "a5", params: { kind: "shell", command: "sleep 1", toolUseId: "u5" } });
  await host(page, { type: "approvalDone", id: "a5" });
  assert.equal(await page.locator(".approval").count(), 0);
});

test("a question no card asks about is shown after the transcript", async () => {
  await host(page, { type: "approval", id: "m1", params: { kind: "mcp", server: "git", tool: "git_push", input: '{"force": true}' } });
  const loose = page.locator("#app .log > .approval");
  assert.match((await loose.textContent()) ?? "", /call git_push on MCP server 'git'/);
  assert.equal(await active(), "approval:approve");
});

test("a pasted 200-line log keeps its lines, collapsed with Show more", async () => {
  const log = Array.from({ length: 200 }, (_, i) =>
    i % 50 === 0 ? `# section ${i}` : i % 7 === 0 ? `    at frame ${i} (x.py:${i})` : `- 12:00:${String(i % 60).padStart(2, "0")} INFO line ${i}`,
  ).join("\n");
  await host(page, { type: "userMessage", text: log, attachments: [] });
  const msg = page.locator(".msg.user").last();
  const text = msg.locator(".user-text");
  assert.equal(await msg.locator(".show-more").textContent(), "Show more");
  const clipped = await text.evaluate((e) => ({ shown: e.clientHeight, full: e.scrollHeight }));
  assert.ok(clipped.shown < clipped.full / 5, `collapsed (${clipped.shown} of ${clipped.full} px)`);
  await msg.locator(".show-more").click();
  const lines = (await text.innerText()).split("\n");
  assert.equal(lines.length, 200, "one line per pasted line");
  assert.equal(lines[0], "# section 0", "not a heading: shown as typed");
  assert.equal(lines[7], "    at frame 7 (x.py:7)", "indentation kept");
  assert.equal(await msg.locator("h1, li, pre").count(), 0, "no markdown made of it");
  const rows = await text.evaluate((e) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  assert.ok(rows >= 200, `rendered on ${rows} lines`);
});

test("at 180 px card summaries wrap in full instead of shrinking to R…", async () => {
  await page.setViewportSize({ width: 180, height: 640 });
  await host(page, { type: "userMessage", text: "search", attachments: [] }, { type: "turnStarted" });
  const summary = "grep /TODO/ → 28 matches in 7 files";
  await host(page, start("g1", "grep_search", "grep_search TODO"), end("g1", "grep_search", summary));
  await host(page, start("r1", "read_file", "read_file x"), end("r1", "read_file", "Read server/agentls/context/a_rather_long_module_name.py (120 lines)"));
  await host(page, { type: "turnEnded", outcome: "done" });
  for (const id of ["g1", "r1"]) {
    const s = page.locator(`.tool-card[data-tool-use-id="${id}"] .tool-summary`);
    const box = await s.evaluate((e) => ({
      right: e.getBoundingClientRect().right,
      scroll: e.scrollWidth,
      client: e.clientWidth,
      overflow: getComputedStyle(e).textOverflow,
      lines: (() => {
        const range = document.createRange();
        range.selectNodeContents(e);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      })(),
    }));
    assert.ok(box.right <= 180.5, `${id} ends at ${box.right}`);
    assert.ok(box.scroll <= box.client + 1 && box.overflow !== "ellipsis", `${id} is shown whole (${JSON.stringify(box)})`);
    assert.ok(box.lines >= 2, `${id} wraps (${box.lines} lines)`);
  }
  assert.equal(await page.locator('.tool-card[data-tool-use-id="g1"] .tool-summary').innerText(), summary);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 180);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "narrow-180-summaries.png"), fullPage: true });
});

test("a focused message shows a focus ring", async () => {
  await host(page, { type: "userMessage", text: "hello", attachments: [] });
  await page.focus("#input");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Tab"); // send, (stop is hidden) the log, the message
  const ring = await page.evaluate(() => {
    const a = document.activeElement as HTMLElement;
    const s = getComputedStyle(a);
    return { msg: a.classList.contains("msg"), style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });
  assert.ok(ring.msg && ring.style !== "none" && ring.width >= 1, JSON.stringify(ring));
});

test("a resumed conversation shows its transcript of record, and each card fetches its own result", async () => {
  const tool = (id: string, name: string, summary: string) => ({
    id, name, summary, isError: false, resultChars: 99, marker: "" as const, input: {}, diff: "", approval: "" as const, reason: "", done: true,
  });
  const entries: TranscriptEntry[] = [
    { kind: "message", role: "user", text: "read notes", tools: [], turnId: "t1", checkpoint: "t1", attachments: [] },
    { kind: "message", role: "assistant", text: "Reading.", tools: [tool("toolu_demo_001_0", "read_file", "Read notes.md (3 lines)")], turnId: "t1" },
    { kind: "message", role: "assistant", text: "It says 42.", tools: [], turnId: "t1" },
    { kind: "compaction", role: "system", text: "", tools: [], turnId: "", compaction: { tokensBefore: 8000, tokensAfter: 2000, reason: "manual", summary: "s" } },
  ];
  await host(page, { type: "init", items: fromSession(entries).items, busy: false, server: { phase: "running" }, modelLabel: "" });
  assert.deepEqual(await page.locator(".log > .msg").evaluateAll((m) => m.map((e) => e.classList[1])), ["user", "assistant", "notice"]);
  assert.match((await page.locator(".compaction-divider").textContent()) ?? "", /Compacted: 8K → 2K tokens/);
  await clearPosted(page);
  await page.locator(".tool-card summary").click();
  await host(page, { type: "toolResult", toolUseId: "toolu_demo_001_0", result: { toolUseId: "toolu_demo_001_0", tool: "read_file", input: { path: "notes.md" }, isError: false, text: "FIRST CONVERSATION", sent: true, marker: "", layer: "", rewrittenAt: "", ref: "", originalChars: 18, original: null } });
  assert.match((await page.locator(".tool-output").textContent()) ?? "", /FIRST CONVERSATION/);
  // another conversation whose card has the same id: it asks the server again, never shows the old text
  const other = entries.slice(0, 2).map((e) => ({ ...e, text: e.role === "user" ? "read app" : e.text }));
  await clearPosted(page);
  await host(page, { type: "init", items: fromSession(other).items, busy: false, server: { phase: "running" }, modelLabel: "" });
  assert.equal(await page.locator(".tool-card").evaluate((d) => (d as HTMLDetailsElement).open), true, "still open");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "toolResult"), [{ type: "toolResult", toolUseId: "toolu_demo_001_0" }]);
  assert.equal(await page.locator(".tool-output", { hasText: "FIRST CONVERSATION" }).count(), 0);
});

test("issue 33.4: a resumed transcript shows what happened to it: rewound turns grey, badges on cards, restore notes", async () => {
  const card = (id: string, marker: "cleared" | "snipped" | "") => ({
    id, name: "read_file", summary: `Read ${id}`, isError: false, resultChars: 99, marker, input: {}, diff: "", approval: "" as const, reason: "", done: true,
  });
  const entries: TranscriptEntry[] = [
    { kind: "message", role: "user", text: "edit notes", tools: [], turnId: "t1", checkpoint: "t1", attachments: [] },
    { kind: "message", role: "assistant", text: "Edited.", tools: [card("c1", "cleared")], turnId: "t1" },
    { kind: "message", role: "user", text: "read again", tools: [], turnId: "t2", checkpoint: "t2", attachments: [] },
    { kind: "message", role: "assistant", text: "Read.", tools: [card("c2", "snipped")], turnId: "t2" },
    { kind: "note", role: "system", text: "Restored `notes.md`.", tools: [], turnId: "", level: "info" },
  ];
  const t = fromSession(entries);
  T.markRewound(t, new Set(["t1"]));
  await host(page, { type: "init", items: t.items, busy: false, server: { phase: "running" }, modelLabel: "" });
  assert.equal(await page.locator(".msg.assistant.rewound").count(), 1, "the restored turn is grey");
  assert.match((await page.locator(".msg.assistant.rewound").textContent()) ?? "", /Edited\./);
  assert.equal(await page.textContent(".msg.assistant.rewound .tool-card .badge.marker-cleared"), "cleared");
  assert.equal(await page.textContent(".msg.assistant:not(.rewound) .tool-card .badge.marker-snipped"), "snipped");
  assert.match((await page.locator(".msg.notice").last().textContent()) ?? "", /Restored notes\.md\./);
});

test("issue 33.7: a retry reads as seconds, not a raw float", async () => {
  await host(page, { type: "userMessage", text: "hello", attachments: [] }, { type: "turnStarted" });
  await host(page, { type: "event", event: { turnId: "t9", kind: "retry", attempt: 2, delaySeconds: 0.9961943065520347, reason: "overloaded", discardPartial: false } });
  const text = (await page.locator(".msg.assistant").last().textContent()) ?? "";
  assert.match(text, /Retrying \(attempt 2\) in 1 s: overloaded/);
  assert.doesNotMatch(text, /0\.996/);
});

test("issue 33.7: a failed turn has a Retry that sends its prompt again", async () => {
  await host(page, { type: "userMessage", text: "are you back?", attachments: [] }, { type: "turnStarted" });
  await host(page, { type: "event", event: { turnId: "t8", kind: "textDelta", text: "Partly answered" } });
  await host(page, { type: "turnEnded", outcome: "error", message: "model API at 127.0.0.1 connection failed" });
  const failed = page.locator(".msg.assistant.error").last();
  assert.match((await failed.textContent()) ?? "", /Partly answered/, "the streamed text stays");
  await clearPosted(page);
  await failed.locator("button.retry").click();
  assert.deepEqual((await posted(page)).filter((m) => m.type === "send"), [{ type: "send", text: "are you back?" }]);
  assert.equal(await page.locator(".msg.assistant.done button.retry").count(), 0, "only failed turns offer it");
});
