"""An Anthropic-compatible Messages API on 127.0.0.1 for tests and the offline demo.

    from agentls.mock_api import MockAnthropicServer, Reply, Text, Thinking, ToolUse, Fault

A request nothing was scripted for is answered by the `responder` the server was given
(the offline demo passes its brain, `agentls.demo.brain.demo_reply`), else by a plain
"nothing was scripted" text.

It enforces today's API rules (rules.py and the modules it names): thinking blocks signed to their prefix and
checked on every request (the documented 400, or `drop_block` with `input_transformations`; the server's
default: `thinking_mismatch="error" | "drop" | "off"`), mid-conversation system messages and tool changes,
on-demand compaction, server-side context editing, cache diagnostics, and the Models API's capabilities
(`mock_model(..., compaction=, context_management=)`), and the tool search tool (tool_search.py: a scripted
`ToolSearch(query)` is the model's search, answered with `tool_reference`s).
"""

from .faults import Fault
from .models import mock_model
from .script import RedactedThinking, Reply, Text, Thinking, ToolSearch, ToolUse
from .server import MockAnthropicServer, RecordedRequest, load_script_file

__all__ = [
    "Fault",
    "MockAnthropicServer",
    "RecordedRequest",
    "RedactedThinking",
    "Reply",
    "Text",
    "Thinking",
    "ToolSearch",
    "ToolUse",
    "load_script_file",
    "mock_model",
]
