"""What ModelClient sends for the newer API parameters, through the real SDK against the mock API:
the beta client only when a beta parameter is used (with exactly the betas it needs), cache diagnostics
chained across calls, context_management passed through, on-demand compaction."""

from __future__ import annotations

import pytest

from agentls.mock_api import Fault, MockAnthropicServer, Reply
from agentls.model import ModelClient, ModelError, ModelSettings
from agentls.model.binding import INLINE_TOOLS_BETA, SYSTEM_CLEAR_AT_BETA, TOOL_CHANGES_BETA
from agentls.model.request import COMPACTION_BETA, CONTEXT_MANAGEMENT_BETA, required_betas

USER = [{"role": "user", "content": "hi"}]
EDITS = {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 30000},
                    "keep": {"type": "tool_uses", "value": 3}}]}
TOOLS = [{"name": "read_file", "description": "Read", "input_schema": {"type": "object", "properties": {}}}]


@pytest.fixture
def api():
    with MockAnthropicServer() as server:
        yield server


def settings(api: MockAnthropicServer, **overrides) -> ModelSettings:
    return ModelSettings(**{**dict(base_url=api.base_url, api_key="k", max_retries=0, timeout=5.0), **overrides})


def sent(api: MockAnthropicServer) -> list:
    return [r for r in api.requests if r.path == "/v1/messages"]


async def test_a_plain_request_uses_the_plain_client_without_beta_or_new_fields(api):
    api.script(Reply("ok"))
    async with ModelClient(settings(api)) as client:
        await client.stream(system="s", messages=USER, tools=TOOLS)
    (request,) = sent(api)
    assert "anthropic-beta" not in request.headers
    assert not {"context_management", "compaction", "diagnostics"} & set(request.body)


async def test_context_management_is_sent_as_given_with_its_beta(api):
    api.script(Reply("ok"))
    async with ModelClient(settings(api)) as client:
        await client.stream(system="s", messages=USER, tools=TOOLS, context_management=EDITS)
    (request,) = sent(api)
    assert request.body["context_management"] == EDITS
    assert request.headers["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA


async def test_cache_diagnostics_name_the_previous_conversation_response(api):
    api.script(Reply("one"), Reply("summary"), Reply("two"), Reply("three"))
    async with ModelClient(settings(api, cache_diagnostics=True)) as client:
        first = await client.stream(system="s", messages=USER, tools=None)
        await client.complete(system="summarize", messages=USER)  # not a call of the conversation
        second = await client.stream(system="s", messages=USER, tools=None)
        await client.stream(system="s", messages=USER, tools=None)
    bodies = [r.body for r in sent(api)]
    assert first.id and second.id and first.id != second.id
    assert bodies[0]["diagnostics"] == {"previous_message_id": None}  # opts in on the first call
    assert "diagnostics" not in bodies[1]
    assert bodies[2]["diagnostics"] == {"previous_message_id": first.id}
    assert bodies[3]["diagnostics"] == {"previous_message_id": second.id}
    assert all("anthropic-beta" not in r.headers for r in sent(api))  # generally available: no beta header


async def test_cache_diagnostics_default_to_the_native_api_only(api):
    assert ModelSettings().use_cache_diagnostics
    assert not settings(api).use_cache_diagnostics
    api.script(Reply("ok"))
    async with ModelClient(settings(api)) as client:
        await client.stream(system="s", messages=USER, tools=None)
    assert "diagnostics" not in sent(api)[0].body


async def test_compact_sends_summarize_with_instructions_and_its_beta(api):
    api.script(Reply("the summary: app.py was read"))
    async with ModelClient(settings(api)) as client:
        response = await client.compact(system="s", messages=USER, tools=TOOLS, instructions="keep the file names")
    block = response.content[0]
    assert block["type"] == "compaction" and block["content"] == "the summary: app.py was read"
    assert block["signature"]  # sent back first, unchanged, by a later request
    (request,) = sent(api)
    assert request.body["compaction"] == {"type": "summarize", "instructions": "keep the file names"}
    assert request.headers["anthropic-beta"] == COMPACTION_BETA
    assert request.body["tools"][0]["name"] == "read_file" and request.body["system"]
    assert request.body["thinking"]["type"] == "adaptive"  # the conversation's own thinking: the cache is read


async def test_compact_without_instructions_sends_the_bare_type(api):
    api.script(Reply("text"))
    async with ModelClient(settings(api)) as client:
        await client.compact(system="s", messages=USER, tools=None)
    assert sent(api)[0].body["compaction"] == {"type": "summarize"}


async def test_compact_raises_when_the_endpoint_answers_without_a_compaction_block():
    with MockAnthropicServer() as plain:  # an endpoint that ignores the parameter answers with text
        plain.inject(Fault.http_status(400, message="compaction: Extra inputs are not permitted"))
        async with ModelClient(settings(plain)) as client:
            with pytest.raises(ModelError, match="compaction"):
                await client.compact(system="s", messages=USER, tools=None)


def test_system_messages_need_betas_only_for_tool_changes_and_clear_at():
    def betas(*system_messages: dict) -> list[str]:
        return required_betas({"model": "m", "messages": [*USER, *system_messages]})

    assert betas({"role": "system", "content": "from now on, be brief"}) == []
    reference = {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "read_file"}}
    definition = {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": TOOLS[0]}}
    assert betas({"role": "system", "content": [reference]}) == [TOOL_CHANGES_BETA]
    assert betas({"role": "system", "content": [reference, definition]}) == [TOOL_CHANGES_BETA, INLINE_TOOLS_BETA]
    assert betas({"role": "system", "content": "x", "clear_at": "next_user_message"}) == [SYSTEM_CLEAR_AT_BETA]


async def test_tool_changes_go_through_the_beta_client(api):
    api.script(Reply("ok"))
    removal = {"role": "system", "content": [{"type": "tool_removal",
                                              "tool": {"type": "tool_reference", "name": "read_file"}}]}
    async with ModelClient(settings(api)) as client:
        await client.stream(system="s", messages=[*USER, removal], tools=TOOLS)
    (request,) = sent(api)
    assert request.headers["anthropic-beta"] == TOOL_CHANGES_BETA
    assert request.body["messages"][-1]["role"] == "system"


async def test_a_new_or_resumed_conversation_restarts_the_diagnostics_chain(api):
    api.script(Reply("one"), Reply("two"), Reply("three"))
    async with ModelClient(settings(api, cache_diagnostics=True)) as client:
        await client.stream(system="s", messages=USER, tools=None)
        client.begin_conversation()
        await client.stream(system="s", messages=USER, tools=None)
        client.begin_conversation(drop_mismatched_thinking=True, previous_message_id="msg_stored")
        await client.stream(system="s", messages=USER, tools=None)
    bodies = [r.body for r in sent(api)]
    assert bodies[1]["diagnostics"] == {"previous_message_id": None}
    assert "block_binding" not in bodies[1]["thinking"]
    assert bodies[2]["diagnostics"] == {"previous_message_id": "msg_stored"}
    assert bodies[2]["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}


async def test_every_request_carrying_a_compaction_block_sends_the_compaction_beta(api):
    api.script(Reply("summary"), Reply("ok"))
    async with ModelClient(settings(api)) as client:
        block = (await client.compact(system="s", messages=USER, tools=None)).content[0]
        # the block goes first: the first block of the first message (compaction-on-demand)
        compacted = [{"role": "user", "content": [block, {"type": "text", "text": "go on"}]}]
        await client.stream(system="s", messages=compacted, tools=None)
    request = sent(api)[-1]
    assert request.headers["anthropic-beta"] == COMPACTION_BETA
    assert "compaction" not in request.body
