import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentls.context.replay import load_trace, replay_trace
from agentls.context.replay_compare import compare
from agentls.context.structure import request_problems
from synth import assistant_text, results, tool_call, user

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
    return subprocess.run([sys.executable, "-m", "agentls", "replay", *args],
                          capture_output=True, text=True, timeout=120)


def reprice(ledger: Path) -> float:
    """An independent pricing of the ledger: prefix cache at message granularity."""
    cost, previous = 0.0, None
    for line in ledger.read_text().splitlines():
        entry = json.loads(line)
        shas = [m["sha1"] for m in entry["messages"]]
        tokens = [m["chars"] / 4 for m in entry["messages"]]
        system = entry["system_chars"] / 4
        shared = 0
        while previous is not None and shared < min(len(previous), len(shas)) and previous[shared] == shas[shared]:
            shared += 1
        read = sum(tokens[:shared]) + (system if previous is not None else 0)
        write = sum(tokens[shared:]) + (0 if previous is not None else system)
        cost += 0.1 * read + 1.25 * write + (5 * 2_000 if entry["summary"] else 0)
        previous = shas
    return cost


def test_cli_replay_json_and_ledger_reprice_to_the_same_cost(tmp_path):
    trace = synthetic_trace(tmp_path)
    ledger = tmp_path / "ledger.jsonl"
    done = run_cli(str(trace), "--window", "20000", "--policy", "default", "--json", "--ledger", str(ledger))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    total = report["total"]
    assert total["requests"] == len(ledger.read_text().splitlines())
    assert total["over_window"] == 0
    assert reprice(ledger) == pytest.approx(total["cost"], rel=1e-9)
    first = json.loads(ledger.read_text().splitlines()[0])
    assert set(first) >= {"trace", "request", "system_chars", "compacted", "messages"}
    assert set(first["messages"][0]) == {"role", "sha1", "chars", "tool_use_ids", "tool_result_ids"}


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
    assert all(f"  {policy} " in done.stdout for policy in ("seed", "default", "anthropic"))
    assert "worst default / seed" in done.stdout


# The targets on the recorded sessions (../shared/traces), one run per window.
TARGETS = {32_000: 0.82, 64_000: 0.70, 200_000: 0.58}


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces is only on the developers' machines")
@pytest.mark.parametrize("window", sorted(TARGETS))
def test_shared_traces_default_beats_seed_and_server_side_editing(window):
    [comparison] = compare([str(p) for p in sorted(SHARED_TRACES.glob("*.json"))], windows=(window,))
    seed, ours, anthropic = (comparison.total(p) for p in ("seed", "default", "anthropic"))
    assert ours.cost <= TARGETS[window] * seed.cost
    assert ours.over_window == 0 and ours.invalid_requests == 0  # replay_trace also raises on any over
    assert ours.recall >= seed.recall
    assert ours.compactions <= seed.compactions
    for mine, theirs in zip(comparison.results["default"], comparison.results["seed"]):
        assert mine.cost <= 1.02 * theirs.cost, mine.trace
    if window >= 64_000:
        assert ours.cost <= anthropic.cost and ours.recall >= anthropic.recall
