/** The task list above the input (issue 21): a collapsible checklist fed by `todos` events, in real Chromium. */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const shots = path.resolve(root, "..", "test-output", "webview");
const PLAN = [
  { content: "Read the notes", status: "completed" },
  { content: "Fix the parser in src/parse.py", status: "in_progress" },
  { content: "Update the README", status: "pending" },
];

const items = () =>
  page.locator("#todos li").evaluateAll((lis) =>
    lis.map((li) => ({ status: li.getAttribute("data-status"), text: li.querySelector(".todo-text")?.textContent })),
  );

test("the list appears above the input when the model writes one, and follows every change", async () => {
  assert.equal(await page.isVisible("#todos"), false, "no list: no checklist");
  await host(page, { type: "turnStarted" }, { type: "event", event: { turnId: "t1", kind: "todos", todos: PLAN } });
  assert.equal(await page.isVisible("#todos"), true);
  assert.equal(await page.textContent("#todos summary"), "Tasks 1/3 · Fix the parser in src/parse.py");
  assert.deepEqual(await items(), PLAN.map((t) => ({ status: t.status, text: t.content })));
  // above the input, inside the composer
  const box = await page.locator("#todos").boundingBox();
  const input = await page.locator("#input").boundingBox();
  assert.ok(box && input && box.y + box.height <= input.y + 1, "the checklist sits above the input");
  // a done item is struck through, the one in progress stands out
  assert.match(await page.locator('#todos li[data-status="completed"] .todo-text').evaluate((e) => getComputedStyle(e).textDecorationLine), /line-through/);
  assert.equal(await page.locator('#todos li[data-status="in_progress"] .todo-text').evaluate((e) => getComputedStyle(e).fontWeight), "600");
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "todos.png") });

  const next = [PLAN[0], { ...PLAN[1], status: "completed" }, { ...PLAN[2], status: "in_progress" }];
  await host(page, { type: "event", event: { turnId: "t1", kind: "todos", todos: next } });
  assert.equal(await page.textContent("#todos summary"), "Tasks 2/3 · Update the README");
  // the list is not part of the transcript: no note, no card
  assert.equal(await page.locator(".log .note, .log .tool-card").count(), 0);
  await host(page, { type: "todos", todos: [] }); // a new chat
  assert.equal(await page.isVisible("#todos"), false);
});

test("collapsing it is the user's choice and survives a reload; the model text stays inert", async () => {
  const hostile = [{ content: '<img src=x onerror="window.__pwned=1">', status: "pending" }, ...PLAN];
  await host(page, { type: "todos", todos: hostile });
  assert.equal(await page.locator("#todos li").count(), 4);
  assert.equal(await page.locator("#todos img").count(), 0);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  await page.click("#todos summary");
  assert.equal(await page.locator("#todos").evaluate((d) => (d as HTMLDetailsElement).open), false);
  assert.equal(await page.isVisible("#todos li >> nth=0"), false);
  await page.waitForTimeout(50);
  await page.reload();
  await page.waitForSelector("#input");
  await host(page, { type: "server", status: { phase: "running" } });
  assert.equal(await page.isVisible("#todos"), true, "the last list is restored with the panel");
  assert.equal(await page.locator("#todos").evaluate((d) => (d as HTMLDetailsElement).open), false, "still collapsed");
  await page.click("#todos summary");
  assert.equal(await page.isVisible("#todos li >> nth=1"), true);
});

test("custom commands complete after the built-ins and are sent as commands, not prompts", async () => {
  await host(page, { type: "commands", commands: [{ name: "review", description: "Review a file", source: "workspace", argumentHint: "<file>" }] });
  await page.focus("#input");
  await page.keyboard.type("/rev");
  assert.deepEqual(await page.locator(".suggest li .label").allTextContents(), ["/review <file>"]);
  await page.keyboard.press("Tab");
  assert.equal(await page.inputValue("#input"), "/review ");
  await page.keyboard.type("src/app.py");
  await clearPosted(page);
  await page.keyboard.press("Enter");
  assert.deepEqual((await posted(page)).filter((m) => m.type !== "ready"), [{ type: "customCommand", name: "review", args: "src/app.py" }]);
});
