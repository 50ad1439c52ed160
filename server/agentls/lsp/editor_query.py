"""agent/editorQuery: the agent asks the editor's own language features (docs/protocol.md).

The client declares the kinds it answers in `initializationOptions.editorQueries`;
only those tools are offered to the model. A client that does not answer in
time (its wait for diagnostics included) gets the request cancelled and the
tool reports the failure: a turn never hangs on the editor.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from pygls.exceptions import JsonRpcException

from ..agent.editor_queries import KINDS, EditorQuery, EditorQueryError  # not tools/: the tools load later
from . import protocol
from .transport import client_request

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

EDITOR_QUERY = protocol.EDITOR_QUERY
ANSWER_TIMEOUT = 30.0  # seconds the client gets beyond the wait it was asked for


def declared_kinds(raw: Any) -> tuple[frozenset[str], list[str]]:
    """The known kinds of `initializationOptions.editorQueries`, and what was wrong with it."""
    if raw is None or raw == {}:  # Lua encodes an empty list as {}
        return frozenset(), []
    if not isinstance(raw, list) or not all(isinstance(kind, str) for kind in raw):
        return frozenset(), ["initializationOptions.editorQueries must be a list of strings; ignored"]
    return frozenset(kind for kind in raw if kind in KINDS), []


class EditorQueryClient:
    """EditorQueries over LSP: one agent/editorQuery request per query."""

    def __init__(self, ls: LanguageServer, kinds: frozenset[str], wait_ms: Callable[[], int]) -> None:
        self._ls = ls
        self.kinds = kinds
        self._wait_ms = wait_ms

    @property
    def diagnostics_wait(self) -> float:
        return self._wait_ms() / 1000

    async def query(self, query: EditorQuery) -> dict[str, Any]:
        if query.kind not in self.kinds:
            raise EditorQueryError(f"the editor does not answer {query.kind!r} queries")
        params = protocol.editor_query_params(query)
        timeout = ANSWER_TIMEOUT + query.wait_ms / 1000
        try:
            result = await asyncio.wait_for(client_request(self._ls.protocol, EDITOR_QUERY, params), timeout)
        except asyncio.TimeoutError:
            raise EditorQueryError(f"no answer within {timeout:g}s") from None
        except JsonRpcException as error:
            raise EditorQueryError(error.message or "the editor answered with an error") from None
        if result is None:
            return {}
        if not isinstance(result, dict):
            raise EditorQueryError("the editor's answer is not an object")
        return result
