"""The caps on one tool result, in one place: three, at three points of its way, each for its own reason.

1. TOOL_OUTPUT_CHARS (50,000 characters): what a built-in tool produces
   (`ToolContext.output_cap`: read_file's lines, run_shell's head and tail). A
   tool that could print a gigabyte stops collecting early, so no time or memory
   goes into output nobody reads.
2. RESULT_CAP_BYTES (1 MB of UTF-8): what agentls keeps of any result, MCP
   items included, before it is turned into text or stored (agent/result_cap.py
   cuts it, with a note saying so). One MCP call once brought 150 MB into the
   history, the database and its WAL: the cap bounds what is stored.
3. TRUNCATE_CHARS (50,000 characters): L0 of the context engine
   (`ContextConfig.truncate_chars`, context/truncate.py) cuts a result to head +
   tail as it enters the history; the whole text (up to cap 2) stays in the
   store behind a `context://` ref the model can read back. This bounds what the
   model is shown, whatever the tool.

So a built-in tool's result is never cut by 2 (1 is smaller), while an MCP
result is (it has no cap 1); and L0 shows at most 50,000 characters of either.
The user's own material (an attachment, a pasted text the window could not
hold) is kept whole up to ATTACHMENT_CAP_BYTES instead of cap 2.
"""

from __future__ import annotations

TOOL_OUTPUT_CHARS = 50_000
RESULT_CAP_BYTES = 1_000_000
TRUNCATE_CHARS = 50_000
ATTACHMENT_CAP_BYTES = 16_000_000

# What one tool call may add to sessions.db and its WAL together: the original (at most cap 2) and the
# model's copy in the history (L0 keeps 50,000 characters, at most 300 KB as JSON: 6 bytes for an escaped
# character), each written once to the WAL and once more to the database when SQLite checkpoints it.
STORE_GROWTH_PER_CALL = 2 * (RESULT_CAP_BYTES + 6 * TRUNCATE_CHARS) + 400_000  # + pages of the few small rows
