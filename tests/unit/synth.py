"""Builders for synthetic conversations in Anthropic message format."""

from __future__ import annotations

import itertools

from agentls.agent.workspace import Workspace

_ids = itertools.count()


def new_id() -> str:
    return f"toolu_{next(_ids):08d}"


def user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant_text(text: str) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_call(name: str, tool_input: dict, text: str = "") -> tuple[dict, str]:
    tool_use_id = new_id()
    blocks = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input})
    return {"role": "assistant", "content": blocks}, tool_use_id


def tool_calls(calls: list[tuple[str, dict]]) -> tuple[dict, list[str]]:
    ids = [new_id() for _ in calls]
    blocks = [{"type": "tool_use", "id": i, "name": n, "input": inp} for i, (n, inp) in zip(ids, calls)]
    return {"role": "assistant", "content": blocks}, ids


def results(pairs: list[tuple[str, str]]) -> dict:
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": i, "content": text} for i, text in pairs
    ]}


def read_turn(engine, path: str, body: str) -> str:
    """Append an assistant read_file call and its result; returns the tool_use id."""
    message, tool_use_id = tool_call("read_file", {"path": path})
    engine.append(message)
    engine.append(results([(tool_use_id, body)]))
    return tool_use_id



class LiveWorkspace(Workspace):
    """A Workspace whose open documents are given: stands in for an editor's live buffers."""

    def __init__(self, roots, docs):
        super().__init__(roots)
        self.docs = docs

    def open_documents(self):
        return self.docs
