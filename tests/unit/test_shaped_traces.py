"""The policy on sessions shaped like other harnesses (shaped_traces.py): every request valid, never over the
window, and in total cheaper than every baseline at every window."""

from agentls.evaluation.replay_compare import compare
from agentls.evaluation.shaped_traces import SHAPES, write_traces


def test_every_shape_replays_valid_requests_and_the_default_is_cheapest_in_total(tmp_path):
    paths = [str(p) for p in write_traces(tmp_path)]
    assert len(paths) == len(SHAPES)
    for comparison in compare(paths, jobs=1):  # the default raises if a request of it is over the window
        ours = comparison.total("default")
        assert ours.invalid_requests == 0 and ours.over_window == 0
        for policy in ("seed", "append-only", "anthropic"):
            assert ours.cost < comparison.total(policy).cost, (comparison.window, policy)
        assert ours.recall > 0.75, "what the replies name is mostly still there"
