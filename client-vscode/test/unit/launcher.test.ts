import assert from "node:assert/strict";
import { test } from "node:test";
import { probe, pythonExtensionInterpreter } from "../../src/launcher";
import { __fake } from "./fake-vscode";

test("no Python extension → undefined (it is optional)", async () => {
  __fake.reset();
  assert.equal(await pythonExtensionInterpreter(), undefined);
});

test("Python extension environments API", async () => {
  __fake.reset();
  __fake.extensions["ms-python.python"] = {
    isActive: false,
    activate: async () => ({
      environments: {
        getActiveEnvironmentPath: () => ({ id: "x", path: "/envs/x" }),
        resolveEnvironment: async () => ({ executable: { uri: { fsPath: "/envs/x/bin/python" } } }),
      },
    }),
  };
  assert.equal(await pythonExtensionInterpreter(), "/envs/x/bin/python");
});

test("Python extension legacy execution details API", async () => {
  __fake.reset();
  __fake.extensions["ms-python.python"] = {
    isActive: true,
    exports: { settings: { getExecutionDetails: () => ({ execCommand: ["/legacy/python"] }) } },
  };
  assert.equal(await pythonExtensionInterpreter(), "/legacy/python");
});

test("a broken Python extension is ignored", async () => {
  __fake.reset();
  __fake.extensions["ms-python.python"] = { isActive: false, activate: async () => { throw new Error("boom"); } };
  assert.equal(await pythonExtensionInterpreter(), undefined);
});

test("probe distinguishes a missing interpreter from a missing module", async () => {
  const missing = await probe("/nonexistent/python-xyz");
  assert.equal(missing.ok, false);
  assert.equal(missing.missing, true);
  const py = await probe("python3");
  // python3 exists here; agentls may or may not be importable in it
  assert.equal(py.missing, false);
});
