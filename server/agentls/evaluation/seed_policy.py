"""The seed chapter's policy, re-implemented for comparison in the replay.

Behaviour as the chapter describes it: utilization from the previous call's
prompt size (we grant it the full size, cache tokens included, which the
chapter itself does not count); every call, L1 cuts every tool result over
30K / 15K chars at 50% / 70%, L2 replaces all but the latest result per
(tool, path-or-command) from 60% on, keeping the 3 most recent; at 85% the
whole history becomes [summary, acknowledgement, last user message].
Messages are replaced, not mutated, so the replay can hash them cheaply.
"""

from __future__ import annotations

import copy

from ..context.blocks import Message, blocks_of, result_text
from ..context.tool_record import dedup_target

SNIPPABLE = {"read_file", "grep_search", "list_files", "run_shell"}
SNIP_TEXT = "[Content snipped - newer version available below]"
ACK = "Understood. I have the context from our previous conversation. How can I continue helping?"


def _cut(text: str, budget: int, label: str) -> str:
    keep = (budget - 80) // 2
    return text[:keep] + f"\n\n[... {label}: {len(text) - keep * 2} chars truncated ...]\n\n" + text[-keep:]


class SeedPolicy:
    def __init__(self, window: int, system_tokens: int) -> None:
        self.effective_window = window - min(window // 10, 32_000)
        self.system_tokens = system_tokens
        self.messages: list[Message] = []
        self.last_prompt_tokens = 0

    def append(self, message: Message) -> None:
        message = copy.deepcopy(message)
        for block in blocks_of(message):
            if block.get("type") == "tool_result":
                text = result_text(block)
                if len(text) > 50_000:
                    keep = (50_000 - 60) // 2
                    block["content"] = (text[:keep] + f"\n\n[... truncated {len(text) - keep * 2} chars ...]\n\n"
                                        + text[-keep:])
        self.messages.append(message)

    def _set_result(self, msg_index: int, block_index: int, text: str) -> None:
        message = self.messages[msg_index]
        blocks = list(blocks_of(message))
        blocks[block_index] = {**blocks[block_index], "content": text}
        self.messages[msg_index] = {**message, "content": blocks}

    def _results(self):
        for i, message in enumerate(self.messages):
            if message["role"] != "user" or isinstance(message.get("content"), str):
                continue
            for j, block in enumerate(message["content"]):
                if block.get("type") == "tool_result":
                    yield i, j, block

    def _budget(self, utilization: float) -> None:
        if utilization < 0.5:
            return
        budget = 15_000 if utilization > 0.70 else 30_000
        for i, j, block in list(self._results()):
            text = result_text(block)
            if len(text) > budget:
                self._set_result(i, j, _cut(text, budget, "budgeted"))

    def _tool_of(self, msg_index: int, tool_use_id: str):
        if msg_index == 0:
            return None, None
        for block in blocks_of(self.messages[msg_index - 1]):
            if block.get("type") == "tool_use" and block.get("id") == tool_use_id:
                return block.get("name"), dedup_target(block.get("input") or {})
        return None, None

    def _snip(self, utilization: float) -> None:
        if utilization < 0.6:
            return
        found = list(self._results())
        latest = {}
        for i, j, block in found:
            name, key = self._tool_of(i, block.get("tool_use_id"))
            if name in SNIPPABLE and key:
                latest[(name, key)] = (i, j)
        protected = {(i, j) for i, j, _ in found[-3:]}
        for i, j, block in found:
            if (i, j) in protected:
                continue
            name, key = self._tool_of(i, block.get("tool_use_id"))
            if name in SNIPPABLE and key and latest[(name, key)] != (i, j) and block.get("content") != SNIP_TEXT:
                self._set_result(i, j, SNIP_TEXT)

    def prepare(self, summarize, after_rewrite=None) -> tuple[list[Message], list[list[Message]]]:
        """The request; summarize(messages) -> text is called when L3 fires. ``after_rewrite(messages) ->
        messages``, when given, sees the history after L1 and L2 and before anything is sent."""
        utilization = self.last_prompt_tokens / self.effective_window
        self._budget(utilization)
        self._snip(utilization)
        if after_rewrite is not None:
            self.messages = after_rewrite(self.messages)
        summary_requests = []
        if self.last_prompt_tokens > self.effective_window * 0.85 and len(self.messages) >= 4:
            last_user = self.messages[-1]
            request = [*self.messages[:-1], {"role": "user", "content": "Summarize the conversation so far."}]
            summary_requests.append(request)
            text = summarize(request)
            self.messages = [
                {"role": "user", "content": f"[Previous conversation summary]\n{text}"},
                {"role": "assistant", "content": ACK},
                last_user,
            ]
            self.last_prompt_tokens = 0
        return list(self.messages), summary_requests

    def after_call(self, prompt_tokens: int) -> None:
        self.last_prompt_tokens = prompt_tokens

