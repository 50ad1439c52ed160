"""What the agent may ask the editor: the contract a front end implements (LSP: `agent/editorQuery`).

Tools see an `EditorQueries` in their ToolContext (tools/base.py), as they see
an ApprovalCallback and a Workspace. The LSP layer implements it with the
`agent/editorQuery` request (docs/protocol.md, lsp/editor_query.py) and raises
`EditorQueryError` when the editor cannot answer. The tools that use it are in
tools/editor/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

KINDS = ("diagnostics", "symbols", "definition", "references", "hover")


class EditorQueryError(Exception):
    """The editor could not answer (error reply, timeout, malformed result)."""


@dataclass(frozen=True)
class EditorQuery:
    """A question for the editor's own language features (a front end puts it on its wire)."""

    kind: str  # diagnostics, symbols, definition, references, hover
    uri: str | None = None
    line: int | None = None  # 0-based, with character: a position in the document
    character: int | None = None  # UTF-16 code units, as LSP positions count by default
    query: str | None = None  # symbols: the name to look for
    severity: str | None = None  # diagnostics: this severity or worse
    changed_since: int | None = None  # diagnostics of a uri: answer once its generation is above this…
    wait_ms: int = 0  # …or after this long at most


class EditorQueries(Protocol):
    kinds: frozenset[str]  # what the client declared it answers

    @property
    def diagnostics_wait(self) -> float:
        """Seconds to wait for a file's diagnostics after an edit (0: do not wait)."""
        ...

    async def query(self, query: EditorQuery) -> dict[str, Any]:
        """One round trip to the editor: its answer (LSP's own shapes: Location, Diagnostic…);
        raises EditorQueryError."""
        ...
