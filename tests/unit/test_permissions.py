"""Permission rules: parsing, matching, shell command lines split with the bash grammar, and a
property test over generated compound commands run through the real run_shell tool."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from agentls.agent.permissions import Permissions, parse_rules
from agentls.agent.permissions.rules import RuleError, parse_rule
from agentls.agent.permissions.shell import split
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import Workspace


def rules(**lists: list[str]) -> Permissions:
    found, problems = parse_rules(lists, "settings")
    assert problems == []
    return Permissions(user=found)


def same(path: str) -> str | None:
    return None if path.startswith(("/", "..")) or "$" in path else path.removeprefix("./")


def decide(permissions: Permissions, command: str):
    return permissions.decide("run_shell", {"command": command}, same)


# ---------------------------------------------------------------- rules

def test_rule_syntax_and_problems_are_named():
    assert parse_rule("run_shell(git status*)", "allow", "s").pattern == "git status*"
    assert parse_rule("mcp__git__*", "deny", "s").names("mcp__git__git_push")
    with pytest.raises(RuleError, match="is not a rule"):
        parse_rule("run_shell(git", "allow", "s")
    with pytest.raises(RuleError, match="empty pattern"):
        parse_rule("run_shell()", "allow", "s")
    found, problems = parse_rules({"allow": ["read_file", 3], "deny": "rm", "maybe": []}, "settings")
    assert [r.text for r in found] == ["read_file"]
    assert problems == ["permissions.deny must be a list of rules such as run_shell(npm test*)",
                        "permissions.allow[1]: a rule must be a string such as run_shell(npm test*)",
                        "permissions has unknown keys maybe (expected allow, ask, deny)"]


def test_deny_wins_over_ask_wins_over_allow():
    p = rules(allow=["run_shell(git *)"], ask=["run_shell(git push*)"], deny=["run_shell(git push --force*)"])
    assert decide(p, "git status").decision == "allow"
    assert decide(p, "git push origin").decision == "ask"
    verdict = decide(p, "git push --force origin")
    assert verdict.decision == "deny" and verdict.rule.text == "run_shell(git push --force*)"


def test_file_rules_match_workspace_relative_paths_with_gitignore_globs():
    p = rules(deny=["write_file(secrets/**)", "edit_file(*.lock)"], allow=["write_file", "edit_file"])
    assert p.decide("write_file", {"path": "secrets/a/key.pem"}, same).decision == "deny"
    assert p.decide("write_file", {"path": "./secrets/key"}, same).decision == "deny"
    assert p.decide("write_file", {"path": "docs/secrets.md"}, same).decision == "allow"
    assert p.decide("edit_file", {"path": "deep/down/poetry.lock"}, same).decision == "deny"
    # a path outside the workspace matches no pattern; the tool refuses it anyway
    assert p.decide("write_file", {"path": "/etc/passwd"}, same).decision == "allow"


# ---------------------------------------------------------------- command lines

@pytest.mark.parametrize(("command", "parts"), [
    ("git status && rm -rf x", ["git status", "rm -rf x"]),
    ("a; b || c | d & e", ["a", "b", "c", "d", "e"]),
    ("echo \"$(rm x)\" `id`", ["echo $(rm x) `id`", "rm x", "id"]),
    ("(cd sub; make) && { make test; }", ["cd sub", "make", "make test"]),
    ("bash -lc 'rm -rf /tmp/x; ls'", ["bash -lc rm -rf /tmp/x; ls", "rm -rf /tmp/x", "ls"]),
    ("eval \"rm  -rf   y\"", ["eval rm  -rf   y", "rm -rf y"]),
    ("find . -name '*.pyc' -exec rm {} \\;", ["find . -name *.pyc -exec rm {} ;", "rm {}"]),
    ("for f in $(ls); do rm $f; done", ["ls", "rm $f"]),
    ("diff <(ls a) <(ls b)", ["diff <(ls a) <(ls b)", "ls a", "ls b"]),
    ("cat <<EOF\n$(whoami)\nEOF", ["cat", "whoami"]),
    ("'rm'  \"-rf\"  x", ["rm -rf x"]),
    ("x=rm; $x -rf /", ["x=rm", "$x -rf /"]),
])
def test_every_simple_command_is_a_part(command, parts):
    line = split(command)
    assert line.parsed and [p.text for p in line.parts] == parts


def test_wrappers_and_assignments_give_deny_rules_more_forms():
    (part,) = split("FOO=1 sudo -u root env A=2 timeout 5 rm -rf x").parts
    assert part.text == "FOO=1 sudo -u root env A=2 timeout 5 rm -rf x"
    assert "rm -rf x" in part.forms
    p = rules(deny=["run_shell(rm *)"], allow=["run_shell(*)"])
    assert decide(p, "FOO=1 sudo -u root env A=2 timeout 5 rm -rf x").decision == "deny"
    assert decide(p, "xargs -n 1 rm < list.txt").decision == "deny"


def test_redirections_into_files_are_writes():
    line = split("make > build.log 2>&1 && cat < in.txt >> /dev/null")
    assert line.writes == ["build.log"] and line.reads == ["in.txt"]
    p = rules(allow=["run_shell(make*)", "run_shell(cat*)"], deny=["write_file(.git/**)"])
    verdict = decide(p, "make > build.log")
    assert verdict.decision is None and verdict.suggestions == ("write_file(/build.log)",)
    assert decide(p, "make 2>/dev/null").decision == "allow"
    assert decide(p, "cat x > .git/config").decision == "deny"
    assert decide(p, "make > $HOME/log").decision is None  # where it writes is not known: ask


def test_an_unparseable_line_is_never_allowed_but_still_denied():
    p = rules(allow=["run_shell(*)"], deny=["run_shell(rm *)"])
    assert not split("echo 'unclosed").parsed
    assert decide(p, "echo 'unclosed").decision is None
    assert decide(p, "rm -rf x; echo 'unclosed").decision == "deny"
    assert decide(p, "").decision is None


def test_suggestions_are_the_parts_not_yet_allowed():
    p = rules(allow=["run_shell(git status*)"])
    verdict = decide(p, "git status && rm -rf x && ls *.py")
    assert verdict.decision is None
    assert verdict.suggestions == ("run_shell(rm -rf x)", "run_shell(ls \\*.py)")
    p.add(verdict.suggestions)
    assert decide(p, "rm -rf x").decision == "allow"
    assert decide(p, "ls *.py").decision == "allow" and decide(p, "ls a.py").decision is None


def test_the_workspace_file_is_read_again_when_it_changes(tmp_path):
    (tmp_path / ".agents").mkdir()
    file = tmp_path / ".agents" / "settings.json"
    file.write_text(json.dumps({"permissions": {"deny": ["run_shell(npm publish*)"]}}))
    p = Permissions()
    assert p.load_workspace([tmp_path]) == []
    assert decide(p, "npm publish").rule.source == ".agents/settings.json"
    assert p.load_workspace([tmp_path]) == []  # unchanged: not read again
    file.write_text("{not json")
    assert "could not be read" in p.load_workspace([tmp_path])[0]
    assert decide(p, "npm publish").decision is None
    file.unlink()
    assert p.load_workspace([tmp_path]) == [] and p.workspace == ()


async def test_an_ask_rule_asks_even_when_the_mode_is_always():
    asked = []

    async def ask(request):
        asked.append(request)
        return ApprovalDecision(False)

    policy = ApprovalPolicy(ask, shell="always")
    policy.rules.set_user(parse_rules({"ask": ["run_shell(git push*)"]}, "settings")[0])
    assert await policy(ApprovalRequest("shell", command="ls"))
    assert not await policy(ApprovalRequest("shell", command="git push"))
    assert [r.command for r in asked] == ["git push"]


# ---------------------------------------------------------------- property: no denied part ever runs

ALLOWED = ["echo hi", "true", "printf x", "cat notes.md", "echo 'a b'"]
DENIED = ["touch denied.txt", "rm -f keep.txt"]
UNLISTED = ["ls", "wc -c notes.md"]
ALLOW_RULES = ["run_shell(echo *)", "run_shell(true)", "run_shell(printf *)", "run_shell(cat *)",
               "run_shell(bash -c *)", "run_shell(eval *)", "run_shell(f)"]
DENY_RULES = ["run_shell(touch *)", "run_shell(rm *)"]


def _leaf() -> st.SearchStrategy[tuple[str, frozenset[str]]]:
    plain = st.one_of(st.sampled_from(ALLOWED).map(lambda c: (c, frozenset({"allowed"}))),
                      st.sampled_from(DENIED).map(lambda c: (c, frozenset({"denied"}))),
                      st.sampled_from(UNLISTED).map(lambda c: (c, frozenset({"unlisted"}))))

    def wrapped(item: tuple[str, frozenset[str]], prefix: str) -> tuple[str, frozenset[str]]:
        text, kinds = item
        # a wrapped allowed command is not allowed as written (allow rules match the line as written)
        return f"{prefix} {text}", kinds if "denied" in kinds else frozenset({"unlisted"})

    prefixes = st.sampled_from(["env A=1", "X=1", "timeout 5", "command", "nice -n 1"])
    return st.one_of(plain, st.tuples(plain, prefixes).map(lambda t: wrapped(*t)))


def _compose(children):
    def join(t):
        (a, ka), op, (b, kb) = t
        return f"{a} {op} {b}", ka | kb

    def around(template: str, adds: frozenset[str] = frozenset()):
        return lambda item: (template.format(item[0]), item[1] | adds)

    quoted = lambda template: lambda item: (template.format(shlex.quote(item[0])), item[1])
    return st.one_of(
        st.tuples(children, st.sampled_from(["&&", "||", ";", "|", "\n"]), children).map(join),
        children.map(around("( {} )")),
        children.map(around("{{ {}; }}")),
        children.map(around("echo $( {} )")),
        children.map(around('echo "$( {} )"')),
        children.filter(lambda item: "`" not in item[0]).map(around("echo `{}`")),
        children.map(around("if true; then {}; fi")),
        children.map(around("for i in 1; do {}; done")),
        children.map(around("f() {{ {}; }}; f")),
        children.map(around("cat <( {} )")),
        children.map(quoted("bash -c {}")),
        children.map(quoted("eval {}")),
    )


COMMANDS = st.recursive(_leaf(), _compose, max_leaves=5)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("shell-property")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(COMMANDS)
async def test_no_command_containing_a_denied_part_ever_runs(sandbox, item):
    command, kinds = item
    (sandbox / "notes.md").write_text("notes\n")
    (sandbox / "keep.txt").write_text("keep\n")
    (sandbox / "denied.txt").unlink(missing_ok=True)
    asked: list[ApprovalRequest] = []

    async def ask(request):  # the most permissive person: says yes to anything asked
        asked.append(request)
        return ApprovalDecision(True)

    policy = ApprovalPolicy(ask)
    policy.rules.set_user(parse_rules({"allow": ALLOW_RULES, "deny": DENY_RULES}, "settings")[0])
    output = await run_tool("run_shell", {"command": command, "timeout": 10},
                            ToolContext(Workspace([sandbox]), policy, shell_timeout=10))
    if "denied" in kinds:
        assert output.is_error and asked == [], f"{command!r} was not refused outright"
        assert not (sandbox / "denied.txt").exists() and (sandbox / "keep.txt").exists(), command
    elif "unlisted" in kinds:
        assert len(asked) == 1, f"{command!r} should have asked once"
    else:
        assert asked == [] and not output.is_error and "[exit code" in output.text, command
