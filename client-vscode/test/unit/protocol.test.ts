/**
 * src/protocol.ts must mirror docs/protocol.md field for field: every
 * interface in the doc exists in protocol.ts with the same field names, and
 * every AgentEvent kind has the same fields.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

const root = path.resolve(__dirname, "../../..");
const docPath = path.resolve(root, "../docs/protocol.md");
const tsPath = path.resolve(root, "src/protocol.ts");

function stripComments(s: string): string {
  return s.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
}

function codeOf(md: string): string {
  return [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

/** Body of `interface Name {…}` (brace-matched). */
function interfaceBody(src: string, name: string): string | undefined {
  const m = new RegExp(`interface\\s+${name}\\b[^{]*\\{`).exec(src);
  if (!m) return undefined;
  let depth = 1;
  let i = m.index + m[0].length;
  const start = i;
  for (; i < src.length && depth; i++) {
    if (src[i] === "{") depth++;
    else if (src[i] === "}") depth--;
  }
  return src.slice(start, i - 1);
}

function fields(body: string): string[] {
  return [...new Set([...body.matchAll(/([A-Za-z_]\w*)\??\s*:/g)].map((m) => m[1]))].sort();
}

function eventVariants(src: string): Map<string, string[]> {
  const m = /type\s+AgentEvent\s*=([\s\S]*?);\s*\n\s*\n|type\s+AgentEvent\s*=([\s\S]*?\});/.exec(src);
  assert.ok(m, "AgentEvent type not found");
  const body = m[1] ?? m[2];
  const out = new Map<string, string[]>();
  for (const v of body.matchAll(/\{([^{}]*kind:\s*"(\w+)"[^{}]*)\}/g)) out.set(v[2], fields(v[1]));
  return out;
}

const doc = stripComments(codeOf(readFileSync(docPath, "utf8")));
const ts = stripComments(readFileSync(tsPath, "utf8"));

test("every documented interface is mirrored with the same fields", () => {
  const names = [...doc.matchAll(/interface\s+(\w+)/g)].map((m) => m[1]);
  const docNames = new Set(names);
  assert.ok(names.length >= 15, `found only ${names.length} interfaces in the doc`);
  for (const name of names) {
    const d = interfaceBody(doc, name)!;
    const t = interfaceBody(ts, name);
    assert.ok(t !== undefined, `protocol.ts lacks interface ${name}`);
    // protocol.ts may name a nested object type (AgentThresholds, ContextCategories); expand those
    const expanded = new Set(fields(t!));
    for (const ref of t!.matchAll(/:\s*(\w+)/g)) {
      const lspType = ref[1] === "Range" || ref[1] === "Position";
      const inner = !docNames.has(ref[1]) && !lspType ? interfaceBody(ts, ref[1]) : undefined;
      if (inner) for (const f of fields(inner)) expanded.add(f);
    }
    // the doc inlines `ContextResult["categories"]`; its fields come from ContextResult
    const dFields = new Set(fields(d));
    for (const ref of d.matchAll(/(\w+)\["(\w+)"\]/g)) {
      const body = interfaceBody(doc, ref[1])!;
      const inner = new RegExp(`${ref[2]}\\s*:\\s*\\{([^}]*)\\}`).exec(body);
      if (inner) for (const f of fields(inner[1])) dFields.add(f);
    }
    assert.deepEqual([...expanded].sort(), [...dFields].sort(), `fields of ${name}`);
  }
});

test("every AgentEvent kind has the documented fields", () => {
  const d = eventVariants(doc);
  const t = eventVariants(ts);
  assert.equal(d.size, 18);
  assert.deepEqual([...t.keys()].sort(), [...d.keys()].sort());
  for (const [kind, f] of d) assert.deepEqual(t.get(kind), f, `fields of ${kind}`);
});

test("method names", () => {
  for (const m of ["agent/chat", "agent/compact", "agent/cost", "agent/clear", "agent/context", "agent/event", "agent/contextUsage", "agent/confirm", "agent/toolResult", "agent/editorQuery", "agent/sessions", "agent/newSession", "agent/resume", "agent/renameSession", "agent/deleteSession", "agent/mcpServers", "agent/checkpoints", "agent/checkpointDiff", "agent/rewind", "agent/fork", "agent/todos", "agent/commands", "agent/expandCommand", "agent/permissions"]) {
    assert.ok(readFileSync(docPath, "utf8").includes(`\`${m}\``), `${m} not in doc`);
    assert.ok(ts.includes(`"${m}"`), `${m} not in protocol.ts`);
  }
});
