// e2e steps for the editor tools (agent/editorQuery) in a TypeScript workspace.
//
// A scripted model (editor_mock_api.py: agentls' mock API recording what it
// receives) calls find_symbols, find_references and edit_file; VS Code's
// built-in TypeScript features answer. Checked on the requests the model got
// at the API endpoint:
//   11 find_symbols "Shape" lists the class Shape
//   12 find_references to area lists the call sites in main.ts;
//      go_to_definition from a call site lands in shapes.ts, with the signature
//   13 an edit approved inside the panel that introduces a type error → its tool result lists
//      the new TS2322 (and not the error that was already there);
//      get_diagnostics then lists both errors of the workspace
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { recordedBodies, startScriptedApi } from "./scriptedApi.mjs";

const SHAPES_TS = `export class Shape {
  constructor(readonly width: number, readonly height: number) {}
}

export function area(shape: Shape): number {
  return shape.width * shape.height;
}
`;
const MAIN_TS = `import { Shape, area } from "./shapes";

const square = new Shape(2, 2);
const wide = new Shape(4, 1);
const a1 = area(square);
const a2 = area(wide);
export const total: number = a1 + a2;
export const label: string = 42;
`;
const toolUse = (name, input, text) => ({ content: [...(text ? [{ type: "text", text }] : []), { type: "tool_use", name, input }] });
const SCRIPT = [
  toolUse("find_symbols", { query: "Shape" }, "Looking for the class."),
  { content: "Shape is a class in shapes.ts." },
  toolUse("find_references", { path: "shapes.ts", line: 5, symbol: "area" }),
  { content: "area is called twice, in main.ts." },
  toolUse("go_to_definition", { path: "main.ts", line: 5, symbol: "area" }),
  { content: "area is defined in shapes.ts." },
  toolUse("edit_file", { path: "main.ts", old_text: "export const total: number = a1 + a2;", new_text: "export const total: number = `${a1 + a2} m²`;" }),
  { content: "The edit introduced a type error in main.ts." },
  toolUse("get_diagnostics", { severity: "error" }),
  { content: "main.ts has two type errors." },
];

/** The tool_result the model received for the last call of `tool`. */
function toolResult(record, tool) {
  const bodies = recordedBodies(record);
  const messages = bodies.at(-1)?.messages ?? [];
  const uses = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_use" && b.name === tool);
  const id = uses.at(-1)?.id;
  const result = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === "tool_result" && b.tool_use_id === id);
  return typeof result?.content === "string" ? result.content : undefined;
}

export async function editorSteps({ page, chat, workspace, python, tmp, log, fail, shot, palette, waitFor }) {
  writeFileSync(path.join(workspace, "shapes.ts"), SHAPES_TS);
  writeFileSync(path.join(workspace, "main.ts"), MAIN_TS);
  writeFileSync(path.join(workspace, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2020", module: "commonjs" }, include: ["*.ts"] }));
  const mock = startScriptedApi(python, tmp, "editor", SCRIPT);
  try {
    const url = await mock.url;
    log(`scripted model at ${url}`);
    mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({
      "agentls.contextWindow": 40000, "agentls.baseUrl": url, "agentls.diagnosticsWaitMs": 30000 }, null, 2));
    await waitFor(async () => !/demo/.test((await chat.locator(".model").textContent()) ?? "demo"), 30_000, "the scripted model to replace the demo model");

    // TypeScript starts when a .ts file opens; its first error shows in the status bar
    await palette(page, "Go to File");
    await page.keyboard.type("main.ts");
    await page.locator(".quick-input-widget .monaco-list-row", { hasText: "main.ts" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: "main.ts" }).waitFor({ timeout: 15_000 });
    const problems = page.locator('[id="status.problems"]');
    await waitFor(async () => /(^|\D)1(\D|$)/.test((await problems.textContent()) ?? ""), 120_000, "TypeScript's first error in the status bar");
    log(`TypeScript is up: problems "${((await problems.textContent()) ?? "").trim()}"`);

    const turn = async (prompt, tool) => {
      const before = await chat.locator(".msg.assistant.done").count();
      await chat.locator("#input").fill(prompt);
      await chat.locator("#input").press("Enter");
      return async () => {
        await waitFor(async () => (await chat.locator(".msg.assistant.done").count()) > before, 120_000, `the reply to "${prompt}"`);
        return waitFor(async () => toolResult(mock.record, tool), 10_000, `the ${tool} result at the API endpoint`);
      };
    };

    // 11: symbols
    const symbols = await (await turn("Where is the Shape class?", "find_symbols"))();
    log(`find_symbols result as the model got it:\n${symbols}`);
    if (!/^shapes\.ts:1 class Shape$/m.test(symbols)) fail(`find_symbols did not list the class Shape: ${symbols}`);
    await shot(page, "11-editor-symbols");

    // 12: references
    const references = await (await turn("Who calls area?", "find_references"))();
    log(`find_references result as the model got it:\n${references}`);
    for (const site of ["main.ts:5: const a1 = area(square);", "main.ts:6: const a2 = area(wide);", "shapes.ts:5: export function area"]) {
      if (!references.includes(site)) fail(`find_references lacks ${site}: ${references}`);
    }
    await shot(page, "12-editor-references");
    const definition = await (await turn("Where is area defined?", "go_to_definition"))();
    log(`go_to_definition result as the model got it:\n${definition}`);
    if (!/^shapes\.ts:5: export function area/m.test(definition)) fail(`go_to_definition did not land in shapes.ts: ${definition}`);
    if (!/^Hover:\n[\s\S]*\barea\(shape: Shape\): number/m.test(definition)) fail(`go_to_definition lacks the hover signature: ${definition}`);

    // 13: an approved edit that breaks the types
    const edited = await turn("Show the total with its unit.", "edit_file");
    const approval = chat.locator(".approval", { hasText: "wants to edit" }).first(); // inside the panel, on the card
    await approval.waitFor({ timeout: 60_000 });
    await shot(page, "13-editor-approve-edit");
    await approval.locator('button[data-choice="approve"]').click();
    const result = await edited();
    log(`edit_file result as the model got it:\n${result}`);
    if (!/^Applied; 1 new error:$/m.test(result)) fail(`the edit result does not report exactly one new error: ${result}`);
    if (!/^main\.ts:7:\d+ error ts\(2322\): Type 'string' is not assignable to type 'number'\.$/m.test(result)) {
      fail(`the edit result lacks the new TS2322 at main.ts:7: ${result}`);
    }
    await palette(page, "Go to File");
    await page.keyboard.type("main.ts");
    await page.locator(".quick-input-widget .monaco-list-row", { hasText: "main.ts" }).first().waitFor();
    await page.keyboard.press("Enter");
    await waitFor(async () => /(^|\D)2(\D|$)/.test((await problems.textContent()) ?? ""), 30_000, "two errors in the status bar");
    await page.waitForTimeout(500);
    await shot(page, "14-editor-new-error");
    const problems2 = await (await turn("What is broken now?", "get_diagnostics"))();
    log(`get_diagnostics result as the model got it:\n${problems2}`);
    if (!/^2 errors in the workspace:$/m.test(problems2) || !/^main\.ts:8:\d+ error ts\(2322\)/m.test(problems2)) {
      fail(`get_diagnostics does not list both errors: ${problems2}`);
    }
    log("editor tools: symbols found the class, references found the call sites, the edit's new error reached the model");
  } finally {
    mock.child.kill("SIGTERM");
  }
}
