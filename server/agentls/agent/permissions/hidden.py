"""What in a command line bash works out only when it runs: the parts a rule cannot see through.

A rule can only vouch for commands it can read. Bash decides some things at
run time: the output of a command substitution, a variable or expansion used
as a command name, brace expansion, `$'…'` strings, the text `eval`, `source`,
`trap` or another shell runs, arithmetic (which expands `a[$(…)]` subscripts
held in variables), variables bash itself runs (`PS4`, `PROMPT_COMMAND`,
`BASH_ENV`) or that change what a name runs (`PATH`, `LD_PRELOAD`), here-documents
whose end word is partly quoted (`<<E"O"F`, `<<$'EOF'`: the grammar and bash
disagree on where they end). Such a line is "hidden": no allow rule allows it,
and with any deny or ask rule about commands it is asked (never run by a mode
of "always"), because what it will run cannot be matched against them.

The test is an allowlist of the grammar's node types (tree-sitter-bash) plus a
few checks on text: anything not known to be plain is hidden. Conservative on
purpose — a hidden line only costs a question.
"""

from __future__ import annotations

import re
from typing import Any

# Named node types whose meaning is plain text bash does not turn into commands.
PLAIN_NODES = frozenset({
    "program", "list", "pipeline", "command", "command_name", "word", "string", "string_content",
    "raw_string", "concatenation", "simple_expansion", "variable_name", "special_variable_name", "number",
    "file_redirect", "file_descriptor", "heredoc_redirect", "heredoc_start", "heredoc_body", "heredoc_content",
    "heredoc_end", "herestring_redirect", "redirected_statement", "subshell", "compound_statement",
    "if_statement", "elif_clause", "else_clause", "while_statement", "for_statement", "do_group",
    "case_statement", "case_item", "function_definition", "negated_command", "variable_assignment", "comment",
    "declaration_command", "unset_command", "test_command", "unary_expression", "binary_expression",
    "parenthesized_expression", "test_operator", "extglob_pattern", "regex", "array", "expansion",
})
# Text that always means a substitution, arithmetic or a process substitution somewhere (quoted or not:
# a variable holding `a[$(…)]` runs it when arithmetic reads the variable).
_HIDDEN_TEXT = (("`", "a backtick substitution"), ("$(", "a command substitution or arithmetic"),
                ("$[", "arithmetic"), ("<(", "a process substitution"), (">(", "a process substitution"))
# A parameter expansion that only reads a variable (`${x}`, `${x:-default}`); any other operator is hidden.
_PLAIN_EXPANSION = re.compile(r"\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(?::?[-+=?][\w./:@%+=, -]*)?\}")
# Characters that make a word something bash works out (expansion, globbing, braces, ~).
NOT_LITERAL = re.compile(r"[$*?\[\]{}~`]")
# Variables bash runs, or that change which program a name runs.
CODE_VARIABLES = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "PATH",
                            "LD_PRELOAD", "LD_LIBRARY_PATH", "SHELLOPTS", "BASHOPTS", "BASH_LOADABLES_PATH"})
# Builtins that run text as commands or change what a name runs.
RUNS_TEXT = frozenset({"eval", "source", ".", "trap", "alias", "hash", "enable", "let", "fc", "coproc", "bind",
                       "complete", "compgen", "mapfile", "readarray"})
# Builtins that name a variable in an argument (a subscript there is arithmetic): hidden when it is not literal.
NAMES_VARIABLES = frozenset({"read", "printf", "wait", "getopts", "test", "[", "declare", "typeset", "local",
                             "export", "readonly", "unset"})
_DECLARE_OPTIONS = frozenset({"-x", "-r", "-g", "-p", "--", "+x"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v"})
_PLAIN_DELIMITER = re.compile(r"-?(?:[A-Za-z0-9_.]+|'[A-Za-z0-9_.]+'|\"[A-Za-z0-9_.]+\")")


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="surrogateescape")


def in_text(data: bytes, root: Any) -> list[str]:
    """Reasons found in the raw text of a line (the body of a here-document with a quoted end word is
    data bash never expands, and is left out)."""
    kept, start = [], 0
    for body in _quoted_bodies(root):
        kept.append(data[start:body.start_byte])
        start = body.end_byte
    kept.append(data[start:])
    text = b"".join(kept).decode("utf-8", errors="surrogateescape")
    return [reason for mark, reason in _HIDDEN_TEXT if mark in text]


def _quoted_bodies(root: Any) -> list[Any]:
    found: list[Any] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_redirect" and _heredoc(node) is None and _quoted(node):
            found.extend(c for c in node.children if c.type == "heredoc_body")
        stack.extend(node.children)
    return sorted(found, key=lambda n: n.start_byte)


def _quoted(node: Any) -> bool:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    return start is not None and _text(start).lstrip("-")[:1] in ("'", '"')


def in_node(node: Any) -> str | None:
    """Why this node hides what bash will run (None: it is plain)."""
    kind = node.type
    if not node.is_named:
        return None
    if kind not in PLAIN_NODES:
        return f"{kind.replace('_', ' ')} (worked out when it runs)"
    if kind == "expansion" and not _PLAIN_EXPANSION.fullmatch(_text(node)):
        return "a parameter expansion with an operator"
    if kind == "command_name" and NOT_LITERAL.search(_text(node)):
        return "a command name bash works out when it runs"
    if kind == "variable_assignment":
        name = node.child_by_field_name("name")
        if name is None or name.type != "variable_name" or _text(name) in CODE_VARIABLES:
            return f"an assignment to {_text(name) if name is not None else 'a variable'}"
    if kind == "compound_statement" and node.child_count and _text(node.children[0]) == "((":
        return "arithmetic"
    if kind == "test_command" and _arithmetic_test(node):
        return "arithmetic (or -v) in a test"
    if kind == "heredoc_redirect":
        return _heredoc(node)
    if kind in ("declaration_command", "unset_command"):
        return _declaration(node)
    if kind == "concatenation" and _brace_expansion(node):
        return "brace expansion"
    return None


def in_words(words: list[str], raw: list[str]) -> str | None:
    """Why a simple command (words with quotes removed, and as written) hides what it runs."""
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program in RUNS_TEXT:
        return f"{program} runs text as commands"
    if program in NAMES_VARIABLES and any("$" in word for word in raw[1:]):
        return f"{program} with a variable name worked out when it runs"
    if program == "printf" and "-v" in words[1:2]:
        return "printf -v names a variable" if any(NOT_LITERAL.search(w) for w in raw[2:3]) else None
    return None


def _arithmetic_test(node: Any) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "test_operator" and _text(current) in _ARITHMETIC_TESTS:
            return True
        stack.extend(current.children)
    return False


def _heredoc(node: Any) -> str | None:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    end = next((c for c in node.children if c.type == "heredoc_end"), None)
    if start is None or not _PLAIN_DELIMITER.fullmatch(_text(start)):
        return "a here-document whose end word is partly quoted or expanded"
    word = _text(start).lstrip("-").strip("'\"")
    if end is None or _text(end).strip() != word:
        return "a here-document whose end the grammar could not find"
    body = "".join(_text(c) for c in node.children if c.type == "heredoc_body")
    if not _quoted(node) and "${" in body:
        return "a parameter expansion in a here-document"
    return None


def _declaration(node: Any) -> str | None:
    for child in node.children[1:]:
        if not child.is_named:
            continue
        text = _text(child)
        if child.type == "word" and text.startswith(("-", "+")):
            if text not in _DECLARE_OPTIONS:
                return f"{_text(node.children[0])} {text}"
        elif child.type not in ("variable_assignment", "variable_name", "comment"):
            return f"{_text(node.children[0])} of a name worked out when it runs"
    return None


def _brace_expansion(node: Any) -> bool:
    text = _text(node)
    return "{" in text and "}" in text and ("," in text or ".." in text)
