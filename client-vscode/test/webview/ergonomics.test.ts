/** Transcript ergonomics in real Chromium: follow + jump to latest, collapse, 180 px layout, keyboard order, model picker. */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const turn = "t1";
const delta = (text: string) => ({ type: "event", event: { turnId: turn, kind: "textDelta", text } });
const shots = path.resolve(root, "..", "test-output", "webview");

const MODELS = {
  type: "models",
  source: "endpoint",
  note: "",
  current: "acme-sonnet-9",
  configured: "",
  demo: false,
  models: [
    { id: "acme-sonnet-9", label: "Acme Sonnet 9", contextWindow: 750_000, maxOutput: 64_000, createdAt: "2027-02-01T00:00:00Z", thinking: "manual", efforts: [], lifecycle: "active", inputPerMTok: null, outputPerMTok: null, cacheReadPerMTok: null, cacheWritePerMTok: null },
    { id: "claude-haiku-4-5", label: "Claude Haiku 4.5", contextWindow: 200_000, maxOutput: 64_000, createdAt: "", thinking: "manual", efforts: [], lifecycle: "deprecated", inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25 },
  ],
};

async function logPosition(): Promise<{ top: number; max: number }> {
  return page.$eval(".log", (l) => ({ top: l.scrollTop, max: l.scrollHeight - l.clientHeight }));
}

async function card(id: string, summary: string): Promise<void> {
  const ev = (e: object) => ({ type: "event", event: { turnId: turn, ...e } });
  await host(page, ev({ kind: "toolStart", toolUseId: id, tool: "read_file", summary }));
  await host(page, ev({ kind: "toolEnd", toolUseId: id, tool: "read_file", summary, isError: false, resultChars: 700, marker: "" }));
}

test("the transcript follows streamed text; scrolled up, it stays put and offers Jump to latest", async () => {
  await page.setViewportSize({ width: 420, height: 320 });
  await host(page, { type: "userMessage", text: "stream a lot", attachments: [] }, { type: "turnStarted" });
  for (let i = 0; i < 40; i++) await host(page, delta(`line ${i} of the reply\n\n`));
  let pos = await logPosition();
  assert.ok(pos.max > 200, "the transcript overflows the view");
  assert.ok(pos.max - pos.top <= 2, `follows the bottom (${pos.top}/${pos.max})`);
  assert.equal(await page.isVisible(".jump-latest"), false);

  const box = (await page.locator(".log").boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -600);
  await page.waitForSelector(".jump-latest", { state: "visible" });
  const readingAt = (await logPosition()).top;
  assert.ok(readingAt < pos.max - 100, "the user scrolled up");
  for (let i = 0; i < 20; i++) await host(page, delta(`more ${i}\n\n`));
  pos = await logPosition();
  assert.equal(pos.top, readingAt, "not yanked down while reading");
  assert.equal(await page.isVisible(".jump-latest"), true);

  await page.click(".jump-latest");
  pos = await logPosition();
  assert.ok(pos.max - pos.top <= 2, "jumped to the bottom");
  assert.equal(await page.isVisible(".jump-latest"), false);
  await host(page, delta("and the end\n\n"));
  pos = await logPosition();
  assert.ok(pos.max - pos.top <= 2, "follows again after the jump");
  // scrolled up again, then the user sends a message: back to the bottom, following
  await page.mouse.wheel(0, -600);
  await page.waitForSelector(".jump-latest", { state: "visible" });
  await host(page, { type: "turnEnded", outcome: "done" }, { type: "userMessage", text: "next question", attachments: [] }, { type: "turnStarted" }, delta("answer\n\n"));
  pos = await logPosition();
  assert.ok(pos.max - pos.top <= 2, "sending a message follows again");
  assert.equal(await page.isVisible(".jump-latest"), false);
});

test("a long pasted message is collapsed with Show more; short ones are not", async () => {
  const long = Array.from({ length: 60 }, (_, i) => `pasted paragraph ${i}: ${"words ".repeat(8)}`).join("\n\n");
  await host(page, { type: "userMessage", text: "short question", attachments: [] }, { type: "userMessage", text: long, attachments: [] });
  assert.equal(await page.locator(".msg.user").nth(0).locator(".show-more").count(), 0);
  const msg = page.locator(".msg.user").nth(1);
  const button = msg.locator(".show-more");
  assert.equal(await button.textContent(), "Show more");
  assert.equal(await button.getAttribute("aria-expanded"), "false");
  const clipped = await msg.locator(".md").evaluate((e) => ({ shown: e.clientHeight, full: e.scrollHeight }));
  assert.ok(clipped.shown < clipped.full / 3, `collapsed (${clipped.shown} of ${clipped.full} px)`);
  await button.click();
  assert.equal(await button.getAttribute("aria-expanded"), "true");
  const open = await msg.locator(".md").evaluate((e) => ({ shown: e.clientHeight, full: e.scrollHeight }));
  assert.equal(open.shown, open.full, "expanded in full");
  // a full re-render keeps it open
  await host(page, { type: "turnStarted" }, { type: "turnEnded", outcome: "done" });
  assert.equal(await page.locator(".msg.user").nth(1).locator(".show-more").textContent(), "Show less");
});

test("at 180 px the header, cards, code and input fit; code scrolls sideways; wrapped inline code keeps its underscores", async () => {
  await page.setViewportSize({ width: 180, height: 640 });
  // VS Code's own sizes: the editor font (inline code) is larger than the UI font
  await page.evaluate(() => document.documentElement.style.setProperty("--vscode-editor-font-size", "14px"));
  await host(page, MODELS, { type: "model", label: "claude-sonnet-5-5" }, {
    type: "contextUsage",
    usage: { used: 117_000, window: 200_000, effectiveWindow: 180_000, utilization: 0.65, level: "warn", categories: { system: 1, tools: 1, instructions: 0, user: 1, assistant: 1, toolResults: 1 }, layers: [], nextRequest: "none", model: "claude-sonnet-5-5", demo: false },
  });
  await host(page, { type: "userMessage", text: "look at `tests/agent/test_agent_loop.py` please", attachments: ["server/agentls/agent/loop.py:10-20"] }, { type: "turnStarted" });
  await host(page, delta("Run `tests/agent/test_agent_loop.py` with:\n\n```bash\n.venv/bin/python -m pytest tests/agent/test_agent_loop.py -q -x --maxfail=1 -k 'not slow'\n```\n\n"));
  await card("u1", "read_file server/agentls/agent/a_rather_long_module_name.py");
  await host(page, { type: "turnEnded", outcome: "done", usageText: "1K in · 20 out" });

  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 180, `nothing widens the panel (scrollWidth ${width})`);
  for (const sel of [".bar", ".model-picker select", ".bar .ctx", ".composer", "#input", "#send", ".tool-card", ".msg.user", ".chip", ".code-wrap pre"]) {
    const right = await page.locator(sel).first().evaluate((e) => e.getBoundingClientRect().right);
    assert.ok(right <= 180.5, `${sel} ends at ${right} px`);
  }
  const pre = await page.locator(".msg.assistant pre").evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, overflow: getComputedStyle(e).overflowX }));
  assert.ok(pre.scroll > pre.client && pre.overflow === "auto", "the long command scrolls inside its block");

  const code = page.locator(".msg.assistant p code").first();
  assert.equal(await code.textContent(), "tests/agent/test_agent_loop.py");
  const lines = await code.evaluate((e) => [...e.getClientRects()].map((r) => ({ top: r.top, bottom: r.bottom })));
  assert.ok(lines.length >= 2, "the inline code wraps at this width");
  for (let i = 1; i < lines.length; i++) {
    assert.ok(lines[i].top >= lines[i - 1].bottom - 0.5, `line ${i} of the inline code does not cover the one above (${JSON.stringify(lines)})`);
  }
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "narrow-180.png"), fullPage: true });
});

test("keyboard: input → Send → Stop → the transcript → one stop per message; arrows reach the cards, Enter opens", async () => {
  await host(page, MODELS, { type: "userMessage", text: "read it", attachments: [] }, { type: "turnStarted" });
  await host(page, delta("See `a.py:3` and:\n\n```py\nprint(1)\n```\n\n```py\nprint(2)\n```\n"));
  await card("u1", "read_file a.py");
  await card("u2", "read_file b.py");
  const focused = () =>
    page.evaluate(() => {
      const a = document.activeElement as HTMLElement;
      const c = a.closest(".tool-card") as HTMLElement | null;
      return a.id || (c ? `card:${c.dataset.toolUseId}` : a.classList.contains("msg") ? `msg:${a.classList[1]}` : a.className || a.tagName);
    });
  await page.focus("#input");
  const order: string[] = [];
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press("Tab");
    order.push(await focused());
  }
  // two Copy buttons and a path link are not Tab stops: each message is one
  assert.deepEqual(order, ["send", "stop", "log", "msg:user", "msg:assistant"]);
  const inner: string[] = [];
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press("ArrowDown");
    inner.push(await focused());
  }
  assert.deepEqual(inner, ["path-link", "copy", "copy", "card:u1", "card:u2"]);
  await page.keyboard.press("Enter");
  assert.equal(await page.locator('.tool-card[data-tool-use-id="u2"]').evaluate((d) => (d as HTMLDetailsElement).open), true);
  await page.keyboard.press("Escape");
  assert.equal(await focused(), "msg:assistant", "Escape goes back to the message");
  await page.focus("#input");
  await page.keyboard.press("Shift+Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.className), "model-select", "the model picker is just before the input");
});

test("the model picker lists the endpoint's models with windows, output limits and prices, posts the choice, a custom id too; the fallback and the demo model are labelled", async () => {
  await host(page, MODELS);
  const labels = await page.locator(".model-select option").allTextContents();
  assert.deepEqual(labels, [
    "Acme Sonnet 9 · 750K window · 64K out · price unknown",
    "Claude Haiku 4.5 · 200K window · 64K out · $1/$5 per MTok · deprecated",
    "Other model id…",
  ]);
  assert.equal(await page.locator(".model-select optgroup").getAttribute("label"), "Models offered by the endpoint");
  assert.equal(await page.locator(".model-select").inputValue(), "acme-sonnet-9");
  await clearPosted(page);
  await page.selectOption(".model-select", "claude-haiku-4-5");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "setModel"), [{ type: "setModel", model: "claude-haiku-4-5" }]);
  await clearPosted(page);
  await page.selectOption(".model-select", { label: "Other model id…" });
  await page.fill(".model-custom", "deepseek-chat");
  await page.keyboard.press("Enter");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "setModel"), [{ type: "setModel", model: "deepseek-chat" }]);
  assert.equal(await page.isVisible(".model-custom"), false);
  // the server now answers with the custom id: it is listed and selected
  await host(page, { ...MODELS, current: "deepseek-chat", configured: "deepseek-chat" });
  assert.equal(await page.locator(".model-select").inputValue(), "deepseek-chat");
  // not offered as if it were one of the endpoint's (issue 33): named as unknown to it, and why in the title
  assert.equal(await page.locator(".model-select option:checked").textContent(), "deepseek-chat (not in the endpoint's list)");
  assert.match((await page.locator(".model-select").getAttribute("title")) ?? "", /deepseek-chat is not in the endpoint's list/);
  await host(page, { ...MODELS, source: "fallback", note: "api.acme.test lists no models (it has no Models API)" });
  assert.equal(await page.locator(".model-select optgroup").getAttribute("label"), "Offline list (the endpoint lists no models)");
  assert.match((await page.locator(".model-select").getAttribute("title")) ?? "", /no Models API/);
  // an endpoint that cannot be reached is not one that "lists no models" (issue 33)
  await host(page, { ...MODELS, source: "fallback", note: "api.acme.test could not be reached (connection failed); this is agentls' offline list" });
  assert.equal(await page.locator(".model-select optgroup").getAttribute("label"), "Offline list (the endpoint could not be reached)");
  await host(page, { ...MODELS, current: "demo model (offline)", demo: true });
  assert.equal(await page.locator(".model-select option:checked").textContent(), "demo model (offline)");
});
