"""The front ends switch no conversation themselves: new, resume, fork, rewind and delete are the core's.

The language server (lsp/), the ACP agent (acp/) and the terminal (cli/) call
the core's conversation operations (agent/conversations.py, reached as
`runtime.conversations`) and only translate what comes back. Read from the
source's AST: no front-end module opens a session or builds one, asks the
store to open, fork, cut, rename or delete one, drives the Agent's own
switching methods (clear, resume, rewind, fork_point) or the checkpoints'
rewind, or forgets the approvals a switch leaves behind; and each front end
does reach the core's operations.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "agentls"
FRONT_ENDS = ("lsp", "acp", "cli")

# Names of the store that open, make, fork, cut or change sessions.
STORE_NAMES = {"open_session", "Session", "SessionStore", "fork_at", "cut_after", "new_session_id"}
# `agentls sessions list|export|import|vacuum`: the store's own maintenance from the terminal (no
# conversation is hosted or switched there), so it may hold a SessionStore.
STORE_ADMIN = {"cli/sessions.py": {"SessionStore"}}
# The Agent's switching methods, called on the agent (`agent.clear(…)`, `self.agent.resume(…)`).
AGENT_SWITCHES = {"clear", "resume", "rewind", "fork_point"}
# Called on anything: the checkpoints' own file rewind.
ANYWHERE = {"rewind_code"}


def _modules(front_end: str) -> list[Path]:
    return sorted((PACKAGE / front_end).rglob("*.py"))


def _tail(node: ast.expr) -> str | None:
    """The last name of a receiver: `self.runtime.agent` → agent, `policy` → policy."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def violations(path: Path, tree: ast.AST) -> list[str]:
    """What in this module switches a conversation itself, as `where:line what`, in source order."""
    where = path.relative_to(PACKAGE).as_posix()
    forbidden = STORE_NAMES - STORE_ADMIN.get(where, set())
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("agent.store", "agentls.agent.store")):
            found += [(node.lineno, f"imports {alias.name} from the store") for alias in node.names
                      if alias.name in forbidden]
        elif isinstance(node, ast.Name) and node.id in forbidden:  # called, or handed to a thread
            found.append((node.lineno, f"uses {node.id}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, _tail(node.func.value)
            if method in AGENT_SWITCHES and receiver == "agent":
                found.append((node.lineno, f"calls agent.{method}(…)"))
            elif method in ANYWHERE:
                found.append((node.lineno, f"calls {method}(…)"))
            elif method == "forget" and receiver is not None and receiver.endswith("policy"):
                found.append((node.lineno, f"forgets the session's approvals ({receiver}.forget)"))
    return [f"{where}:{line} {what}" for line, what in sorted(found, key=lambda item: item[0])]


def _reaches_the_core(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "conversations":
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("agent.conversations"):
            return True
    return False


def test_no_front_end_switches_a_conversation_itself():
    found = []
    for front_end in FRONT_ENDS:
        for path in _modules(front_end):
            found += violations(path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    assert found == [], "session switching outside the core (agent/conversations.py):\n" + "\n".join(found)


def test_every_front_end_calls_the_cores_conversation_operations():
    for front_end in FRONT_ENDS:
        trees = [ast.parse(path.read_text(encoding="utf-8")) for path in _modules(front_end)]
        assert any(_reaches_the_core(tree) for tree in trees), f"{front_end}/ never reaches agent/conversations.py"


def test_the_check_sees_what_it_forbids():
    """Each kind of switching it looks for, written the ways the front ends wrote it, is found."""
    source = (
        "from ...agent.store import StoreBusy, open_session\n"
        "from ..agent.store.rewind import fork_at\n"
        "async def new(self, agent, host):\n"
        "    session = await asyncio.to_thread(open_session, root, new=True)\n"
        "    agent.clear(session)\n"
        "    self.agent.resume(session)\n"
        "    await self.runtime.agent.rewind('c', 'both', confirm)\n"
        "    await agent.fork_point('c')\n"
        "    await manager.rewind_code('c', confirm)\n"
        "    host.policy.forget()\n"
        "    SessionStore.open().delete('s')\n"
    )
    found = violations(PACKAGE / "lsp" / "example.py", ast.parse(source))
    assert [line.split(" ", 1)[1] for line in found] == [
        "imports open_session from the store", "imports fork_at from the store", "uses open_session",
        "calls agent.clear(…)", "calls agent.resume(…)", "calls agent.rewind(…)", "calls agent.fork_point(…)",
        "calls rewind_code(…)", "forgets the session's approvals (policy.forget)", "uses SessionStore"]
    allowed = "self.editor.confirms.clear()\nresult = await conversations.rewind('c', 'code', ask)\n"
    assert violations(PACKAGE / "lsp" / "example.py", ast.parse(allowed)) == []
