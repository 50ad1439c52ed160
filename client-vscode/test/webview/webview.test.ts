/** The chat webview in real headless Chromium (playwright-core), with a fake VS Code host. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const turn = "t1";
const delta = (text: string) => ({ type: "event", event: { turnId: turn, kind: "textDelta", text } });

test("the page boots, says ready, and has no CSP violations", async () => {
  const msgs = await posted(page);
  assert.deepEqual(msgs[0], { type: "ready" });
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp), []);
});

test("streamed markdown renders incrementally, with highlighting and a copy button", async () => {
  await host(page, { type: "userMessage", text: "explain", attachments: [] }, { type: "turnStarted" });
  await host(page, delta("# Tit"), delta("le\n\nSome **bo"));
  assert.equal(await page.textContent(".msg.assistant h1"), "Title");
  await host(page, delta("ld** text and `co"), delta("de`\n\n```python\nprint('hi')\n"));
  assert.equal(await page.textContent(".msg.assistant strong"), "bold");
  assert.equal(await page.textContent(".msg.assistant p code"), "code");
  // an unfinished fence already renders as a code block
  assert.equal(await page.textContent(".msg.assistant pre code"), "print('hi')\n");
  await host(page, delta("```\n\nDone."), { type: "turnEnded", outcome: "done", usageText: "1K in · 20 out" });
  assert.ok((await page.locator(".msg.assistant pre code .hljs-string").count()) >= 1, "python string highlighted");
  assert.equal(await page.textContent(".msg.assistant .footer"), "1K in · 20 out");
  await clearPosted(page);
  await page.click(".msg.assistant button.copy");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "copy"), [{ type: "copy", text: "print('hi')\n" }]);
});

test("HTML and script payloads in model output are inert", async () => {
  const payloads = [
    "<script>window.__pwned = 1</script>",
    '<img src="x" onerror="window.__pwned = 2">',
    '<svg onload="window.__pwned = 3"></svg>',
    "[click me](javascript:window.__pwned=4)",
    '<a href="javascript:window.__pwned=5">x</a>',
    "<iframe src=\"javascript:window.top.__pwned=6\"></iframe>",
  ].join("\n\n");
  await host(page, { type: "userMessage", text: payloads, attachments: [] }, { type: "turnStarted" });
  await host(page, delta(payloads));
  await host(page, {
    type: "event",
    event: { turnId: turn, kind: "toolStart", toolUseId: "u1", tool: "<img src=x onerror=window.__pwned=7>", summary: '<img src=x onerror="window.__pwned=8">' },
  });
  await host(page, { type: "notice", markdown: payloads, level: "info" }, { type: "event", event: { turnId: turn, kind: "error", message: '<img src=x onerror="window.__pwned=9">' } });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.equal(await page.locator(".log img, .log script, .log svg, .log iframe").count(), 0);
  assert.equal(await page.locator('.log a[href^="javascript"]').count(), 0);
  // file names are not turned into links to web domains (hello.py is not http://hello.py)
  await host(page, delta("\n\nsee hello.py and https://example.com"));
  assert.deepEqual(await page.locator(".msg.assistant a").evaluateAll((as) => as.map((a) => a.getAttribute("href"))), ["https://example.com"]);
  // the payload is visible as text
  assert.match((await page.textContent(".msg.assistant")) ?? "", /<script>window.__pwned = 1<\/script>/);
});

test("thinking is shown collapsed", async () => {
  await host(page, { type: "turnStarted" }, { type: "event", event: { turnId: turn, kind: "thinkingDelta", text: "secret plan" } }, delta("answer"));
  const open = await page.locator("details.thinking").evaluate((d) => (d as HTMLDetailsElement).open);
  assert.equal(open, false);
  assert.equal(await page.isVisible("details.thinking .thinking-body"), false);
  await page.click("details.thinking summary");
  assert.equal(await page.isVisible("details.thinking .thinking-body"), true);
});

test("tool cards show tool, path, size and marker badges; layer events update them", async () => {
  await host(page, { type: "turnStarted" }, {
    type: "event",
    event: { turnId: turn, kind: "toolStart", toolUseId: "u1", tool: "read_file", summary: "src/big.py" },
  });
  const card = page.locator('.tool-card[data-tool-use-id="u1"]');
  assert.equal(await card.locator(".tool-name").textContent(), "read_file");
  assert.equal(await card.locator(".tool-summary").textContent(), "src/big.py");
  assert.equal(await card.locator(".badge.running").count(), 1);
  await host(page, {
    type: "event",
    event: { turnId: turn, kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "src/big.py", isError: false, resultChars: 48200, marker: "truncated" },
  });
  assert.equal(await card.locator(".size").textContent(), "48K chars");
  assert.equal(await card.locator(".badge.marker").textContent(), "truncated");
  await host(page, {
    type: "event",
    event: { turnId: turn, kind: "toolStart", toolUseId: "u2", tool: "run_command", summary: "pytest -q" },
  }, {
    type: "event",
    event: { turnId: turn, kind: "toolEnd", toolUseId: "u2", tool: "run_command", summary: "pytest -q", isError: true, resultChars: 300, marker: "" },
  }, { type: "turnEnded", outcome: "done" });
  const card2 = page.locator('.tool-card[data-tool-use-id="u2"]');
  assert.equal(await card2.locator(".badge.error").count(), 1);
  assert.equal(await card2.locator(".badge.marker").count(), 0);
  // a later pipeline change snips the first result
  await host(page, { type: "event", event: { turnId: "t2", kind: "layer", layer: "snip", toolUseIds: ["u1"], marker: "snipped" } });
  assert.equal(await card.locator(".badge.marker").textContent(), "snipped");
  for (const marker of ["budgeted", "cleared"]) {
    await host(page, { type: "event", event: { turnId: "t2", kind: "layer", layer: "x", toolUseIds: ["u2"], marker } });
    assert.equal(await card2.locator(".badge.marker").textContent(), marker);
  }
});

test("Stop sends cancel (button and Escape)", async () => {
  assert.equal(await page.isVisible("#stop"), false);
  await host(page, { type: "turnStarted" }, delta("working"));
  assert.equal(await page.isVisible("#stop"), true);
  assert.equal(await page.getAttribute("#send", "aria-disabled"), "true");
  await clearPosted(page);
  await page.click("#stop");
  assert.deepEqual(await posted(page), [{ type: "stop" }]);
  await clearPosted(page);
  await page.focus("#input");
  await page.keyboard.press("Escape");
  assert.deepEqual(await posted(page), [{ type: "stop" }]);
  await host(page, { type: "turnEnded", outcome: "cancelled", message: "Stopped." });
  assert.equal(await page.isVisible("#stop"), false);
  assert.match((await page.textContent(".msg.assistant")) ?? "", /Stopped\./);
});

test("slash commands dispatch the right messages", async () => {
  const cases: [string, unknown][] = [
    ["/compact keep the API notes", { type: "command", name: "compact", args: "keep the API notes" }],
    ["/compact", { type: "command", name: "compact", args: "" }],
    ["/cost", { type: "command", name: "cost", args: "" }],
    ["/clear", { type: "command", name: "clear", args: "" }],
    ["/context", { type: "command", name: "context", args: "" }],
    ["/mcp", { type: "command", name: "mcp", args: "" }],
    ["what does main.py do?", { type: "send", text: "what does main.py do?" }],
  ];
  for (const [text, expected] of cases) {
    await clearPosted(page);
    await page.fill("#input", text);
    await page.press("#input", "Enter");
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type !== "mentionQuery"),
      [expected],
      text,
    );
    assert.equal(await page.inputValue("#input"), "");
  }
  await clearPosted(page);
  await page.fill("#input", "/frobnicate");
  await page.press("#input", "Enter");
  assert.deepEqual(await posted(page), []);
  await page.evaluate(() => (window as unknown as { __agentlsFlush: () => void }).__agentlsFlush());
  assert.match((await page.textContent(".msg.notice")) ?? "", /Unknown command/);
});

test("slash completion list is keyboard driven", async () => {
  await page.focus("#input");
  await page.keyboard.type("/co");
  const options = page.locator(".suggest li");
  assert.equal(await options.count(), 3);
  await page.keyboard.press("ArrowDown"); // cost
  await page.keyboard.press("Tab");
  assert.equal(await page.inputValue("#input"), "/cost");
  assert.equal(await page.isVisible(".suggest"), false);
  await clearPosted(page);
  await page.keyboard.press("Enter");
  assert.deepEqual(await posted(page), [{ type: "command", name: "cost", args: "" }]);
});

test("@-mentions ask the host for files and complete from its list", async () => {
  await page.focus("#input");
  await page.keyboard.type("look at @ma");
  const q = (await posted(page)).filter((m) => m.type === "mentionQuery");
  assert.deepEqual(q[q.length - 1], { type: "mentionQuery", query: "ma", seq: q.length }); // numbered, for the logs
  await host(page, { type: "mentionResults", query: "ma", items: ["src/main.py", "docs/manual.md"] });
  assert.equal(await page.locator(".suggest li").count(), 2);
  await page.keyboard.press("Enter");
  assert.equal(await page.inputValue("#input"), "look at @src/main.py ");
  await clearPosted(page);
  await page.keyboard.type("please");
  await page.keyboard.press("Enter");
  assert.deepEqual((await posted(page)).filter((m) => m.type === "send"), [{ type: "send", text: "look at @src/main.py please" }]);
});

test("after a reload the conversation comes from the host (no copy in the webview state); the draft survives", async () => {
  await host(
    page,
    { type: "userMessage", text: "hello there", attachments: ["a.py"] },
    { type: "turnStarted" },
    delta("General **Kenobi**"),
    { type: "event", event: { turnId: turn, kind: "toolStart", toolUseId: "u9", tool: "read_file", summary: "a.py" } },
    { type: "event", event: { turnId: turn, kind: "toolEnd", toolUseId: "u9", tool: "read_file", summary: "a.py", isError: false, resultChars: 10, marker: "" } },
    { type: "turnEnded", outcome: "done" },
  );
  await page.fill("#input", "half-typed draft");
  await page.waitForTimeout(50);
  const kept = await page.evaluate(() => sessionStorage.getItem("vscodeState") ?? "");
  assert.match(kept, /half-typed draft/);
  assert.doesNotMatch(kept, /hello there|Kenobi/, "the webview state holds no transcript");
  await page.reload();
  await page.waitForSelector("#input");
  assert.deepEqual((await posted(page))[0], { type: "ready" });
  const init = { type: "init", busy: false, server: { phase: "running" }, modelLabel: "demo (offline)" };
  // the extension is still reading the server's transcript of record: no "empty chat" hint meanwhile,
  // and the draft waits for it (it may have been sent since it was saved: draft.ts)
  await host(page, { ...init, items: [], loading: true });
  assert.equal(await page.locator(".msg").count(), 0);
  assert.equal(await page.locator(".empty").count(), 0);
  assert.equal(await page.inputValue("#input"), "");
  await host(page, { ...init, items: [{ role: "user", text: "from the server's record", attachments: [] }] });
  assert.equal(await page.inputValue("#input"), "half-typed draft");
  assert.equal(await page.locator(".msg").count(), 1);
  assert.equal((await page.textContent(".msg.user .md"))?.trim(), "from the server's record");
  assert.equal(await page.textContent(".bar .model"), "demo (offline)");
  await host(page, { ...init, items: [] }); // a conversation with nothing in it
  assert.equal(await page.locator(".empty").count(), 1);
});

test("a draft VS Code hands back from before a prompt the conversation shows was sent: it is not put back", async () => {
  await host(page, { type: "userMessage", text: "run ls -la", attachments: [] }, { type: "turnStarted" }, { type: "turnEnded", outcome: "done" });
  await page.fill("#input", "edit README.md");
  await page.waitForTimeout(50);
  const older = await page.evaluate(() => sessionStorage.getItem("vscodeState") ?? "");
  assert.match(older, /edit README\.md/);
  await page.press("#input", "Enter");
  await page.waitForTimeout(50);
  assert.equal(await page.inputValue("#input"), "");
  // after a window reload VS Code restored the copy saved before that Enter (seen in the e2e)
  await page.evaluate((s) => sessionStorage.setItem("vscodeState", s), older);
  await page.reload();
  await page.waitForSelector("#input");
  await page.focus("#input");
  await page.keyboard.type("typed right after the load");
  const init = { type: "init", busy: false, server: { phase: "running" }, modelLabel: "demo (offline)" };
  const user = (text: string) => ({ role: "user", text, attachments: [] });
  await host(page, { ...init, items: [user("run ls -la"), user("edit README.md"), user("read hello.py")] });
  assert.equal(await page.inputValue("#input"), "typed right after the load", "the sent prompt is not the draft");
  await page.waitForTimeout(50);
  assert.doesNotMatch(await page.evaluate(() => sessionStorage.getItem("vscodeState") ?? ""), /edit README/);
  // the same older copy over a conversation where nothing was sent since: the draft comes back, first
  await page.evaluate((s) => sessionStorage.setItem("vscodeState", s), older);
  await page.reload();
  await page.waitForSelector("#input");
  await page.focus("#input");
  await page.keyboard.type(" now");
  await host(page, { ...init, items: [user("run ls -la")] });
  assert.equal(await page.inputValue("#input"), "edit README.md now");
});

test("server state, context usage and clear", async () => {
  await host(page, { type: "server", status: { phase: "error", message: "agentls is not installed" } });
  assert.match((await page.textContent(".server")) ?? "", /agentls is not installed/);
  await clearPosted(page);
  await page.click(".server button.restart");
  assert.deepEqual(await posted(page), [{ type: "restartServer" }]);
  await host(page, { type: "server", status: { phase: "running" } }, {
    type: "contextUsage",
    usage: { used: 117000, window: 200000, effectiveWindow: 180000, utilization: 0.65, level: "warn", categories: { system: 1, tools: 1, instructions: 0, user: 1, assistant: 1, toolResults: 1 }, layers: [] },
  });
  assert.equal(await page.isVisible(".server"), false);
  assert.equal(await page.textContent(".bar .ctx"), "65% · 117K/180K");
  assert.match((await page.getAttribute(".bar .ctx", "class")) ?? "", /level-warn/);
  await host(page, { type: "userMessage", text: "x", attachments: [] }, { type: "cleared" });
  assert.equal(await page.locator(".msg").count(), 0);
  assert.equal(await page.locator(".empty").count(), 1);
});

test("keyboard only: focus order reaches input and Send; selection quotes are inserted", async () => {
  await host(page, { type: "insertText", text: "`a.py` lines 1-2:\n```python\nx = 1\n```\n" }, { type: "focusInput" });
  assert.equal(await page.evaluate(() => document.activeElement?.id), "input");
  assert.match(await page.inputValue("#input"), /`a.py` lines 1-2/);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "send");
  await clearPosted(page);
  await page.keyboard.press("Enter");
  const sent = (await posted(page)).filter((m) => m.type === "send");
  assert.equal(sent.length, 1);
  assert.match(String(sent[0].text), /x = 1/);
});
