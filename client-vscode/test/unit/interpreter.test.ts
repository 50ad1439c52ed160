import assert from "node:assert/strict";
import { test } from "node:test";
import { expandPythonPath, interpreterCandidates, pickWheel, serverArgs, venvPython } from "../../src/shared/interpreter";

test("setting first, then private env, then python3; the Python extension is skipped when the setting is set", () => {
  assert.deepEqual(
    interpreterCandidates({ setting: "/opt/py/bin/python", pythonExtension: "/ext/python", privateEnv: "/gs/venv/bin/python", fallback: "python3" }),
    [
      { path: "/opt/py/bin/python", source: "setting" },
      { path: "/gs/venv/bin/python", source: "privateEnv" },
      { path: "python3", source: "default" },
    ],
  );
});

test("without a setting the Python extension's interpreter comes first", () => {
  assert.deepEqual(
    interpreterCandidates({ setting: "  ", pythonExtension: "/ext/python", fallback: "python3" }).map((c) => c.source),
    ["pythonExtension", "default"],
  );
});

test("works without the Python extension, and drops duplicates", () => {
  assert.deepEqual(interpreterCandidates({ fallback: "python3" }), [{ path: "python3", source: "default" }]);
  assert.deepEqual(interpreterCandidates({ setting: "python3", fallback: "python3" }), [{ path: "python3", source: "setting" }]);
});

test("pythonPath expansion", () => {
  assert.equal(expandPythonPath("~/venv/bin/python", { home: "/home/u" }), "/home/u/venv/bin/python");
  assert.equal(expandPythonPath("${workspaceFolder}/.venv/bin/python", { workspaceFolder: "/w" }), "/w/.venv/bin/python");
  assert.equal(expandPythonPath(" /x/python ", {}), "/x/python");
});

test("venv paths, server args and wheel choice", () => {
  assert.equal(venvPython("/gs/venv", "linux"), "/gs/venv/bin/python");
  assert.equal(venvPython("C:\\gs\\venv", "win32"), "C:\\gs\\venv\\Scripts\\python.exe");
  assert.deepEqual(serverArgs(), ["-m", "agentls", "serve", "--stdio"]);
  assert.equal(pickWheel(["README", "agentls-0.1.0-py3-none-any.whl", "agentls-0.10.0-py3-none-any.whl", "other-1.0-py3-none-any.whl"]), "agentls-0.10.0-py3-none-any.whl");
  assert.equal(pickWheel([]), undefined);
});
