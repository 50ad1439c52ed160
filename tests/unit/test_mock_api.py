"""The mock Messages API over real HTTP: wire format, validation, faults, CLI."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time

import anthropic
import httpx2
import pytest

from agentls.demo.brain import DEMO_LABEL, demo_reply
from agentls.mock_api import Fault, MockAnthropicServer, Reply, Text, Thinking, ToolUse
from agentls.mock_api.server import UNSCRIPTED

USER_HI = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def api():
    with MockAnthropicServer(responder=demo_reply) as server:
        yield server


@pytest.fixture(scope="module")
def sdk(api):
    with anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as client:
        yield client


def post(api: MockAnthropicServer, path: str, body: dict, headers: dict | None = None):
    """A raw POST, to see exactly what goes over the wire."""
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=5)
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json",
                                                  **({"x-api-key": "k"} if headers is None else headers)})
    response = conn.getresponse()
    data = response.read().decode()
    conn.close()
    return response, data


def sse_events(data: str) -> list[tuple[str, dict]]:
    events = []
    for chunk in data.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def messages_body(messages=USER_HI, **extra) -> dict:
    return {"model": "claude-test", "max_tokens": 100, "messages": messages, **extra}


# ---------------------------------------------------------------- wire format

def test_stream_event_sequence_matches_the_real_api(api):
    api.script(Reply([Thinking("plan it"), Text("hello world"), ToolUse("read_file", {"path": "README.md"})]))
    response, data = post(api, "/v1/messages", messages_body(stream=True))
    assert response.status == 200
    assert response.getheader("content-type").startswith("text/event-stream")
    events = sse_events(data)
    names = [name for name, _ in events]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert all(name == payload["type"] for name, payload in events)

    start = events[0][1]["message"]
    assert start["role"] == "assistant" and start["content"] == [] and start["stop_reason"] is None
    usage_fields = {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}
    assert usage_fields <= set(start["usage"])

    deltas = [p["delta"] for n, p in events if n == "content_block_delta"]
    assert {d["type"] for d in deltas} == {"thinking_delta", "signature_delta", "text_delta", "input_json_delta"}
    partial = [d["partial_json"] for d in deltas if d["type"] == "input_json_delta"]
    assert len([p for p in partial if p]) >= 3, "tool input must arrive in several pieces"
    assert json.loads("".join(partial)) == {"path": "README.md"}
    tool_start = next(p["content_block"] for n, p in events
                      if n == "content_block_start" and p["content_block"]["type"] == "tool_use")
    assert tool_start["input"] == {} and tool_start["id"].startswith("toolu_")

    final = events[-2][1]
    assert final["delta"]["stop_reason"] == "tool_use" and final["usage"]["output_tokens"] > 0


def test_non_streaming_message_json(sdk, api):
    api.script(Reply([Text("plain"), ToolUse("list_files", {"path": "."})]))
    message = sdk.messages.create(**messages_body())
    assert message.type == "message" and message.role == "assistant"
    assert message.content[0].text == "plain"
    assert message.content[1].input == {"path": "."}
    assert message.stop_reason == "tool_use"
    assert message.usage.cache_creation_input_tokens is not None


def test_sdk_stream_helper_accumulates_the_message(sdk, api):
    api.script(Reply([Thinking("hm"), Text("done"), ToolUse("grep_search", {"pattern": "TODO"})],
                     stop_reason="pause_turn"))
    with sdk.messages.stream(**messages_body()) as stream:
        final = stream.get_final_message()
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use"]
    assert final.content[0].signature and final.content[2].input == {"pattern": "TODO"}
    assert final.stop_reason == "pause_turn"


def test_prompt_cache_reads_what_a_breakpoint_wrote(sdk, api):
    tools = [{"name": "read_file", "input_schema": {"type": "object"}}]
    system = [{"type": "text", "text": "You are a careful agent. " * 200, "cache_control": {"type": "ephemeral"}}]
    marked_hi = [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
    api.script(Reply("a"), Reply("b"), Reply("c"))
    first = sdk.messages.create(**messages_body(messages=marked_hi, system=system, tools=tools))
    history = marked_hi + [{"role": "assistant", "content": "a"}, {"role": "user", "content": "more please"}]
    second = sdk.messages.create(**messages_body(messages=history, system=system, tools=tools))
    shared = first.usage.cache_creation_input_tokens  # tools + system + the first user message
    assert first.usage.cache_read_input_tokens == 0 and first.usage.input_tokens == 0
    assert first.usage.cache_creation.ephemeral_5m_input_tokens == shared
    assert second.usage.cache_read_input_tokens == shared
    assert second.usage.cache_creation_input_tokens == 0  # nothing after the last breakpoint is cached
    assert second.usage.input_tokens > 0
    # Without any cache_control nothing is cached at all.
    unmarked = USER_HI + history[1:]
    plain = sdk.messages.create(**messages_body(messages=unmarked, system=system[0]["text"], tools=tools))
    assert (plain.usage.cache_read_input_tokens, plain.usage.cache_creation_input_tokens) == (0, 0)


def test_count_tokens_is_chars_over_four(sdk):
    count = sdk.messages.count_tokens(model="m", messages=[{"role": "user", "content": "x" * 800}])
    assert count.input_tokens == 200


def test_requests_are_recorded_with_headers(sdk, api):
    api.script(Reply("ok"))
    sdk.messages.create(**messages_body())
    recorded = api.requests[-1]
    assert recorded.path == "/v1/messages" and recorded.body["model"] == "claude-test"
    assert recorded.headers["authorization"] == "Bearer test-key"
    assert "anthropic-version" in recorded.headers


async def test_async_context_manager():
    async with MockAnthropicServer(responder=demo_reply) as server:
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="k", max_retries=0)
        server.script(Reply("async ok"))
        message = await client.messages.create(**messages_body())
        await client.close()
    assert message.content[0].text == "async ok"


# ---------------------------------------------------------------- validation

def test_missing_credentials_is_401(api):
    response, data = post(api, "/v1/messages", messages_body(), headers={})
    assert response.status == 401
    assert json.loads(data)["error"]["type"] == "authentication_error"


def _tool_use(tool_id: str) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": "a"}}


def _tool_result(tool_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "x"}


@pytest.mark.parametrize("messages, fragment", [
    ([], "at least one message"),
    ([{"role": "assistant", "content": "hi"}], "first message"),
    (USER_HI + USER_HI, "alternate"),
    ([{"role": "user", "content": [_tool_result("toolu_orphan")]}], "unexpected `tool_use_id`"),
    (USER_HI + [{"role": "assistant", "content": [_tool_use("toolu_1")]}, {"role": "user", "content": "ignored it"}],
     "without `tool_result`"),
    (USER_HI + [{"role": "assistant", "content": [_tool_use("toolu_1")]}], "without `tool_result`"),
    (USER_HI + [{"role": "assistant", "content": [_tool_use("toolu_1")]},
                {"role": "user", "content": [_tool_result("toolu_1"), _tool_result("toolu_2")]}], "toolu_2"),
    ([{"role": "user", "content": ""}], "non-empty content"),
])
def test_invalid_histories_are_rejected(sdk, messages, fragment):
    with pytest.raises(anthropic.BadRequestError) as caught:
        sdk.messages.create(**messages_body(messages))
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert fragment in caught.value.body["error"]["message"]


def test_valid_tool_round_is_accepted(sdk, api):
    api.script(Reply("fine"))
    messages = USER_HI + [{"role": "assistant", "content": [{"type": "text", "text": "reading"}, _tool_use("toolu_1")]},
                          {"role": "user", "content": [_tool_result("toolu_1"), {"type": "text", "text": "also"}]}]
    assert sdk.messages.create(**messages_body(messages)).content[0].text == "fine"


def test_more_than_four_cache_breakpoints_rejected(sdk):
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    with pytest.raises(anthropic.BadRequestError, match="maximum of 4"):
        sdk.messages.create(**messages_body([{"role": "user", "content": [marked] * 5}]))


def test_thinking_budget_must_be_below_max_tokens(sdk):
    with pytest.raises(anthropic.BadRequestError, match="budget_tokens"):
        sdk.messages.create(**messages_body(thinking={"type": "enabled", "budget_tokens": 2048}))


# ---------------------------------------------------------------- faults

def test_429_fault_has_retry_after_and_error_body(api):
    api.inject(Fault.http_status(429, retry_after=0.2))
    response, data = post(api, "/v1/messages", messages_body())
    assert response.status == 429 and response.getheader("retry-after") == "0.2"
    assert json.loads(data) == {"type": "error", "error": {"type": "rate_limit_error",
                                                           "message": json.loads(data)["error"]["message"]}}


def test_529_fault_is_overloaded_error(sdk, api):
    api.inject(Fault.http_status(529))
    with pytest.raises(anthropic.APIStatusError) as caught:
        sdk.messages.create(**messages_body())
    assert caught.value.status_code == 529 and caught.value.type == "overloaded_error"


def test_disconnect_keeps_the_reply_for_the_retry(sdk, api):
    api.inject(Fault.disconnect(after_events=3))
    api.script(Reply("survives the drop"))
    # The SDK's transport error, which anthropic ≥ 2.17 wraps as APIConnectionError when the body is cut
    # mid-stream; ModelClient retries both (model/retry.py).
    with pytest.raises((httpx2.TransportError, anthropic.APIConnectionError)):
        list(sdk.messages.create(**messages_body(), stream=True))
    assert sdk.messages.create(**messages_body()).content[0].text == "survives the drop"


def test_slow_fault_delays_each_event(sdk, api):
    api.inject(Fault.slow(0.02))
    api.script(Reply("a b c"))
    started = time.monotonic()
    events = list(sdk.messages.create(**messages_body(), stream=True))
    assert time.monotonic() - started >= 0.02 * len(events)


def test_hang_fault_makes_the_client_time_out(sdk, api):
    api.inject(Fault.hang())
    with pytest.raises(anthropic.APITimeoutError):
        sdk.with_options(timeout=0.2).messages.create(**messages_body())


def test_demo_agent_answers_when_nothing_is_scripted(sdk, api):
    assert api.pending == 0
    tools = [{"name": "read_file", "input_schema": {"type": "object"}}]
    message = sdk.messages.create(**messages_body([{"role": "user", "content": "explain src/app.py"}], tools=tools))
    assert message.content[0].text.startswith(DEMO_LABEL)
    assert message.content[1].input == {"path": "src/app.py"}


def test_without_a_responder_an_unscripted_request_is_told_nothing_was_scripted():
    with MockAnthropicServer() as bare, anthropic.Anthropic(base_url=bare.base_url, api_key="k", max_retries=0) as sdk:
        message = sdk.messages.create(**messages_body([{"role": "user", "content": "explain src/app.py"}]))
    assert [block.text for block in message.content] == [UNSCRIPTED]
    assert message.stop_reason == "end_turn"


# ---------------------------------------------------------------- CLI

def test_cli_serves_a_script_file_then_the_demo_agent(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"fault": {"kind": "status", "status": 529}},
        {"content": [{"type": "text", "text": "scripted one"}]},
        {"content": [{"type": "tool_use", "name": "run_shell", "input": {"command": "ls"}}]},
    ]))
    with subprocess.Popen([sys.executable, "-m", "agentls.demo", "--script", str(script)],
                          stdout=subprocess.PIPE, text=True) as process:
        try:
            line = process.stdout.readline().strip()
            assert line.startswith("agentls mock API listening on http://127.0.0.1:")
            with anthropic.Anthropic(base_url=line.rsplit(" ", 1)[1], api_key="k", max_retries=0) as client:
                with pytest.raises(anthropic.APIStatusError):
                    client.messages.create(**messages_body())
                assert client.messages.create(**messages_body()).content[0].text == "scripted one"
                tool = client.messages.create(**messages_body()).content[0]
                assert (tool.name, tool.input) == ("run_shell", {"command": "ls"})
                assert client.messages.create(**messages_body()).content[0].text.startswith(DEMO_LABEL)
        finally:
            process.terminate()
    assert process.returncode == 0, "SIGTERM is a clean exit"


def test_tool_names_outside_the_api_pattern_are_rejected():
    from agentls.mock_api.validation import request_error

    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "mcp__my server__x", "input_schema": {"type": "object"}}]}
    assert "does not match pattern" in request_error(body)
    body["tools"][0]["name"] = "mcp__my_server__x"
    assert request_error(body) is None
