"""The context engine: one history type and the layers that keep it inside the window.

Pure: no network, no LSP, no clock. The only I/O is the result store it is
handed. Read top to bottom to follow a tool result: history -> truncate (L0)
-> policy (budget L1, snip L2, clear, microcompact) -> compact (L3) -> pipeline.
"""

from .config import ContextConfig
from .history import History
from .tool_record import ToolRecord
from .pipeline import ContextEngine, Prepared
from .store import MemoryStore, ResultStore
from .structure import StructureError, validate_request

__all__ = [
    "ContextConfig",
    "ContextEngine",
    "History",
    "MemoryStore",
    "Prepared",
    "ResultStore",
    "StructureError",
    "ToolRecord",
    "validate_request",
]
