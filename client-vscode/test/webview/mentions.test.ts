/**
 * Issue 24: the @-mention list and focus. The input closes its list 150 ms after
 * it loses focus (a click elsewhere); a focus that comes back before then, or a
 * mention typed meanwhile, must not lose the answer to the query just sent.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { clearPosted, host, posted, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

/** Waits in the page for longer than the input's delayed close (150 ms): page timers run in order. */
async function afterBlurDelay(): Promise<void> {
  await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));
}

async function queries(): Promise<{ query: string; seq: number }[]> {
  return (await posted(page)).filter((m) => m.type === "mentionQuery") as unknown as { query: string; seq: number }[];
}

test("Stop, then at once back to the input and @: the answer to the query is shown (the e2e race)", async () => {
  await host(page, { type: "userMessage", text: "count slowly", attachments: [] }, { type: "turnStarted" });
  await page.focus("#input");
  // what the e2e does on a fast machine: the Stop click takes the focus, the turn ends,
  // the input is focused again and `@hel` typed, all within the 150 ms of the delayed close
  await page.evaluate(() => {
    const input = document.getElementById("input") as HTMLTextAreaElement;
    (document.getElementById("stop") as HTMLButtonElement).focus(); // the click on Stop: the input blurs
    input.focus();
    input.value = "summarise @hel";
    input.selectionStart = input.selectionEnd = input.value.length;
    input.dispatchEvent(new Event("input"));
  });
  const q = await queries();
  assert.equal(q[q.length - 1].query, "hel");
  await afterBlurDelay(); // the blur's delayed close is due: the input has the focus again, nothing closes
  await host(page, { type: "mentionResults", query: "hel", items: ["hello.py"], seq: q[q.length - 1].seq });
  assert.deepEqual(await page.locator(".suggest li .detail").allTextContents(), ["hello.py"]);
  await page.keyboard.press("Enter");
  assert.equal(await page.inputValue("#input"), "summarise @hello.py ");
});

test("a list closed because the input lost the focus asks again when the input gets it back", async () => {
  await page.focus("#input");
  await page.keyboard.type("look at @ma");
  let q = await queries();
  await host(page, { type: "mentionResults", query: "ma", items: ["src/main.py"], seq: q[q.length - 1].seq });
  assert.equal(await page.locator(".suggest li").count(), 1);
  await page.evaluate(() => (document.getElementById("send") as HTMLButtonElement).focus()); // away
  await afterBlurDelay();
  assert.equal(await page.isVisible(".suggest"), false, "clicking away closes the list");
  // an answer that arrives while the input is not focused does not open it
  await host(page, { type: "mentionResults", query: "ma", items: ["src/main.py"], seq: q[q.length - 1].seq });
  assert.equal(await page.isVisible(".suggest"), false);
  await clearPosted(page);
  await page.focus("#input"); // back: the mention at the caret is asked again
  q = await queries();
  assert.equal(q.length, 1);
  assert.equal(q[0].query, "ma");
  await host(page, { type: "mentionResults", query: "ma", items: ["src/main.py", "docs/manual.md"], seq: q[0].seq });
  assert.equal(await page.locator(".suggest li").count(), 2);
});

test("only the latest query's answer opens the list; older answers are dropped", async () => {
  await page.focus("#input");
  await page.keyboard.type("@he");
  const q = await queries();
  assert.deepEqual(q.map((m) => m.query), ["", "h", "he"]);
  assert.deepEqual(q.map((m) => m.seq), [q[0].seq, q[0].seq + 1, q[0].seq + 2], "numbered in order");
  await host(page, { type: "mentionResults", query: "h", items: ["a/h.py", "hello.py"], seq: q[1].seq });
  assert.equal(await page.isVisible(".suggest"), false, "an answer to an older query is stale");
  await host(page, { type: "mentionResults", query: "he", items: ["hello.py"], seq: q[2].seq });
  assert.deepEqual(await page.locator(".suggest li .detail").allTextContents(), ["hello.py"]);
});

test("focusing the input without a mention at the caret asks nothing", async () => {
  await page.focus("#input");
  await page.keyboard.type("plain text");
  await page.evaluate(() => (document.getElementById("send") as HTMLButtonElement).focus());
  await afterBlurDelay();
  await clearPosted(page);
  await page.focus("#input");
  assert.deepEqual(await queries(), []);
  assert.equal(await page.isVisible(".suggest"), false);
});
