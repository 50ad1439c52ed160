"""A stand-in for the user's other language server in the headless Neovim test.

For any opened file: one error diagnostic on the first line that contains
`BROKEN`; references to the word under the cursor are its whole-word
occurrences in the open documents; the definition is the first of them.
"""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("stand-in-ls", "0.1")


def occurrences(ls: LanguageServer, word: str) -> list[types.Location]:
    found = []
    for uri, document in ls.workspace.text_documents.items():
        for line, text in enumerate(document.lines):
            for match in re.finditer(rf"\b{re.escape(word)}\b", text):
                found.append(types.Location(uri, types.Range(types.Position(line, match.start()),
                                                             types.Position(line, match.end()))))
    return found


def word_at(ls: LanguageServer, params: types.TextDocumentPositionParams) -> str:
    document = ls.workspace.get_text_document(params.text_document.uri)
    return document.word_at_position(params.position)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    lines = params.text_document.text.splitlines()
    broken = next((i for i, text in enumerate(lines) if "BROKEN" in text), None)
    diagnostics = [] if broken is None else [types.Diagnostic(
        range=types.Range(types.Position(broken, lines[broken].index("BROKEN")),
                          types.Position(broken, lines[broken].index("BROKEN") + 6)),
        message="Cannot find name 'BROKEN'.", severity=types.DiagnosticSeverity.Error, source="stand-in", code=2304)]
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(params.text_document.uri, diagnostics))


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: LanguageServer, params: types.ReferenceParams) -> list[types.Location]:
    return occurrences(ls, word_at(ls, params))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LanguageServer, params: types.DefinitionParams) -> types.Location | None:
    found = occurrences(ls, word_at(ls, params))
    return found[0] if found else None


if __name__ == "__main__":
    server.start_io()
