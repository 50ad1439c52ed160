"""A shell command line as the simple commands bash would run, read with a real bash grammar.

Permission rules are about commands, but the model writes command *lines*:
`git status && rm -rf x`, `echo "$(curl …)" | sh`, `(cd a; make) > out`. A rule
for `git status*` must not let the rest ride along, so the line is parsed with
tree-sitter's bash grammar (the `tree-sitter-bash` package) and every simple
command in it becomes a part: the commands of lists (`&&`, `||`, `;`, `&`,
newlines), pipelines, subshells and groups, command and process substitutions
(also inside strings and here-documents), loop and `if` bodies, function bodies,
and the script of `bash -c …` / `sh -c …` / `eval …` (parsed again) or of
`find … -exec …`. Redirections to files are collected too: writing a file
through `>` is a write, whatever the command.

A line the grammar cannot read whole (`parsed` False) can never be allowed by a
rule; the parts found are still checked against deny rules.

What a part's text is: its words with quotes removed and single spaces between
them (`'rm'  -rf  x` reads `rm -rf x`), so a rule sees what bash sees. Leading
variable assignments (`FOO=1 make`) and wrappers that run another command
(`sudo`, `env`, `nohup`, `time`, `nice`, `timeout`, `command`, `exec`, `xargs`…)
give a part extra forms for deny and ask rules (`sudo rm -rf x` is denied by
`rm *`); allow rules must match the part as written.
"""

from __future__ import annotations

import functools
import shlex
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 3  # `bash -c "bash -c '…'"` nests; deeper is not read (and so not allowed)

# Programs that run the command given in their arguments, and options of theirs that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter",
                        "--max-args", "--max-procs", "--max-chars", "--replace"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "watch": frozenset({"-n", "-d", "--interval"}),
}
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh"})
# Part forms with a leading duration (timeout 5 cmd) or count (nice 10 cmd): one bare number skipped.
_NUMBER_FIRST = frozenset({"timeout", "nice"})
# Redirection targets that are no file.
NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"})
_PART_NODES = frozenset({"command", "declaration_command", "unset_command", "test_command"})


@dataclass(frozen=True)
class Part:
    """One simple command: `text` as written (normalised); `forms` also as run under its wrappers."""

    text: str
    forms: tuple[str, ...]


@dataclass
class CommandLine:
    parts: list[Part] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)  # files written by redirections (as written)
    reads: list[str] = field(default_factory=list)  # files read by `<`
    parsed: bool = True  # False: some of it could not be read; never allowed by a rule


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def split(command: str) -> CommandLine:
    """Every simple command of a command line, and the files its redirections touch."""
    found = CommandLine()
    _split_into(command, found, depth=0)
    return found


def _split_into(command: str, found: CommandLine, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.parsed = False
        return
    data = command.encode("utf-8", errors="surrogateescape")
    tree = _parser().parse(data)
    if tree.root_node.has_error:
        found.parsed = False
    _walk(tree.root_node, found, depth)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="surrogateescape")


def word_value(raw: str) -> str:
    """A word as bash passes it on: quotes and backslashes removed (expansions stay as written)."""
    try:
        return " ".join(shlex.split(raw, comments=False, posix=True))
    except ValueError:  # an unbalanced quote the grammar tolerated: keep it as written
        return raw


def _walk(node: Any, found: CommandLine, depth: int) -> None:
    kind = node.type
    if kind == "ERROR" or node.is_missing:
        found.parsed = False
    if kind in _PART_NODES:
        _part(node, found, depth)
    elif kind == "variable_assignment" and node.parent is not None and node.parent.type in ("program", "list",
                                                                                               "compound_statement",
                                                                                               "subshell"):
        found.parts.append(Part(_text(node), (_text(node),)))  # `x=rm` alone is a step of the script too
    elif kind == "file_redirect":
        _redirect(node, found)
    for child in node.children:
        _walk(child, found, depth)


def _redirect(node: Any, found: CommandLine) -> None:
    operator = "".join(_text(c) for c in node.children if not c.is_named)
    target = node.child_by_field_name("destination")
    if target is None:
        return
    value = word_value(_text(target))
    if "&" in operator and (target.type == "number" or value == "-"):
        return  # 2>&1, >&-: a file descriptor, not a file
    if value in NOT_FILES:
        return
    (found.reads if operator in ("<", "<&") else found.writes).append(value)


def _part(node: Any, found: CommandLine, depth: int) -> None:
    if node.type != "command":
        text = " ".join(word_value(_text(c)) for c in node.children if c.type != "comment")
        found.parts.append(Part(text, (text,)))
        return
    assignments = [word_value(_text(c)) for c in node.children if c.type == "variable_assignment"]
    name = node.child_by_field_name("name")
    words = ([word_value(_text(name))] if name is not None else []) + \
        [word_value(_text(a)) for a in node.children_by_field_name("argument")]
    text = " ".join([*assignments, *words])
    forms = [text]
    if assignments and words:
        forms.append(" ".join(words))
    for inner in _unwrapped(words):
        forms.append(" ".join(inner))
    found.parts.append(Part(text, tuple(dict.fromkeys(forms))))
    for script in _scripts(words):
        _split_into(script, found, depth + 1)


def _unwrapped(words: list[str]) -> list[list[str]]:
    """The commands a wrapper runs: `sudo -u x rm y` → [[rm, y]]; nested wrappers unwrapped in turn."""
    found = []
    while words and words[0] in WRAPPERS:
        takes_value = WRAPPERS[words[0]]
        program = words[0]
        rest = words[1:]
        while rest and (rest[0].startswith("-") or (program == "env" and "=" in rest[0])):
            option = rest.pop(0)
            if option in takes_value and rest:
                rest.pop(0)
        if program in _NUMBER_FIRST and rest and rest[0].replace(".", "", 1).rstrip("smhd").isdigit():
            rest.pop(0)
        if not rest:
            break
        found.append(rest)
        words = rest
    return found


def _scripts(words: list[str]) -> list[str]:
    """Command text handed to another shell: `bash -c SCRIPT`, `eval ARGS`, `find … -exec CMD … ;`."""
    for inner in [words, *_unwrapped(words)]:
        if not inner:
            continue
        program = inner[0].rsplit("/", 1)[-1]
        if program in SHELLS:
            for index, word in enumerate(inner[1:-1], 1):
                if word.startswith("-") and not word.startswith("--") and "c" in word:
                    return [inner[index + 1]]
        elif program == "eval" and len(inner) > 1:
            return [" ".join(inner[1:])]
        elif program == "find":
            scripts = []
            for index, word in enumerate(inner):
                if word in ("-exec", "-execdir", "-ok", "-okdir"):
                    end = next((i for i in range(index + 1, len(inner)) if inner[i] in (";", "+")), len(inner))
                    scripts.append(shlex.join(inner[index + 1:end]))
            return scripts
    return []
