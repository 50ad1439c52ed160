"""The strict mock's preserved thinking, through the real anthropic SDK: every thinking block it sends is
signed to its prefix, and a request whose prefix changed before a carried block gets the documented 400,
or with `drop_block` the failing blocks dropped and reported (docs: build-with-claude/preserved-thinking,
…/prefix-checks)."""

from __future__ import annotations

import copy

import anthropic
import pytest

from agentls.mock_api import MockAnthropicServer, Reply, Text, Thinking, ToolUse, mock_model
from agentls.mock_api.binding import SIGNATURE_MARK
from agentls.mock_api.thinking import BINDING_CONTROLS_BETA, DEFAULT_THOUGHT

MODEL = "claude-test"
SYSTEM = "You are a careful coding agent."
TOOLS = [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}]
ADAPTIVE = {"type": "adaptive"}
DROP = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}


@pytest.fixture
def api():
    with MockAnthropicServer(always_think=True) as server:
        yield server


@pytest.fixture
def sdk(api):
    with anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as client:
        yield client


def params(message) -> dict:
    """A response as the assistant message the client sends back (exactly as returned)."""
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]}


def ask(sdk, history, *, system=SYSTEM, tools=TOOLS, thinking=ADAPTIVE, **extra):
    return sdk.messages.create(model=MODEL, max_tokens=1000, system=system, tools=tools, thinking=thinking,
                               messages=history, **extra)


def conversation(api, sdk) -> list[dict]:
    """Three assistant turns, each with a thinking block: read a file, answer, answer again."""
    history: list[dict] = [{"role": "user", "content": "What does a.py set x to?"}]
    api.script(Reply([Thinking("read it first"), ToolUse("read_file", {"path": "a.py"}, id="toolu_1")]),
               Reply([Thinking("x is 42"), Text("a.py sets x = 42.")]),
               Reply([Text("b.py is not read yet.")]))
    history.append(params(ask(sdk, history)))
    history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                 "content": "x = 42\n" * 40}]})
    history.append(params(ask(sdk, history)))
    history.append({"role": "user", "content": "And b.py?"})
    history.append(params(ask(sdk, history)))
    history.append({"role": "user", "content": "Thanks."})
    return history


def refused(sdk, history, **extra) -> str:
    with pytest.raises(anthropic.BadRequestError) as error:
        ask(sdk, history, **extra)
    assert error.value.status_code == 400
    return error.value.body["error"]["message"]


def test_an_append_only_conversation_passes_and_every_thinking_block_is_signed(api, sdk):
    history = conversation(api, sdk)
    thinking = [b for m in history if m["role"] == "assistant" for b in m["content"] if b["type"] == "thinking"]
    assert len(thinking) == 3 and all(b["signature"].startswith(SIGNATURE_MARK) for b in thinking)
    assert thinking[2]["thinking"] == DEFAULT_THOUGHT  # asked to think, scripted without: it thinks first
    api.script(Reply([Text("You're welcome.")]))
    assert ask(sdk, history).content[-1].text == "You're welcome."
    assert api.rules.thinking.registry.check(SYSTEM, TOOLS, history) == []


def test_a_rewritten_old_tool_result_is_refused_naming_the_block_and_the_message(api, sdk):
    history = conversation(api, sdk)
    history[2]["content"][0]["content"] = "[cleared]"
    message = refused(sdk, history)
    assert message.startswith("messages.3.content.0: Invalid `signature` in `thinking` block. The block is bound "
                              "to a different conversation. Remove the block, or set "
                              "`thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")
    assert "messages.2 changed" in message


@pytest.mark.parametrize("change", ["system", "tools"])
def test_a_changed_system_or_tools_is_refused_at_the_first_carried_block(api, sdk, change):
    history = conversation(api, sdk)
    changed = {"system": SYSTEM + " Today is Friday."} if change == "system" else {"tools": TOOLS + [
        {"name": "grep", "description": "Search", "input_schema": {"type": "object"}}]}
    message = refused(sdk, history, **changed)
    assert message.startswith("messages.1.content.0: Invalid `signature`")
    assert "`system` or `tools` changed" in message


def test_a_thinking_block_left_out_between_others_is_refused(api, sdk):
    history = conversation(api, sdk)
    history[3]["content"] = [b for b in history[3]["content"] if b["type"] != "thinking"]
    message = refused(sdk, history)
    assert message.startswith("messages.5.content.0: Invalid `signature`") and "left out" in message


def test_removing_thinking_from_the_front_and_moving_cache_control_pass(api, sdk):
    history = conversation(api, sdk)
    history[1]["content"] = [b for b in history[1]["content"] if b["type"] != "thinking"]
    history[-1]["content"] = [{"type": "text", "text": "Thanks.", "cache_control": {"type": "ephemeral"}}]
    api.script(Reply([Text("ok")]))
    assert ask(sdk, history).stop_reason == "end_turn"


def test_a_changed_thinking_text_or_a_made_up_signature_is_refused(api, sdk):
    history = conversation(api, sdk)
    tampered = copy.deepcopy(history)
    tampered[1]["content"][0]["thinking"] = "something else"
    assert refused(sdk, tampered).startswith("messages.1.content.0: Invalid `signature` in `thinking` block.")
    history[3]["content"][0]["signature"] = "made-up"
    assert refused(sdk, history).startswith("messages.3.content.0: Invalid `signature`")


def test_drop_block_drops_the_failing_blocks_and_reports_them(api, sdk):
    history = conversation(api, sdk)
    history[2]["content"][0]["content"] = "[cleared]"
    assert "thinking-binding-controls-2026-08-01" in refused(sdk, history, thinking=DROP)  # needs the beta

    api.script(Reply([Thinking("again"), Text("Still 42.")]))
    answer = sdk.beta.messages.create(model=MODEL, max_tokens=1000, system=SYSTEM, tools=TOOLS, thinking=DROP,
                                      messages=history, betas=[BINDING_CONTROLS_BETA])
    assert [(t.type, t.path, t.reason) for t in answer.input_transformations] == [
        ("thinking_dropped", "messages.3.content.0", "prefix_binding_mismatch"),
        ("thinking_dropped", "messages.5.content.0", "prefix_binding_mismatch")]
    # the client lets the dropped blocks go; the new block was made after what the model read: it passes
    kept = [{**m, "content": [b for b in m["content"] if i == 1 or b.get("type") != "thinking"]}
            if m["role"] == "assistant" else m for i, m in enumerate(history)]
    kept += [params(answer), {"role": "user", "content": "Good."}]
    api.script(Reply([Text("Done.")]))
    again = sdk.beta.messages.create(model=MODEL, max_tokens=1000, system=SYSTEM, tools=TOOLS, thinking=ADAPTIVE,
                                     messages=kept, betas=[BINDING_CONTROLS_BETA])
    assert again.input_transformations == [] and again.content[-1].text == "Done."


def test_the_stream_carries_input_transformations_where_the_sdk_reads_them(api, sdk):
    history = conversation(api, sdk)
    history[0]["content"] = "What does a.py set y to?"
    api.script(Reply([Text("Dropped and answered.")]))
    with sdk.beta.messages.stream(model=MODEL, max_tokens=1000, system=SYSTEM, tools=TOOLS, thinking=DROP,
                                  messages=history, betas=[BINDING_CONTROLS_BETA]) as stream:
        final = stream.get_final_message()
    assert [t.path for t in final.input_transformations] == [
        "messages.1.content.0", "messages.3.content.0", "messages.5.content.0"]
    assert final.content[0].type == "thinking" and final.content[0].signature.startswith(SIGNATURE_MARK)
    raw = sdk.beta.messages.create(model=MODEL, max_tokens=1000, system=SYSTEM, tools=TOOLS, thinking=DROP,
                                   messages=history, betas=[BINDING_CONTROLS_BETA], stream=True)
    start = next(iter(raw))
    assert start.type == "message_start" and len(start.message.input_transformations) == 3


def test_the_server_default_can_drop_silently_or_let_through(sdk):
    for mode, expected in (("drop", "thinking_dropped"), ("off", "thinking_mismatch_allowed")):
        with MockAnthropicServer(thinking_mismatch=mode, always_think=True) as server, \
                anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0) as client:
            history = conversation(server, client)
            history[1]["content"][0]["thinking"] = "edited"  # only this block is altered
            server.script(Reply([Text("fine")]), Reply([Text("fine")]))
            assert ask(client, history).content[-1].text == "fine"  # no 400, nothing reported without the beta
            reported = client.beta.messages.create(model=MODEL, max_tokens=1000, system=SYSTEM, tools=TOOLS,
                                                   thinking=ADAPTIVE, messages=history,
                                                   betas=[BINDING_CONTROLS_BETA]).input_transformations
            # dropping takes every later block; letting through judges each block on its own
            paths = ["messages.1.content.0"] + (["messages.3.content.0", "messages.5.content.0"] if mode == "drop"
                                                else [])
            assert [(t.type, t.path) for t in reported] == [(expected, p) for p in paths]


def test_a_listed_model_whose_thinking_is_not_bound_is_not_checked():
    models = [mock_model("acme-old-1", thinking_bound=False)]
    with MockAnthropicServer(models=models) as server, \
            anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0) as client:
        server.script(Reply([Thinking("hm"), Text("one")]), Reply([Text("two")]))
        history: list[dict] = [{"role": "user", "content": "hi"}]
        history.append(params(client.messages.create(model="acme-old-1", max_tokens=100, system="a",
                                                     thinking=ADAPTIVE, messages=history)))
        history.append({"role": "user", "content": "again"})
        answer = client.messages.create(model="acme-old-1", max_tokens=100, system="b", thinking=ADAPTIVE,
                                        messages=history)
        assert answer.content[-1].text == "two"


def test_manual_thinking_always_thinks_first_and_adaptive_thinking_as_scripted():
    with MockAnthropicServer() as server, \
            anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0) as client:
        server.script(Reply([Text("one")]), Reply([Text("two")]))
        manual = client.messages.create(model=MODEL, max_tokens=4000, messages=[{"role": "user", "content": "hi"}],
                                         thinking={"type": "enabled", "budget_tokens": 1024})
        adaptive = ask(client, [{"role": "user", "content": "hi"}])
    assert [b.type for b in manual.content] == ["thinking", "text"] and manual.content[0].signature
    assert [b.type for b in adaptive.content] == ["text"]  # adaptive: the model decides (here: the script)
