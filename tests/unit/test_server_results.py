"""The API's own tools answered inside a reply (server_results.py): cleared with the reply's words, call and
result together, readable back; counted by reference recall; and the policy on a session of them."""

import json
import re

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import blocks_of
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from agentls.evaluation.reference_recall import ReferenceTracker
from agentls.evaluation.replay_compare import cheapest_baseline, compare
from agentls.evaluation.shaped_traces import server_tools_in_replies
from synth import new_id, results, user

OFF = 10.0


def fetch_reply(page: str, tool_use_id: str, command: str) -> dict:
    """A reply that fetched `page` through the API's web_fetch, then asks for a shell command."""
    fetch_id = f"srvtoolu_{tool_use_id}"
    return {"role": "assistant", "content": [
        {"type": "text", "text": "Reading the docs first."},
        {"type": "server_tool_use", "id": fetch_id, "name": "web_fetch", "input": {"url": "https://docs.example"}},
        {"type": "web_fetch_tool_result", "tool_use_id": fetch_id, "content": {
            "type": "web_fetch_result", "url": "https://docs.example",
            "content": {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": page}}}},
        {"type": "text", "text": "Now the shell."},
        {"type": "tool_use", "id": tool_use_id, "name": "run_shell", "input": {"command": command}}]}


def test_a_fetched_page_leaves_with_the_reply_words_its_call_with_it_and_reads_back():
    engine = ContextEngine(config=ContextConfig(window=200_000, clear_at=0.0, snip_at=OFF, budget_soft_at=OFF,
                                                budget_hard_at=OFF, compact_at=OFF, clear_keep_recent=2,
                                                batch_payoff=0.0, written_keep_recent=2), store=MemoryStore())
    engine.append(user("start"))
    pages = [f"page {i} retry_policy_{i:03d} " + "backoff " * 1_500 for i in range(5)]
    for i, page in enumerate(pages):
        tool_use_id = new_id()
        engine.append(fetch_reply(page, tool_use_id, f"ls {i}"))
        engine.append(results([(tool_use_id, "ok")]))
    engine.prepare(1.0)
    engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), 1.0)
    replies = [m for m in engine.history.messages if m["role"] == "assistant"]
    kinds = [[b["type"] for b in blocks_of(m)] for m in replies]
    assert kinds[:3] == [["text", "tool_use"]] * 3  # one placeholder, the client call kept
    assert kinds[3:] == [["text", "server_tool_use", "web_fetch_tool_result", "text", "tool_use"]] * 2
    for reply, page in zip(replies[:3], pages):
        placeholder = blocks_of(reply)[0]["text"]
        ref = re.search(r'read_file path="([^"]+)"', placeholder).group(1)
        kept = engine.store.get(ref)
        assert page in kept and "<web_fetch" in kept and "Now the shell." in kept
    assert request_problems(engine.history.messages) == []


def test_a_call_without_its_result_or_a_result_without_its_call_is_an_invalid_request():
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}
    answer = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    text = {"type": "text", "text": "found"}

    def problems(blocks):
        return request_problems([user("q"), {"role": "assistant", "content": blocks}, user("next")])

    assert problems([call, answer, text]) == []
    assert problems([call]) == []  # a paused turn waits for its answer
    assert problems([call, text]) and problems([answer, text]) and problems([answer, call])


def test_a_reply_naming_a_fetched_page_is_a_reference_to_it():
    tracker = ReferenceTracker()
    tool_use_id = new_id()
    fetched = fetch_reply("the setting is max_retry_budget_ms here", tool_use_id, "ls")
    for message in (user("start"), fetched, results([(tool_use_id, "ok")])):
        tracker.observe(message)
    reply = {"role": "assistant", "content": [{"type": "text", "text": "So max_retry_budget_ms it is."}]}
    carried = [user("start"), fetched, results([(tool_use_id, "ok")])]
    assert tracker.score(carried, reply).kept == 1
    cleared = {"role": "assistant", "content": [{"type": "text", "text": "[cleared]"}, blocks_of(fetched)[-1]]}
    score = tracker.score([user("start"), cleared, results([(tool_use_id, "ok")])], reply)
    assert (score.references, score.kept) == (1, 0) and score.reread_tokens > 0


def test_on_a_session_of_server_tools_the_default_is_within_5_percent_of_the_cheapest_peer(tmp_path):
    path = tmp_path / "server.json"
    path.write_text(json.dumps(server_tools_in_replies(707)), encoding="utf-8")
    for comparison in compare([str(path)], jobs=1):
        ours = comparison.total("default")
        assert ours.invalid_requests == 0 and ours.over_window == 0
        peer = cheapest_baseline(comparison, 0)
        assert peer is None or ours.cost <= 1.05 * peer[1], (comparison.window, peer, ours.cost)
