"""`agentls replay --model`: generated sessions with thinking on every reply through each baseline."""

import json

import pytest

from agentls.evaluation.baselines import POLICIES
from agentls.evaluation.replay import SYSTEM_TOKENS
from agentls.evaluation.server_editing import apply_edits
from agentls.evaluation.thinking_ledger import ThinkingLedger, strip_thinking
from agentls.evaluation.thinking_replay import Settings, replay_with_thinking
from agentls.model.pricing import price_for
from synth import assistant_text, results, tool_call, user
from test_context_replay import run_cli

SONNET = "claude-sonnet-5-5"
BINDING_SAFE = ("append-only", "anthropic", "seed-stripped")


def session(turns: int = 60) -> list[dict]:
    """A task that re-reads five files and re-runs the tests: big results, stale duplicates (seed's L1 and L2)."""
    messages = [user("fix the bug in app.py")]
    for i in range(turns):
        read = i % 2 == 1
        call, tool_use_id = tool_call("read_file" if read else "run_shell",
                                      {"path": f"src/m{i % 5}.py"} if read else {"command": "pytest"}, text=f"step {i}")
        messages += [call, results([(tool_use_id, f"{i} output line\n" * (400 + 37 * (i % 9)))])]
    return [*messages, assistant_text("fixed")]


@pytest.fixture(scope="module")
def small_window() -> dict[str, object]:
    messages = session()
    return {p: replay_with_thinking("generated", messages, p, 32_000, Settings(SONNET)) for p in POLICIES}


def test_every_baseline_prices_every_call_and_only_the_seed_as_is_breaks_thinking(small_window):
    calls = sum(1 for m in session() if m["role"] == "assistant")
    for policy, result in small_window.items():
        assert result.requests - result.compactions == calls, policy
        assert result.over_window == 0 and result.usd > 0, policy
    for policy in BINDING_SAFE:
        assert small_window[policy].invalidated_thinking == 0 and small_window[policy].failing_requests == 0, policy
    seed = small_window["seed"]
    assert seed.invalidated_thinking > 0 and seed.failing_requests > 0  # L1/L2 rewrote results before them
    assert small_window["seed-stripped"].thinking_stripped > 0  # what it stripped instead
    assert small_window["append-only"].compactions > 0  # 60 big results do not fit 32K


def test_costs_are_the_model_prices_of_the_tokens_and_rank_sanely(small_window):
    price = price_for(SONNET)
    for policy, r in small_window.items():
        plain = r.input_tokens - r.cache_read - r.cache_write
        expected = (plain * price.input + r.cache_read * price.cache_read + r.cache_write * price.cache_write
                    + r.output_tokens * price.output) / 1e6
        assert r.usd == pytest.approx(expected, rel=1e-9), policy
    # re-clearing one more result per request past the trigger loses the cache every time (why clear_at_least
    # exists): Anthropic's defaults cost more than append-only with its summaries at a small window
    assert small_window["anthropic"].usd > small_window["append-only"].usd
    # stripping the thinking the seed's rewrites broke leaves less to send than carrying it
    assert small_window["seed-stripped"].input_tokens < small_window["seed"].input_tokens


def test_when_nothing_triggers_every_client_baseline_sends_the_same_history():
    messages = session(turns=6)
    found = {p: replay_with_thinking("short", messages, p, 200_000, Settings(SONNET)) for p in BINDING_SAFE + ("seed",)}
    assert len({round(r.usd, 12) for r in found.values()}) == 1
    assert all(r.invalidated_thinking == 0 and r.compactions == 0 for r in found.values())
    cheaper = replay_with_thinking("short", messages, "append-only", 200_000, Settings("claude-haiku-5-5"))
    assert cheaper.input_tokens == found["append-only"].input_tokens and cheaper.usd < found["append-only"].usd


def test_agentls_with_bound_thinking_invalidates_no_thinking_block(small_window):
    assert small_window["agentls"].invalidated_thinking == 0


def test_the_ledger_counts_the_thinking_a_rewritten_result_breaks():
    ledger = ThinkingLedger()
    first, second = tool_call("read_file", {"path": "a.py"}), tool_call("read_file", {"path": "b.py"})
    history = [user("go")]
    history.append(ledger.sign(list(history), first[0], "think 1"))
    history.append(results([(first[1], "a" * 4_000)]))
    history.append(ledger.sign(list(history), second[0], "think 2"))
    history.append(results([(second[1], "b" * 4_000)]))
    assert ledger.count(history) == [] and ledger.invalidated == set()
    rewritten = [*history[:2], results([(first[1], "[cut]")]), *history[3:]]
    failures = ledger.count(rewritten)
    assert [f.path for f in failures] == ["messages.3.content.0"]  # the block after the rewrite, not the one before
    assert len(ledger.invalidated) == 1 and ledger.failing_requests == 1
    stripped = [*rewritten[:3], strip_thinking(rewritten[3]), rewritten[4]]
    assert ledger.count(stripped) == [] and ledger.failing_requests == 1  # dropping the later block is safe


def test_server_side_edits_follow_the_parameters_and_leave_the_sent_thinking_valid():
    ledger = ThinkingLedger()
    history: list[dict] = [user("go")]
    for i in range(6):
        call, tool_use_id = tool_call("run_shell" if i == 0 else "read_file", {"path": f"f{i}.py"})
        history += [ledger.sign(list(history), call, f"think {i}"), results([(tool_use_id, str(i) * 8_000)])]
    clear = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 10_000},
             "keep": {"type": "tool_uses", "value": 2}, "exclude_tools": ["run_shell"]}
    edited, applied = apply_edits(history, {"edits": [clear]}, SYSTEM_TOKENS)
    contents = [b["content"] for m in edited if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]
    assert contents[0] == "0" * 8_000 and contents[-2:] == ["4" * 8_000, "5" * 8_000]  # excluded, kept
    assert all(c.startswith("[tool result cleared") for c in contents[1:4])
    assert applied == ({"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 5_967},)
    assert apply_edits(history, {"edits": [{**clear, "clear_at_least": {"type": "input_tokens", "value": 7_000}}]},
                       SYSTEM_TOKENS) == (history, ())  # cannot free 7,000 tokens: nothing cleared
    assert apply_edits(history, {"edits": [{**clear, "trigger": {"type": "input_tokens", "value": 20_000}}]},
                       SYSTEM_TOKENS)[1] == ()  # under the trigger
    thinned, applied = apply_edits(history, {"edits": [{"type": "clear_thinking_20251015",
                                                        "keep": {"type": "thinking_turns", "value": 2}}]}, 0)
    assert sum(b["type"] == "thinking" for m in thinned for b in m["content"]) == 2
    assert applied[0]["cleared_thinking_turns"] == 4
    assert ledger.count(history) == []  # what the client sent is unchanged: its thinking stays valid


def test_cli_replay_model_table_json_and_errors(tmp_path):
    trace = tmp_path / "generated.json"
    trace.write_text(json.dumps({"id": "generated", "messages": session(turns=30)}))
    done = run_cli(str(trace), "--model", SONNET, "--windows", "32000", "--json", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["model"] == SONNET and report["base"] == "append-only"
    [window] = report["windows"]
    assert window["window"] == 32_000 and set(window["totals"]) == set(POLICIES)
    assert window["totals"]["seed"]["invalidated_thinking"] > 0
    assert all(window["totals"][p]["invalidated_thinking"] == 0 for p in BINDING_SAFE)
    # --compare --model (the command) is the model's comparison, not the unbound --compare
    table = run_cli(str(trace), "--compare", "--model", SONNET, "--windows", "32000", "--policies", "append-only,seed")
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line.split() for line in table.stdout.splitlines() if line.startswith("  ")}
    assert rows["append-only"][2] == "1.000x" and set(rows) == {"policy", "append-only", "seed", "bound", "bound-kept"}
    assert 0 < window["lower_bound"] <= min(t["usd"] for t in window["totals"].values())  # lower_bound.py
    for bad in (("--model", "no-such-model"), ("--model", SONNET, "--policies", "magic")):
        failed = run_cli(str(trace), *bad)
        assert failed.returncode == 2 and "agentls replay:" in failed.stderr



def test_the_trace_comparison_refuses_failing_baselines_only_where_thinking_binds():
    """Worst first: ours against the cheapest baseline of equal or better reference recall; a baseline whose
    requests carry invalidated thinking is no choice on a model that binds it, and is one elsewhere."""
    from agentls.evaluation.thinking_replay import ThinkingResult, worst_first

    def result(usd: float, recall: float, failing: int = 0) -> ThinkingResult:
        return ThinkingResult("t", usd=usd, recall=recall, failing_requests=failing)

    runs = {"agentls": [result(10.0, 0.8)], "seed": [result(8.0, 0.9, failing=3)],
            "append-only": [result(9.5, 0.85)], "anthropic": [result(7.0, 0.5)]}
    assert worst_first(runs, bound=True) == [(10.0 / 9.5, 0, "append-only")]
    assert worst_first(runs, bound=False) == [(10.0 / 8.0, 0, "seed")]
