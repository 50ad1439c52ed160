// Issue 9 in a real VS Code: the context the user sees is the context the model sees.
//
// Called from run.mjs after the built-in steps (agentls + the offline demo model):
//   c1 the compaction divider (from step 04) opens the summary the model now sees
//   c2 a fresh conversation reads three large files, one per turn; the third would overflow the window, so a layer
//      clears the first;
//      at every step the status bar percentage equals the fraction beside it (±1 point)
//   c3 a tool card expanded shows a token that sits only deep inside the tool's output
//   c4 Show Context follows the conversation (its percentage is the status bar's after each turn)
//   c5 the cleared result's card says so, and its original opens read-only from the card
//   c6 after a window reload the restored Show Context tab is not blank: it shows the meter's number
import { writeFileSync } from "node:fs";
import path from "node:path";
import { newChat } from "./newChat.mjs";

const DEEP = "DEEP_TOKEN_4242";
const METER = /(\d+)% · ([\d.]+)(K|M)?\/([\d.]+)(K|M)?/;
const scale = (unit) => (unit === "K" ? 1e3 : unit === "M" ? 1e6 : 1);

/** The status bar meter, checked: the percentage equals the fraction beside it within one point. */
export function meterOf(text, fail) {
  const m = METER.exec(text);
  if (!m) return undefined;
  const used = parseFloat(m[2]) * scale(m[3]);
  const usable = parseFloat(m[4]) * scale(m[5]);
  const pct = parseInt(m[1], 10);
  const fraction = (100 * used) / usable;
  if (Math.abs(pct - fraction) > 1) fail(`status bar "${text}": ${pct}% but the fraction beside it is ${fraction.toFixed(1)}%`);
  return { pct, used, usable };
}

function bigFile(name, lines, deep) {
  const out = [`"""${name}: a large module for the context e2e steps."""`, ""];
  for (let i = 0; i < lines; i++) {
    out.push(i === Math.floor(lines / 2) && deep ? `MARKER = "${DEEP}"  # only here, deep inside` : `value_${i} = "${"abcdefghij".repeat(5)}"`);
  }
  return out.join("\n") + "\n";
}

function previewFrame(page) {
  return page.frameLocator('iframe.webview.ready[src*="markdown-language-features"]').frameLocator("iframe#active-frame");
}

export async function contextSteps({ page, chat, workspace, shot, palette, statusText, waitFor, log, fail }) {
  const meters = [];
  const checkMeter = async (step) => {
    const text = await statusText(page);
    const m = meterOf(text, fail);
    if (m) meters.push(`${step}: "${text}"`);
    return m;
  };
  await checkMeter("start");

  // c1: the divider left by step 04's compaction opens the summary
  const divider = chat.locator(".compaction-divider button").first();
  await divider.waitFor({ timeout: 30_000 });
  log(`divider: "${(await divider.textContent())?.trim()}"`);
  await divider.click();
  await page.locator(".tab", { hasText: "Compaction summary" }).first().waitFor({ timeout: 30_000 });
  await page.locator(".editor-instance .view-lines", { hasText: "Conversation summary" }).first().waitFor({ timeout: 15_000 });
  await shot(page, "c1-compaction-summary");
  log("the compaction divider opened the summary the model sees");

  // c2: a fresh conversation, three large files read one per turn
  await newChat({ page, chat, palette, waitFor });
  const start = await waitFor(async () => checkMeter("after clear"), 30_000, "the meter after clear");
  // each file about 36% of the usable window: the third read would overflow it, so a layer makes room
  // (the window forces nothing before the request would not fit: autoCompact 1)
  const lines = Math.max(200, Math.floor((0.36 * start.usable * 4) / 75));
  for (const name of ["alpha.py", "beta.py", "gamma.py"]) writeFileSync(path.join(workspace, name), bigFile(name, lines, name === "alpha.py"));
  log(`usable window ${start.usable}: three files of ${lines} lines`);

  await palette(page, "Agent: Show Context");
  await page.locator(".tab", { hasText: "Agent Context" }).first().waitFor({ timeout: 30_000 });
  const preview = previewFrame(page);
  const previewPct = async () => {
    const m = /(\d+)% · /.exec((await preview.locator("body").textContent({ timeout: 5000 })) ?? "");
    return m ? parseInt(m[1], 10) : undefined;
  };
  const followed = [];
  let turns = 0;
  for (const name of ["alpha.py", "beta.py", "gamma.py"]) {
    await chat.locator("#input").fill(`Read ${name}`);
    await chat.locator("#input").press("Enter");
    turns++;
    await waitFor(async () => (await chat.locator(".msg.assistant.done").count()) >= turns, 90_000, `the reply about ${name}`);
    const m = await waitFor(async () => checkMeter(`after ${name}`), 10_000, "the meter");
    // c4: the live context report shows the meter's number without being reopened
    const shown = await waitFor(async () => {
      const p = await previewPct();
      const now = (await checkMeter(`after ${name} (again)`))?.pct;
      return p !== undefined && p === now ? p : undefined;
    }, 30_000, `Show Context to follow the meter (${m.pct}%) after ${name}`);
    followed.push(shown);
    if (name === "alpha.py") {
      // c3: expand the card: the deep token was never on screen before
      if (await chat.locator(`text=${DEEP}`).count()) fail(`${DEEP} is visible before the card is expanded`);
      const card = chat.locator(".tool-card", { hasText: "alpha.py" }).first();
      await card.locator("summary").click();
      await card.locator(".tool-output", { hasText: DEEP }).waitFor({ timeout: 30_000 });
      await card.locator(".tool-output", { hasText: DEEP }).evaluate((pre) => {
        const at = pre.textContent.indexOf("DEEP_TOKEN_4242");
        pre.scrollTop = (pre.scrollHeight * at) / pre.textContent.length - 40;
      });
      await shot(page, "c3-card-expanded-deep-token");
      log(`card expanded: "${DEEP}" from deep inside alpha.py's output (line ${Math.floor(lines / 2) + 3})`);
      await card.locator("summary").click(); // fold it again
    }
    await shot(page, `c2-after-${name.replace(".py", "")}`);
  }
  if (new Set(followed).size < 2) fail(`Show Context did not move with the conversation: ${followed.join(", ")}`);
  log(`Show Context followed the conversation: ${followed.join("% → ")}%`);
  await shot(page, "c4-show-context-live");

  // c5: the first read was cleared by a layer; its card says so and opens the original
  const alpha = chat.locator(".tool-card", { hasText: "alpha.py" }).first();
  await alpha.locator(".badge.marker-cleared").waitFor({ timeout: 30_000 });
  await alpha.locator("summary").click();
  const rewrite = alpha.locator(".rewrite");
  await rewrite.waitFor({ timeout: 30_000 });
  log(`cleared card: "${(await rewrite.textContent())?.trim()}"`);
  if ((await alpha.locator(".tool-output").textContent())?.includes(DEEP)) fail("the cleared card shows text the model no longer saw");
  await rewrite.locator("a.open-original").click();
  await page.locator(".tab", { hasText: "(original)" }).first().waitFor({ timeout: 30_000 });
  await page.locator(".editor-instance .view-lines", { hasText: "context://" }).first().waitFor({ timeout: 15_000 });
  await shot(page, "c5-cleared-original-opened");
  log("the cleared result's original opened read-only from its card");
  // c6: reload the window with the context report open
  await palette(page, "Agent: Show Context");
  await page.locator(".tab", { hasText: "Agent Context" }).first().waitFor({ timeout: 30_000 });
  await page.reload();
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  await page.locator(".tab", { hasText: "Agent Context" }).first().waitFor({ timeout: 60_000 });
  const restored = await waitFor(async () => {
    const p = await previewPct().catch(() => undefined);
    const now = meterOf(await statusText(page).catch(() => ""), fail)?.pct;
    return p !== undefined && p === now ? p : undefined;
  }, 90_000, "the restored Show Context tab to show the meter's number");
  await shot(page, "c6-context-after-reload");
  log(`after a reload the restored Show Context tab shows ${restored}%, as the status bar`);
  await checkMeter("end");
  log(`meter at every step (percentage = fraction ±1):\n  ${meters.join("\n  ")}`);
  // leave a fresh conversation for the steps that follow
  await newChat({ page, chat, palette, waitFor });
}
