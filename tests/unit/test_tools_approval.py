"""Nothing runs or changes without approval; the policy decides who is asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.approval import (
    ApprovalDecision,
    ApprovalPolicy,
    ApprovalRequest,
    auto_approve,
    deny_all,
    unified_diff,
)
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import Workspace


class Recorder:
    """An asker that records every request and answers with a fixed decision."""

    def __init__(self, answer: bool | ApprovalDecision = False) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> bool | ApprovalDecision:
        self.requests.append(request)
        return self.answer


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("x = 1\n")
    return tmp_path


def _ctx(root: Path, approve) -> ToolContext:
    return ToolContext(Workspace([root]), approve)


async def _try_everything(root: Path, approve) -> list:
    ctx = _ctx(root, approve)
    return [
        await run_tool("run_shell", {"command": "touch marker"}, ctx),
        await run_tool("edit_file", {"path": "app.py", "old_text": "x = 1", "new_text": "x = 3"}, ctx),
        await run_tool("write_file", {"path": "app.py", "content": "x = 2\n"}, ctx),
        await run_tool("write_file", {"path": "new.py", "content": "y = 1\n"}, ctx),
    ]


def _nothing_happened(root: Path) -> None:
    assert not (root / "marker").exists()
    assert not (root / "new.py").exists()
    assert (root / "app.py").read_text() == "x = 1\n"


async def test_denied_requests_change_nothing(root: Path) -> None:
    asker = Recorder(False)
    outs = await _try_everything(root, asker)
    _nothing_happened(root)
    assert all(o.is_error for o in outs)
    assert outs[0].text == "The user did not approve running: touch marker"
    assert all("did not approve" in o.text for o in outs)
    assert [r.kind for r in asker.requests] == ["shell", "edit", "write", "write"]
    shell, edit, overwrite, create = asker.requests
    assert shell.command == "touch marker"
    assert overwrite.path == "app.py" and "-x = 1" in overwrite.diff and "+x = 2" in overwrite.diff
    assert create.diff.startswith("--- /dev/null")
    assert edit.path == "app.py" and "-x = 1" in edit.diff and "+x = 3" in edit.diff


async def test_deny_all_helper(root: Path) -> None:
    await _try_everything(root, deny_all)
    _nothing_happened(root)


async def test_never_policy_does_not_even_ask(root: Path) -> None:
    asker = Recorder(True)
    outs = await _try_everything(root, ApprovalPolicy(asker, shell="never", write="never"))
    _nothing_happened(root)
    assert asker.requests == []
    assert all(o.is_error for o in outs)


async def test_policy_without_asker_refuses(root: Path) -> None:
    await _try_everything(root, ApprovalPolicy(None))
    _nothing_happened(root)


async def test_always_policy_runs_without_asking(root: Path) -> None:
    asker = Recorder(False)
    outs = await _try_everything(root, ApprovalPolicy(asker, shell="always", write="always"))
    assert asker.requests == []
    assert not any(o.is_error for o in outs)
    assert (root / "marker").exists() and (root / "new.py").exists()


async def test_auto_approve_helper(root: Path) -> None:
    outs = await _try_everything(root, auto_approve)
    assert not any(o.is_error for o in outs)


async def test_remember_is_per_command_for_shell() -> None:
    asker = Recorder(ApprovalDecision(True, remember=True))
    policy = ApprovalPolicy(asker)
    assert await policy(ApprovalRequest("shell", command="pytest"))
    assert await policy(ApprovalRequest("shell", command="pytest"))
    assert len(asker.requests) == 1
    asker.answer = False
    assert not await policy(ApprovalRequest("shell", command="rm -rf build"))
    assert len(asker.requests) == 2


async def test_remember_adds_an_allow_rule_for_that_file_and_tool_until_forgotten() -> None:
    asker = Recorder(ApprovalDecision(True, remember=True))
    policy = ApprovalPolicy(asker)
    assert await policy(ApprovalRequest("edit", path="src/a.py", diff=""))
    assert asker.requests[0].rules == ("edit_file(src/a.py)",)  # what "Always" adds, shown to the user
    assert await policy(ApprovalRequest("edit", path="src/a.py", diff=""))
    assert len(asker.requests) == 1
    assert await policy(ApprovalRequest("write", path="src/a.py", diff=""))  # another tool: asked
    assert await policy(ApprovalRequest("edit", path="src/b.py", diff=""))  # another file: asked
    assert len(asker.requests) == 3
    assert [rule.text for rule in policy.rules.added] == ["edit_file(src/a.py)", "write_file(src/a.py)",
                                                          "edit_file(src/b.py)"]
    policy.forget()
    asker.answer = ApprovalDecision(False)
    assert not await policy(ApprovalRequest("edit", path="src/a.py", diff=""))


async def test_configure_write_also_governs_edit() -> None:
    asker = Recorder(True)
    policy = ApprovalPolicy(asker)
    policy.configure({"write": "never", "shell": "always"})
    assert not await policy(ApprovalRequest("edit", path="a.py"))
    assert await policy(ApprovalRequest("shell", command="ls"))
    assert asker.requests == []
    with pytest.raises(ValueError, match="approvals.shell"):
        policy.configure({"shell": "sometimes"})
    with pytest.raises(ValueError):
        policy.set_mode("delete", "ask")


def test_unified_diff_shapes() -> None:
    changed = unified_diff("a\nb\n", "a\nc\n", "src/x.py")
    assert "--- a/src/x.py" in changed and "+++ b/src/x.py" in changed
    assert "-b\n" in changed and "+c\n" in changed
    new = unified_diff(None, "hello", "n.txt")
    assert new.startswith("--- /dev/null\n+++ b/n.txt\n")
    assert "+hello\n\\ No newline at end of file\n" in new
    assert unified_diff("same\n", "same\n", "s.txt") == ""


async def test_mcp_approvals_are_remembered_per_server_and_tool():
    from agentls.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest

    asked = []

    async def ask(request):
        asked.append(request)
        return ApprovalDecision(True, remember=True)

    policy = ApprovalPolicy(ask)
    commit = ApprovalRequest(kind="mcp", server="git", tool="git_commit", input="{}")
    assert await policy(commit) and await policy(commit)
    assert await policy(ApprovalRequest(kind="mcp", server="git", tool="git_reset", input="{}"))
    assert await policy(ApprovalRequest(kind="mcp", server="other", tool="git_commit", input="{}"))
    assert [(r.server, r.tool) for r in asked] == [("git", "git_commit"), ("git", "git_reset"), ("other", "git_commit")]


async def test_reject_always_is_remembered_like_always_but_negative(root: Path) -> None:
    asker = Recorder(ApprovalDecision(False, remember=True))
    policy = ApprovalPolicy(asker)
    ctx = _ctx(root, policy)
    first = await run_tool("run_shell", {"command": "touch one"}, ctx)
    again = await run_tool("run_shell", {"command": "touch one"}, ctx)
    assert first.is_error and again.is_error and "did not approve" in again.text
    assert len(asker.requests) == 1  # the second one was refused without asking
    assert not (root / "one").exists()
    other = await run_tool("run_shell", {"command": "touch two"}, ctx)  # another command is asked again
    assert other.is_error and len(asker.requests) == 2
    # a later "always" (which adds the request's allow rules) wins over it
    policy.remember(ApprovalRequest(kind="shell", command="touch one", rules=("run_shell(touch one)",)))
    assert not (await run_tool("run_shell", {"command": "touch one"}, ctx)).is_error
    assert (root / "one").exists() and len(asker.requests) == 2
    policy.forget()  # a new session: nothing remembered either way
    asker.answer = False
    assert (await run_tool("run_shell", {"command": "touch one"}, ctx)).is_error
    assert len(asker.requests) == 3
