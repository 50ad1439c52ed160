"""ModelClient against the real anthropic SDK talking HTTP to the mock API on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from agentls.demo.brain import demo_reply
from agentls.mock_api import Fault, MockAnthropicServer, RedactedThinking, Reply, Text, Thinking, ToolUse
from agentls.lsp import protocol
from agentls.mock_api import mock_model
from agentls.model import (
    DEFAULT_MODEL,
    ModelClient,
    ModelError,
    ModelSettings,
    Retrying,
    TextDelta,
    ThinkingDelta,
    ToolUseStarted,
    Usage,
)
from agentls.model.catalog import Catalog, ModelInfo
from agentls.model.models_api import fetch_catalog

SECRET = "sk-ant-test-SECRET-123"
USER_HI = [{"role": "user", "content": "hi"}]
TOOLS = [
    {"name": "read_file", "description": "Read a file",
     "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "grep_search", "description": "Search",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}}},
]


@pytest.fixture
def api():
    with MockAnthropicServer(responder=demo_reply) as server:
        yield server


def make_settings(api: MockAnthropicServer, **overrides) -> ModelSettings:
    values = dict(base_url=api.base_url, api_key=SECRET, max_retries=3, retry_base_delay=0.01,
                  retry_max_delay=0.05, timeout=5.0)
    values.update(overrides)
    return ModelSettings(**values)


@pytest.fixture
async def client(api):
    async with ModelClient(make_settings(api)) as model_client:
        yield model_client


class Recorder:
    def __init__(self) -> None:
        self.events: list = []

    def __call__(self, event) -> None:
        self.events.append(event)

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.of(TextDelta))


# ---------------------------------------------------------------- streaming content

async def test_streams_thinking_text_and_tool_use_into_plain_blocks(api, client):
    api.script(Reply([
        Thinking("Let me look at the file first."),
        Text("I will read the config file now."),
        ToolUse("read_file", {"path": "src/app.py", "start_line": 1, "end_line": 40}),
    ]))
    events = Recorder()

    response = await client.stream(system="You are helpful.", messages=USER_HI, tools=TOOLS, on_event=events)

    assert [b["type"] for b in response.content] == ["thinking", "text", "tool_use"]
    thinking, text, tool = response.content
    assert thinking["thinking"] == "Let me look at the file first."
    assert thinking["signature"].startswith("mock-sig-")
    assert text == {"type": "text", "text": "I will read the config file now."}
    assert tool["input"] == {"path": "src/app.py", "start_line": 1, "end_line": 40}
    assert tool["id"] and tool["name"] == "read_file"
    assert response.stop_reason == "tool_use"
    assert response.model == DEFAULT_MODEL
    # Deltas arrive in pieces and add up to the blocks.
    assert len(events.of(TextDelta)) > 1 and events.text == text["text"]
    assert "".join(e.text for e in events.of(ThinkingDelta)) == thinking["thinking"]
    assert events.of(ToolUseStarted) == [ToolUseStarted(id=tool["id"], name="read_file")]


async def test_multiple_tool_uses_keep_order_and_inputs(api, client):
    api.script(Reply([
        ToolUse("read_file", {"path": "a.py"}),
        ToolUse("read_file", {"path": "b.py"}),
        ToolUse("grep_search", {"pattern": "def \\w+\\(", "glob": "*.py"}),
    ]))
    events = Recorder()
    response = await client.stream(system="s", messages=USER_HI, tools=TOOLS, on_event=events)

    assert [(t["name"], t["input"]) for t in response.tool_uses] == [
        ("read_file", {"path": "a.py"}),
        ("read_file", {"path": "b.py"}),
        ("grep_search", {"pattern": "def \\w+\\(", "glob": "*.py"}),
    ]
    assert len({t["id"] for t in response.tool_uses}) == 3
    assert [e.name for e in events.of(ToolUseStarted)] == ["read_file", "read_file", "grep_search"]


async def test_redacted_thinking_is_kept_verbatim(api, client):
    api.script(Reply([RedactedThinking("opaque-blob=="), Text("ok")]))
    response = await client.stream(system="s", messages=USER_HI, tools=[])
    assert response.content[0] == {"type": "redacted_thinking", "data": "opaque-blob=="}


async def test_async_on_event_is_awaited(api, client):
    api.script(Reply("one two three four five six seven"))
    seen: list[str] = []

    async def on_event(event):
        await asyncio.sleep(0)
        if isinstance(event, TextDelta):
            seen.append(event.text)

    response = await client.stream(system="s", messages=USER_HI, tools=[], on_event=on_event)
    assert "".join(seen) == response.text == "one two three four five six seven"


async def test_usage_reports_cache_fields_and_cost_is_tracked(api):
    api.script(Reply("first"), Reply("second"))
    system = "system prompt " * 400  # above the minimum cacheable length (1,024 tokens)
    async with ModelClient(make_settings(api, force_cache_control=True)) as client:
        first = await client.stream(system=system, messages=USER_HI, tools=TOOLS, on_event=None)
        history = USER_HI + [first.as_message(), {"role": "user", "content": "and again"}]
        second = await client.stream(system=system, messages=history, tools=TOOLS, on_event=None)
        cost = protocol.cost(client.costs.report())

    assert first.usage.cache_read_input_tokens == 0 and first.usage.cache_creation_input_tokens > 1_000
    # The second request shares system + tools + first message with the first one.
    assert second.usage.cache_read_input_tokens >= first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens > 0
    assert second.usage.output_tokens > 0 and second.usage.input_tokens >= 0
    assert cost["requests"] == 2 and cost["model"] == DEFAULT_MODEL and cost["cacheTtl"] == "5m"
    assert cost["cacheReadTokens"] == second.usage.cache_read_input_tokens
    assert cost["usd"] > 0


async def test_usage_override_and_none_fields_become_zero(api, client):
    api.script(Reply("x", usage={"cache_read_input_tokens": None, "cache_creation_input_tokens": 7,
                                 "input_tokens": 11, "output_tokens": 5}))
    response = await client.stream(system="s", messages=USER_HI, tools=[])
    assert response.usage == Usage(input_tokens=11, output_tokens=5, cache_creation_input_tokens=7,
                                   cache_read_input_tokens=0)


@pytest.mark.parametrize("stop_reason", ["max_tokens", "pause_turn", "end_turn"])
async def test_stop_reasons_pass_through(api, client, stop_reason):
    api.script(Reply("partial answer", stop_reason=stop_reason))
    response = await client.stream(system="s", messages=USER_HI, tools=[])
    assert response.stop_reason == stop_reason
    assert response.text == "partial answer"


# Models no table names, served by the mock's Models API (mock_api/models.py).
LISTED = [
    mock_model("acme-manual-2", window=150_000, max_tokens=20_000, thinking=("enabled", "disabled")),
    mock_model("acme-adaptive-3", window=750_000, max_tokens=9_000, thinking=("adaptive", "between_tools"),
               efforts=("low", "high")),
    mock_model("acme-plain-1", window=100_000, max_tokens=4_096, thinking=("disabled",)),
]


@pytest.fixture
def listed_api():
    with MockAnthropicServer(models=LISTED, responder=demo_reply) as server:
        yield server


async def _catalog_settings(api, **overrides) -> ModelSettings:
    return make_settings(api, catalog=await fetch_catalog(make_settings(api)), **overrides)


async def test_a_manual_only_model_gets_budget_tokens_with_room_for_the_answer(listed_api):
    settings = await _catalog_settings(listed_api, model="acme-manual-2", thinking_budget=2000, max_tokens=1500)
    async with ModelClient(settings) as model_client:
        listed_api.script(Reply([Thinking("hmm"), Text("ok")]))
        response = await model_client.stream(system="s", messages=USER_HI, tools=[])
    body = listed_api.message_bodies[-1]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2000}
    assert body["max_tokens"] > 2000
    assert [b["type"] for b in response.content] == ["thinking", "text"]


async def test_an_adaptive_model_gets_adaptive_thinking_and_max_tokens_within_its_limit(listed_api):
    settings = await _catalog_settings(listed_api, model="acme-adaptive-3", max_tokens=50_000)
    async with ModelClient(settings) as model_client:
        listed_api.script(Reply([Thinking("hmm"), Text("ok")]))
        response = await model_client.stream(system="s", messages=USER_HI, tools=[])
        body = listed_api.message_bodies[-1]
        assert body["thinking"] == {"type": "adaptive", "display": "summarized"} and "budget_tokens" not in str(body)
        assert body["max_tokens"] == 9_000  # the model's own max_tokens, not the setting's 50000
        assert [b["type"] for b in response.content] == ["thinking", "text"]
        model_client.settings.thinking = "high"
        await model_client.stream(system="s", messages=USER_HI, tools=[])
        assert listed_api.message_bodies[-1]["output_config"] == {"effort": "high"}
        model_client.settings.thinking = "off"
        await model_client.stream(system="s", messages=USER_HI, tools=[])
        assert listed_api.message_bodies[-1]["thinking"] == {"type": "between_tools"}


async def test_a_model_without_thinking_gets_none_and_the_mock_refuses_what_a_model_lacks(listed_api):
    settings = await _catalog_settings(listed_api, model="acme-plain-1")
    async with ModelClient(settings) as model_client:
        await model_client.stream(system="s", messages=USER_HI, tools=[])
        assert "thinking" not in listed_api.message_bodies[-1]
    # budget_tokens to the adaptive-only model: the 400 names the model and the setting to change
    forced = make_settings(listed_api, model="acme-adaptive-3", thinking_budget=2000,
                           catalog=Catalog((ModelInfo("acme-adaptive-3", thinking_types=frozenset({"enabled"})),),
                                           "endpoint"))
    async with ModelClient(forced) as model_client:
        with pytest.raises(ModelError) as refused:
            await model_client.stream(system="s", messages=USER_HI, tools=[])
    assert refused.value.status == 400 and "thinking.type" in refused.value.message
    assert "'acme-adaptive-3'" in refused.value.message and "setting thinking" in refused.value.message


async def test_a_404_names_the_model_and_the_setting(listed_api):
    settings = make_settings(listed_api, model="claude-retired-1", setting_names={"model": "agentls.model"})
    async with ModelClient(settings) as model_client:
        with pytest.raises(ModelError) as missing:
            await model_client.stream(system="s", messages=USER_HI, tools=[])
    assert missing.value.status == 404 and len(listed_api.message_bodies) == 1  # a 404 is not retried
    assert "'claude-retired-1'" in missing.value.message and "agentls.model" in missing.value.message


async def test_complete_uses_compact_model_without_thinking(api):
    settings = make_settings(api, compact_model="claude-haiku-4-5", thinking_budget=2000)
    async with ModelClient(settings) as model_client:
        api.script(Reply("summary"))
        response = await model_client.complete(system="Summarise.", messages=USER_HI, compact=True)
    body = api.message_bodies[-1]
    assert body["model"] == "claude-haiku-4-5" and "thinking" not in body
    assert response.text == "summary"


async def test_count_tokens(api, client):
    count = await client.count_tokens(system="s" * 40, messages=[{"role": "user", "content": "x" * 400}])
    assert 100 <= count <= 115


# ---------------------------------------------------------------- retries

async def test_429_honours_retry_after(api, client):
    api.inject(Fault.http_status(429, retry_after=0.2))
    api.script(Reply("after the wait"))
    events = Recorder()

    started = time.monotonic()
    response = await client.stream(system="s", messages=USER_HI, tools=[], on_event=events)
    elapsed = time.monotonic() - started

    assert response.text == "after the wait"
    assert elapsed >= 0.2
    (retry,) = events.of(Retrying)
    assert retry.delay_seconds == pytest.approx(0.2)
    assert retry.attempt == 2 and retry.max_attempts == 4
    assert "429" in retry.reason and not retry.discard_partial


@pytest.mark.parametrize("status", [500, 502, 503, 529])
async def test_server_errors_are_retried_then_succeed(api, client, status):
    api.inject(Fault.http_status(status), times=2)
    api.script(Reply("finally"))
    events = Recorder()
    response = await client.stream(system="s", messages=USER_HI, tools=[], on_event=events)
    assert response.text == "finally"
    assert [e.attempt for e in events.of(Retrying)] == [2, 3]
    assert len(api.message_bodies) == 3


async def test_overloaded_error_event_mid_stream_is_retried(api, client):
    api.inject(Fault.stream_error(after_events=5, error_type="overloaded_error"))
    api.script(Reply("one two three four five six seven eight nine"))
    events = Recorder()
    response = await client.stream(system="s", messages=USER_HI, tools=[], on_event=events)
    assert response.text == "one two three four five six seven eight nine"
    assert "529" in events.of(Retrying)[0].reason


@pytest.mark.parametrize("reset", [False, True])
async def test_mid_stream_disconnect_is_retried_and_partial_output_flagged(api, client, reset):
    api.inject(Fault.disconnect(after_events=5, reset=reset))
    api.script(Reply("alpha beta gamma delta epsilon zeta eta theta iota kappa"))
    events = Recorder()

    response = await client.stream(system="s", messages=USER_HI, tools=[], on_event=events)

    assert response.text == "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    (retry,) = events.of(Retrying)
    assert retry.discard_partial, "the caller must learn that already-streamed text is void"
    # What came after the Retrying event is exactly one clean copy of the reply.
    after = events.events[events.events.index(retry) + 1:]
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) == response.text


async def test_stream_ending_before_message_stop_is_retried(api, client):
    api.inject(Fault.truncate(after_events=4))
    api.script(Reply("complete at last"))
    events = Recorder()
    response = await client.stream(system="s", messages=USER_HI, tools=[], on_event=events)
    assert response.text == "complete at last"
    assert events.of(Retrying)[0].reason == "connection dropped mid-reply"


async def test_hang_times_out_then_retries(api):
    async with ModelClient(make_settings(api, timeout=0.3)) as model_client:
        api.inject(Fault.hang())
        api.script(Reply("awake"))
        events = Recorder()
        response = await model_client.stream(system="s", messages=USER_HI, tools=[], on_event=events)
    assert response.text == "awake"
    assert "timed out" in events.of(Retrying)[0].reason


async def test_retries_exhausted_raise_clear_error_without_key(api, caplog):
    caplog.set_level(logging.DEBUG)
    settings = make_settings(api, max_retries=4)
    api.inject(Fault.http_status(529), times=5)
    async with ModelClient(settings) as model_client:
        with pytest.raises(ModelError) as caught:
            await model_client.stream(system="s", messages=USER_HI, tools=[])

    error = caught.value
    assert error.message == "model API at 127.0.0.1 overloaded (529) after 5 attempts"
    assert error.status == 529 and error.retryable
    assert len(api.message_bodies) == 5
    for text in (str(error), repr(error), repr(settings), str(settings), caplog.text):
        assert SECRET not in text
    assert api.requests[0].headers.get("authorization", "").endswith(SECRET)  # the key was really used


async def test_bad_request_is_not_retried(api, client):
    orphan = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "hi"}]}]
    with pytest.raises(ModelError) as caught:
        await client.stream(system="s", messages=orphan, tools=[])
    assert caught.value.status == 400 and not caught.value.retryable
    assert "rejected the request (400 invalid_request_error)" in caught.value.message
    assert "toolu_x" in caught.value.message
    assert len(api.message_bodies) == 1


async def test_auth_error_is_not_retried(api, client):
    api.inject(Fault.http_status(401, message="invalid x-api-key"))
    with pytest.raises(ModelError) as caught:
        await client.stream(system="s", messages=USER_HI, tools=[])
    assert caught.value.status == 401 and "API key" in caught.value.message
    assert len(api.message_bodies) == 1


async def test_connection_refused_is_retried_then_reported():
    with MockAnthropicServer(responder=demo_reply) as server:
        dead_url = server.base_url  # closed below: nothing listens there any more
    settings = ModelSettings(base_url=dead_url, api_key=SECRET, max_retries=2, retry_base_delay=0.01)
    async with ModelClient(settings) as model_client:
        with pytest.raises(ModelError) as caught:
            await model_client.stream(system="s", messages=USER_HI, tools=[])
    assert "connection failed after 3 attempts" in caught.value.message
    assert caught.value.retryable and SECRET not in caught.value.message


@pytest.fixture
def no_credentials(monkeypatch, tmp_path):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_BASE_URL",
                 "ANTHROPIC_CONFIG_DIR", "ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_IDENTITY_TOKEN",
                 "ANTHROPIC_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


async def test_missing_key_on_native_api_fails_before_any_request(no_credentials):
    async with ModelClient(ModelSettings()) as model_client:  # native: would go to api.anthropic.com
        with pytest.raises(ModelError, match="No API key"):
            await model_client.stream(system="s", messages=USER_HI, tools=[])


async def test_broken_credentials_config_is_a_model_error(no_credentials, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(no_credentials))  # explicit dir without a profile
    async with ModelClient(ModelSettings()) as model_client:
        with pytest.raises(ModelError, match="Could not load Anthropic credentials"):
            await model_client.stream(system="s", messages=USER_HI, tools=[])


async def test_local_endpoint_needs_no_key(api, no_credentials):
    async with ModelClient(ModelSettings(base_url=api.base_url)) as model_client:
        api.script(Reply("no key needed"))
        assert (await model_client.stream(system="s", messages=USER_HI, tools=[])).text == "no key needed"


# ---------------------------------------------------------------- cancellation

async def test_cancel_mid_stream_propagates_promptly(api, client):
    api.script(Reply("word " * 200, chunk_delay=0.05))
    first_delta = asyncio.Event()

    def on_event(event):
        if isinstance(event, TextDelta):
            first_delta.set()

    task = asyncio.create_task(client.stream(system="s", messages=USER_HI, tools=[], on_event=on_event))
    await asyncio.wait_for(first_delta.wait(), 5)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5


async def test_cancel_during_retry_wait(api, client):
    api.inject(Fault.http_status(429, retry_after=30))
    retrying = asyncio.Event()
    task = asyncio.create_task(client.stream(system="s", messages=USER_HI, tools=[],
                                             on_event=lambda e: retrying.set() if isinstance(e, Retrying) else None))
    await asyncio.wait_for(retrying.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 1)


# ---------------------------------------------------------------- cache breakpoints on the wire

def _cache_marks(body: dict) -> list[str]:
    marks = []
    system = body.get("system")
    if isinstance(system, list):
        marks += [f"system.{i}" for i, b in enumerate(system) if "cache_control" in b]
    marks += [f"tools.{i}" for i, t in enumerate(body.get("tools", [])) if "cache_control" in t]
    for i, message in enumerate(body["messages"]):
        if isinstance(message["content"], list):
            marks += [f"messages.{i}.{j}" for j, b in enumerate(message["content"]) if "cache_control" in b]
    return marks


def _tool_round(tool_id: str) -> list[dict]:
    return [
        {"role": "assistant",
         "content": [{"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": "a"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "text"}]},
    ]


async def test_cache_breakpoints_sent_when_native(api):
    settings = make_settings(api, force_cache_control=True)
    history = USER_HI + _tool_round("toolu_1") + _tool_round("toolu_2")
    async with ModelClient(settings) as model_client:
        await model_client.stream(system="You are helpful.", messages=history, tools=TOOLS, frontier=1)
    body = api.message_bodies[-1]
    assert _cache_marks(body) == ["system.0", "messages.1.0", "messages.2.0", "messages.4.0"]
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in history[-1]["content"][0], "inputs must not be mutated"


async def test_no_cache_breakpoints_for_other_endpoints(api, client):
    assert not client.settings.use_cache_control
    await client.stream(system="You are helpful.", messages=USER_HI + _tool_round("toolu_1"), tools=TOOLS)
    body = api.message_bodies[-1]
    assert _cache_marks(body) == [] and body["system"] == "You are helpful."


# ---------------------------------------------------------------- the demo agent through the client

async def test_demo_agent_round_trip_through_client(api, client):
    history = [{"role": "user", "content": "What is in README.md?"}]
    first = await client.stream(system="s", messages=history, tools=TOOLS)
    (call,) = first.tool_uses
    assert call["name"] == "read_file" and call["input"] == {"path": "README.md"}
    history += [first.as_message(), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call["id"], "content": "# Title\nline two\nline three"}]}]
    second = await client.stream(system="s", messages=history, tools=TOOLS)
    assert second.stop_reason == "end_turn"
    # the label opens the turn's first reply only: one label per reply the user sees
    assert first.text.startswith("[demo model — offline, no API key]") and "[demo model" not in second.text
    assert "README.md" in second.text and "3 lines" in second.text
