import assert from "node:assert/strict";
import { test } from "node:test";
import { targetFor } from "../../src/settingWriter";

test("a picked model goes where the base URL that lists it was set (issue 33), not always to the user's settings", () => {
  assert.equal(targetFor({}, { workspaceValue: "http://127.0.0.1:9/" }), "workspace");
  assert.equal(targetFor(undefined, { workspaceFolderValue: "http://127.0.0.1:9/" }), "workspaceFolder");
  assert.equal(targetFor({}, {}), "user", "no base URL anywhere but the user's: the user's settings");
});

test("a value that would shadow the new one decides first: the setting is written where it takes effect", () => {
  assert.equal(targetFor({ workspaceFolderValue: "m" }, { workspaceValue: "u" }), "workspaceFolder");
  assert.equal(targetFor({ workspaceValue: "m" }, {}), "workspace");
  assert.equal(targetFor({ workspaceValue: "m" }), "workspace");
});
