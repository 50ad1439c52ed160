// e2e steps for issue 29: /cost and Show Context name why the prompt cache missed.
//
// A scripted mock API (editor_mock_api.py: agentls' mock, whose cache diagnostics name the first
// divergence from the request `diagnostics.previous_message_id` names) lists two models; the
// workspace asks for diagnostics (agentls.cacheDiagnostics) and cache breakpoints (agentls.cacheControl:
// the mock caches as the API does) and starts on acme-swift-9.
//   25 a prompt to acme-swift-9, acme-deep-9 picked in the chat header, another prompt: the endpoint
//      says the cache missed because the model changed (all of the first prompt missed); /cost in the
//      chat lists that reason and its cost
//   26 Show Context's Cache section names it too (data-kind="model_changed")
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { recordedBodies, startScriptedApi } from "./scriptedApi.mjs";
import { newChat } from "./newChat.mjs";

const FIRST = "acme-swift-9";
const SECOND = "acme-deep-9";
const MODELS = [
  { model_id: FIRST, display_name: "Acme Swift 9", window: 200_000, max_tokens: 32_000, thinking: ["adaptive"], created_at: "2027-02-01T00:00:00Z" },
  { model_id: SECOND, display_name: "Acme Deep 9", window: 200_000, max_tokens: 32_000, thinking: ["adaptive"], created_at: "2027-01-01T00:00:00Z" },
];
const WIDER = 360; // pixels added to the side bar for the screenshots
const REPLIES = [{ content: `First answer, from ${FIRST}.` }, { content: `Second answer, from ${SECOND}.` }];

function previewFrame(page) {
  return page.frameLocator('iframe.webview.ready[src*="markdown-language-features"]').first().frameLocator("iframe#active-frame");
}

export async function cacheSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }) {
  const modelName = async () => ((await chat.locator(".model").textContent()) ?? "").trim();
  const send = async (prompt, answer) => {
    await chat.locator("#input").fill(prompt);
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.assistant.done", { hasText: answer }).waitFor({ timeout: 60_000 });
  };
  const api = startScriptedApi(python, tmp, "cache", REPLIES, MODELS);
  try {
    const url = await api.url;
    log(`mock endpoint with cache diagnostics at ${url}`);
    mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({
      "agentls.baseUrl": url, "agentls.model": FIRST, "agentls.cacheDiagnostics": true, "agentls.cacheControl": true }, null, 2));
    await waitFor(async () => (await modelName()) === FIRST, 60_000, `the header to name ${FIRST}`);
    await newChat({ page, chat, palette, waitFor });

    // 25: one prompt per model, the second after a pick in the header
    await send("What is in this workspace?", REPLIES[0].content);
    const picker = chat.locator(".model-select");
    await picker.selectOption(SECOND);
    await waitFor(async () => (await modelName()) === SECOND, 30_000, `the header to name ${SECOND} (the server switched)`);
    await send("And now, with the other model?", REPLIES[1].content);
    const bodies = recordedBodies(api.record);
    const sent = bodies.map((b) => ({ model: b.model, diagnostics: b.diagnostics }));
    log(`requests at the endpoint: ${JSON.stringify(sent)}`);
    if (bodies.length !== 2 || bodies[0].model !== FIRST || bodies[1].model !== SECOND) fail(`expected one request per model: ${JSON.stringify(sent)}`);
    // a new conversation opts in without naming an earlier one; the next names the reply before it
    if (bodies[0].diagnostics?.previous_message_id !== null) fail(`the first request named a previous message: ${JSON.stringify(sent[0])}`);
    if (typeof bodies[1].diagnostics?.previous_message_id !== "string") fail(`the second request named no previous message: ${JSON.stringify(sent[1])}`);

    await chat.locator("#input").fill("/cost");
    await chat.locator("#input").press("Enter");
    const cost = chat.locator('[data-testid="agent-cost"]').last();
    await cost.waitFor({ timeout: 30_000 });
    const costText = (await cost.innerText()).replace(/\s+/g, " ");
    log(`/cost: "${costText.slice(costText.indexOf("Prompt cache")).slice(0, 300)}"`);
    if (!/Prompt cache misses: 1 of 2 requests/.test(costText)) fail(`/cost does not count one miss in two requests: ${costText}`);
    // what it cost: the whole first prompt, which the other model could not read from the cache
    if (!/model changed 1 [\d.]+K? tokens not read from cache/.test(costText)) fail(`/cost does not say what the miss cost: ${costText}`);
    const row = cost.locator("tr", { hasText: SECOND });
    if (!/model changed/.test((await row.innerText().catch(() => "")) ?? "")) fail(`/cost's row for ${SECOND} does not say the model changed: ${costText}`);
    // a wider side bar: the report's tables readable in the screenshots
    const sidebar = await page.locator("#workbench\\.parts\\.sidebar").boundingBox();
    const edge = sidebar.x + sidebar.width;
    const dragSash = async (from, to) => {
      await page.mouse.move(from, sidebar.y + 200);
      await page.mouse.down();
      await page.mouse.move(to, sidebar.y + 200, { steps: 8 });
      await page.mouse.up();
    };
    await dragSash(edge, edge + WIDER);
    await page.waitForTimeout(300);
    await cost.scrollIntoViewIfNeeded();
    await shot(page, "25-cost-cache-miss");

    // 26: Show Context's Cache section
    await palette(page, "Agent: Show Context");
    await page.locator(".tab", { hasText: "Agent Context" }).first().waitFor({ timeout: 30_000 });
    const reason = previewFrame(page).locator('[data-testid="cache-miss-reason"]').last();
    await reason.waitFor({ timeout: 30_000 });
    const kind = await reason.getAttribute("data-kind");
    const words = ((await reason.textContent()) ?? "").trim();
    const item = ((await reason.locator("xpath=..").innerText()) ?? "").replace(/\s+/g, " ").trim();
    log(`Show Context: "${item}" (data-kind ${kind})`);
    if (kind !== "model_changed" || words !== "model changed") fail(`Show Context's reason: ${kind} "${words}"`);
    if (!/^request 2 \(acme-deep-9\): model changed — [\d.]+K? tokens not read from cache$/.test(item)) fail(`Show Context does not name the request and its model: ${item}`);
    await reason.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await shot(page, "26-context-cache-miss");
    await dragSash(edge + WIDER, edge);
    log(`cache miss named: ${words} (${kind}), in /cost and Show Context`);
    // the preview closed again: a webview as the active editor is where VS Code hands the focus back when a
    // quick input closes, and that hand-over lands late (a message to the webview's frame): a quick input
    // a command opens right after the palette closes then loses the focus and closes too
    // (microsoft/vscode#93950, #204522); the later groups' quick inputs are not about the preview
    const previewTab = page.locator(".tab", { hasText: "Agent Context" }).first();
    await previewTab.hover();
    await previewTab.locator(".tab-actions .action-label").click();
    await previewTab.waitFor({ state: "detached", timeout: 15_000 });
    // leave a fresh conversation for the steps that follow (this one's models have no known price)
    await newChat({ page, chat, palette, waitFor });
  } finally {
    api.child.kill("SIGTERM");
  }
}
