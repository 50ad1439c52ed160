/** agent/editorQuery in VS Code: conversions to the wire shapes and the wait for settled diagnostics. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { EditorQueryHandler, QUIET_MS, type DiagnosticLike, type EditorApi, type SymbolLike } from "../../src/editorQuery";

const A = "file:///ws/src/a.ts";
const B = "file:///ws/src/b.ts";
const r = (line: number, from: number, to = from + 1) => ({ start: { line, character: from }, end: { line, character: to } });
const uriOf = (s: string) => ({ toString: () => s });

/** A fake editor: diagnostics per URI that tests publish, canned provider answers. */
function fakeEditor(over: Partial<EditorApi> = {}) {
  const published = new Map<string, DiagnosticLike[]>();
  let listener: (uris: string[]) => void = () => undefined;
  let textListener: (uri: string) => void = () => undefined;
  const calls: unknown[][] = [];
  const api: EditorApi = {
    canonical: (u) => u.replace("%3A", ":"),
    diagnostics: (u) => (u ? [[u, published.get(u) ?? []]] : [...published.entries()]),
    workspaceSymbols: async (q) => (calls.push(["workspace", q]), []),
    documentSymbols: async (u) => (calls.push(["document", u]), []),
    definition: async (u, at) => (calls.push(["definition", u, at]), []),
    references: async (u, at) => (calls.push(["references", u, at]), []),
    hover: async () => [],
    onDidChangeDiagnostics: (l) => ((listener = l), { dispose: () => (listener = () => undefined) }),
    onDidChangeText: (l) => ((textListener = l), { dispose: () => (textListener = () => undefined) }),
    ...over,
  };
  const publish = (uri: string, list: DiagnosticLike[]) => {
    published.set(uri, list);
    listener([uri]);
  };
  return { api, publish, calls, edit: (uri: string) => textListener(uri) };
}

const typeError: DiagnosticLike = { range: r(0, 4, 5), severity: 0, message: "Type 'string' is not assignable to type 'number'.", source: "ts", code: 2322 };
const unused: DiagnosticLike = { range: r(2, 6), severity: 3, message: "'x' is declared but never used.", source: "ts", code: { value: 6133 } };

test("diagnostics: LSP severities, the severity filter, code objects unwrapped, a generation per file", async () => {
  const { api, publish } = fakeEditor();
  const handler = new EditorQueryHandler(api);
  publish(A, [typeError, unused]);
  publish(B, [{ range: r(1, 0), severity: 1, message: "warn" }]);

  assert.deepEqual(await handler.handle({ kind: "diagnostics", uri: A }), {
    generation: 1,
    diagnostics: [
      { uri: A, range: r(0, 4, 5), severity: 1, message: typeError.message, source: "ts", code: 2322 },
      { uri: A, range: r(2, 6), severity: 4, message: unused.message, source: "ts", code: 6133 },
    ],
  });
  const errorsAndWarnings = await handler.handle({ kind: "diagnostics", severity: "warning" });
  assert.equal(errorsAndWarnings.generation, undefined); // the workspace's have none
  assert.deepEqual(errorsAndWarnings.diagnostics?.map((d) => [d.uri, d.severity]), [[A, 1], [B, 2]]);
  handler.dispose();
});

test("diagnostics with changedSince wait for the change, then a quiet moment", async () => {
  const { api, publish } = fakeEditor();
  const handler = new EditorQueryHandler(api);
  publish(A, []);
  const since = handler.generation(A);
  const asked = handler.handle({ kind: "diagnostics", uri: A, severity: "error", changedSince: since, waitMs: 30_000 });
  let answered = false;
  void asked.then(() => (answered = true));
  await new Promise((ok) => setTimeout(ok, 20));
  assert.equal(answered, false, "answered before the diagnostics changed");
  publish(A, [unused]); // a burst: syntax first…
  publish(A, [unused, typeError]); // …then semantics
  const result = await asked;
  assert.equal(result.generation, since + 2);
  assert.deepEqual(result.diagnostics?.map((d) => d.code), [2322]);
  handler.dispose();
});

test("a change that came before the request is not waited for again; no change ends at waitMs", async () => {
  const { api, publish } = fakeEditor();
  const handler = new EditorQueryHandler(api);
  const since = handler.generation(A);
  publish(A, [typeError]); // published between the snapshot and the request
  const start = Date.now();
  const result = await handler.handle({ kind: "diagnostics", uri: A, changedSince: since, waitMs: 30_000 });
  assert.ok(Date.now() - start < 10_000, "waited for a change that had already happened");
  assert.ok(Date.now() - start >= QUIET_MS - 5);
  assert.equal(result.diagnostics?.length, 1);

  const unchanged = await handler.handle({ kind: "diagnostics", uri: B, changedSince: 0, waitMs: 50 });
  assert.deepEqual(unchanged, { diagnostics: [], generation: 0 });
  handler.dispose();
});

test("diagnostics re-published before the document's last edit are not the edit's answer", async () => {
  const { api, publish, edit } = fakeEditor();
  const handler = new EditorQueryHandler(api);
  publish(A, [unused]);
  const since = handler.generation(A); // the server's snapshot, then the approval's diff editor closes…
  publish(A, [unused]); // …and the language server re-publishes the old diagnostics
  edit(A); // the edit lands
  const asked = handler.handle({ kind: "diagnostics", uri: A, changedSince: since, waitMs: 30_000 });
  let answered = false;
  void asked.then(() => (answered = true));
  await new Promise((ok) => setTimeout(ok, QUIET_MS + 100));
  assert.equal(answered, false, "answered with the diagnostics from before the edit");
  publish(A, [unused, typeError]);
  assert.deepEqual((await asked).diagnostics?.map((d) => d.code), [6133, 2322]);
  handler.dispose();
});

test("after an edit, a publication that says the same as before is not the answer (syntax before semantics)", async () => {
  const { api, publish, edit } = fakeEditor();
  const handler = new EditorQueryHandler(api);
  publish(A, []);
  const since = handler.generation(A);
  edit(A); // the edit lands on a clean file
  const asked = handler.handle({ kind: "diagnostics", uri: A, changedSince: since, waitMs: 30_000 });
  let answered = false;
  void asked.then(() => (answered = true));
  publish(A, []); // syntax diagnostics: nothing new yet
  await new Promise((ok) => setTimeout(ok, QUIET_MS * 3)); // the semantic answer is slow on a busy machine
  assert.equal(answered, false, "answered before the semantic diagnostics came");
  publish(A, [typeError]);
  assert.deepEqual((await asked).diagnostics?.map((d) => d.code), [2322]);
  handler.dispose();
});

test("a cancelled request stops waiting", async () => {
  const { api } = fakeEditor();
  const handler = new EditorQueryHandler(api);
  let cancel: () => void = () => undefined;
  const token = { isCancellationRequested: false, onCancellationRequested: (l: () => void) => ((cancel = l), { dispose() {} }) };
  const asked = handler.handle({ kind: "diagnostics", uri: A, changedSince: 0, waitMs: 60_000 }, token as never);
  cancel();
  assert.deepEqual(await asked, { diagnostics: [], generation: 0 });
  handler.dispose();
});

test("symbols: a document outline flattened with containers, workspace symbols with their locations", async () => {
  const outline: SymbolLike[] = [
    { name: "Shape", kind: 4, range: r(2, 0, 40), selectionRange: r(2, 13, 18), children: [
      { name: "area", kind: 5, range: r(4, 2, 30), selectionRange: r(4, 2, 6) }] },
  ];
  const found: SymbolLike[] = [{ name: "Shape", kind: 4, containerName: "shapes", location: { uri: uriOf(B), range: r(2, 13, 18) } }];
  const { api, calls } = fakeEditor({
    documentSymbols: async () => outline,
    workspaceSymbols: async (q) => (q === "Shape" ? found : []),
  });
  const handler = new EditorQueryHandler(api);
  assert.deepEqual(await handler.handle({ kind: "symbols", uri: A, query: "" }), {
    symbols: [
      { name: "Shape", kind: "Class", uri: A, range: r(2, 13, 18) },
      { name: "area", kind: "Method", uri: A, range: r(4, 2, 6), containerName: "Shape" },
    ],
  });
  assert.deepEqual(await handler.handle({ kind: "symbols", query: "Shape" }), {
    symbols: [{ name: "Shape", kind: "Class", uri: B, range: r(2, 13, 18), containerName: "shapes" }],
  });
  assert.deepEqual(calls, []);
  handler.dispose();
});

test("definition (Location and LocationLink), references and hover", async () => {
  const { api, calls } = fakeEditor({
    definition: async () => [{ targetUri: uriOf(B), targetRange: r(0, 0, 90), targetSelectionRange: r(0, 16, 21) }],
    references: async (u, at) => (calls.push(["references", u, at]), [{ uri: uriOf(A), range: r(3, 8, 13) }, { uri: uriOf(B), range: r(0, 16, 21) }]),
    hover: async () => [{ contents: [{ value: "```ts\nfunction greet(name: string): string\n```" }, ""] }],
  });
  const handler = new EditorQueryHandler(api);
  const at = { line: 3, character: 8 };
  assert.deepEqual(await handler.handle({ kind: "definition", uri: A, position: at }), { locations: [{ uri: B, range: r(0, 16, 21) }] });
  assert.deepEqual((await handler.handle({ kind: "references", uri: A, position: at })).locations?.map((l) => l.uri), [A, B]);
  assert.deepEqual(calls, [["references", A, at]]);
  assert.deepEqual(await handler.handle({ kind: "hover", uri: A, position: at }), { hover: "```ts\nfunction greet(name: string): string\n```" });
  await assert.rejects(handler.handle({ kind: "references", uri: A }), /position is required/);
  await assert.rejects(handler.handle({ kind: "rename" } as never), /unknown editorQuery kind "rename"/);
  handler.dispose();
});
