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

Deny and ask rules are matched against what bash will run: a program named by
its path also has the form of its name (`/bin/rm x` → `rm x`), wrappers are
unwrapped, the script of `bash -c [--] …`, `eval`, `trap`, and what a shell reads
from its input (`bash <<< …`, a here-document, `echo … | sh`) are parsed again.

A line the grammar cannot read whole (`parsed` False), or one bash works out
only when it runs (`hidden`, see hidden.py), can never be allowed by a rule and
is asked whenever a deny or ask rule about commands exists; the parts found are
still checked against deny rules. A part whose words expand when it runs
(`rm ${IFS}-rf x`) keeps its fixed start (`heads`): a deny or ask rule it might
still match asks.

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

from . import hidden

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
    "setsid": frozenset(),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "flock": frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "unbuffer": frozenset(),
    "nocache": frozenset(),
    "strace": frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-P", "-E"}),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-n"}),
    "catchsegv": frozenset(),
    "busybox": frozenset(),
    "caffeinate": frozenset(),
}
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh"})
# Wrappers whose first argument after the options is not the command: a duration, a priority, a file.
_POSITIONAL_FIRST = frozenset({"timeout", "chrt", "taskset", "flock", "chroot"})
# Programs that run a script given with -c, like a shell.
SCRIPT_RUNNERS = frozenset({"su", "runuser", "script"})
# Redirection targets that are no file.
NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"})
_PART_NODES = frozenset({"command", "declaration_command", "unset_command", "test_command"})


@dataclass(frozen=True)
class Part:
    """One simple command: `text` as written (normalised); `forms` also as run under its wrappers, and by
    the name of the program a path runs (`/bin/rm x` → `rm x`)."""

    text: str
    forms: tuple[str, ...]
    # For a part with words bash works out when it runs (`rm $x`, `rm ${IFS}-rf`): each form's words before
    # the first such word. A deny or ask rule whose fixed start agrees with one of them might match: asked.
    heads: tuple[str, ...] = ()


@dataclass
class CommandLine:
    parts: list[Part] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)  # files written by redirections (as written)
    reads: list[str] = field(default_factory=list)  # files read by `<`
    parsed: bool = True  # False: some of it could not be read; never allowed by a rule
    hidden: list[str] = field(default_factory=list)  # why bash may run more than the parts (hidden.py)

    @property
    def seen(self) -> bool:
        """Every command bash will run is one of the parts, as written."""
        return self.parsed and not self.hidden


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def split(command: str) -> CommandLine:
    """Every simple command of a command line, and the files its redirections touch."""
    found = CommandLine()
    _split_into(command, found, depth=0)
    found.hidden = list(dict.fromkeys(found.hidden))
    return found


def _split_into(command: str, found: CommandLine, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.parsed = False
        return
    data = command.encode("utf-8", errors="surrogateescape")
    tree = _parser().parse(data)
    if tree.root_node.has_error:
        found.parsed = False
    found.hidden.extend(hidden.in_text(data, tree.root_node))
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
    reason = hidden.in_node(node)
    if reason is not None:
        found.hidden.append(reason)
    if kind in _PART_NODES:
        _part(node, found, depth)
    elif kind == "variable_assignment" and node.parent is not None and node.parent.type in ("program", "list",
                                                                                               "compound_statement",
                                                                                               "subshell"):
        found.parts.append(Part(_text(node), (_text(node),)))  # `x=rm` alone is a step of the script too
    elif kind == "file_redirect":
        _redirect(node, found)
    elif kind in ("herestring_redirect", "heredoc_redirect", "pipeline"):
        for script in _stdin_scripts(node):  # what a shell reads from its input
            _split_into(script, found, depth + 1)
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


def _words(node: Any) -> tuple[list[str], list[str]]:
    """A `command` node's words with quotes removed, and as written (assignments left out)."""
    name = node.child_by_field_name("name")
    raws = ([_text(name)] if name is not None else []) + [_text(a) for a in node.children_by_field_name("argument")]
    return [word_value(raw) for raw in raws], raws


def _part(node: Any, found: CommandLine, depth: int) -> None:
    if node.type != "command":
        text = " ".join(word_value(_text(c)) for c in node.children if c.type != "comment")
        found.parts.append(Part(text, (text,)))
        return
    assignments = [word_value(_text(c)) for c in node.children if c.type == "variable_assignment"]
    words, raws = _words(node)
    text = " ".join([*assignments, *words])
    starts = [0, *_unwrapped(words)]  # where each command of the wrapper chain starts
    forms = [text]
    heads: list[str] = []
    for start in starts:
        inner, inner_raws = words[start:], raws[start:]
        if not inner:
            continue
        program = inner[0].rsplit("/", 1)[-1]
        forms.append(" ".join(inner))
        forms.append(" ".join([program, *inner[1:]]))
        loose = next((i for i, raw in enumerate(inner_raws) if hidden.NOT_LITERAL.search(raw)), None)
        if loose is not None:
            heads.append(_head(inner[:loose]))
            heads.append(_head([program, *inner[1:loose]][:loose]))
        reason = hidden.in_words([program, *inner[1:]], inner_raws) or _runs_unseen(program, inner, start, words)
        if start and hidden.NOT_LITERAL.search(inner_raws[0]):
            reason = f"{words[0]} runs a command named by what it reads or expands"
        if reason is not None:
            found.hidden.append(reason)
    found.parts.append(Part(text, tuple(dict.fromkeys(forms)), tuple(dict.fromkeys(heads))))
    for script in _scripts(words, starts):
        _split_into(script, found, depth + 1)


def _head(words: list[str]) -> str:
    """The fixed start of a command whose next word is worked out when it runs."""
    return " ".join([*words, ""]) if words else ""


def _runs_unseen(program: str, inner: list[str], start: int, words: list[str]) -> str | None:
    """Wrappers and shells whose command is not in the line as written."""
    if program in SHELLS or program in SCRIPT_RUNNERS:
        return f"{program} runs a script"
    if program == "env" and any(w.startswith(("-S", "--split-string")) for w in inner[1:]):
        return "env -S splits a string into a command"
    if program in ("sudo", "doas") and any(w in ("-s", "-i", "--shell", "--login") for w in inner[1:]):
        return f"{program} runs a shell"
    if program in WRAPPERS and not _unwrapped(inner) and "xargs" in (w.rsplit("/", 1)[-1] for w in words[:start]):
        return "xargs runs a command read from its input"
    if program == "xargs" and _xargs_names_from_input(inner):
        return "xargs runs a command named by its input"
    if program == "find" and any(inner[i + 1].startswith("{}") for i, w in enumerate(inner[:-1])
                                 if w in ("-exec", "-execdir", "-ok", "-okdir")):
        return "find runs a command it found"
    return None


def _xargs_names_from_input(words: list[str]) -> bool:
    replace = None
    for index, word in enumerate(words[1:], 1):
        if word in ("-I", "--replace") and index + 1 < len(words):
            replace = words[index + 1]
        elif word.startswith("-I") and len(word) > 2:
            replace = word[2:]
        elif word.startswith("-i") or word.startswith("--replace="):
            replace = word.split("=", 1)[1] if "=" in word else word[2:] or "{}"
    inner = _unwrapped(words)
    return replace is not None and bool(inner) and replace in words[inner[0]]


def _unwrapped(words: list[str]) -> list[int]:
    """Where the commands a wrapper runs start: `sudo -u x rm y` → [3]; nested wrappers unwrapped in turn."""
    found = []
    index = 0
    while index < len(words) and words[index].rsplit("/", 1)[-1] in WRAPPERS:
        program = words[index].rsplit("/", 1)[-1]
        takes_value = WRAPPERS[program]
        index += 1
        while index < len(words) and (words[index].startswith("-") or (program == "env" and "=" in words[index])):
            option = words[index]
            index += 1
            if option == "--":
                break
            if option in takes_value and index < len(words):
                index += 1
        if program in _POSITIONAL_FIRST and index < len(words) - 1:
            index += 1  # timeout 5 cmd, chrt 10 cmd, flock lockfile cmd, chroot dir cmd
        elif program == "nice" and index < len(words) and words[index].lstrip("-").isdigit():
            index += 1
        if index >= len(words):
            break
        found.append(index)
    return found


def _shell_script(inner: list[str]) -> str | None:
    """The script of `bash [options] -c [--] SCRIPT` (also `su -c`, `script -c`), or None."""
    takes_value = {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}
    index, has_c = 1, False
    while index < len(inner):
        word = inner[index]
        if word == "--":
            index += 1
            break
        if not word.startswith(("-", "+")) or word in ("-", "+"):
            break
        if not word.startswith("--") and "c" in word[1:]:
            has_c = True
        index += 2 if word in takes_value else 1
    return inner[index] if has_c and index < len(inner) else None


def _scripts(words: list[str], starts: list[int]) -> list[str]:
    """Command text handed to another shell: `bash -c SCRIPT`, `eval ARGS`, `trap SCRIPT …`, `find … -exec`."""
    scripts = []
    for start in starts:
        inner = words[start:]
        if not inner:
            continue
        program = inner[0].rsplit("/", 1)[-1]
        if program in SHELLS or program in SCRIPT_RUNNERS:
            script = _shell_script(inner)
            if script is not None:
                scripts.append(script)
        elif program in ("eval", "trap") and len(inner) > 1:
            scripts.append(" ".join(inner[1:]) if program == "eval" else inner[1])
        elif program == "find":
            for index, word in enumerate(inner):
                if word in ("-exec", "-execdir", "-ok", "-okdir"):
                    end = next((i for i in range(index + 1, len(inner)) if inner[i] in (";", "+")), len(inner))
                    scripts.append(shlex.join(inner[index + 1:end]))
    return scripts


def _program(node: Any) -> tuple[str, list[str]]:
    """The program a `command` node finally runs (through wrappers), and its words from there."""
    if node is None or node.type != "command":
        return "", []
    words, _ = _words(node)
    starts = [0, *_unwrapped(words)]
    inner = words[starts[-1]:]
    return (inner[0].rsplit("/", 1)[-1] if inner else ""), inner


def _stdin_scripts(node: Any) -> list[str]:
    """What a shell reading its input runs: `bash <<< 'rm x'`, `bash <<'EOF'…`, `echo 'rm x' | sh`."""
    if node.type == "pipeline":
        named = [c for c in node.children if c.is_named]
        scripts = []
        for before, after in zip(named, named[1:]):
            program, inner = _program(after)
            feeder, fed = _program(before)
            if program in SHELLS and _shell_script(inner) is None and feeder in ("echo", "printf"):
                scripts.append(" ".join(w for w in fed[1:] if w not in ("-n", "-e", "-E")).replace("\\n", "\n"))
        return scripts
    command = node.parent if node.type == "herestring_redirect" else \
        next((c for c in node.parent.children if c.type == "command"), None) if node.parent is not None else None
    program, inner = _program(command)
    if program not in SHELLS or _shell_script(inner) is not None:
        return []
    if node.type == "herestring_redirect":
        return [word_value(_text(c)) for c in node.children if c.is_named][:1]
    return ["".join(_text(c) for c in node.children if c.type == "heredoc_body")]
