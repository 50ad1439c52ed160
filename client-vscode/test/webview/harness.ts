/**
 * Serves the built webview bundle in a page that looks like VS Code's webview
 * host (nonce CSP, theme variables, a fake `acquireVsCodeApi`) and drives it
 * in Debian's headless Chromium through playwright-core.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, beforeEach } from "node:test";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const root = path.resolve(__dirname, "../../..");

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      return execFileSync("sh", ["-c", `command -v ${name}`]).toString().trim();
    } catch {
      /* next */
    }
  }
  throw new Error("chromium not found (apt-get install -y chromium)");
}

const NONCE = "testnonce1234567890";

const THEME = `
  --vscode-foreground: #cccccc; --vscode-editor-background: #1e1e1e; --vscode-sideBar-background: #252526;
  --vscode-input-background: #3c3c3c; --vscode-input-foreground: #cccccc; --vscode-focusBorder: #007fd4;
  --vscode-button-background: #0e639c; --vscode-button-foreground: #ffffff; --vscode-badge-background: #4d4d4d;
  --vscode-badge-foreground: #ffffff; --vscode-textCodeBlock-background: #0a0a0a; --vscode-descriptionForeground: #9d9d9d;
  --vscode-font-family: sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace;`;

function page(): string {
  const csp = `default-src 'none'; style-src http://127.0.0.1:* 'nonce-${NONCE}'; script-src 'nonce-${NONCE}'; img-src http://127.0.0.1:* data:`;
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<style nonce="${NONCE}">html { ${THEME} }</style>
<link rel="stylesheet" href="/dist/webview.css">
</head><body>
<div id="app"></div>
<script nonce="${NONCE}">
  window.__posted = [];
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
    getState: () => { const s = sessionStorage.getItem('vscodeState'); return s ? JSON.parse(s) : undefined; },
    setState: (s) => { sessionStorage.setItem('vscodeState', JSON.stringify(s)); return s; },
  });
</script>
<script nonce="${NONCE}" src="/dist/webview.js"></script>
</body></html>`;
}

export async function serve(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? "/").split("?")[0];
    if (url === "/" || url === "/index.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(page());
      return;
    }
    if (url === "/dist/webview.js" || url === "/dist/webview.css") {
      res.writeHead(200, { "content-type": url.endsWith(".js") ? "text/javascript" : "text/css" });
      res.end(readFileSync(path.join(root, url)));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

/** Sends a host → webview message and renders synchronously. */
export async function host(page: Page, ...messages: unknown[]): Promise<void> {
  await page.evaluate((ms) => {
    for (const m of ms) window.postMessage(m, "*");
  }, messages);
  // message events are dispatched asynchronously; wait for them, then flush
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  await page.evaluate(() => (window as unknown as { __agentlsFlush: () => void }).__agentlsFlush());
}

export async function posted(page: Page): Promise<{ type: string; [k: string]: unknown }[]> {
  return page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted);
}

export async function clearPosted(page: Page): Promise<void> {
  await page.evaluate(() => ((window as unknown as { __posted: unknown[] }).__posted = []));
}

/**
 * One browser and one page server for a test file; a fresh page (booted, server
 * running) before each test, handed to `onPage`.
 */
export function usePage(onPage: (page: Page) => void): void {
  let browser: Browser;
  let server: { url: string; close: () => Promise<void> };
  let context: BrowserContext | undefined;
  before(async () => {
    server = await serve();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    await context?.close();
    context = await browser.newContext();
    const page = await context.newPage();
    page.on("pageerror", (e) => console.error("pageerror:", e.message));
    await page.goto(server.url);
    await page.waitForSelector("#input");
    await host(page, { type: "server", status: { phase: "running" } });
    onPage(page);
  });
}
