// e2e steps for issue 16: the models come from the endpoint, not from a table.
//
// A scripted mock API (editor_mock_api.py) serves a Models API listing ids no table
// contains: acme-sonnet-9 (750K window, manual thinking) and acme-deep-9 (1M, adaptive).
//   22 with only agentls.baseUrl set, the default rule picks acme-sonnet-9; the chat header's
//      picker lists exactly the endpoint's models (window, output limit, "price unknown"),
//      under "Models offered by the endpoint", none of the offline table
//   23 the status bar tooltip names the working window (the user's 30K) and the model's
//      750K maximum, with a link that raises agentls.contextWindow to it
//   24 one click on that link: the meter's usable window becomes 748K (750K − 2K reserve)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { recordedBodies, startScriptedApi } from "./scriptedApi.mjs";

const MODELS = [
  { model_id: "acme-sonnet-9", display_name: "Acme Sonnet 9", window: 750_000, max_tokens: 64_000, thinking: ["enabled", "disabled"], created_at: "2027-02-01T00:00:00Z" },
  { model_id: "acme-deep-9", display_name: "Acme Deep 9", window: 1_000_000, max_tokens: 128_000, thinking: ["adaptive"], efforts: ["low", "high"], created_at: "2027-01-01T00:00:00Z" },
];
const OFFLINE_TABLE = /Claude (Sonnet|Opus|Haiku)/;

export async function modelSteps({ page, chat, workspace, python, tmp, userSettings, statusItem, statusText, shot, waitFor, log, fail }) {
  const modelName = async () => ((await chat.locator(".model").textContent()) ?? "").trim();
  const api = startScriptedApi(python, tmp, "models", [{ content: "Answered by the endpoint's default model." }], MODELS);
  const userFile = path.join(userSettings, "settings.json");
  const userBefore = readFileSync(userFile, "utf8");
  try {
    const url = await api.url;
    log(`mock endpoint with a Models API at ${url}`);
    mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentls.baseUrl": url }, null, 2));

    // 22: the picker lists the endpoint's models; no model configured, the default rule chose one
    const picker = chat.locator(".model-select");
    await waitFor(async () => (await picker.inputValue().catch(() => "")) === "acme-sonnet-9", 60_000, "the picker to select acme-sonnet-9");
    await waitFor(async () => (await picker.locator("option").count()) === 3, 30_000, "the endpoint's two models in the picker");
    const options = (await picker.locator("option").allTextContents()).map((t) => t.trim());
    log(`picker options: ${JSON.stringify(options)}`);
    if (options[0] !== "Acme Sonnet 9 · 750K window · 64K out · price unknown") fail(`first option: ${options[0]}`);
    if (options[1] !== "Acme Deep 9 · 1M window · 128K out · price unknown") fail(`second option: ${options[1]}`);
    if (options.some((o) => OFFLINE_TABLE.test(o))) fail(`the picker shows the offline table: ${options}`);
    const group = await picker.locator("optgroup").getAttribute("label");
    if (group !== "Models offered by the endpoint") fail(`picker group: ${group}`);
    await chat.locator("#input").fill("hello");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.assistant", { hasText: "Answered by the endpoint's default model." }).waitFor({ timeout: 60_000 });
    const sent = recordedBodies(api.record).at(-1);
    if (sent?.model !== "acme-sonnet-9" || sent?.thinking?.type !== "enabled") fail(`request: ${JSON.stringify({ model: sent?.model, thinking: sent?.thinking })}`);
    log(`header: "${await modelName()}"; the request went to ${sent.model} with thinking ${JSON.stringify(sent.thinking)}`);
    // a native dropdown is not in screenshots: show the options as a list, in a wider side bar
    const sidebar = await page.locator("#workbench\\.parts\\.sidebar").boundingBox();
    const dragSash = async (from, to) => {
      await page.mouse.move(from, sidebar.y + 200);
      await page.mouse.down();
      await page.mouse.move(to, sidebar.y + 200, { steps: 8 });
      await page.mouse.up();
    };
    const edge = sidebar.x + sidebar.width;
    await dragSash(edge, edge + 420);
    await picker.evaluate((select) => (select.size = 5));
    await page.waitForTimeout(500);
    await shot(page, "22-picker-endpoint-models");
    await picker.evaluate((select) => (select.size = 0));
    await dragSash(edge + 420, edge);

    // 23: the status bar tooltip names the working window and the model's maximum
    await waitFor(async () => /\/28K/.test(await statusText(page)), 30_000, "the meter over the 30K working window");
    await statusItem(page).hover();
    const hover = page.locator(".workbench-hover, .monaco-hover").filter({ hasText: "Working window" }).first();
    await hover.waitFor({ state: "visible", timeout: 15_000 });
    const tip = (await hover.innerText()).replace(/\s+/g, " ");
    log(`tooltip: "${tip.slice(0, 260)}…"`);
    if (!/Working window 30K of the model's 750K maximum \(acme-sonnet-9\)/.test(tip)) fail(`tooltip lacks both windows: ${tip}`);
    await shot(page, "23-tooltip-windows");

    // 24: one click raises agentls.contextWindow to the model's maximum
    await hover.locator("a", { hasText: "Use the full 750K window" }).click();
    await waitFor(async () => /\/748K/.test(await statusText(page)), 30_000, "the meter over the raised 750K working window");
    const written = JSON.parse(readFileSync(userFile, "utf8"))["agentls.contextWindow"];
    if (written !== 750_000) fail(`agentls.contextWindow is ${written}, not 750000`);
    log(`one click: agentls.contextWindow = ${written}; status bar "${await statusText(page)}"`);
    await page.mouse.move(10, 10);
    await shot(page, "24-window-raised");
  } finally {
    writeFileSync(userFile, userBefore); // the later steps expect the 30K user setting
    api.child.kill("SIGTERM");
  }
}
