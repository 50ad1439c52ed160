"""Reference recall (evaluation/reference_recall.py): later references at any distance, and their re-read price."""

from agentls.context.blocks import result_text
from agentls.evaluation.reference_recall import ReferenceTracker
from synth import assistant_text, results, tool_call, user


def session(old_results: int = 15):
    """Reads of many files; the last reply names a symbol only the first result showed."""
    messages = [user("find where the config parser is defined")]
    for i in range(old_results):
        call, tool_use_id = tool_call("read_file", {"path": f"src/module_{i}.py"})
        body = "def parse_config_value(raw):\n    return raw\n" if i == 0 else f"x = {i}\n" * 50
        messages += [call, results([(tool_use_id, body)])]
    reply = assistant_text("It is defined in module_0: parse_config_value returns raw unchanged.")
    return messages, reply


def masked(messages, keep):
    """Observation masking: every result but the `keep` newest replaced by a placeholder."""
    ids = [b["tool_use_id"] for m in messages if m["role"] == "user" for b in m["content"]
           if b.get("type") == "tool_result"]
    old = set(ids[:-keep])
    out = []
    for m in messages:
        if m["role"] == "user":
            m = {**m, "content": [{**b, "content": "[cleared]"} if b.get("tool_use_id") in old else b
                                  for b in m["content"]]}
        out.append(m)
    return out


def tracked(messages):
    tracker = ReferenceTracker()
    for m in messages:
        tracker.observe(m)
    return tracker


def test_a_reference_further_back_than_ten_results_counts():
    # The old figure (the 10 newest results carried verbatim) scored masking at 1.000 here.
    messages, reply = session()
    tracker = tracked(messages)
    everything = tracker.score(messages, reply)
    assert (everything.references, everything.kept, everything.reread_tokens) == (1, 1, 0.0)
    ten_newest = tracker.score(masked(messages, 10), reply)
    assert (ten_newest.references, ten_newest.kept) == (1, 0)
    first = result_text(messages[2]["content"][0])
    assert ten_newest.reread_tokens == len(first) / 4  # re-reading it brings it back whole


def test_a_common_word_is_no_reference_and_a_word_kept_elsewhere_is_not_lost():
    messages, _ = session()
    tracker = tracked(messages)
    common = assistant_text("Nothing specific here.")
    assert tracker.score(messages, common).references == 0
    # the symbol survives in a summary-like message: nothing to re-read
    summary = [user("Summary: parse_config_value is in src/module_0.py"), *masked(messages, 3)[1:]]
    kept = tracker.score(summary, assistant_text("parse_config_value it is."))
    assert (kept.references, kept.kept) == (1, 1)
