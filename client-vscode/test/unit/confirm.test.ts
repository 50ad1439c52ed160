import assert from "node:assert/strict";
import { test } from "node:test";
import { makeConfirmHandler } from "../../src/approvals";
import { ALWAYS, APPROVE, REJECT, confirmDetail, confirmResult, confirmTitle, withAllowRules } from "../../src/shared/confirm";
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
  let answer = { approved: false, remember: false, reason: "later" };
  const panel = (p: unknown) => {
    if (!visible) return undefined;
    asked.push(p);
    return Promise.resolve(answer);
  };
  const kept: string[][] = [];
  const keep = async (rules: string[]) => (kept.push(rules), { where: "x", open: "y" });
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never, keep, panel);
  const p = { kind: "shell" as const, command: "ls", toolUseId: "u1", rules: ["run_shell(ls)"] };
  assert.deepEqual(await handler(p), { approved: false, remember: false, reason: "later" });
  assert.deepEqual([asked, modal, kept], [[p], [], []]);
  // "Always" answered in the panel keeps the request's rules as the dialog's would
  answer = { approved: true, remember: true, reason: "" };
  assert.deepEqual(await handler(p), answer);
  assert.deepEqual(kept, [["run_shell(ls)"]]);
  visible = false;
  assert.deepEqual(await handler(p), { approved: true, remember: false });
  assert.equal(modal.length, 1, "the fallback asked");
});

test("Always keeps the request's rules in agentls.permissions.allow and says so in the dialog", async () => {
  const kept: string[][] = [];
  const ui = {
    showWarningMessage: (_m: string, _o: unknown, ..._items: string[]) => Promise.resolve(ALWAYS),
  };
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never, async (rules) => {
    kept.push(rules);
    return { where: "workspace settings (.vscode/settings.json)", open: "workbench.action.openWorkspaceSettingsFile" };
  });
  const p = { kind: "shell" as const, command: "git status && npm test", rules: ["run_shell(npm test)"] };
  assert.match(confirmDetail(p), /"Always" allows from now on: run_shell\(npm test\)$/);
  assert.deepEqual(await handler(p), { approved: true, remember: true });
  assert.deepEqual(kept, [["run_shell(npm test)"]]);
  // Approve once keeps nothing; a request without rules (unparseable) keeps nothing either
  const once = makeConfirmHandler(new VirtualDocs(), { showWarningMessage: () => Promise.resolve(APPROVE) } as never, async (r) => {
    kept.push(r);
    return { where: "x", open: "y" };
  });
  await once(p);
  await handler({ kind: "shell", command: "echo 'unclosed" });
  assert.equal(kept.length, 1);
});

test("withAllowRules adds each rule once and keeps the other lists", () => {
  assert.deepEqual(withAllowRules(undefined, ["run_shell(ls)"]), { allow: ["run_shell(ls)"] });
  assert.deepEqual(withAllowRules({ allow: ["run_shell(ls)"], deny: ["run_shell(rm *)"] }, ["run_shell(ls)", "edit_file(/a.py)"]), {
    allow: ["run_shell(ls)", "edit_file(/a.py)"],
    deny: ["run_shell(rm *)"],
  });
});

test("a workspace's rules are asked in a modal showing them, Approve or Reject (no Always)", async () => {
  const calls: { message: string; options: { modal?: boolean; detail?: string }; items: string[] }[] = [];
  const ui = {
    showWarningMessage: (message: string, options: { modal?: boolean; detail?: string }, ...items: string[]) => {
      calls.push({ message, options, items });
      return Promise.resolve(APPROVE);
    },
  };
  let panelAsked = false;
  const handler = makeConfirmHandler(new VirtualDocs(), ui as never, async () => undefined, () => {
    panelAsked = true;
    return undefined;
  });
  const result = await handler({ kind: "rules", path: ".agents/settings.json", diff: "allow run_shell(npm test*)" });
  assert.deepEqual(result, { approved: true, remember: false });
  assert.equal(panelAsked, false);
  assert.equal(calls.length, 1);
  assert.match(calls[0].message, /Accept the permission rules of \.agents\/settings\.json/);
  assert.equal(calls[0].options.modal, true);
  assert.equal(calls[0].options.detail, "allow run_shell(npm test*)");
  assert.deepEqual(calls[0].items, [APPROVE, REJECT]);
});
