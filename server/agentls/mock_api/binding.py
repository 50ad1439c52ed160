"""The prefix check of preserved thinking, as the API documents it: the oracle of the mock and the tests.

Sources (read 2026-12): https://platform.claude.com/docs/en/build-with-claude/preserved-thinking and
https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks, and the anthropic
SDK's beta types (BetaThinkingBlockBindingParam, BetaThinkingDroppedInputTransformation).

- A thinking or redacted_thinking block is bound to its prefix: the top-level `system`, `tools`, every
  earlier message, and the blocks of its own message before it.
- What is not part of a prefix (the documented safe changes): `cache_control` markers (breakpoints move
  freely) and thinking blocks themselves (removing thinking from the front is safe). A thinking block left
  out *between* others fails, as does any change to the prefix.
- An appended `role: "system"` message is a message like any other: part of later blocks' prefixes only.

This module is independent of the client's context engine on purpose: it is the API's side of the
contract, so a test that uses it can catch the engine misreading the rules.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

THINKING_TYPES = ("thinking", "redacted_thinking")
PREFIX_MISMATCH = "prefix_binding_mismatch"
OMITTED_BETWEEN = "omitted_between"  # ours: the docs' "left out between others" (reported as a prefix mismatch)
INVALID_SIGNATURE = "invalid_signature"  # ours: a signature this API did not make, or a block altered since
SIGNATURE_MARK = "mock-sig-"  # every signature the mock makes starts so (tests tell its blocks by it)


def without_cache_control(value: Any) -> Any:
    """A value without its cache_control markers (they are not part of any prefix: billing marks, not content)."""
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


def _encode(value: Any) -> bytes:
    return json.dumps(without_cache_control(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _system_blocks(system: Any) -> list[Any]:
    """The system prompt as text blocks: a string and one text block of it are the same prompt."""
    if system is None:
        return []
    if isinstance(system, str):
        return [{"type": "text", "text": system}] if system else []
    return list(system)


def blocks_of(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else []


def is_thinking(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in THINKING_TYPES


@dataclass(frozen=True)
class ThinkingPlace:
    """One thinking block of a request and the fingerprint of its prefix there."""

    message: int
    index: int
    block: dict[str, Any]
    prefix: str  # hex digest of the prefix (system, tools, earlier messages and blocks; no thinking)
    # digests after the head and after each earlier message: where a change happened
    boundaries: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def path(self) -> str:
        return f"messages.{self.message}.content.{self.index}"


def thinking_places(system: Any, tools: Any, messages: Sequence[Mapping[str, Any]]) -> Iterator[ThinkingPlace]:
    """Every thinking block of a request with its prefix fingerprint, in order; one pass over the request."""
    digest = hashlib.sha256()
    digest.update(b"system\x00" + _encode(_system_blocks(system)))
    digest.update(b"tools\x00" + _encode(list(tools or [])))
    boundaries = [digest.copy().hexdigest()]
    for i, message in enumerate(messages):
        digest.update(b"\x1emessage\x00" + str(message.get("role")).encode())
        for j, block in enumerate(blocks_of(message)):
            if is_thinking(block):
                yield ThinkingPlace(i, j, block, digest.copy().hexdigest(), tuple(boundaries))
                continue
            digest.update(b"\x1f" + _encode(block))
        boundaries.append(digest.copy().hexdigest())


def _content_digest(block: Mapping[str, Any]) -> str:
    body = block.get("thinking") if block.get("type") == "thinking" else block.get("data")
    return hashlib.sha256(str(body).encode()).hexdigest()


def sign(secret: bytes, prefix: str, block: Mapping[str, Any]) -> str:
    """The signature of a block produced after `prefix`: it names the prefix, so a later request can be checked."""
    mac = hmac.new(secret, f"{prefix}:{_content_digest(block)}".encode(), hashlib.sha256).hexdigest()
    return SIGNATURE_MARK + base64.b64encode(f"v1:{prefix}:{mac}".encode()).decode()


def signed_prefix(secret: bytes, block: Mapping[str, Any]) -> str | None:
    """The prefix a block's signature names, None when the signature is not ours or the block was altered."""
    signature = block.get("signature")
    if not isinstance(signature, str) or not signature.startswith(SIGNATURE_MARK):
        return None
    try:
        encoded = signature[len(SIGNATURE_MARK):].encode()
        version, prefix, mac = base64.b64decode(encoded, validate=True).decode().split(":")
    except (ValueError, UnicodeDecodeError):
        return None
    expected = hmac.new(secret, f"{prefix}:{_content_digest(block)}".encode(), hashlib.sha256).hexdigest()
    return prefix if version == "v1" and hmac.compare_digest(mac, expected) else None


@dataclass(frozen=True)
class BindingFailure:
    """A carried thinking block that fails the check, and what changed before it ("" when unknown)."""

    path: str
    reason: str  # PREFIX_MISMATCH | OMITTED_BETWEEN | INVALID_SIGNATURE
    changed: str = ""  # "system or tools", "messages.N", or ""


@dataclass
class BindingRegistry:
    """What the API remembers of the blocks it produced: per signature, the boundaries of its prefix and
    the blocks that came before it (to find a block left out between others)."""

    secret: bytes = b"agentls-mock-thinking"
    boundaries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ancestors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # a redacted_thinking block has no signature field (its binding is inside its opaque data): by data
    redacted: dict[str, str] = field(default_factory=dict)

    def signature_of(self, block: Mapping[str, Any]) -> str:
        if block.get("type") == "redacted_thinking":
            return self.redacted.get(str(block.get("data")), "")
        return str(block.get("signature") or "")

    def produce(self, system: Any, tools: Any, messages: Sequence[Mapping[str, Any]],
                reply_before: Sequence[Mapping[str, Any]], block: dict[str, Any]) -> dict[str, Any]:
        """Sign a thinking block of a reply to `messages`, after the reply's blocks `reply_before`."""
        reply = {"role": "assistant", "content": [*reply_before, block]}
        places = list(thinking_places(system, tools, [*messages, reply]))
        here = places[-1]
        signature = sign(self.secret, here.prefix, block)
        self.boundaries[signature] = here.boundaries
        self.ancestors[signature] = tuple(self.signature_of(p.block) for p in places[:-1])
        if block.get("type") == "redacted_thinking":
            self.redacted[str(block.get("data"))] = signature
            return dict(block)
        return {**block, "signature": signature}

    def check(self, system: Any, tools: Any, messages: Sequence[Mapping[str, Any]],
              each: bool = False) -> list[BindingFailure]:
        """The carried blocks that fail, in request order; once one fails, every later one fails too
        (`each`: every block judged on its own instead, as the API reports blocks it lets through)."""
        failures: list[BindingFailure] = []
        carried: list[str] = []
        for place in thinking_places(system, tools, messages):
            signature = self.signature_of(place.block)
            if failures and not each:
                failures.append(BindingFailure(place.path, PREFIX_MISMATCH))
                continue
            produced = signed_prefix(self.secret, {**place.block, "signature": signature})
            if produced is None:
                failures.append(BindingFailure(place.path, INVALID_SIGNATURE))
            elif produced != place.prefix:
                failures.append(BindingFailure(place.path, PREFIX_MISMATCH,
                                               _first_change(self.boundaries.get(signature, ()), place.boundaries)))
            elif carried and not _suffix_of(carried, self.ancestors.get(signature, ())):
                failures.append(BindingFailure(place.path, OMITTED_BETWEEN))
            carried.append(signature)
        return failures


def _suffix_of(carried: list[str], ancestors: tuple[str, ...]) -> bool:
    """Whether the blocks carried before one are the newest of those it was produced after (front removal only)."""
    return len(carried) <= len(ancestors) and tuple(carried) == ancestors[len(ancestors) - len(carried):]


def _first_change(produced: tuple[str, ...], now: tuple[str, ...]) -> str:
    if not produced or not now:
        return ""
    if produced[0] != now[0]:
        return "system or tools"
    for index in range(1, min(len(produced), len(now))):
        if produced[index] != now[index]:
            return f"messages.{index - 1}"
    return f"messages.{min(len(produced), len(now)) - 1}"
