import assert from "node:assert/strict";
import { test } from "node:test";
import type { PermissionRule } from "../../src/protocol";
import { permissionsMarkdown, ruleSource } from "../../src/shared/permissions";

const rule = (rule: string, decision: PermissionRule["decision"], source = "settings"): PermissionRule => ({ rule, decision, source });

test("/permissions names the settings file each rule is written in (the server only says 'settings')", () => {
  const inspected = { globalValue: { allow: ["read_file"] }, workspaceValue: { deny: ["run_shell(rm *)"] }, workspaceFolderValue: { ask: ["write_file(**)"] } };
  assert.equal(ruleSource(rule("read_file", "allow"), inspected), "user settings");
  assert.match(ruleSource(rule("run_shell(rm *)", "deny"), inspected), /^workspace settings/);
  assert.match(ruleSource(rule("write_file(**)", "ask"), inspected), /^folder settings \(`\.vscode\/settings\.json`\)/);
  assert.equal(ruleSource(rule("edit_file", "allow", ".agents/settings.json"), inspected), "`.agents/settings.json` (workspace)");
  assert.equal(ruleSource(rule("x", "allow", "added by Always (this session)"), inspected), "added by Always (this session)");
  assert.equal(ruleSource(rule("gone", "allow"), undefined), "settings (`agentls.permissions`)");
});

test("/permissions is a list, one rule a line (a table broke words in a narrow panel); backticks in a rule stay code", () => {
  const md = permissionsMarkdown([rule("run_shell(npm test*)", "allow"), rule("run_shell(echo `x`)", "deny", ".agents/settings.json")], { globalValue: { allow: ["run_shell(npm test*)"] } });
  assert.doesNotMatch(md, /\|/);
  assert.deepEqual(md.split("\n").slice(2), [
    "- **allow** `run_shell(npm test*)` — user settings",
    "- **deny** `` run_shell(echo `x`) `` — `.agents/settings.json` (workspace)",
  ]);
  assert.match(permissionsMarkdown([], undefined), /No permission rules yet/);
});
