import assert from "node:assert/strict";
import { test } from "node:test";
import { describeNoInterpreter, failedSetting, type Tried } from "../../src/shared/launchErrors";

const missing = (path: string, source: Tried["candidate"]["source"]): Tried => ({
  candidate: { path, source },
  probe: { ok: false, missing: true, detail: `spawn ${path} ENOENT` },
});
const noModule = (path: string, source: Tried["candidate"]["source"]): Tried => ({
  candidate: { path, source },
  probe: { ok: false, missing: false, detail: "ModuleNotFoundError: No module named 'agentls'" },
});

test("a bad agentls.pythonPath is named, with its error and the fix", () => {
  const msg = describeNoInterpreter([missing("/nonexistent/bin/python", "setting"), noModule("python3", "default")]);
  assert.match(msg, /agentls\.pythonPath is "\/nonexistent\/bin\/python", which could not be run \(spawn \/nonexistent\/bin\/python ENOENT\)/);
  assert.match(msg, /Fix: /);
  assert.doesNotMatch(msg, /not installed in python3/);
});

test("a setting that runs but lacks agentls says how to install it there", () => {
  const msg = describeNoInterpreter([noModule("/venv/bin/python", "setting")]);
  assert.match(msg, /"\/venv\/bin\/python", which runs, but agentls is not installed in it/);
  assert.match(msg, /\/venv\/bin\/python -m pip install agentls/);
});

test("without a setting every interpreter tried is listed", () => {
  const msg = describeNoInterpreter([noModule("/envs/x/bin/python", "pythonExtension"), missing("python3", "default")]);
  assert.match(msg, /\/envs\/x\/bin\/python \(the Python extension's interpreter\) runs, but agentls is not installed/);
  assert.match(msg, /python3 \(the default\) could not be run/);
});

test("a working setting is not a failure", () => {
  const ok: Tried = { candidate: { path: "/ok/python", source: "setting" }, probe: { ok: true, missing: false, detail: "0.1 3.11" } };
  assert.equal(failedSetting([ok]), undefined);
});
