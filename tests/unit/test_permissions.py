"""Permission rules: parsing, matching, shell command lines split with the bash grammar."""

from __future__ import annotations

import json

import pytest

from agentls.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from agentls.agent.permissions import Permissions, parse_rules
from agentls.agent.permissions.rules import RuleError, parse_rule
from agentls.agent.permissions.shell import split


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
    # where it writes is not known (it may be a rules file): asked whatever the mode
    assert decide(p, "make > $HOME/log").decision == "ask"


def test_an_unparseable_line_is_never_allowed_but_still_denied():
    p = rules(allow=["run_shell(*)"], deny=["run_shell(rm *)"])
    assert not split("echo 'unclosed").parsed
    # what it runs cannot be matched against the deny rule: asked, whatever the mode
    assert decide(p, "echo 'unclosed").decision == "ask"
    assert decide(rules(allow=["run_shell(*)"]), "echo 'unclosed").decision is None  # no rule: the mode says
    assert decide(p, "rm -rf x; echo 'unclosed").decision == "deny"
    assert decide(p, "").decision is None


@pytest.mark.parametrize("command", ["echo $(id)", "bash -c 'echo hi'", "eval echo hi", "$x", "{echo,hi}",
                                     "echo ${x/a/b}", "PATH=. echo hi", "x=$'a'", "((x+=1))", "[[ $x -eq 1 ]]",
                                     "source env.sh", "printf '%s' a | xargs -I{} {} b", "declare -n r=x"])
def test_a_line_bash_works_out_when_it_runs_is_never_allowed(command):
    line = split(command)
    assert not line.seen, command
    assert decide(rules(allow=["run_shell(*)"]), command).decision is None
    verdict = decide(rules(allow=["run_shell(*)"], deny=["run_shell(rm *)"]), command)
    assert verdict.decision == "ask" and verdict.why


def test_a_deny_rule_that_might_match_an_expanded_word_asks():
    p = rules(allow=["run_shell(*)"], deny=["run_shell(rm -rf*)"])
    assert decide(p, "rm ${IFS}-rf x").decision == "ask"  # bash splits it into rm -rf x
    assert decide(p, "rm -r x").decision == "allow"
    assert decide(p, "echo $HOME").decision == "allow"  # cannot become rm -rf


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

# The property test over generated lines, run through real bash: tests/unit/test_permissions_vs_bash.py
