// e2e steps for issue 33.2: an interrupted turn stays its own, against a scripted model
// (editor_mock_api.py) that records every request it receives.
//   33a Stop during a streamed reply, then a new prompt: the request the endpoint receives carries the
//       stopped reply (partial, with its interruption note) and the new prompt as a user message of its
//       own; the panel keeps the partial reply, marked "Stopped."
//   33b the endpoint drops the connection mid-reply and then fails every retry: the turn shows the
//       failure and a Retry button; Retry sends the prompt again and the turn completes
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { recordedBodies, startScriptedApi } from "./scriptedApi.mjs";
import { newChat } from "./newChat.mjs";

const LONG = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
const STOPPED_PROMPT = "tell me a very long story";
const NEXT_PROMPT = "a new question after the stop";
const FAILING_PROMPT = "a question the endpoint dies on";
// a 503 with retry-after: the client's retries come quickly (model/retry.py honours it as is)
const UNAVAILABLE = { fault: { kind: "status", status: 503, retry_after: 0.2 } };

/** The text of a message's content (a string, or its text blocks). */
const textOf = (message) =>
  typeof message.content === "string" ? message.content : message.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");

export async function interruptSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }) {
  const api = startScriptedApi(python, tmp, "interrupt", [
    { content: LONG, chunk_delay: 0.05 }, // 33a: streamed slowly, stopped part-way
    { content: "Answered the new question on its own." },
    // 33b: cut after a few events (the demo answers that first request), then every retry refused
    { fault: { kind: "disconnect", after_events: 4 } },
    UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE,
    { content: "The retried turn completed." },
  ]);
  try {
    mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentls.contextWindow": 40000, "agentls.baseUrl": await api.url }, null, 2));
    await waitFor(async () => ((await chat.locator(".model").textContent()) ?? "").trim() === "claude-sonnet-5-5", 30_000, "the scripted endpoint's model to answer");
    await newChat({ page, chat, palette, waitFor });

    // 33a: Stop part-way through the reply (Escape in the input is Stop while a turn runs)
    await chat.locator("#input").fill(STOPPED_PROMPT);
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.assistant", { hasText: "word30 " }).last().waitFor({ timeout: 60_000 });
    await chat.locator("#input").press("Escape");
    const stopped = chat.locator(".msg.assistant.cancelled").last();
    await stopped.waitFor({ timeout: 30_000 });
    const partial = ((await stopped.innerText()) ?? "").replace(/\s+/g, " ");
    if (!/word30 /.test(partial)) fail(`the partial reply is not kept in the panel: ${partial.slice(0, 200)}`);
    if (/word399/.test(partial)) fail("the reply was not stopped");
    if (!/Stopped\./.test(partial)) fail(`the partial reply is not marked as stopped: ${partial.slice(-200)}`);
    const done = await chat.locator(".msg.assistant.done").count();
    await chat.locator("#input").fill(NEXT_PROMPT);
    await chat.locator("#input").press("Enter");
    await waitFor(async () => (await chat.locator(".msg.assistant.done").count()) > done, 60_000, "the reply to the new prompt");
    await chat.locator(".msg.assistant", { hasText: "Answered the new question on its own." }).waitFor({ timeout: 30_000 });
    const bodies = recordedBodies(api.record);
    const next = bodies.find((b) => textOf(b.messages.at(-1)).includes(NEXT_PROMPT));
    if (!next) fail(`no request carried the new prompt: ${bodies.length} requests`);
    const roles = next.messages.map((m) => m.role);
    const [stoppedPrompt, stoppedReply, newPrompt] = next.messages.slice(-3);
    log(`33a: the request after the stop: roles ${JSON.stringify(roles)}; the stopped reply ends ${JSON.stringify(textOf(stoppedReply).slice(-90))}`);
    if (stoppedPrompt?.role !== "user" || !textOf(stoppedPrompt).includes(STOPPED_PROMPT)) fail(`the stopped prompt is not the message before the reply: ${JSON.stringify(stoppedPrompt).slice(0, 300)}`);
    if (stoppedReply?.role !== "assistant" || !/word30 /.test(textOf(stoppedReply)) || !/\[interrupted: the user stopped this turn/.test(textOf(stoppedReply))) {
      fail(`the request does not carry the partial reply with its interruption note: ${JSON.stringify(stoppedReply).slice(0, 300)}`);
    }
    if (newPrompt.role !== "user" || textOf(newPrompt).includes(STOPPED_PROMPT)) fail(`the new prompt is not a message of its own: ${JSON.stringify(newPrompt).slice(0, 300)}`);
    await stopped.scrollIntoViewIfNeeded();
    await shot(page, "33a-stopped-then-new-prompt");
    log("33a: Stop then a new prompt: the partial reply is kept and marked, the new prompt is its own message");

    // 33b: the endpoint drops the connection mid-reply, then refuses every retry: Retry completes the turn
    const requestsBefore = recordedBodies(api.record).length;
    await chat.locator("#input").fill(FAILING_PROMPT);
    await chat.locator("#input").press("Enter");
    const failed = chat.locator(".msg.assistant.error").last();
    await failed.waitFor({ timeout: 90_000 });
    const retry = failed.locator("button.retry");
    await retry.waitFor({ timeout: 15_000 });
    const failure = ((await failed.innerText()) ?? "").replace(/\s+/g, " ").trim();
    log(`33b: the failed turn says ${JSON.stringify(failure.slice(0, 240))} after ${recordedBodies(api.record).length - requestsBefore} requests`);
    if (!/503|unavailable|failed|error/i.test(failure)) fail(`the failed turn does not show the failure: ${failure}`);
    await failed.scrollIntoViewIfNeeded();
    await shot(page, "33b-endpoint-failed-retry-button");
    const users = await chat.locator(".msg.user").count();
    await retry.click();
    await chat.locator(".msg.assistant.done", { hasText: "The retried turn completed." }).waitFor({ timeout: 60_000 });
    if ((await chat.locator(".msg.user").count()) !== users + 1) fail("Retry did not send the prompt again as a new message");
    const retried = recordedBodies(api.record).at(-1);
    const last = retried.messages.at(-1);
    if (last.role !== "user" || !textOf(last).includes(FAILING_PROMPT)) fail(`the retried request's last message is not the prompt: ${JSON.stringify(last).slice(0, 300)}`);
    log(`33b: Retry: roles ${JSON.stringify(retried.messages.map((m) => m.role))}; the turn completed`);
    await chat.locator(".msg.assistant.done").last().scrollIntoViewIfNeeded();
    await shot(page, "33c-retry-completed");
  } finally {
    api.child.kill("SIGTERM");
  }
}
