"""Preserved thinking on the mock's side: every thinking block it sends is signed to its prefix
(binding.BindingRegistry), every request's carried blocks are checked, and a failure answers the documented 400
or, when asked (or when the server is set so), the failing blocks are dropped and reported.

Sources (read 2026-12): https://platform.claude.com/docs/en/build-with-claude/preserved-thinking,
…/preserved-thinking/prefix-checks and …/fix-bound-to-a-different-conversation (the 400's wording, the
`drop_block` retry), and the anthropic SDK's BetaThinkingBlockBindingParam and BetaMessage.input_transformations
(beta thinking-binding-controls-2026-08-01; reported only with that beta, `[]` when nothing happened; removed
blocks count for nothing in `usage.input_tokens`).
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field

from .binding import INVALID_SIGNATURE, OMITTED_BETWEEN, BindingFailure, BindingRegistry, blocks_of

BINDING_CONTROLS_BETA = "thinking-binding-controls-2026-08-01"
# The server's default when a request does not choose: a 400, the blocks dropped, or the check not enforced
# (the blocks shown to the model all the same and reported as `thinking_mismatch_allowed`).
MISMATCH_MODES = ("error", "drop", "off")
# What a reply that was asked to think and scripted without thinking thinks (deterministic, short).
DEFAULT_THOUGHT = "Considering the request before answering."


def thinks_first(body: dict, content: list[dict], always: bool) -> bool:
    """Whether a reply scripted as `content` gets a thinking block put first: with manual (`enabled`) thinking
    the model always thinks first; with `adaptive` it decides (docs: build-with-claude/adaptive-thinking), so
    a scripted reply is taken as its decision unless the server is told that it `always` thinks."""
    if content and content[0].get("type") in ("thinking", "redacted_thinking"):
        return False
    kind = (body.get("thinking") or {}).get("type")
    return kind == "enabled" or (always and kind == "adaptive")


def _requested_behavior(body: dict) -> str | None:
    thinking = body.get("thinking")
    binding = thinking.get("block_binding") if isinstance(thinking, dict) else None
    value = binding.get("prefix_mismatch_behavior") if isinstance(binding, dict) else None
    return value if isinstance(value, str) else None


def mismatch_message(failure: BindingFailure, block_type: str) -> str:
    """The documented 400 for a failing block, with a sentence naming what changed when it is known."""
    text = (f"{failure.path}: Invalid `signature` in `{block_type}` block. The block is bound to a different "
            "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "
            "\"drop_block\".")
    if failure.reason == OMITTED_BETWEEN:
        return text + " A thinking block before it was left out."
    if failure.reason == INVALID_SIGNATURE:
        return text + " The signature was not made for this block."
    if failure.changed == "system or tools":
        return text + " The top-level `system` or `tools` changed after the block was produced."
    if failure.changed:
        return text + f" {failure.changed} changed after the block was produced."
    return text


@dataclass
class ThinkingVerdict:
    """What the check made of a request: a 400, or the messages the model reads and what to report."""

    error: str | None = None
    messages: list[dict] = field(default_factory=list)
    transformations: list[dict] | None = None  # None: not reported (no beta header)


class ThinkingGate:
    """The server's thinking rules: its registry (one per server) and its mismatch default."""

    def __init__(self, mode: str = "error") -> None:
        if mode not in MISMATCH_MODES:
            raise ValueError(f"thinking mismatch mode {mode!r}: expected one of {MISMATCH_MODES}")
        self.mode = mode
        self.registry = BindingRegistry()
        self._lock = threading.Lock()

    def check(self, body: dict, betas: frozenset[str], bound: bool) -> ThinkingVerdict:
        messages = list(body.get("messages") or [])
        reported = BINDING_CONTROLS_BETA in betas
        requested = _requested_behavior(body)
        if requested is not None and not reported:
            return ThinkingVerdict(error=("thinking.block_binding: requires the anthropic-beta header "
                                          f"{BINDING_CONTROLS_BETA}"))
        if requested not in (None, "error", "drop_block"):
            return ThinkingVerdict(error=("thinking.block_binding.prefix_mismatch_behavior: Input should be "
                                          "'error' or 'drop_block'"))
        if not bound:
            return ThinkingVerdict(messages=messages, transformations=[] if reported else None)
        behavior = requested or {"error": "error", "drop": "drop_block", "off": "allow"}[self.mode]
        with self._lock:
            failures = self.registry.check(body.get("system"), body.get("tools"), messages, each=behavior == "allow")
        if behavior == "allow":  # not enforced (older accounts): shown to the model all the same, and reported
            entries = [{"type": "thinking_mismatch_allowed", "path": f.path, "reason": "prefix_binding_mismatch"}
                       for f in failures]
            return ThinkingVerdict(messages=messages, transformations=entries if reported else None)
        if failures and behavior == "error":
            first = failures[0]
            return ThinkingVerdict(error=mismatch_message(first, _block_at(messages, first.path).get("type", "")))
        kept = _without(messages, {f.path for f in failures})
        entries = [{"type": "thinking_dropped", "path": f.path, "reason": "prefix_binding_mismatch"}
                   for f in failures]
        return ThinkingVerdict(messages=kept, transformations=entries if reported else None)

    def sign(self, body: dict, messages: list[dict], content: list[dict]) -> list[dict]:
        """The reply's blocks with every thinking block signed to its prefix (`messages`: what the model read)."""
        signed: list[dict] = []
        with self._lock:
            for block in content:
                if block.get("type") in ("thinking", "redacted_thinking"):
                    unsigned = {k: v for k, v in block.items() if k != "signature"}
                    block = self.registry.produce(body.get("system"), body.get("tools"), messages, signed, unsigned)
                signed.append(block)
        return signed


def _block_at(messages: list[dict], path: str) -> dict:
    _, i, _, j = path.split(".")
    return blocks_of(messages[int(i)])[int(j)]


def _without(messages: list[dict], paths: set[str]) -> list[dict]:
    """`messages` without the blocks at `paths` (the model's view after a drop)."""
    if not paths:
        return messages
    kept = copy.deepcopy(messages)
    for i, message in enumerate(kept):
        blocks = blocks_of(message)
        if any(f"messages.{i}.content.{j}" in paths for j in range(len(blocks))):
            message["content"] = [b for j, b in enumerate(blocks) if f"messages.{i}.content.{j}" not in paths]
    return kept
