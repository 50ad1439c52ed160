import assert from "node:assert/strict";
import { test } from "node:test";
import { parseInput, slashCompletions } from "../../src/shared/slash";

test("plain prompts", () => {
  assert.deepEqual(parseInput("  hello  "), { type: "prompt", text: "hello" });
  assert.deepEqual(parseInput("   "), { type: "empty" });
});

test("slash commands with and without arguments", () => {
  assert.deepEqual(parseInput("/compact"), { type: "command", name: "compact", args: "" });
  assert.deepEqual(parseInput("/compact keep the API notes\nand tests"), {
    type: "command",
    name: "compact",
    args: "keep the API notes\nand tests",
  });
  assert.deepEqual(parseInput("/COST"), { type: "command", name: "cost", args: "" });
  assert.deepEqual(parseInput("/clear"), { type: "command", name: "clear", args: "" });
  assert.deepEqual(parseInput("/context"), { type: "command", name: "context", args: "" });
});

test("unknown commands, paths and escapes", () => {
  assert.deepEqual(parseInput("/frobnicate now"), { type: "unknown", name: "frobnicate" });
  assert.deepEqual(parseInput("/etc/hosts has a typo"), { type: "prompt", text: "/etc/hosts has a typo" });
  assert.deepEqual(parseInput("//compact is a command"), { type: "prompt", text: "/compact is a command" });
});

test("completions at the start of the input", () => {
  assert.deepEqual(slashCompletions("/co").map((c) => c.name), ["compact", "cost", "context"]);
  assert.deepEqual(slashCompletions("/").length, 7);
  assert.deepEqual(slashCompletions("/compact x"), []);
  assert.deepEqual(slashCompletions("hi /co"), []);
});
