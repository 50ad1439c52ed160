"""A stand-in agentls LSP server for the client e2e while the real one is not there.

Speaks docs/protocol.md: agent/chat streams events (thinking, a read_file tool
card, text), agent/compact, agent/cost, agent/clear, agent/context and
agent/contextUsage. Used only with AGENTLS_E2E_FAKE=1 (see fake-python.sh).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer

server = LanguageServer("agentls-fake", "0.0")
state: dict[str, Any] = {"used": 2000, "turn": 0, "root": None}
WINDOW = 30000
ids = itertools.count(1)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def usage() -> dict:
    used = state["used"]
    u = round(used / (WINDOW - 2000), 4)  # docs/protocol.md, Utilization: over the usable window
    return {"used": used, "window": WINDOW, "effectiveWindow": WINDOW - 2000, "utilization": u, "nextRequest": "none",
            "level": "high" if u >= 0.85 else "warn" if u >= 0.6 else "ok",
            "categories": {"system": 1000, "tools": 1000, "user": 0, "assistant": 0, "toolResults": max(0, used - 2000)},
            "layers": [{"layer": "compact", "count": state.get("compactions", 0), "tokensSaved": 0}]}


@server.feature("initialized")
def initialized(ls: LanguageServer, params: Any) -> None:
    folders = ls.workspace.folders
    if folders:
        state["root"] = next(iter(folders.values())).uri
    ls.protocol.notify("agent/contextUsage", usage())


@server.feature("agent/chat")
async def chat(ls: LanguageServer, params: Any) -> dict:
    prompt = _get(params, "prompt", "")
    turn = f"turn-{next(ids)}"
    ev = lambda **kw: ls.protocol.notify("agent/event", {"turnId": turn, **kw})  # noqa: E731
    if "crash" in prompt:
        os._exit(3)
    if "slowly" in prompt:
        for i in range(200):
            ev(kind="textDelta", text=f"word{i} ")
            await asyncio.sleep(0.1)  # $/cancelRequest cancels this task
    attachments = _get(params, "attachments", None) or []
    if attachments:
        desc = []
        for a in attachments:
            uri = str(_get(a, "uri", ""))
            text = _get(a, "text", None)
            rng = _get(a, "range", None)
            lines = f" lines {_get(_get(rng, 'start'), 'line') + 1}-{_get(_get(rng, 'end'), 'line') + 1}" if rng else ""
            desc.append(f"{uri.rsplit('/', 1)[-1]}{lines} ({len(text) if text is not None else 'no'} chars)")
        text = "attachments: " + ", ".join(desc)
        ev(kind="textDelta", text=text)
        u = {"inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0, "cacheWriteTokens": 0}
        return {"turnId": turn, "text": text, "stopReason": "end_turn", "usage": u}
    if prompt.startswith(("run ", "edit ", "hidden run ")):
        edit = prompt.startswith("edit ")
        if prompt.startswith("hidden run "):  # asks once the test has hidden the panel (it writes the flag)
            prompt = prompt.removeprefix("hidden ")
            flag = Path((state["root"] or "file:///").removeprefix("file://")) / "panel-hidden.flag"
            while not flag.exists():
                await asyncio.sleep(0.1)
        ask = ({"kind": "edit", "path": "hello.py",
                "diff": "--- a/hello.py\n+++ b/hello.py\n@@ -1,1 +1,1 @@\n-\"\"\"A greeting module for the agentls end-to-end test.\"\"\"\n+\"\"\"Greetings, edited by the agent.\"\"\"\n"}
               if edit else {"kind": "shell", "command": prompt[4:]})
        tool = "edit_file" if edit else "run_shell"
        ask["toolUseId"] = f"tu{turn}"  # the panel asks on this card
        ev(kind="toolStart", toolUseId=f"tu{turn}", tool=tool, summary=ask.get("path") or ask["command"])
        result = await ls.protocol.send_request_async("agent/confirm", ask)
        approved = bool(_get(result, "approved", False))
        remember = bool(_get(result, "remember", False))
        reason = str(_get(result, "reason", "") or "")
        ev(kind="toolEnd", toolUseId=f"tu{turn}", tool=tool, summary=ask.get("path") or ask["command"],
           isError=not approved, resultChars=10, marker="", diff=ask.get("diff", ""), reason=reason,
           approval=("always" if remember else "approved") if approved else "rejected")
        text = f"approved={str(approved).lower()} remember={str(remember).lower()}" + (f" reason={reason}" if reason else "")
        ev(kind="textDelta", text=text)
        u = {"inputTokens": 1, "outputTokens": 1, "cacheReadTokens": 0, "cacheWriteTokens": 0}
        return {"turnId": turn, "text": text, "stopReason": "end_turn", "usage": u}
    ev(kind="thinkingDelta", text="The user wants a file read.")
    name = next((w.strip(".,") for w in prompt.split() if "." in w.strip(".,")), "hello.py")
    ev(kind="toolStart", toolUseId=f"tu{turn}", tool="read_file", summary=name)
    root = Path((state["root"] or "file:///").removeprefix("file://"))
    try:
        text = (root / name).read_text()
    except OSError as e:
        text = str(e)
    await asyncio.sleep(0.2)
    ev(kind="toolEnd", toolUseId=f"tu{turn}", tool="read_file", summary=name, isError=False,
       resultChars=len(text), marker="truncated" if len(text) > 10000 else "")
    state["used"] += len(text) // 4
    for piece in ["[demo model] ", f"**{name}** has {len(text.splitlines())} lines", ".\n\n```python\n",
                  "\n".join(text.splitlines()[:3]), "\n```\n"]:
        ev(kind="textDelta", text=piece)
        await asyncio.sleep(0.05)
    u = {"inputTokens": state["used"], "outputTokens": 50, "cacheReadTokens": 0, "cacheWriteTokens": 0}
    ev(kind="usage", usage=u)
    ls.protocol.notify("agent/contextUsage", usage())
    return {"turnId": turn, "text": "done", "stopReason": "end_turn", "usage": u}


@server.feature("agent/compact")
async def compact(ls: LanguageServer, params: Any) -> dict:
    ls.protocol.notify("agent/event", {"turnId": "compact-1", "kind": "compactionStarted", "reason": "manual"})
    before = state["used"]
    state["used"] = 2500
    state["compactions"] = state.get("compactions", 0) + 1
    ls.protocol.notify("agent/event", {"turnId": "compact-1", "kind": "compactionFinished",
                                       "tokensBefore": before, "tokensAfter": state["used"],
                                       "summary": "[Conversation summary] summary", "reason": "manual",
                                       "compacted": True})
    ls.protocol.notify("agent/contextUsage", usage())
    return {"tokensBefore": before, "tokensAfter": state["used"], "summary": "summary", "compacted": True, "note": ""}


@server.feature("agent/cost")
def cost(ls: LanguageServer, params: Any) -> dict:
    return {"model": "fake-demo", "requests": 2, "inputTokens": 1234, "outputTokens": 56,
            "cacheReadTokens": 0, "cacheWriteTokens": 0, "cacheWrite1hTokens": 0, "cacheTtl": "5m", "usd": 0.0}


@server.feature("agent/clear")
def clear(ls: LanguageServer, params: Any) -> dict:
    state["used"] = 2000
    ls.protocol.notify("agent/contextUsage", usage())
    return {}


@server.feature("agent/context")
def context(ls: LanguageServer, params: Any) -> dict:
    return {**usage(), "placeholders": []}


if __name__ == "__main__":
    server.start_io()
