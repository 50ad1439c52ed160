"""token_sums.py against a plain list, and compact.tail_start against the walk it replaced."""

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from agentls.context.compact import tail_start
from agentls.context.token_sums import TokenSums

COUNTS = st.lists(st.integers(min_value=0, max_value=5_000), max_size=60)
EDITS = st.lists(st.tuples(st.sampled_from(["append", "set", "replace"]), st.integers(0, 10_000),
                           st.integers(0, 5_000)), max_size=30)


def brute_first_reaching(counts: list[int], total: int) -> int:
    return next((end for end in range(len(counts) + 1) if sum(counts[:end]) >= total), len(counts) + 1)


@settings(max_examples=150, deadline=None)
@given(counts=COUNTS, edits=EDITS, queries=st.lists(st.integers(-10, 200_000), max_size=10))
def test_sums_and_searches_match_a_plain_list_through_appends_rewrites_and_removals(counts, edits, queries):
    plain, sums = list(counts), TokenSums(counts)
    for kind, where, value in edits:
        if kind == "append":
            plain.append(value)
            sums.append(value)
        elif kind == "set" and plain:
            plain[where % len(plain)] = value
            sums[where % len(plain)] = value
        elif kind == "replace" and plain:  # messages taken out from `first` on (History.drop_messages)
            first = where % len(plain)
            kept = plain[first:][::2]
            plain[first:] = kept
            sums.replace_from(first, kept)
        assert sums == plain and len(sums) == len(plain) and list(sums) == plain
        for end in range(len(plain) + 1):
            assert sums.prefix(end) == sum(plain[:end])
        for total in queries + [sum(plain), sum(plain) + 1]:
            assert sums.first_reaching(total) == brute_first_reaching(plain, total)
    assert all(sums.between(a, b) == sum(plain[a:b]) for a in range(len(plain) + 1) for b in range(len(plain) + 1))


def walk_back(roles: list[str], counts: list[int], budget: float) -> tuple[int | None, int]:
    """The tail walk tail_start did before token_sums.py: the reference."""
    tail = tail_at_best = 0
    best = None
    for index in range(len(roles) - 1, 0, -1):
        tail += counts[index]
        if roles[index] != "assistant":
            continue
        if best is None or tail <= budget:
            best, tail_at_best = index, tail
        if tail > budget:
            break
    return best, tail_at_best


@settings(max_examples=300, deadline=None)
@given(turns=st.lists(st.tuples(st.sampled_from(["user", "assistant", "system"]),
                                st.integers(min_value=0, max_value=4_000)), max_size=40),
       budget=st.one_of(st.integers(0, 60_000), st.floats(0, 60_000, allow_nan=False)))
def test_the_cut_is_the_one_the_walk_back_found(turns, budget):
    roles = ["user"] + [role for role, _ in turns]
    counts = [7] + [count for _, count in turns]
    history = SimpleNamespace(messages=[{"role": role} for role in roles], msg_tokens=TokenSums(counts))
    assert tail_start(history, budget) == walk_back(roles, counts, budget)
