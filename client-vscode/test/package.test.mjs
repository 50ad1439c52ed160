// Checks the packaged .vsix (npm run package): size and file list are sane.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vsix = process.env.AGENTLS_VSIX ?? path.join(ext, "dist", "agentls.vsix");

/** Entries of a zip file from its central directory. */
function zipEntries(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  assert.ok(eocd >= 0, "not a zip file");
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, "bad central directory");
    const method = buf.readUInt16LE(p + 10);
    const csize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString("utf8");
    entries.push({ name, size, method, csize, local });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function read(buf, e) {
  const nameLen = buf.readUInt16LE(e.local + 26);
  const extraLen = buf.readUInt16LE(e.local + 28);
  const data = buf.subarray(e.local + 30 + nameLen + extraLen, e.local + 30 + nameLen + extraLen + e.csize);
  return e.method === 8 ? inflateRawSync(data) : data;
}

const buf = readFileSync(vsix);
const entries = zipEntries(buf);
const names = entries.map((e) => e.name);

test("size is sane", () => {
  const size = statSync(vsix).size;
  console.log(`vsix: ${vsix} ${size} bytes, ${entries.length} files`);
  assert.ok(size > 100_000, `too small: ${size}`);
  assert.ok(size < 3_000_000, `too big: ${size}`);
  assert.ok(entries.length <= 20, `too many files: ${entries.length}\n${names.join("\n")}`);
});

test("has the bundles, manifest, icon and the agentls wheel", () => {
  for (const f of ["extension/package.json", "extension/dist/extension.js", "extension/dist/webview.js", "extension/dist/webview.css", "extension/media/agent.svg", "extension.vsixmanifest"]) {
    assert.ok(names.includes(f), `missing ${f}`);
  }
  const wheels = names.filter((n) => /^extension\/wheel\/agentls-[^/]+-py3-none-any\.whl$/.test(n));
  assert.equal(wheels.length, 1, `wheel: ${names.join(", ")}`);
  const whl = entries.find((e) => e.name === wheels[0]);
  assert.ok(whl.size > 10_000, "wheel too small");
});

test("no sources, tests, maps or node_modules (the bundle contains them)", () => {
  const bad = names.filter((n) =>
    /(^|\/)node_modules\/|(^|\/)(src|test|tests|webview|scripts|out)\/|\.ts$|\.map$|tsconfig|package-lock|\.vsix$/.test(n),
  );
  assert.deepEqual(bad, []);
});

test("manifest points at the bundle and contributes the commands", () => {
  const pkg = JSON.parse(read(buf, entries.find((e) => e.name === "extension/package.json")).toString("utf8"));
  assert.equal(pkg.main, "./dist/extension.js");
  const cmds = pkg.contributes.commands.map((c) => `${c.category}: ${c.title}`);
  for (const t of ["Agent: Open Chat", "Agent: Compact Conversation", "Agent: Show Cost", "Agent: Show Context", "Agent: New Chat", "Agent: Show Chat History", "Agent: Set API Key", "Agent: Restart Server", "Agent: Add Selection to Chat"]) {
    assert.ok(cmds.includes(t), `missing command ${t}`);
  }
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), ["vscode-languageclient"]);
  const js = read(buf, entries.find((e) => e.name === "extension/dist/extension.js")).toString("utf8");
  assert.ok(!/require\(["']vscode-languageclient/.test(js), "vscode-languageclient must be bundled");
});
