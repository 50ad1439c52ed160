"""Standard work-done progress for a chat turn that came with a workDoneToken.

begin "Agent" → one report per tool call ("Reading src/x.py") → end. The
progress is cancellable: the client's window/workDoneProgress/cancel cancels
the turn just like $/cancelRequest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Callable

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

VERBS = {"read_file": "Reading", "list_files": "Listing", "grep_search": "Searching",
         "edit_file": "Editing", "write_file": "Writing", "run_shell": "Running"}


def progress_message(tool: str, summary: str) -> str:
    """'read_file src/x.py' → 'Reading src/x.py'."""
    rest = summary[len(tool) + 1:] if summary.startswith(tool + " ") else ""
    verb = VERBS.get(tool)
    if verb and rest:
        return f"{verb} {rest}"
    return summary or tool


class TurnProgress:
    def __init__(self, ls: LanguageServer, token: str | int, on_cancel: Callable[[], object]) -> None:
        self._ls = ls
        self._token = token
        self._on_cancel = on_cancel

    def begin(self, title: str = "Agent") -> None:
        progress = self._ls.work_done_progress
        progress.tokens.pop(self._token, None)  # a reused token starts fresh
        progress.begin(self._token, types.WorkDoneProgressBegin(title=title, cancellable=True, message="Thinking"))
        progress.tokens[self._token].add_done_callback(lambda future: future.cancelled() and self._on_cancel())

    def report(self, message: str) -> None:
        self._ls.work_done_progress.report(self._token, types.WorkDoneProgressReport(message=message))

    def end(self, message: str) -> None:
        self._ls.work_done_progress.end(self._token, types.WorkDoneProgressEnd(message=message))
        self._ls.work_done_progress.tokens.pop(self._token, None)
