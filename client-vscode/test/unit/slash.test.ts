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
  assert.deepEqual(parseInput("/mcp"), { type: "command", name: "mcp", args: "" });
});

test("unknown commands, paths and escapes", () => {
  assert.deepEqual(parseInput("/frobnicate now"), { type: "unknown", name: "frobnicate" });
  assert.deepEqual(parseInput("/etc/hosts has a typo"), { type: "prompt", text: "/etc/hosts has a typo" });
  assert.deepEqual(parseInput("//compact is a command"), { type: "prompt", text: "/compact is a command" });
});

test("completions at the start of the input", () => {
  assert.deepEqual(slashCompletions("/co").map((c) => c.name), ["compact", "cost", "context"]);
  assert.deepEqual(slashCompletions("/").length, 10);
  assert.deepEqual(slashCompletions("/pl").map((c) => c.name), ["plan"]);
  assert.deepEqual(slashCompletions("/compact x"), []);
  assert.deepEqual(slashCompletions("hi /co"), []);
});

test("custom commands parse, complete after the built-ins and never shadow them", () => {
  const custom = [
    { name: "review", description: "Review a file", source: "workspace" as const, argumentHint: "<file>" },
    { name: "cost", description: "a file named like a built-in", source: "user" as const, argumentHint: "" },
  ];
  assert.deepEqual(parseInput("/review src/app.py", custom), { type: "custom", name: "review", args: "src/app.py" });
  assert.deepEqual(parseInput("/cost", custom), { type: "command", name: "cost", args: "" });
  assert.deepEqual(parseInput("/review src/app.py"), { type: "unknown", name: "review" });
  const offered = slashCompletions("/re", custom);
  assert.deepEqual(offered.map((c) => [c.usage, c.custom]), [["/review <file>", true]]);
  assert.equal(offered[0].description, "Review a file (workspace)");
});
