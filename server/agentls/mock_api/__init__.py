"""An Anthropic-compatible Messages API on 127.0.0.1 for tests and the offline demo.

    from agentls.mock_api import MockAnthropicServer, Reply, Text, Thinking, ToolUse, Fault
"""

from .demo_agent import DEMO_LABEL, demo_reply
from .faults import Fault
from .models import mock_model
from .script import RedactedThinking, Reply, Text, Thinking, ToolUse
from .server import MockAnthropicServer, RecordedRequest, load_script_file

__all__ = [
    "DEMO_LABEL",
    "Fault",
    "MockAnthropicServer",
    "RecordedRequest",
    "RedactedThinking",
    "Reply",
    "Text",
    "Thinking",
    "ToolUse",
    "demo_reply",
    "load_script_file",
    "mock_model",
]
