"""The mock API bills as the prompt-cache model says: real SDK, real HTTP, scripted conversations."""

from __future__ import annotations

import anthropic
import pytest

from agentls.context.prompt_cache import AnthropicCache, minimum_cacheable_tokens
from agentls.mock_api import MockAnthropicServer, Reply
from agentls.mock_api.tokens import MockCache, request_blocks
from agentls.model import ModelClient, ModelSettings
from agentls.lsp import protocol

SYSTEM = "You are a careful coding agent. Follow the rules. " * 120  # about 1,500 tokens
TOOLS = [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}},
         {"name": "run_shell", "description": "Run a command", "input_schema": {"type": "object"}}]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def api(clock):
    with MockAnthropicServer(cache=MockCache(clock=clock)) as server:
        yield server


def tool_round(i: int, size: int) -> list[dict]:
    return [{"role": "assistant", "content": [{"type": "text", "text": f"step {i}"},
                                              {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file",
                                               "input": {"path": f"src/m{i}.py"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                          "content": f"line {i}\n" * size}]}]


def usage_of(response) -> tuple[int, int, int, int, int]:
    u = response.usage
    return (u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens,
            u.cache_write_1h_tokens, u.cache_creation_input_tokens - u.cache_write_1h_tokens)


def expected_of(model: AnthropicCache, body: dict, now: float) -> tuple[int, int, int, int, int]:
    usage = model.request(request_blocks(body), now, minimum_cacheable_tokens(body["model"]))
    return int(usage.input_tokens), int(usage.read), int(usage.write), int(usage.write_1h), int(usage.write_5m)


async def test_usage_equals_the_cache_model_over_a_scripted_session(api, clock):
    settings = ModelSettings(model="claude-sonnet-5-5", base_url=api.base_url, api_key="k", max_retries=0,
                             force_cache_control=True)
    model = AnthropicCache()
    messages = [{"role": "user", "content": "fix the failing test"}]
    # (seconds since the previous call, frontier, rounds appended before the call)
    steps = [(0, None, 0), (20, None, 1), (20, 2, 1), (600, 2, 1), (600, 4, 1), (600, 4, 1), (30, 4, 0)]
    seen = []
    async with ModelClient(settings) as client:
        client.clock = clock
        previous_frontier = None
        for index, (gap, frontier, rounds) in enumerate(steps):
            clock.now += gap
            for _ in range(rounds):
                messages += tool_round(len(messages), 300)
            if index == len(steps) - 1:  # a batch rewrites a result after the frontier
                messages[6] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_5",
                                                            "content": "[cleared: read_file src/m5.py]"}]}
            api.script(Reply(f"reply {index}"))
            moved = previous_frontier if previous_frontier is not None and previous_frontier != frontier else None
            response = await client.stream(system=SYSTEM, messages=messages, tools=TOOLS,
                                           frontier=frontier, previous_frontier=moved)
            previous_frontier = frontier
            body = api.message_bodies[-1]
            assert usage_of(response) == expected_of(model, body, clock.now)
            seen.append(usage_of(response))
        cost = protocol.cost(client.costs.report())

    first, second, _, after_pause, hour_written, hour_read, rewrite = seen
    assert first[1] == 0 and first[2] > 1_500  # everything written
    assert second[1] >= first[2]  # the previous call's tail is read
    assert after_pause[1] == 0  # 10 minutes later every 5-minute entry has expired
    assert hour_written[3] > 1_500  # the pauses made the head and frontier 1-hour writes
    assert hour_read[1] > 1_500 and hour_read[3] == 0  # ...read after another 10-minute pause
    head_to_frontier = expected_tokens_to(api.message_bodies[-1], message=4)
    assert rewrite[1] == head_to_frontier  # after a rewrite behind message 4 the frontier is read
    assert cost["cacheTtl"] == "1h" and cost["cacheWrite1hTokens"] == sum(u[3] for u in seen)


def expected_tokens_to(body: dict, message: int) -> int:
    blocks = request_blocks(body)
    count = len(TOOLS) + 1 + sum(len(m["content"]) if isinstance(m["content"], list) else 1
                                 for m in body["messages"][:message + 1])
    return int(sum(b.tokens for b in blocks[:count]))


def test_tools_come_before_the_system_prompt_in_the_cache(api):
    tools = [dict(TOOLS[0]), dict(TOOLS[1], description="Run a command. " * 400, cache_control={"type": "ephemeral"})]
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    body = {"model": "claude-sonnet-5-5", "max_tokens": 50, "tools": tools, "system": system,
            "messages": [{"role": "user", "content": "hi"}]}
    api.script(Reply("a"), Reply("b"), Reply("c"))
    with anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk:
        first = sdk.messages.create(**body)
        tools_only = first.usage.cache_creation_input_tokens - request_blocks(body)[2].tokens
        # A new system prompt keeps the tools' entry: they come first.
        other_system = sdk.messages.create(**{**body, "system": [{**system[0], "text": SYSTEM + "More."}]})
        assert other_system.usage.cache_read_input_tokens == tools_only > 1_024
        # New tools invalidate the system prompt's entry too.
        other_tools = sdk.messages.create(**{**body, "tools": [dict(TOOLS[0], description="x"), tools[1]]})
        assert other_tools.usage.cache_read_input_tokens == 0


def test_a_cache_is_one_models(api):
    """The same prompt to another model reads nothing: its cache is written anew, the first model's stays."""
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    body = {"model": "claude-sonnet-5-5", "max_tokens": 50, "tools": TOOLS, "system": system,
            "messages": [{"role": "user", "content": "hi"}]}
    api.script(Reply("a"), Reply("b"), Reply("c"))
    with anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk:
        first = sdk.messages.create(**body)
        other = sdk.messages.create(**{**body, "model": "claude-opus-5-5"})
        back = sdk.messages.create(**body)
    assert first.usage.cache_creation_input_tokens > 1_024
    assert other.usage.cache_read_input_tokens == 0
    assert other.usage.cache_creation_input_tokens == first.usage.cache_creation_input_tokens
    assert back.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens


def test_one_hour_breakpoint_after_a_five_minute_one_is_refused(api):
    system = [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}]
    message = [{"role": "user", "content": [{"type": "text", "text": "hi",
                                             "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}]
    with anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk:
        with pytest.raises(anthropic.BadRequestError, match="1h"):
            sdk.messages.create(model="m", max_tokens=10, system=system, messages=message)


def test_the_ideal_cache_stays_available(clock):
    with MockAnthropicServer(cache=MockCache("ideal", clock=clock)) as server:
        server.script(Reply("a"), Reply("b"))
        with anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0) as sdk:
            first = sdk.messages.create(model="m", max_tokens=10, system="s",
                                        messages=[{"role": "user", "content": "hi"}])
            second = sdk.messages.create(model="m", max_tokens=10, system="s",
                                         messages=[{"role": "user", "content": "hi"},
                                                   {"role": "assistant", "content": "a"},
                                                   {"role": "user", "content": "more"}])
    assert first.usage.cache_read_input_tokens == 0 and first.usage.cache_creation_input_tokens == 2
    assert second.usage.cache_read_input_tokens == 2  # no breakpoint, no minimum: the shared prefix is read
