"""Permission rules: which tool calls run without asking, which always ask, which never run.

Rules come from two places and are read as one list:

- the user's settings, `permissions: {allow, ask, deny}` (AgentSettings:
  VS Code's `agentls.permissions`, an LSP client's settings), plus the allow
  rules "Always" added in this session until the settings next change;
- the workspace's `.agents/settings.json` (`{"permissions": {…}}`, committed
  by a team), in each root, re-read when it changes. Its deny and ask rules
  apply at once; its allow rules only once the user accepted this content of
  the file (`pending`, `answer`; consent.py keeps the answers with the user's
  data): a cloned repository, or the agent itself, cannot loosen the user's
  choices.

A write to a rules or instructions file (guarded.py) is asked whatever the
mode or the allow rules.

Deny wins over ask wins over allow, whoever wrote the rule. So the user's
settings can only tighten a workspace's rules: a user deny or ask rule
overrides a workspace allow rule, while a user allow rule never overrides a
workspace deny or ask rule (it only spares questions about calls the
workspace leaves unlisted). The same holds the other way round.

A shell command line is allowed only when every simple command in it is
allowed and every file it redirects into is allowed for `write_file`
(permissions/shell.py); one denied part denies the line, one part under an
ask rule asks. Deny and ask rules are matched against what bash will run: a
wrapped command (`setsid rm`), a program by path (`/bin/rm`), the script of
`bash -c`, `eval`, `… | sh`, `sh <<< …`. A line bash works out only when it
runs (permissions/hidden.py: substitutions, a variable as command name, brace
expansion, `eval`, a script, …) and a line that cannot be parsed are never
allowed by a rule, and when any deny or ask rule about commands exists they
are asked, whatever the mode: what they run cannot be matched against it.

A decision here is only about rules (`Verdict.decision` None: no rule
applies): the approval policy (agent/approval.py) applies it and falls back
to the approval modes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import guarded, shell
from .consent import Consents, digest
from .rules import DECISIONS, SHELL_TOOL, Decision, Rule, RuleError, escape_command, escape_path, parse_rule
from ..userconfig import file_stamp

WORKSPACE_FILE = Path(".agents") / "settings.json"
ADDED = "added by Always (this session)"
SETTINGS = "settings"
WRITE_TOOL = "write_file"
WRITING_TOOLS = frozenset({"write_file", "edit_file"})
READ_TOOL = "read_file"

Relative = Callable[[str], "str | None"]  # a path as the model wrote it → workspace-relative, None outside


@dataclass(frozen=True)
class Verdict:
    decision: Decision | None = None  # None: no rule applies
    rule: Rule | None = None
    subject: str = ""  # what the rule matched: a command part, a path, a tool name
    suggestions: tuple[str, ...] = ()  # the allow rules "Always" would add (none: it cannot be made a rule)
    why: str = ""  # a shell line no rule can vouch for: what in it is worked out only when it runs


def parse_rules(raw: Any, source: str, where: str = "permissions") -> tuple[tuple[Rule, ...], list[str]]:
    """`{allow: [...], ask: [...], deny: [...]}` → rules, and one message per entry ignored."""
    if raw is None or raw == []:
        return (), []
    if not isinstance(raw, dict):
        return (), [f"{where} must be an object with allow, ask and deny lists"]
    found: list[Rule] = []
    problems = []
    for decision in DECISIONS:
        entries = raw.get(decision)
        if entries is None:
            continue
        if not isinstance(entries, list):
            problems.append(f"{where}.{decision} must be a list of rules such as run_shell(npm test*)")
            continue
        for index, text in enumerate(entries):
            try:
                found.append(parse_rule(text, decision, source))
            except RuleError as error:
                problems.append(f"{where}.{decision}[{index}]: {error}")
    unknown = set(raw) - set(DECISIONS)
    if unknown:
        problems.append(f"{where} has unknown keys {', '.join(sorted(map(str, unknown)))} (expected allow, ask, deny)")
    return tuple(found), problems


@dataclass
class _FileStamp:
    stamp: tuple[int, int] | None
    rules: tuple[Rule, ...] = ()  # in force: all of them once accepted, else its deny and ask rules
    pending: PendingRules | None = None  # allow rules the user has not accepted (nor refused) yet


@dataclass(frozen=True)
class PendingRules:
    """A workspace rules file whose allow rules wait for the user: shown with all its rules, once per content."""

    path: Path
    source: str  # as the rules name it: ".agents/settings.json"
    content: str  # sha256 of the file: what an answer is about
    rules: tuple[Rule, ...]  # every rule of the file

    def listing(self) -> str:
        """The file's rules as the user is shown them (what accepting adds first)."""
        order = {"allow": 0, "ask": 1, "deny": 2}
        lines = [f"{rule.decision} {rule.text}" for rule in sorted(self.rules, key=lambda r: order[r.decision])]
        return "\n".join(lines)


@dataclass
class Permissions:
    user: tuple[Rule, ...] = ()
    workspace: tuple[Rule, ...] = ()
    added: list[Rule] = field(default_factory=list)
    consents: Consents = field(default_factory=Consents)
    _files: dict[Path, _FileStamp] = field(default_factory=dict)
    _roots: list[Path] = field(default_factory=list)

    # ---- the rules in force ---------------------------------------------------------

    def rules(self) -> list[Rule]:
        return [*self.workspace, *self.user, *self.added]

    def set_user(self, rules: tuple[Rule, ...]) -> None:
        """The user's settings changed: their rules replace the previous ones (and what Always added)."""
        if rules != self.user:
            self.added.clear()
        self.user = rules

    def add(self, texts: Iterable[str]) -> list[Rule]:
        """Allow rules "Always" added (kept until the settings next change or a new session)."""
        new = []
        for text in texts:
            rule = parse_rule(text, "allow", ADDED)
            if all(r.text != rule.text or r.decision != "allow" for r in self.rules()):
                self.added.append(rule)
                new.append(rule)
        return new

    def forget(self) -> None:
        self.added.clear()

    def forget_added(self, which: Callable[[Rule], bool]) -> None:
        """Drop the rules "Always" added that `which` picks (an MCP server whose configuration changed)."""
        self.added = [rule for rule in self.added if not which(rule)]

    def load_workspace(self, roots: list[Path]) -> list[str]:
        """Re-read each root's .agents/settings.json when it changed; the problems of what was re-read.
        A file's allow rules are in force only once the user accepted this content (consent.py)."""
        problems: list[str] = []
        files: dict[Path, _FileStamp] = {}
        self._roots = list(roots)
        for root in roots:
            path = root / WORKSPACE_FILE
            source = str(WORKSPACE_FILE) if len(roots) == 1 else f"{root.name}/{WORKSPACE_FILE}"
            stamp = file_stamp(path)
            known = self._files.get(path)
            if known is not None and known.stamp == stamp:
                files[path] = known
                continue
            rules, content, found = _read_workspace_file(path, source) if stamp is not None else ((), "", [])
            problems.extend(found)
            files[path] = self._consented(path, source, stamp, rules, content)
        self._files = files
        self.workspace = tuple(rule for entry in files.values() for rule in entry.rules)
        return problems

    def _consented(self, path: Path, source: str, stamp: tuple[int, int] | None, rules: tuple[Rule, ...],
                   content: str) -> _FileStamp:
        if not any(rule.decision == "allow" for rule in rules):
            return _FileStamp(stamp, rules)
        answer = self.consents.answer(path, content)
        if answer is True:
            return _FileStamp(stamp, rules)
        tightening = tuple(rule for rule in rules if rule.decision != "allow")
        pending = PendingRules(path, source, content, rules) if answer is None else None
        return _FileStamp(stamp, tightening, pending)

    def pending(self) -> list[PendingRules]:
        """Workspace rules files whose allow rules wait for the user's answer."""
        return [entry.pending for entry in self._files.values() if entry.pending is not None]

    def answer(self, pending: PendingRules, accepted: bool) -> None:
        """The user's answer about a rules file's content: kept with the user's data, applied at once."""
        self.consents.record(pending.path, pending.content, accepted)
        self._files.pop(pending.path, None)
        self.load_workspace(self._roots)

    # ---- deciding -------------------------------------------------------------------

    def decide(self, tool: str, tool_input: Mapping[str, Any], relative: Relative) -> Verdict:
        """What the rules say about one tool call (and what "Always" would add for it)."""
        if tool == SHELL_TOOL:
            return self._shell(str(tool_input.get("command") or ""), relative)
        raw = tool_input.get("path")
        path = relative(raw) if isinstance(raw, str) and raw else None
        verdict = self._strongest(tool, lambda rule: rule.matches_path(path), path or tool)
        if verdict.decision in ("deny", "ask"):
            return verdict
        if tool in WRITING_TOOLS and (guarded.is_guarded(path) or
                                      (path is None and isinstance(raw, str) and guarded.names_one(raw))):
            return Verdict("ask", None, path or str(raw), why=guarded.WHY)  # whatever the mode or allow rules
        suggestion = (f"{tool}({escape_path(path)})",) if path else (tool,) if raw is None else ()
        return Verdict(verdict.decision, verdict.rule, verdict.subject, suggestion)

    def withholds(self, tool: str, path: str) -> bool:
        """Whether a deny rule keeps this workspace-relative path (a folder ends with "/") from a tool that
        lists or searches files: one about the tool itself or about read_file (a file that may not be read
        is not shown through a listing or a search either, neither its text nor its name)."""
        return any(rule.decision == "deny" and (rule.names(tool) or rule.names(READ_TOOL)) and rule.pattern is not None
                   and rule.matches_path(path) for rule in self.rules())

    def _strongest(self, tool: str, matches: Callable[[Rule], bool], subject: str) -> Verdict:
        named = [rule for rule in self.rules() if rule.names(tool)]
        for decision in DECISIONS:
            for rule in named:
                if rule.decision == decision and matches(rule):
                    return Verdict(decision, rule, subject)
        return Verdict()

    def _command(self, text: str) -> Verdict:
        return self._strongest(SHELL_TOOL, lambda rule: rule.matches_command(text), text)

    def _file(self, tool: str, path: str | None, shown: str) -> Verdict:
        return self._strongest(tool, lambda rule: rule.matches_path(path), path or shown)

    def _shell(self, command: str, relative: Relative) -> Verdict:
        line = shell.split(command)
        touched = [(tool, target, relative(target)) for tool, targets in ((WRITE_TOOL, line.writes),
                                                                          (READ_TOOL, line.reads))
                   for target in targets]
        # deny, then ask: any form of any part (a wrapped or prefixed command too), any file touched
        for decision in ("deny", "ask"):
            for part in line.parts:
                for form in part.forms:
                    verdict = self._command(form)
                    if verdict.decision == decision:
                        return verdict
            for tool, target, path in touched:
                verdict = self._file(tool, path, target)
                if verdict.decision == decision:
                    return verdict
        # a deny or ask rule that might match what a part becomes when bash expands it: asked
        guards = [rule for rule in self.rules() if rule.names(SHELL_TOOL) and rule.decision in ("deny", "ask")]
        for part in line.parts:
            for rule in guards:
                if any(rule.might_match(head) for head in part.heads):
                    why = f"bash works out part of `{part.text}` only when it runs"
                    return Verdict("ask", rule, part.text, why=why)
        if self._writes_guarded(line, touched):
            return Verdict("ask", None, command, why=guarded.WHY)
        if not line.seen:
            # what bash will run is not all in the line: no allow rule vouches for it, and with rules
            # guarding commands it is asked whatever the mode ("always" must not run a denied command)
            return Verdict("ask" if guards else None, None, command, why=_why(line))
        # allow: every part as written, every file written into
        missing: list[str] = []
        first: Verdict | None = None
        for part in line.parts:
            verdict = self._command(part.text)
            if verdict.decision != "allow":
                missing.append(f"{SHELL_TOOL}({escape_command(part.text)})")
            first = first or verdict
        for tool, target, path in touched:
            if tool != WRITE_TOOL or self._file(tool, path, target).decision == "allow":
                continue
            if path is None:
                return Verdict()  # outside the workspace (or an expansion): only a person can say yes
            missing.append(f"{WRITE_TOOL}({escape_path(path)})")
        if not line.parts:
            return Verdict()
        if not missing and first is not None:
            return Verdict("allow", first.rule, command)
        return Verdict(None, None, command, tuple(dict.fromkeys(missing)))


    @staticmethod
    def _writes_guarded(line: shell.CommandLine, touched: list[tuple[str, str, str | None]]) -> bool:
        """A line that writes into a rules or instructions file, or may: a redirection into one (or into a
        path worked out when it runs), one named to a program that is not a mere reader."""
        for tool, target, path in touched:
            if tool == WRITE_TOOL and (guarded.is_guarded(path) or guarded.names_one(target)
                                       or hidden_target(target)):
                return True
        return any(guarded.names_one(part.text) and part.text.split(" ", 1)[0].rsplit("/", 1)[-1]
                   not in guarded.READERS for part in line.parts)


def hidden_target(target: str) -> bool:
    return bool(shell.hidden.NOT_LITERAL.search(target))


def _why(line: shell.CommandLine) -> str:
    if not line.parsed:
        return "the line could not be read whole"
    return "bash works out part of it only when it runs: " + ", ".join(line.hidden)


def _read_workspace_file(path: Path, source: str) -> tuple[tuple[Rule, ...], str, list[str]]:
    """The file's rules, the sha256 of its content, and its problems."""
    try:
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return (), "", [f"{source} could not be read ({error}); its rules are not applied"]
    if not isinstance(data, dict):
        return (), "", [f"{source} must hold a JSON object such as {{\"permissions\": {{\"allow\": [...]}}}}"]
    rules, problems = parse_rules(data.get("permissions"), source, f"{source}: permissions")
    return rules, digest(raw), problems


def request_call(kind: str, command: str | None, path: str | None, server: str | None,
                 tool: str | None) -> tuple[str, dict[str, Any]]:
    """The tool call an approval request stands for (when it was not screened by the agent loop)."""
    if kind == "shell":
        return SHELL_TOOL, {"command": command or ""}
    if kind == "mcp":
        from ..mcp.names import qualified_name

        return qualified_name(server or "", tool or ""), {}
    return ("edit_file" if kind == "edit" else WRITE_TOOL), {"path": path or ""}


__all__ = ["ADDED", "SETTINGS", "PendingRules", "Permissions", "Relative", "Rule", "RuleError", "Verdict",
           "WORKSPACE_FILE", "parse_rule", "parse_rules", "request_call"]
