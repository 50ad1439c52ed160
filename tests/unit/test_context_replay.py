import json
import subprocess
from pathlib import Path

import pytest

from agentls.context.blocks import message_chars
from agentls.evaluation.replay import OUTPUT, SUMMARY_OUTPUT_TOKENS, is_call, load_trace, replay_trace, total_of
from agentls.evaluation.replay_compare import compare
from agentls.context.structure import request_problems
from synth import assistant_text, results, tool_call, user
from forkserver import agentls_command

SHARED_TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"


def synthetic_trace(tmp_path: Path, turns: int = 60) -> Path:
    messages = [user("fix the bug in app.py")]
    for i in range(turns):
        call, tool_use_id = tool_call("read_file" if i % 2 else "run_shell",
                                      {"path": f"src/m{i % 5}.py"} if i % 2 else {"command": "pytest -q"},
                                      text=f"step {i}")
        messages.append(call)
        messages.append(results([(tool_use_id, f"{i} output line\n" * (400 + 37 * (i % 9)))]))
    messages.append(assistant_text("fixed"))
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"id": "synthetic", "messages": messages}))
    return path


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*agentls_command(), "replay", *args],
                          capture_output=True, text=True, timeout=120)


def ledger_requests(ledger: Path) -> list[dict]:
    return [json.loads(line) for line in ledger.read_text().splitlines()]


def request_blocks(entry: dict) -> list[tuple[str, float, str | None]]:
    """(block hash, tokens, breakpoint ttl) in cache order: the system prompt, then the messages."""
    marks = {(b["message"], b["block"]): b["ttl"] for b in entry["breakpoints"]}
    blocks = [("system", entry["system_chars"] / 4, entry["system_ttl"])]
    for i, message in enumerate(entry["messages"]):
        blocks += [(h, chars / 4, marks.get((i, j))) for j, (h, chars) in enumerate(message["blocks"])]
    return blocks


def reprice_ideal(ledger: Path) -> float:
    """An independent pricing of the ledger: the prefix shared with the previous request is read."""
    cost, previous = 0.0, []
    for entry in ledger_requests(ledger):
        blocks = [b[:2] for b in request_blocks(entry)]
        shared = 0
        while shared < min(len(previous), len(blocks)) and previous[shared] == blocks[shared]:
            shared += 1
        read = sum(t for _, t in blocks[:shared])
        cost += 0.1 * read + 1.25 * (sum(t for _, t in blocks) - read) + (5 * 2_000 if entry["summary"] else 0)
        previous = blocks
    return cost


def reprice_anthropic(ledger: Path) -> float:
    """An independent pricing of the ledger under the documented rules of Anthropic's prompt cache."""
    cost, expiry = 0.0, {}  # prefix (tuple of block hashes) -> (time it expires, its TTL in seconds)
    for entry in ledger_requests(ledger):
        now, lookback, minimum = entry["now"], entry["lookback_blocks"], entry["minimum_tokens"]
        blocks = request_blocks(entry)
        sizes = [sum(t for _, t, _ in blocks[:i + 1]) for i in range(len(blocks))]
        prefix = [tuple(h for h, _, _ in blocks[:i + 1]) for i in range(len(blocks))]
        marks = [i for i, (_, _, ttl) in enumerate(blocks) if ttl and sizes[i] >= minimum]
        hits = [p for m in marks for p in range(max(0, m - lookback + 1), m + 1)
                if expiry.get(prefix[p], (-1, 0))[0] > now]
        read_to = max(hits, default=-1)
        read = sizes[read_to] if read_to >= 0 else 0.0
        if read_to >= 0:
            expiry[prefix[read_to]] = (now + expiry[prefix[read_to]][1], expiry[prefix[read_to]][1])
        done, write = read, 0.0
        for m in marks:
            ttl = blocks[m][2]
            if sizes[m] > done:
                write += (sizes[m] - done) * (2.0 if ttl == "1h" else 1.25)
                done = sizes[m]
            seconds = 3600 if ttl == "1h" else 300
            old_until, old_seconds = expiry.get(prefix[m], (-1, 0))
            seconds = max(seconds, old_seconds) if old_until > now else seconds
            expiry[prefix[m]] = (now + seconds, seconds)
        cost += 0.1 * read + write + (sizes[-1] - done) + (5 * 2_000 if entry["summary"] else 0)
    return cost


@pytest.mark.parametrize("cache,breakpoints,pauses,reprice", [
    ("anthropic", "frontier", (), reprice_anthropic),
    ("anthropic", "legacy", (), reprice_anthropic),
    ("anthropic", "frontier", ("--pause-every", "4", "--pause-seconds", "900"), reprice_anthropic),
    ("ideal", "frontier", (), reprice_ideal)])
def test_cli_replay_json_and_ledger_reprice_to_the_same_cost(tmp_path, cache, breakpoints, pauses, reprice):
    trace = synthetic_trace(tmp_path)
    ledger = tmp_path / "ledger.jsonl"
    done = run_cli(str(trace), "--window", "20000", "--policy", "default", "--json", "--ledger", str(ledger),
                   "--cache", cache, "--breakpoints", breakpoints, *pauses)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    total = report["total"]
    assert report["cache"] == cache
    assert total["requests"] == len(ledger.read_text().splitlines())
    assert total["over_window"] == 0
    # Each recorded reply is billed as output at 5x (the same under every policy): counted from the trace.
    replies = sum(message_chars(m[i + 1]) / 4 for m in [load_trace(str(trace))[1]] for i in range(len(m))
                  if is_call(m, i))
    assert reprice(ledger) + 5 * replies == pytest.approx(total["cost"], rel=1e-9)
    if breakpoints == "legacy":  # after a batch only the head is read: the real cache costs more
        assert reprice(ledger) > 1.01 * reprice_ideal(ledger)
    elif cache == "anthropic" and not pauses:  # the stable frontier is read after a batch: as if ideal
        assert reprice(ledger) < 1.001 * reprice_ideal(ledger)
    if pauses:  # 15-minute pauses: the head and the frontier are written for an hour, and read after pauses
        entries = ledger_requests(ledger)
        assert total["cache_write_1h"] > 0 and entries[-1]["system_ttl"] == "1h"
        assert any(b["ttl"] == "1h" for b in entries[-1]["breakpoints"])
    first = ledger_requests(ledger)[0]
    assert set(first) >= {"trace", "request", "system_chars", "compacted", "messages", "breakpoints", "now"}
    assert set(first["messages"][0]) == {"role", "sha1", "chars", "blocks", "tool_use_ids", "tool_result_ids"}


def test_cli_replay_table_and_errors(tmp_path):
    trace = synthetic_trace(tmp_path, turns=5)
    done = run_cli(str(trace), "--policy", "none")
    assert done.returncode == 0 and "TOTAL" in done.stdout and "policy=none" in done.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    failed = run_cli(str(bad))
    assert failed.returncode == 2 and "messages" in failed.stderr
    failed = run_cli(str(trace), str(bad), "--compare")
    assert failed.returncode == 2 and "messages" in failed.stderr


@pytest.mark.parametrize("text, says", [
    ("", "not JSON"),
    ("{\"messages\": [{\"role\": \"assistant\", \"content\": \"hi\"}]}", "message 0: the history must start"),
    ("{\"messages\": [{\"role\": \"user\", \"content\": \"go\"}, {\"role\": \"assistant\", \"content\": "
     "[{\"type\": \"text\", \"text\": \"x\"}]}, {\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", "
     "\"tool_use_id\": \"t9\", \"content\": \"r\"}]}]}", "message 2: tool_result without tool_use"),
    ("{\"messages\": [{\"role\": \"user\", \"content\": [5]}]}", "message 0: content is neither"),
    ("{\"messages\": [{\"role\": \"tool\", \"content\": \"x\"}]}", "message 0 is not a user"),
    ("{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": null}]}]}", "message 0:"),
])
def test_a_trace_that_is_no_conversation_is_refused_plainly_by_every_mode(tmp_path, text, says):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    for mode in ([], ["--compare"], ["--compare", "--model", "claude-opus-4-6", "--windows", "32000"]):
        failed = run_cli(str(bad), *mode)
        assert failed.returncode == 2, (mode, failed.stderr)
        assert failed.stderr.startswith(f"agentls replay: {bad}: ") and says in failed.stderr, failed.stderr
        assert "Traceback" not in failed.stderr


def test_none_policy_is_append_only_and_default_keeps_every_request_valid(tmp_path):
    trace_id, messages = load_trace(str(synthetic_trace(tmp_path)))
    everything = replay_trace(trace_id, messages, "none", 20_000)
    assert everything.compactions == 0 and everything.recall == 1.0
    assert everything.over_window > 0  # the synthetic session does not fit 20K
    ours = replay_trace(trace_id, messages, "default", 20_000, check=request_problems)
    assert ours.invalid_requests == 0 and ours.over_window == 0
    assert ours.cost < everything.cost


def test_an_assistant_message_larger_than_the_window_is_cut_and_reads_back(tmp_path):
    looping = "I should check the file again. " * 7_000  # ~210K chars: larger than a 32K window
    messages = [user("fix it"), assistant_text(looping), user("go on"), assistant_text("done")]
    trace = tmp_path / "looping.json"
    trace.write_text(json.dumps({"id": "looping", "messages": messages}))
    trace_id, loaded = load_trace(str(trace))
    assert replay_trace(trace_id, loaded, "none", 32_000).over_window == 1
    ours = replay_trace(trace_id, loaded, "default", 32_000, check=request_problems)
    assert ours.over_window == 0 and ours.invalid_requests == 0


def test_cli_compare_prints_every_policy_at_every_window(tmp_path):
    trace = synthetic_trace(tmp_path, turns=12)
    done = run_cli(str(trace), "--compare")
    assert done.returncode == 0, done.stderr
    for window in ("32,000", "64,000", "200,000"):
        assert f"window {window}" in done.stdout
    # the four baselines of issue 31 beside ours, and our worst traces first against the cheapest of them
    assert all(f"  {policy} " in done.stdout for policy in ("none", "seed", "append-only", "anthropic", "default"))
    assert "worst first, default / the cheapest baseline of equal or better reference recall" in done.stdout
    assert "worst default / seed" in done.stdout


def test_the_baseline_to_beat_keeps_at_least_our_recall():
    """Issue 31 compares a trace with the cheapest baseline of equal or better reference recall: one that is
    cheaper only because it carries less is not the one to beat; when every baseline keeps less, none is."""
    from agentls.evaluation.replay import TraceResult
    from agentls.evaluation.replay_compare import Comparison, cheapest_baseline, cheapest_peer, worst_first

    options = [("seed", 80.0, 0.60), ("append-only", 100.0, 0.90), ("anthropic", 120.0, 0.95)]
    assert cheapest_peer(options, 0.85) == ("append-only", 100.0)
    assert cheapest_peer(options, 0.50) == ("seed", 80.0)
    assert cheapest_peer(options, 0.99) is None

    def result(cost: float, recall: float, over: int = 0) -> TraceResult:
        return TraceResult("t", cost=cost, recall=recall, over_window=over)

    comp = Comparison(32_000, {"none": [result(50, 1.0, over=1), result(90, 1.0)],
                               "seed": [result(70, 0.5), result(95, 1.0)],
                               "default": [result(105, 0.8), result(99, 1.0)]})
    assert cheapest_baseline(comp, 0) is None  # "none" does not fit, the seed keeps less
    assert cheapest_baseline(comp, 1) == ("none", 90)
    assert worst_first(comp) == [(99 / 90, 1), (0.0, 0)]


def prompt_cost(result) -> float:
    """The cost of the requests and summaries, without the replies' output (billed since issue 31)."""
    return result.cost - OUTPUT * (result.output_tokens - SUMMARY_OUTPUT_TOKENS * result.compactions)


# The targets on the recorded sessions (../shared/traces), one run per window.
TARGETS = {32_000: 0.82, 64_000: 0.70, 200_000: 0.58}


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces is only on the developers' machines")
@pytest.mark.parametrize("window", sorted(TARGETS))
def test_shared_traces_default_beats_seed_and_server_side_editing(window):
    [comparison] = compare([str(p) for p in sorted(SHARED_TRACES.glob("*.json"))], windows=(window,))
    seed, ours, anthropic = (comparison.total(p) for p in ("seed", "default", "anthropic"))
    # The targets were set on what the requests cost; since issue 31 the replay also bills every reply as
    # output, the same under every policy, which only dilutes the ratio: compared without it.
    assert prompt_cost(ours) <= TARGETS[window] * prompt_cost(seed)
    assert ours.over_window == 0 and ours.invalid_requests == 0  # replay_trace also raises on any over
    # Recall is reference recall since issue 31 (any distance back): the default lets go of more than the
    # seed, so the comparison is priced: what it costs plus re-reading every reference it no longer carries.
    assert ours.cost + ours.reread_cost <= seed.cost + seed.reread_cost
    assert ours.compactions <= seed.compactions
    for mine, theirs in zip(comparison.results["default"], comparison.results["seed"]):
        assert mine.cost <= 1.02 * theirs.cost, mine.trace
    if window >= 64_000:
        assert ours.cost + ours.reread_cost <= anthropic.cost + anthropic.reread_cost


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces is only on the developers' machines")
@pytest.mark.parametrize("window", [64_000, 200_000])
def test_shared_traces_frontier_breakpoints_bill_close_to_the_ideal_cache(window):
    traces = [load_trace(str(p)) for p in sorted(SHARED_TRACES.glob("*.json"))]

    def cost(policy: str, cache: str, breakpoints: str = "frontier") -> float:
        return total_of([replay_trace(t, m, policy, window, cache=cache, breakpoints=breakpoints)
                         for t, m in traces]).cost

    real, ideal, legacy = cost("default", "anthropic"), cost("default", "ideal"), cost("default", "anthropic", "legacy")
    assert real <= 1.04 * ideal
    assert real < legacy
    assert real / cost("seed", "anthropic") <= ideal / cost("seed", "ideal")
