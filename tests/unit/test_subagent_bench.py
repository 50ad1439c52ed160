"""The subagent replay (evaluation/subagent_bench.py): exploration runs fold into one `task` call in the parent,
replayed as the child's own conversation; writes and short runs stay inline."""

from __future__ import annotations

from agentls.evaluation.subagent_bench import ANSWER_CHARS, MIN_RUN, compare, fold, reads_only


def call(i: int, name: str, **inp) -> list[dict]:
    return [{"role": "assistant", "content": [{"type": "text", "text": f"step {i}"},
                                              {"type": "tool_use", "id": f"t{i}", "name": name, "input": inp}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"R{i} " * 500}]}]


def test_read_only_calls_are_told_from_writes():
    assert reads_only({"name": "grep_search", "input": {"pattern": "x"}})
    assert reads_only({"name": "run_shell", "input": {"command": "cd /repo && grep -rn foo src | head -20"}})
    assert not reads_only({"name": "run_shell", "input": {"command": "cd /repo && python setup.py test"}})
    assert not reads_only({"name": "run_shell", "input": {"command": "cat a > b"}})
    assert not reads_only({"name": "edit_file", "input": {"path": "a"}})


def test_a_long_exploration_folds_into_one_task_and_its_child_replays_it():
    messages = [{"role": "user", "content": [{"type": "text", "text": "fix the bug"}]},
                *[m for i in range(MIN_RUN + 1) for m in call(i, "read_file", path=f"f{i}.py")],
                *call(9, "edit_file", path="f0.py"),
                {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    folded = fold(messages)
    assert len(folded.children) == 1 and folded.calls_moved == MIN_RUN + 1
    parent_uses = [b["name"] for m in folded.parent for b in m["content"] if b.get("type") == "tool_use"]
    assert parent_uses == ["task", "edit_file"]
    [answer] = folded.parent[2]["content"]
    assert answer["type"] == "tool_result" and len(answer["content"]) <= ANSWER_CHARS  # one capped answer
    child = folded.children[0]
    assert child[0]["role"] == "user" and child[-1]["role"] == "assistant" and len(child) == 2 * (MIN_RUN + 1) + 2
    result = compare("t", messages, 200_000)
    assert result.parent.peak_tokens < result.inline.peak_tokens
    assert len(result.children) == 1 and result.children[0].requests == MIN_RUN + 2


def test_a_short_run_stays_inline():
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"}]},
                *[m for i in range(MIN_RUN - 1) for m in call(i, "grep_search", pattern="x")],
                {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    assert fold(messages).children == []
