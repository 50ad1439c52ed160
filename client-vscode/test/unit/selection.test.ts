import assert from "node:assert/strict";
import { test } from "node:test";
import { linesLabel, selectedSpan } from "../../src/shared/selection";

const length = () => 10;

test("a selection ending at column 0 of the next line does not count that line", () => {
  const span = selectedSpan({ line: 0, character: 0 }, { line: 4, character: 0 }, length);
  assert.deepEqual(span.end, { line: 3, character: 10 });
  assert.equal(linesLabel(span.start, span.end), "lines 1-4");
});

test("a selection ending inside a line counts it; one line is 'line n'", () => {
  const span = selectedSpan({ line: 0, character: 2 }, { line: 4, character: 1 }, length);
  assert.equal(linesLabel(span.start, span.end), "lines 1-5");
  const one = selectedSpan({ line: 2, character: 0 }, { line: 3, character: 0 }, length);
  assert.equal(linesLabel(one.start, one.end), "line 3");
});
