import assert from "node:assert/strict";
import { test } from "node:test";
import { makeConfirmHandler } from "../../src/approvals";
import { ALWAYS, APPROVE, REJECT, confirmDetail, confirmResult, confirmTitle } from "../../src/shared/confirm";
import { VirtualDocs } from "../../src/virtualDocs";

test("button → ConfirmResult", () => {
  assert.deepEqual(confirmResult(APPROVE), { approved: true, remember: false });
  assert.deepEqual(confirmResult(ALWAYS), { approved: true, remember: true });
  assert.deepEqual(confirmResult(REJECT), { approved: false, remember: false });
  assert.deepEqual(confirmResult(undefined), { approved: false, remember: false }); // dismissed
});

test("titles and details", () => {
  assert.match(confirmTitle({ kind: "shell", command: "ls" }), /shell command/);
  assert.equal(confirmDetail({ kind: "shell", command: "rm -rf build" }), "rm -rf build");
  assert.match(confirmTitle({ kind: "edit", path: "a.py" }), /edit a\.py/);
  const long = Array.from({ length: 60 }, (_, i) => `+line ${i}`).join("\n");
  assert.match(confirmDetail({ kind: "write", path: "a.py", diff: long }), /20 more lines/);
});

test("shell confirmation shows a modal with the command and maps the choice", async () => {
  const calls: { message: string; options: { modal?: boolean; detail?: string }; items: string[] }[] = [];
  let choice: string | undefined = ALWAYS;
  const ui = {
    showWarningMessage: (message: string, options: { modal?: boolean; detail?: string }, ...items: string[]) => {
      calls.push({ message, options, items });
      return Promise.resolve(choice);
    },
  };
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never);
  assert.deepEqual(await handler({ kind: "shell", command: "pytest -q" }), { approved: true, remember: true });
  assert.equal(calls[0].options.modal, true);
  assert.equal(calls[0].options.detail, "pytest -q");
  assert.deepEqual(calls[0].items, [APPROVE, ALWAYS, REJECT], "the fallback modal names Reject, as the panel does");
  choice = undefined;
  assert.deepEqual(await handler({ kind: "shell", command: "curl x | sh" }), { approved: false, remember: false });
});

test("a file change is asked without a modal, so the diff editor stays visible", async () => {
  const calls: { message: string; options: { modal?: boolean }; items: string[] }[] = [];
  const ui = {
    showWarningMessage: (message: string, options: { modal?: boolean }, ...items: string[]) => {
      calls.push({ message, options, items });
      return Promise.resolve(REJECT);
    },
  };
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never);
  assert.deepEqual(await handler({ kind: "edit", path: "README.md", diff: "@@ -1 +1 @@\n-a\n+b\n" }), { approved: false, remember: false });
  assert.notEqual(calls[0].options.modal, true);
  assert.match(calls[0].message, /edit README\.md/);
  assert.deepEqual(calls[0].items, [APPROVE, ALWAYS, REJECT]);
});

test("an MCP call is asked in a modal whose detail shows the arguments", async () => {
  const calls: { message: string; options: { modal?: boolean; detail?: string }; items: string[] }[] = [];
  const ui = {
    showWarningMessage: (message: string, options: { modal?: boolean; detail?: string }, ...items: string[]) => {
      calls.push({ message, options, items });
      return Promise.resolve(APPROVE);
    },
  };
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never);
  const input = JSON.stringify({ repo_path: "/w" });
  assert.deepEqual(await handler({ kind: "mcp", server: "git", tool: "git_status", input }), { approved: true, remember: false });
  assert.equal(calls[0].options.modal, true);
  assert.equal(calls[0].options.detail, input);
  assert.match(calls[0].message, /call git_status on MCP server 'git'/);
  assert.deepEqual(calls[0].items, [APPROVE, ALWAYS, REJECT]);
});

test("the panel's buttons answer as the modal's: Always is remember, a refusal carries its reason", async () => {
  const { panelResult, askedInPanel } = await import("../../src/shared/confirm");
  assert.deepEqual(panelResult("approve", "ignored"), { approved: true, remember: false });
  assert.deepEqual(panelResult("always"), { approved: true, remember: true });
  assert.deepEqual(panelResult("reject", "  not on main  "), { approved: false, remember: false, reason: "not on main" });
  assert.deepEqual(panelResult("reject", " "), { approved: false, remember: false });
  assert.equal(askedInPanel({ kind: "shell", command: "ls" }), true);
  assert.equal(askedInPanel({ kind: "rewind", checkpoint: "c" }), false);
});

test("a visible panel asks inline; the native modal only when no panel is visible", async () => {
  const modal: string[] = [];
  const ui = { showWarningMessage: (message: string) => (modal.push(message), Promise.resolve(APPROVE)) };
  let visible = true;
  const asked: unknown[] = [];
  const panel = (p: unknown) => {
    if (!visible) return undefined;
    asked.push(p);
    return Promise.resolve({ approved: false, remember: false, reason: "later" });
  };
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never, panel);
  const p = { kind: "shell" as const, command: "ls", toolUseId: "u1" };
  assert.deepEqual(await handler(p), { approved: false, remember: false, reason: "later" });
  assert.deepEqual([asked, modal], [[p], []]);
  visible = false;
  assert.deepEqual(await handler(p), { approved: true, remember: false });
  assert.equal(modal.length, 1, "the fallback asked");
});
