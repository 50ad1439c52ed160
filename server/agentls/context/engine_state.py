"""The context engine's working state as JSON data, and the engine rebuilt from it.

A restart must send the very next request exactly as the running engine would
have: the messages as the layers left them (cleared, snipped, budgeted, cut,
compacted), the index the layers read (which results were rewritten, by which
layer, and which are still candidates), and what the policy has decided so
far (the cache's state, the rent already paid, the breakpoints and the
stable frontier of the last request, the meter's anchor). Replaying the
messages as they were appended gives none of that: its first request
rewrites history the cache holds.

The state comes in two parts, so that a writer stores only what changed:

- one row per message (`message_row`): the message as the model last saw
  it, plus the facts about the tool records it holds that cannot be
  recomputed from it (a result's layer and original size; the original
  dedup key and size of a cleared input). A record's facts change only when
  its message is rewritten, so a row changes only when its message does;
- the scalars (`engine_state`): small, written after every call.

`restore` rebuilds a fresh engine from both and raises StateError when they do
not describe a valid history; the caller then replays the records instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .blocks import blocks_of
from .pipeline import ContextEngine
from .reporting import LayerStat
from .risk import RiskLedger
from .prompt_cache import TTL_SECONDS

VERSION = 1
JSON = dict[str, Any]


class StateError(ValueError):
    """A saved state that does not describe a valid history (damaged, or from another version)."""


# ---------------------------------------------------------------- writing

def message_row(engine: ContextEngine, index: int) -> JSON:
    """Message `index` as last sent, with the facts of its records that a re-append would not give."""
    history = engine.history
    message = history.messages[index]
    row: JSON = {"message": message}
    uses: JSON = {}
    results: JSON = {}
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "tool_use" and message["role"] == "assistant":
            record = history.records.get(block.get("id", ""))
            if record is not None and record.input_cleared:
                uses[record.id] = {"input": record.input, "key": record.key, "input_chars": record.input_chars}
        elif kind == "tool_result" and message["role"] == "user":
            record = history.records.get(block.get("tool_use_id", ""))
            if record is not None and (record.state or record.rewritten or record.original_chars != record.chars
                                       or record.arrived_chars != record.chars):
                results[record.id] = {"state": record.state, "rewritten": record.rewritten,
                                      "original_chars": record.original_chars,
                                      "arrived_chars": record.arrived_chars,
                                      "layer": engine.layer_of.get(record.id, "")}
    if uses:
        row["uses"] = uses
    if results:
        row["results"] = results
    if message["role"] == "assistant":
        row["live_text"] = index in history.live_texts
    return row


def engine_state(engine: ContextEngine) -> JSON:
    """Everything but the messages: the policy's decisions so far and the meter's anchor."""
    return {
        "version": VERSION,
        "length": len(engine.history.messages),
        "stats": {name: [stat.count, stat.tokens_saved] for name, stat in engine.stats.items()},
        "last_call_at": engine.last_call_at,
        "cache_ttl": engine.cache_ttl,
        "cache_cold": engine.cache_cold,
        "waste": engine.waste,
        "risk": engine.risk.state(),
        "appended_at_call": engine._appended_at_call,
        "calls": engine.calls,
        "appended": engine.appended,
        "summary_failures": engine.summary_failures,
        "compactions": engine.compactions,
        "carried_user_texts": list(engine._carried_user_texts),
        "cached_ends": list(engine.cached_ends),
        "sent_frontier": engine.sent_frontier,
        "meter": [engine.meter.anchor_tokens, engine.meter.anchor_estimate],
        "pending_system": list(engine.pending_system),
        "released": [engine.released.count, engine.released.tokens_saved],
        "cleared_by_api": list(engine.cleared_by_api),
        "editing": [engine.editing.on, engine.editing.rent],
        "compaction_rent": engine.compaction_clock.rent_paid,
        "summary_tokens": engine.summary_tokens,
        "folded_lines": dict(engine.folded_lines),
        "names": engine.history.names.state(),
        "tool_calls": engine.history.text_results.tool_calls,
    }


# ---------------------------------------------------------------- reading

def restore(engine: ContextEngine, rows: Sequence[Mapping[str, Any]], state: Mapping[str, Any]) -> None:
    """Rebuild `engine` (new, empty) from its message rows and state; StateError if they do not fit."""
    if engine.history.messages:
        raise StateError("the engine already holds a conversation")
    try:
        _restore(engine, rows, state)
    except StateError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise StateError(f"{type(error).__name__}: {error}") from None


def _restore(engine: ContextEngine, rows: Sequence[Mapping[str, Any]], state: Mapping[str, Any]) -> None:
    if state.get("version") != VERSION:
        raise StateError(f"state version {state.get('version')!r}")
    if state["length"] != len(rows):
        raise StateError(f"{len(rows)} messages where the state counts {state['length']}")
    history = engine.history
    for index, row in enumerate(rows):
        message = row["message"]
        if not isinstance(message, dict):
            raise StateError(f"message {index} is not an object")
        history.append(message)  # checks roles and tool pairing: ValueError on a broken history
        _restore_uses(engine, row.get("uses") or {})
        _restore_results(engine, row.get("results") or {})
        if message["role"] == "assistant":
            if row.get("live_text"):
                history.live_texts[index] = None
            else:
                history.live_texts.pop(index, None)
    for name, (count, saved) in state["stats"].items():
        if name in engine.stats:
            engine.stats[name] = LayerStat(_int(count), _int(saved))
    engine.last_call_at = _number_or_none(state["last_call_at"])
    ttl = state["cache_ttl"]
    if ttl not in TTL_SECONDS:
        raise StateError(f"unknown cache TTL {ttl!r}")
    engine.cache_ttl = ttl
    engine.cache_cold = bool(state["cache_cold"])
    engine.waste = float(state["waste"])
    engine.calls = _int(state.get("calls", 0))  # absent from a state saved before it was kept
    engine.appended = _int(state.get("appended", history.total_tokens))  # as calls
    engine._appended_at_call = _int(state.get("appended_at_call", engine.appended))  # as calls
    # as calls; an older save counts what writing the history once cost and nothing banked (risk.py)
    engine.risk = RiskLedger.restored(state.get("risk"), engine.config.write_price * history.total_tokens)
    engine.summary_failures = _int(state["summary_failures"])
    engine.compactions = _int(state["compactions"])
    texts = state["carried_user_texts"]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise StateError("carried user texts are not a list of strings")
    engine._carried_user_texts = list(texts)
    last = len(rows) - 1
    engine.cached_ends = [_index(i, last) for i in state["cached_ends"]]
    frontier = state["sent_frontier"]
    engine.sent_frontier = None if frontier is None else _index(frontier, last)
    anchor_tokens, anchor_estimate = state["meter"]
    engine.meter.anchor_tokens = None if anchor_tokens is None else _int(anchor_tokens)
    engine.meter.anchor_estimate = _int(anchor_estimate)
    pending = state.get("pending_system", [])  # absent from states saved before system messages
    if not isinstance(pending, list) or not all(isinstance(b, dict) for b in pending):
        raise StateError("pending system blocks are not a list of blocks")
    engine.pending_system = list(pending)
    released = state.get("released", [0, 0])  # absent before bound thinking
    engine.released = LayerStat(_int(released[0]), _int(released[1]))
    editing_on, editing_rent = state.get("editing", [False, 0.0])  # absent before the editing switch
    engine.editing.on, engine.editing.rent = bool(editing_on), float(editing_rent)
    engine.compaction_clock.rent_paid = float(state.get("compaction_rent", 0.0))  # absent before issue 31's timing
    engine.summary_tokens = _int(state.get("summary_tokens", 0))
    folded = state.get("folded_lines", {})  # absent before folds between compactions
    if not isinstance(folded, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in folded.items()):
        raise StateError("the folded calls' index lines are not strings by tool_use id")
    engine.folded_lines = dict(folded)
    history.names.restore(state.get("names"))  # absent before naming: each result counts as named on arrival
    history.text_results.tool_calls |= state.get("tool_calls") is True  # absent before: what the messages show
    cleared = state.get("cleared_by_api", [])
    if not isinstance(cleared, list) or not all(isinstance(i, str) and i in history.records for i in cleared):
        raise StateError("the results cleared by the API are not tool_use ids of this history")
    engine.cleared_by_api = dict.fromkeys(cleared)
    # The stable frontier needs nothing: a new engine's is computed from the history at the next prepare.


def _restore_uses(engine: ContextEngine, uses: Mapping[str, Any]) -> None:
    """Cleared inputs: the record keeps the original input, dedup key and size (as the engine that
    cleared them did), so later duplicates and placeholders are judged as before the restart."""
    history = engine.history
    for tool_use_id, facts in uses.items():
        record = history.records[tool_use_id]
        if not isinstance(facts["input"], dict):
            raise StateError(f"the input of {tool_use_id} is not an object")
        key = facts["key"]
        if key is not None and not isinstance(key, str):
            raise StateError(f"the dedup key of {tool_use_id} is not a string")
        record.input, record.key, record.input_chars = facts["input"], key, _int(facts["input_chars"])
        record.input_cleared = True
        history.live_inputs.pop(tool_use_id, None)


def _restore_results(engine: ContextEngine, results: Mapping[str, Any]) -> None:
    history = engine.history
    for tool_use_id, facts in results.items():
        record = history.records[tool_use_id]
        if record.result_msg != len(history.messages) - 1:
            raise StateError(f"the result of {tool_use_id} is not in this message")
        state = facts["state"]
        if not isinstance(state, str):
            raise StateError(f"the state of {tool_use_id} is not a string")
        record.state = state
        record.original_chars = _int(facts["original_chars"])
        record.arrived_chars = _int(facts["arrived_chars"])
        if facts["rewritten"]:
            record.rewritten = True
            history.retire(tool_use_id)
        layer = facts.get("layer")
        if isinstance(layer, str) and layer:
            engine.layer_of[tool_use_id] = layer


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StateError(f"{value!r} is not a count")
    return value


def _number_or_none(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StateError(f"{value!r} is not a time")
    return float(value)


def _index(value: Any, last: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= last:
        raise StateError(f"{value!r} is not a message index")
    return value
