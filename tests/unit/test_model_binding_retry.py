"""The prefix-mismatch retry, through the real SDK against the mock API: one more request with
`prefix_mismatch_behavior: "drop_block"` and its beta header, a BindingRetry event, never a loop."""

from __future__ import annotations

import pytest

from agentls.mock_api import Fault, MockAnthropicServer, Reply, Text, Thinking
from agentls.model import ModelClient, ModelError, ModelSettings
from agentls.model.binding import BINDING_CONTROLS_BETA
from agentls.model.catalog import ENDPOINT, Catalog, ModelInfo
from agentls.model.events import BindingRetry, Retrying

# The documented error (preserved-thinking/fix-bound-to-a-different-conversation), with a sentence naming the change.
MISMATCH = ("messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different "
            "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "
            "\"drop_block\". The top-level `system` changed since the block was produced.")
DROP = {"prefix_mismatch_behavior": "drop_block"}
HISTORY = [
    {"role": "user", "content": "read the file"},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "plan", "signature": "sig-1"},
                                      {"type": "text", "text": "done"}]},
    {"role": "user", "content": "and now?"},
]


@pytest.fixture
def api():
    # the check off: HISTORY's made-up signatures pass, and each test injects the refusal it needs
    with MockAnthropicServer(thinking_mismatch="off") as server:
        yield server


def settings(api: MockAnthropicServer, **overrides) -> ModelSettings:
    values = dict(base_url=api.base_url, api_key="k", max_retries=2, retry_base_delay=0.01, retry_max_delay=0.02,
                  timeout=5.0)
    return ModelSettings(**{**values, **overrides})


def message_requests(api: MockAnthropicServer) -> list:
    return [r for r in api.requests if r.path == "/v1/messages"]


async def test_a_prefix_mismatch_is_sent_once_more_with_drop_block_and_the_beta_header(api):
    api.inject(Fault.http_status(400, message=MISMATCH))
    api.script(Reply([Thinking("again"), Text("answer")]))
    events: list = []
    async with ModelClient(settings(api)) as client:
        response = await client.stream(system="be brief", messages=HISTORY, tools=None, on_event=events.append)
        assert client.drop_mismatched_thinking
    first, second = message_requests(api)
    assert "anthropic-beta" not in first.headers and "block_binding" not in first.body["thinking"]
    assert second.headers["anthropic-beta"] == BINDING_CONTROLS_BETA
    assert second.body["thinking"] == {**first.body["thinking"], "block_binding": DROP}
    assert {k: v for k, v in second.body.items() if k != "thinking"} == \
        {k: v for k, v in first.body.items() if k != "thinking"}  # otherwise the same request
    assert [e for e in events if isinstance(e, (BindingRetry, Retrying))] == \
        [BindingRetry(path="messages.1.content.0", detail=MISMATCH)]
    assert response.text == "answer"


async def test_a_second_mismatch_is_the_error(api):
    api.inject(Fault.http_status(400, message=MISMATCH), times=2)
    api.script(Reply("never sent"))
    events: list = []
    async with ModelClient(settings(api)) as client:
        with pytest.raises(ModelError) as raised:
            await client.stream(system="s", messages=HISTORY, tools=None, on_event=events.append)
    assert raised.value.status == 400 and "bound to a different conversation" in raised.value.message
    assert "change the setting" not in raised.value.message  # no setting causes it: the history changed
    assert len(message_requests(api)) == 2
    assert [type(e) for e in events] == [BindingRetry]


async def test_once_retried_every_later_request_of_the_client_drops_mismatched_blocks(api):
    api.inject(Fault.http_status(400, message=MISMATCH))
    api.script(Reply("one"), Reply("two"))
    async with ModelClient(settings(api)) as client:
        await client.stream(system="s", messages=HISTORY, tools=None)
        await client.stream(system="s", messages=HISTORY, tools=None)
    third = message_requests(api)[2]
    assert third.headers["anthropic-beta"] == BINDING_CONTROLS_BETA
    assert third.body["thinking"]["block_binding"] == DROP


async def test_the_agent_can_restore_drop_block_on_resume(api):
    api.script(Reply("resumed"))
    async with ModelClient(settings(api)) as client:
        client.drop_mismatched_thinking = True
        await client.stream(system="s", messages=HISTORY, tools=None)
    (request,) = message_requests(api)
    assert request.body["thinking"]["block_binding"] == DROP


async def test_a_request_without_thinking_gets_adaptive_thinking_on_a_model_that_takes_it(api):
    api.inject(Fault.http_status(400, message=MISMATCH))
    api.script(Reply("summary"))
    async with ModelClient(settings(api, model="claude-sonnet-5-5")) as client:
        await client.complete(system="summarize", messages=HISTORY)
    first, second = message_requests(api)
    assert "thinking" not in first.body
    assert second.body["thinking"] == {"type": "adaptive", "block_binding": DROP}


async def test_no_retry_where_thinking_is_off(api):
    # The docs: a request that turned thinking off must remove the blocks itself (drop_block needs thinking on).
    api.inject(Fault.http_status(400, message=MISMATCH))
    api.script(Reply("never sent"))
    async with ModelClient(settings(api, model="claude-haiku-4-5", thinking="off")) as client:
        with pytest.raises(ModelError):
            await client.stream(system="s", messages=HISTORY, tools=None)
    (request,) = message_requests(api)
    assert request.body["thinking"] == {"type": "disabled"}


async def test_other_400s_are_not_retried(api):
    api.inject(Fault.http_status(400, message="messages.1.content.0: Invalid `signature` in `thinking` block"))
    api.script(Reply("never sent"))
    async with ModelClient(settings(api)) as client:
        with pytest.raises(ModelError):
            await client.stream(system="s", messages=HISTORY, tools=None)
        assert not client.drop_mismatched_thinking
    assert len(message_requests(api)) == 1


async def test_drop_block_is_not_sent_to_a_model_that_binds_nothing(api):
    api.script(Reply("ok"))
    sonnet_5 = ModelInfo("claude-sonnet-5", thinking_types=frozenset({"adaptive"}))
    async with ModelClient(settings(api, model="claude-sonnet-5", catalog=Catalog((sonnet_5,), ENDPOINT))) as client:
        client.drop_mismatched_thinking = True  # a conversation that needed it, continued on an older model
        await client.stream(system="s", messages=HISTORY, tools=None)
    (request,) = message_requests(api)
    assert "anthropic-beta" not in request.headers
    assert request.body["thinking"] == {"type": "adaptive", "display": "summarized"}


async def test_a_real_prefix_mismatch_from_the_strict_api_is_retried_and_the_drop_reported():
    """The strict stand-in of today's API, no injected fault: a reply's signed thinking, then the system prompt
    changed under it: 400, one retry with drop_block, the dropped block reported, the turn answered."""
    with MockAnthropicServer() as strict:
        strict.script(Reply([Thinking("plan"), Text("first")]), Reply([Text("second")]))
        events: list = []
        async with ModelClient(settings(strict, thinking="auto")) as client:
            user = [{"role": "user", "content": "read the file"}]
            first = await client.stream(system="be brief", messages=user, tools=None)
            history = [*user, first.as_message(), {"role": "user", "content": "and now?"}]
            second = await client.stream(system="be very brief", messages=history, tools=None,
                                         on_event=events.append)
        assert [type(e) for e in events if isinstance(e, BindingRetry)] == [BindingRetry]
        assert events[0].path == "messages.1.content.0"
        assert second.text == "second"
        assert [t["type"] for t in second.input_transformations] == ["thinking_dropped"]
        assert second.input_transformations[0]["path"] == "messages.1.content.0"
