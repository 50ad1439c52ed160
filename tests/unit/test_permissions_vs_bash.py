"""The shell rules checked against bash itself: generated command lines run through the real run_shell tool
(real bash, in a folder of its own), and what actually happened on disk is the judge.

Rules: allow `echo *`, `cat *`, `printf *`, `true`; deny `rm *`, `touch *`. A denied command that runs
deletes `keep.txt` or creates `denied.txt`; `mark` (a program on PATH that no rule names) creates
`marked`. Each line runs twice, with the person asked saying yes to everything:

- shell approvals "ask": a line that ran without a question ran only allowed commands (nothing denied,
  nothing unlisted — however hidden: nested backticks, here-documents, `bash -c`, `eval`, `$x`, …);
- shell approvals "always" (`--yes`): a line that ran without a question ran no denied command.

The generator spells commands the ways bash allows (a path, quotes, `$'…'`, a variable, braces, `${IFS}`,
wrappers) inside the places bash runs commands from (substitutions, here-documents, `-c` strings, a
shell's input, `eval`, functions, compound commands). The 4 + 10 lines of issue 30 are explicit cases.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from agentls.agent.permissions import parse_rules
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import Workspace

ALLOW = ["run_shell(echo *)", "run_shell(cat *)", "run_shell(printf *)", "run_shell(true)"]
DENY = ["run_shell(rm *)", "run_shell(touch *)"]

LEAVES = ["echo hi", "true", "printf x", "cat notes.md", "rm -f keep.txt", "touch denied.txt", "mark"]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    """A workspace, and a PATH with `mark` on it (the unlisted program; it leaves `marked` behind)."""
    root = tmp_path_factory.mktemp("rules-vs-bash")
    tools = tmp_path_factory.mktemp("rules-vs-bash-bin")
    mark = tools / "mark"
    mark.write_text(f"#!/bin/sh\n: > {shlex.quote(str(root / 'marked'))}\n")
    mark.chmod(0o755)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
        yield root


def _reset(root: Path) -> None:
    for name in ("marked", "denied.txt"):
        (root / name).unlink(missing_ok=True)
    (root / "keep.txt").write_text("keep\n")
    (root / "notes.md").write_text("notes\n")
    (root / "x").write_text("x\n")


def _effects(root: Path) -> set[str]:
    """What ran, as the disk tells it."""
    found = set()
    if not (root / "keep.txt").exists() or not (root / "x").exists():
        found.add("denied")
    if (root / "denied.txt").exists():
        found.add("denied")
    if (root / "marked").exists():
        found.add("unlisted")
    return found


async def _run(root: Path, command: str, mode: str) -> tuple[bool, bool, set[str]]:
    """(asked, refused, effects) of one line run under the rules with shell approvals `mode`."""
    _reset(root)
    asked: list[ApprovalRequest] = []

    async def ask(request: ApprovalRequest) -> ApprovalDecision:  # says yes to anything it is asked
        asked.append(request)
        return ApprovalDecision(True)

    policy = ApprovalPolicy(ask, shell=mode)
    policy.rules.set_user(parse_rules({"allow": ALLOW, "deny": DENY}, "settings")[0])
    verdict = policy.screen("run_shell", {"command": command}, lambda path: path)
    if verdict.decision == "deny":
        return False, True, set()  # the agent loop refuses it without running the tool
    output = await run_tool("run_shell", {"command": command, "timeout": 10},
                            ToolContext(Workspace([root]), policy.bound(verdict), shell_timeout=10))
    return bool(asked), output.is_error and "[exit code" not in output.text, _effects(root)


async def _check(root: Path, command: str) -> None:
    asked, refused, effects = await _run(root, command, "ask")
    if not asked and not refused:
        assert effects == set(), f"ran {sorted(effects)} unasked under allow rules: {command!r}"
    asked, refused, effects = await _run(root, command, "always")
    if not asked and not refused:
        assert "denied" not in effects, f"ran a denied command unasked with approvals 'always': {command!r}"


# ---------------------------------------------------------------- the lines of issue 30

ISSUE_ASK = [  # allow echo/cat, deny rm, shell approvals "ask": each deleted x with no question
    "echo `echo \\`rm x\\``",
    "echo ${x-`rm x`}",
    "cat <<E\"O\"F\nhi\nEOF\nrm x\nE\"O\"F",
    "cat <<$'EOF'\nhi\nEOF\nrm x\n$'EOF'",
]
ISSUE_ALWAYS = [  # deny rm, shell approvals "always": each deleted x
    "/bin/rm x", "bash -c -- 'rm x'", "echo 'rm x' | bash", "bash <<< 'rm x'", "eval \"$(echo rm x)\"",
    "x=rm; $x x", "$'rm' x", "{rm,x}", "setsid rm x", "rm${IFS}x",
]


@pytest.mark.parametrize("command", ISSUE_ASK + ISSUE_ALWAYS)
async def test_the_lines_of_issue_30_never_run_a_denied_command_unasked(sandbox, command):
    await _check(sandbox, command)


@pytest.mark.parametrize("command", ["echo hi && cat notes.md | cat", "printf x; true", "echo $HOME ${HOME}",
                                     "cat <<'EOF' > out.txt\n$(rm x)\nEOF"])
async def test_plain_lines_are_still_allowed(sandbox, command):
    policy = ApprovalPolicy(None)
    policy.rules.set_user(parse_rules({"allow": [*ALLOW, "write_file"], "deny": DENY}, "settings")[0])
    assert policy.screen("run_shell", {"command": command}, lambda path: path).decision == "allow"


# ---------------------------------------------------------------- generated lines

def _spellings(leaf: str) -> list[str]:
    """Ways of writing one command that bash runs the same."""
    program, _, rest = leaf.partition(" ")
    args = f" {rest}" if rest else ""
    path = "/usr/bin/" + program if program != "mark" else "mark"
    braced = "{" + ",".join(leaf.split()) + "}" if rest else leaf
    return [
        leaf, f"{path}{args}", f"\\{program}{args}", f"'{program}'{args}", f"$'{program}'{args}",
        f"p={program}; $p{args}", f"${{p:-{program}}}{args}", braced, "${IFS}".join(leaf.split()),
        f"setsid {leaf}", f"env A=1 {leaf}", f"nice -n 1 {leaf}", f"timeout 5 {leaf}", f"command {leaf}",
        f"X=1 {leaf}", f"echo {shlex.quote(rest or '')} | xargs {program}" if rest else f"echo | xargs {program}",
        f"`echo {program}`{args}", f"$(echo {program}){args}",
    ]


LEAF = st.sampled_from(LEAVES).flatmap(lambda leaf: st.sampled_from(_spellings(leaf)))


def _around(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    quoted = children.map(shlex.quote)
    return st.one_of(
        st.tuples(children, st.sampled_from(["&&", "||", ";", "|", "\n", "&"]), children)
        .map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        children.map("( {} )".format), children.map("{{ {}; }}".format),
        children.map("echo $( {} )".format), children.map('echo "$( {} )"'.format),
        children.filter(lambda c: "`" not in c).map("echo `{}`".format),
        children.filter(lambda c: "`" not in c and "\\" not in c).map(lambda c: f"echo `echo \\`{c}\\``"),
        children.filter(lambda c: "`" not in c).map(lambda c: f"echo ${{x-`{c}`}}"),
        children.map("if true; then {}; fi".format), children.map("for i in 1; do {}; done".format),
        children.map("f() {{ {}; }}; f".format), children.map("cat <( {} )".format),
        children.map(lambda c: f"cat <<E\"O\"F\nhi\nEOF\n{c}\nE\"O\"F"),
        children.map(lambda c: f"cat <<$'EOF'\nhi\nEOF\n{c}\n$'EOF'"),
        children.map(lambda c: f"cat <<EOF\n$({c})\nEOF"),
        children.map(lambda c: f"bash <<'EOF'\n{c}\nEOF"),
        quoted.map("bash -c -- {}".format), quoted.map("sh -c {}".format), quoted.map("bash -ec {}".format),
        quoted.map("echo {} | bash".format), quoted.map("bash <<< {}".format), quoted.map("eval {}".format),
        quoted.map('eval "$(echo {})"'.format), quoted.map("trap {} EXIT".format),
    )


LINES = st.recursive(LEAF, _around, max_leaves=3)


EXAMPLES = int(os.environ.get("AGENTLS_RULES_EXAMPLES", "200"))  # 2000 for a longer hunt; 200 keeps the suite's time


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(LINES)
async def test_no_denied_or_hidden_command_runs_unasked(sandbox, command):
    await _check(sandbox, command)
