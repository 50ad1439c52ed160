"""An Anthropic-compatible Messages API on 127.0.0.1 for tests and the offline demo.

    from agentls.mock_api import MockAnthropicServer, Reply, Text, Thinking, ToolUse, Fault

A request nothing was scripted for is answered by the `responder` the server was given
(the offline demo passes its brain, `agentls.demo.brain.demo_reply`), else by a plain
"nothing was scripted" text.
"""

from .faults import Fault
from .models import mock_model
from .script import RedactedThinking, Reply, Text, Thinking, ToolUse
from .server import MockAnthropicServer, RecordedRequest, load_script_file

__all__ = [
    "Fault",
    "MockAnthropicServer",
    "RecordedRequest",
    "RedactedThinking",
    "Reply",
    "Text",
    "Thinking",
    "ToolUse",
    "load_script_file",
    "mock_model",
]
