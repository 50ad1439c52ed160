"""Tools answered by the editor's own language intelligence (agent/editorQuery).

Offered only for the query kinds the client declared at initialize; each
tool needs one kind. `after_edit` adds the errors an edit introduced to the
edit's own result.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..base import Tool
from . import diagnostics, navigation, symbols
from ...editor_queries import KINDS, EditorQueries, EditorQuery, EditorQueryError

# tool → the query kind it needs, in the order offered (part of the prompt cache key)
NEEDS: dict[str, str] = {
    diagnostics.TOOL.name: "diagnostics",
    symbols.TOOL.name: "symbols",
    navigation.DEFINITION.name: "definition",
    navigation.REFERENCES.name: "references",
}
TOOLS: dict[str, Tool] = {tool.name: tool for tool in (diagnostics.TOOL, symbols.TOOL,
                                                       navigation.DEFINITION, navigation.REFERENCES)}


def offered(kinds: Iterable[str]) -> list[Tool]:
    declared = set(kinds)
    return [tool for name, tool in TOOLS.items() if NEEDS[name] in declared]


__all__ = ["KINDS", "NEEDS", "TOOLS", "EditorQueries", "EditorQuery", "EditorQueryError", "offered"]
