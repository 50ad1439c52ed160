// A second, independent ACP client: the official TypeScript SDK (@agentclientprotocol/sdk, stable v1
// entrypoint, app API) drives `agentls acp`, so the wire is checked by a second implementation: the
// SDK validates every message the agent sends against the ACP schema before a handler sees it.
//
//   node client.mjs <python> <workspace> <answer>...
//
// Spawns `<python> -m agentls acp` (environment inherited: the test points it at the mock API),
// initializes, opens a session in <workspace> and sends one prompt per <answer>, answering each
// permission request with that option id (with AGENTLS_TS_IMAGE=<mime type>:<base64>, the first
// prompt carries that image first). Prints one JSON object: what the agent said and asked.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";

const [python, workspace, ...answers] = process.argv.slice(2);
const [imageType, imageData] = (process.env.AGENTLS_TS_IMAGE ?? "").split(":");
if (!python || !workspace || answers.length === 0) {
  console.error("usage: node client.mjs <python> <workspace> <answer>...");
  process.exit(2);
}

const agent = spawn(python, ["-m", "agentls", "acp"], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const permissions = [];
const updates = [];
let answer = answers[0];

const app = acp
  .client({ name: "agentls-ts-test" })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: answer } };
  })
  .onNotification(acp.methods.client.session.update, async ({ params }) => {
    updates.push(params.update);
  });

const result = await app.connectWith(stream, async (ctx) => {
  const initialized = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "agentls-ts-test", version: "1.0.0" },
  });
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  const stopReasons = [];
  for (const [index, choice] of answers.entries()) {
    answer = choice;
    const image = index === 0 && imageData ? [{ type: "image", mimeType: imageType, data: imageData }] : [];
    const response = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [...image, { type: "text", text: `round ${index + 1}` }],
    });
    stopReasons.push(response.stopReason);
  }
  const listed = await ctx.request(acp.methods.agent.session.list, { cwd: workspace });
  return { initialized, sessionId: session.sessionId, stopReasons, listed };
});

agent.stdin.end();
const [exitCode] = agent.exitCode === null ? await once(agent, "exit") : [agent.exitCode];
console.log(JSON.stringify({ ...result, permissions, updates, exitCode }));
