// e2e steps for issue 34 item 1: a subagent in the panel, from a scripted model (agentls' mock API).
//   42 a prompt whose reply is one `task` call: the panel shows ONE card for it, a subagent card, whose steps
//      (the child's read_file and grep_search) arrive inside it; opened, the card lists them
//   43 /cost in the panel names the subagent's tokens and the sum
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { recordedBodies, startScriptedApi } from "./scriptedApi.mjs";
import { newChat } from "./newChat.mjs";

const NAME = "look at hello.py";
const MODEL = "claude-opus-5-5"; // listed by the scripted endpoint: the header names it once the settings reached the server
const MODELS = [{ model_id: MODEL, display_name: "Claude Opus 5.5", window: 200_000, max_tokens: 64_000, thinking: ["adaptive"], created_at: "2027-01-01T00:00:00Z" }];
// the script is taken in order: the parent's call, the child's three replies (slow, so its steps are seen
// arriving), then the parent's answer
const REPLIES = [
  { content: [{ type: "text", text: "I'll ask a subagent." },
    { type: "tool_use", name: "task", input: { description: NAME, prompt: "Read hello.py and search it for greeting; report what it does." } }] },
  { content: [{ type: "tool_use", name: "read_file", input: { path: "hello.py" } }], chunk_delay: 0.3 },
  { content: [{ type: "tool_use", name: "grep_search", input: { pattern: "greeting" } }], chunk_delay: 0.3 },
  { content: "hello.py prints a greeting.", chunk_delay: 0.05 },
  { content: "The subagent says: hello.py prints a greeting." },
];

export async function subagentSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }) {
  const settingsFile = path.join(workspace, ".vscode", "settings.json");
  const before = existsSync(settingsFile) ? readFileSync(settingsFile, "utf8") : undefined;
  const api = startScriptedApi(python, tmp, "subagents", REPLIES, MODELS);
  const modelName = async () => ((await chat.locator(".model").textContent()) ?? "").trim();
  try {
    const url = await api.url;
    log(`scripted endpoint for the subagent at ${url}`);
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    writeFileSync(settingsFile, JSON.stringify({ ...(before ? JSON.parse(before) : {}), "agentls.baseUrl": url, "agentls.model": MODEL }, null, 2));
    await waitFor(async () => (await modelName()) === MODEL, 60_000, `the header to name ${MODEL} (the settings reached the server)`);
    await newChat({ page, chat, palette, waitFor });

    // 42: one card, the child's steps inside, live
    await chat.locator("#input").fill("Explore hello.py with a subagent.");
    await chat.locator("#input").press("Enter");
    const card = chat.locator(".tool-card.subagent-card").first();
    await card.waitFor({ timeout: 60_000 });
    await card.locator("summary").click();
    await waitFor(async () => (await card.locator(".subagent-step").count()) >= 1, 60_000, "a step of the subagent inside its card");
    await shot(page, "42-subagent-card-live");
    await chat.locator(".msg.assistant.done", { hasText: "The subagent says" }).waitFor({ timeout: 60_000 });
    const cards = await chat.locator(".msg.assistant").last().locator(".tool-card").count();
    if (cards !== 1) fail(`the turn shows ${cards} cards, not one for the subagent`);
    const steps = (await card.locator(".subagent-lines li").allInnerTexts()).map((s) => s.replace(/\s+/g, " ").trim());
    log(`subagent card steps: ${JSON.stringify(steps)}`);
    if (!steps.some((s) => /read_file/.test(s)) || !steps.some((s) => /grep_search/.test(s))) fail(`steps: ${JSON.stringify(steps)}`);
    const meta = ((await card.locator(".subagent-meta").innerText()) ?? "").trim();
    if (!/2 steps · .* tokens/.test(meta)) fail(`the closed card's line: ${meta}`);
    const result = await waitFor(async () => {
      const out = (await card.locator(".tool-output").innerText().catch(() => "")) ?? "";
      return /hello\.py prints a greeting/.test(out) ? out : undefined;
    }, 30_000, "the card's result: the subagent's answer");
    if (!/context:\/\/\S+\/transcript/.test(result)) fail(`the result does not name the transcript: ${result}`);
    const bodies = recordedBodies(api.record);
    if (bodies.length !== 5) fail(`expected 5 requests (parent, child ×3, parent), got ${bodies.length}`);
    if (JSON.stringify(bodies[1].messages).includes("I'll ask a subagent.")) fail("the child's request carries the parent's history");
    await shot(page, "42-subagent-card-done");
    log(`subagent card: "${meta}"`);

    // 43: /cost names it
    await chat.locator("#input").fill("/cost");
    await chat.locator("#input").press("Enter");
    const cost = chat.locator('[data-testid="agent-cost"]').last();
    await cost.waitFor({ timeout: 30_000 });
    const text = (await cost.innerText()).replace(/\s+/g, " ");
    if (!text.includes(NAME) || !/Sum/.test(text)) fail(`/cost does not name the subagent and the sum: ${text}`);
    await cost.scrollIntoViewIfNeeded();
    await shot(page, "43-subagent-cost");
    log(`/cost: "${text.slice(text.indexOf("Subagents")).slice(0, 200)}"`);
  } finally {
    api.child.kill("SIGTERM");
    if (before === undefined) writeFileSync(settingsFile, "{}");
    else writeFileSync(settingsFile, before);
  }
}
