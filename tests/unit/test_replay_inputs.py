"""Recorded sessions as other harnesses store them: runs of same-role messages, images in tool results,
blocks the replay cannot read. Each is replayed as the API would take it, billed as the API bills it,
or refused with a message naming the message at fault."""

import base64
import json
import subprocess
from pathlib import Path

from agentls.context.images import image_tokens
from agentls.context.structure import request_problems
from agentls.evaluation.replay import SYSTEM_TOKENS, load_trace, replay_trace
from agentls.evaluation.replay_compare import cheapest_baseline, compare
from forkserver import agentls_command
from pictures import png
from synth import assistant_text, results, tool_call, tool_calls, user


def write(tmp_path: Path, name: str, messages: list) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"id": name, "messages": messages}))
    return path


def split_turns_trace(turns: int = 12) -> list:
    """A harness that stores a reply's words and its tool call as two messages, and the user's aside after
    a result as a message of its own."""
    messages = [{"role": "user", "content": "fix the parser"}, user("it fails on empty input")]
    for i in range(turns):
        call, tool_use_id = tool_call("read_file", {"path": f"src/p{i}.py"})
        messages += [assistant_text(f"Reading p{i}."), call, results([(tool_use_id, f"line {i}\n" * 300)])]
        if i % 4 == 3:
            messages.append({"role": "user", "content": f"also look at test_p{i}.py"})
        if i % 4 == 1:  # two calls at once, each result in a message of its own
            calls, ids = tool_calls([("read_file", {"path": f"a{i}.py"}), ("read_file", {"path": f"b{i}.py"})])
            messages += [calls, results([(ids[0], "a" * 900)]), results([(ids[1], "b" * 900)])]
    messages.append({"role": "assistant", "content": "Fixed."})
    return messages


def test_runs_of_same_role_messages_are_one_turn_as_the_api_makes_them(tmp_path):
    trace_id, messages = load_trace(str(write(tmp_path, "split", split_turns_trace())))
    roles = [m["role"] for m in messages]
    assert all(a != b for a, b in zip(roles, roles[1:])), roles
    assert messages[0]["content"] == [{"type": "text", "text": "fix the parser"},
                                      {"type": "text", "text": "it fails on empty input"}]
    reply = messages[1]["content"]
    assert [b["type"] for b in reply] == ["text", "tool_use"] and reply[0]["text"] == "Reading p0."
    aside = next(m for m in messages[2:] if m["role"] == "user" and any(b["type"] == "text" for b in m["content"]))
    # the user's words follow the results: the API takes tool results only first in a user turn
    assert [b["type"] for b in aside["content"]] == ["tool_result", "text"]
    parallel = [m for m in messages if m["role"] == "user" and len(m["content"]) == 2
                and all(b["type"] == "tool_result" for b in m["content"])]
    assert len(parallel) == 3  # each pair of results one turn, answering the call before it
    ours = replay_trace(trace_id, messages, "default", 32_000, check=request_problems)
    assert ours.requests == 16 and ours.invalid_requests == 0 and ours.over_window == 0


def test_an_alternating_trace_loads_exactly_as_written(tmp_path):
    messages = [user("go"), *tool_call_turn("a"), *tool_call_turn("b"), assistant_text("done")]
    assert load_trace(str(write(tmp_path, "plain", messages)))[1] == messages


def tool_call_turn(name: str) -> list:
    call, tool_use_id = tool_call("run_shell", {"command": name})
    return [call, results([(tool_use_id, name * 50)])]


def test_the_cli_replays_a_split_trace_and_names_an_unreadable_block(tmp_path):
    split = write(tmp_path, "split", split_turns_trace())
    done = subprocess.run([*agentls_command(), "replay", "--compare", str(split)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "window 32,000" in done.stdout, done.stderr
    call, tool_use_id = tool_call("read_file", {"path": "a"})
    call["content"][-1]["input"] = ["a"]
    bad = write(tmp_path, "bad", [user("go"), call, results([(tool_use_id, "x")]), assistant_text("ok")])
    failed = subprocess.run([*agentls_command(), "replay", str(bad)], capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert f"{bad}: message 1: a tool_use block's input must be an object" in failed.stderr


def screenshot_result(tool_use_id: str, text: str, width: int = 1000, height: int = 750) -> dict:
    data = base64.b64encode(png(width, height)).decode()
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": [
        {"type": "text", "text": text},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]}]}


def screenshot_trace(turns: int) -> list:
    """A browser-driving session: every result a screenshot and a short caption, none named again."""
    messages = [user("check the login page renders")]
    for i in range(turns):
        call, tool_use_id = tool_call("browser_screenshot", {"url": f"http://localhost/page{i}"})
        messages += [call, screenshot_result(tool_use_id, f"page {i} loaded")]
    messages.append(assistant_text("All pages render."))
    return messages


def test_an_image_in_a_result_is_billed_by_its_pixels(tmp_path):
    with_image = screenshot_trace(1)
    without = [*with_image[:2], results([(with_image[1]["content"][0]["id"], "page 0 loaded")]), with_image[3]]
    billed = [replay_trace(*load_trace(str(write(tmp_path, n, m))), "none", 200_000).input_tokens
              for n, m in (("with", with_image), ("without", without))]
    # one request carries it: its pixels, and the "[image]" line that stands for it in the result's text
    assert billed[0] - billed[1] == image_tokens(1000, 750) + len("\n[image]") / 4
    assert image_tokens(1000, 750) == 1000
    assert billed[1] > SYSTEM_TOKENS


def test_on_screenshots_agentls_is_not_dearer_than_the_cheapest_baseline(tmp_path):
    # billed at nothing, the images made every baseline look cheap while the engine, counting them,
    # cleared and compacted: 1.30x the API's clearing at 32K before images were billed
    path = str(write(tmp_path, "screens", screenshot_trace(40)))
    for comparison in compare([path], jobs=1):
        ours = comparison.results["default"][0]
        peer = cheapest_baseline(comparison, 0)
        assert ours.over_window == 0
        assert peer is not None and ours.cost <= 1.05 * peer[1], (comparison.window, ours.cost, peer)
