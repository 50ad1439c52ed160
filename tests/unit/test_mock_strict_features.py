"""The strict mock's other rules of today's API, through the real anthropic SDK: mid-conversation system
messages and tool changes, on-demand compaction, server-side context editing, cache diagnostics, and the
capabilities of the Models API."""

from __future__ import annotations

import anthropic
import pytest

from agentls.mock_api import MockAnthropicServer, Reply, Text, Thinking, mock_model
from agentls.mock_api.compaction import COMPACTION_BETA
from agentls.mock_api.editing import CONTEXT_MANAGEMENT_BETA
from agentls.mock_api.system_messages import FIELD_BETAS, TOOL_CHANGES_BETA

MODEL = "acme-strict-1"
TOOLS = [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}},
         {"name": "grep", "description": "Search", "input_schema": {"type": "object"}}]
MODELS = [mock_model(MODEL, compaction=True, context_management=("clear_tool_uses_20250919",
                                                                 "clear_thinking_20251015")),
          mock_model("acme-plain-1", system_messages=False, tool_changes=False),
          mock_model("acme-small-1", window=3_000, context_management=("clear_tool_uses_20250919",),
                     thinking=())]  # no thinking: max_tokens need not fit its window as well


@pytest.fixture(scope="module")
def api():
    with MockAnthropicServer(models=MODELS) as server:
        yield server


@pytest.fixture(scope="module")
def sdk(api):
    with anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as client:
        yield client


def create(sdk, messages, *, betas=(), model=MODEL, tools=TOOLS, **extra):
    return sdk.beta.messages.create(model=model, max_tokens=1000, tools=tools, messages=messages,
                                    betas=list(betas), **extra)


def refused(sdk, messages, **extra) -> str:
    with pytest.raises(anthropic.BadRequestError) as error:
        create(sdk, messages, **extra)
    return error.value.body["error"]["message"]


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def system(*blocks):
    return {"role": "system", "content": list(blocks) or "Answer in French from now on."}


# ---------------------------------------------------------------- mid-conversation system messages

def test_a_system_message_after_the_last_user_message_is_taken(api, sdk):
    api.script(Reply([Text("D'accord.")]), Reply([Text("Oui.")]))
    assert create(sdk, [user("hi"), system()]).content[0].text == "D'accord."
    history = [user("hi"), system(), assistant("D'accord."), user("more")]
    assert create(sdk, history).content[0].text == "Oui."


@pytest.mark.parametrize("messages, expected", [
    ([system(), user("hi")], "messages.0.role: the first message cannot use the 'system' role"),
    ([user("hi"), assistant("ok"), system()], "messages.2: a message with role 'system' must follow a 'user'"),
    ([user("hi"), system(), user("more")], "messages.1: a message with role 'system' must be the last message"),
    ([user("hi"), system(), system()], "messages.1: a message with role 'system' must be the last message"),
    ([user("hi"), system({"type": "image", "source": {}})], "messages.1.content.0.type"),
])
def test_a_misplaced_or_malformed_system_message_is_refused(sdk, messages, expected):
    assert refused(sdk, messages).startswith(expected)


def test_a_system_message_cleared_at_the_next_user_message_stops_counting(api, sdk):
    note = {"role": "system", "content": "Long one-off note. " * 200}
    api.script(Reply([Text("a")]), Reply([Text("b")]))
    kept = create(sdk, [user("hi"), note, assistant("ok"), user("more")])
    clearing = [user("hi"), {**note, "clear_at": "next_user_message"}, assistant("ok"), user("more")]
    assert FIELD_BETAS["clear_at"] in refused(sdk, clearing)
    cleared = create(sdk, clearing, betas=[FIELD_BETAS["clear_at"]])

    def counted(m):
        return m.usage.input_tokens + m.usage.cache_read_input_tokens + m.usage.cache_creation_input_tokens

    assert counted(cleared) < counted(kept) - 500


def test_a_model_without_system_messages_refuses_them(sdk):
    assert "role 'system' is not supported on acme-plain-1" in refused(sdk, [user("hi"), system()],
                                                                        model="acme-plain-1")


def test_tool_changes_need_the_beta_and_a_declared_tool(api, sdk):
    add = {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "grep"}}
    assert TOOL_CHANGES_BETA in refused(sdk, [user("hi"), system(add)])
    api.script(Reply([Text("grep is here")]))
    assert create(sdk, [user("hi"), system(add)], betas=[TOOL_CHANGES_BETA]).content[0].text == "grep is here"
    unknown = {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "web"}}
    assert "tool 'web' is not declared" in refused(sdk, [user("hi"), system(unknown)], betas=[TOOL_CHANGES_BETA])
    assert "not supported on acme-plain-1" in refused(sdk, [user("hi"), system(add)], betas=[TOOL_CHANGES_BETA],
                                                      model="acme-plain-1")


# ---------------------------------------------------------------- on-demand compaction

HISTORY = [user("Read src/app.py and notes.md"),
           {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                              "input": {"path": "src/app.py"}}]},
           {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                         "content": "PORT = 8080\nRETRIES = 3"}]},
           assistant("app.py listens on 8080 and retries 3 times; notes.md next.")]


def test_compaction_needs_the_beta_and_a_model_that_advertises_it(sdk):
    summarize = {"type": "summarize"}
    assert COMPACTION_BETA in refused(sdk, [*HISTORY, user("compact")], compaction=summarize)
    assert "not supported for acme-plain-1" in refused(sdk, [*HISTORY, user("compact")], compaction=summarize,
                                                       betas=[COMPACTION_BETA], model="acme-plain-1")
    assert "cannot be combined with `context_management`" in refused(
        sdk, [*HISTORY, user("compact")], compaction=summarize, context_management={"edits": []},
        betas=[COMPACTION_BETA, CONTEXT_MANAGEMENT_BETA])


def test_a_compaction_round_trip(api, sdk):
    with sdk.beta.messages.stream(model=MODEL, max_tokens=1000, tools=TOOLS, messages=[*HISTORY, user("go on")],
                                  compaction={"type": "summarize", "instructions": "keep the ports"},
                                  thinking={"type": "adaptive"}, betas=[COMPACTION_BETA]) as stream:
        answer = stream.get_final_message()
    assert answer.stop_reason == "compaction" and [b.type for b in answer.content] == ["compaction"]
    block = answer.content[0]
    for fact in ("src/app.py", "notes.md", "8080", "3", "keep the ports"):
        assert fact in block.content
    assert block.signature

    api.script(Reply([Thinking("the summary says 8080"), Text("Port 8080.")]))
    compacted = [{"role": "assistant", "content": [block.model_dump(exclude_none=True)]}, user("Which port?")]
    again = create(sdk, compacted, thinking={"type": "adaptive"}, betas=[COMPACTION_BETA])
    assert again.content[-1].text == "Port 8080."
    later = [*compacted, {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in again.content]},
             user("thanks")]
    assert COMPACTION_BETA in refused(sdk, later, thinking={"type": "adaptive"})  # a beta block, a beta request
    api.script(Reply([Text("welcome")]))
    assert create(sdk, later, thinking={"type": "adaptive"}, betas=[COMPACTION_BETA]).content[-1].text == "welcome"

    moved = [user("first"), {"role": "assistant", "content": [block.model_dump(exclude_none=True)]}, user("next")]
    assert "must be sent first in `messages`" in refused(sdk, moved, betas=[COMPACTION_BETA])
    altered = [{"role": "assistant", "content": [{**block.model_dump(exclude_none=True), "content": "x"}]},
               user("next")]
    assert "Invalid `signature` in `compaction` block" in refused(sdk, altered, betas=[COMPACTION_BETA])


def test_a_queued_reply_is_the_summary(api, sdk):
    api.script(Reply([Text("Scripted summary: port 8080.")]))
    answer = create(sdk, [*HISTORY, user("compact")], compaction={"type": "summarize"}, betas=[COMPACTION_BETA])
    assert answer.content[0].content == "Scripted summary: port 8080."


# ---------------------------------------------------------------- context editing

def _tool_history(turns: int) -> list[dict]:
    history: list[dict] = [user("read everything")]
    for n in range(turns):
        history.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{n}",
                                                          "name": "read_file", "input": {"path": f"f{n}.py"}}]})
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                                                     "content": f"line {n}\n" * 400}]})
    return history


def test_clearing_tool_uses_is_applied_server_side_and_reported(api, sdk):
    edits = {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000},
                        "keep": {"type": "tool_uses", "value": 2}}]}
    assert CONTEXT_MANAGEMENT_BETA in refused(sdk, _tool_history(5), context_management=edits)
    api.script(Reply([Text("plain")]), Reply([Text("edited")]))
    plain = create(sdk, _tool_history(5))
    with sdk.beta.messages.stream(model=MODEL, max_tokens=1000, tools=TOOLS, messages=_tool_history(5),
                                  context_management=edits, betas=[CONTEXT_MANAGEMENT_BETA]) as stream:
        edited = stream.get_final_message()
    applied = edited.context_management.applied_edits
    assert [(e.type, e.cleared_tool_uses) for e in applied] == [("clear_tool_uses_20250919", 3)]
    def counted(m):
        return m.usage.input_tokens + m.usage.cache_read_input_tokens + m.usage.cache_creation_input_tokens

    assert counted(edited) < counted(plain) - applied[0].cleared_input_tokens // 2


def test_the_window_holds_what_is_left_after_the_edits(api, sdk):
    edits = {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000}}]}
    assert "prompt is too long" in refused(sdk, _tool_history(5), model="acme-small-1")
    api.script(Reply([Text("fits")]))
    answer = create(sdk, _tool_history(5), model="acme-small-1", context_management=edits,
                    betas=[CONTEXT_MANAGEMENT_BETA])
    assert answer.content[0].text == "fits" and answer.usage.input_tokens < 3_000


def test_clearing_thinking_leaves_the_thinking_checks_alone(api, sdk):
    history: list[dict] = [user("one")]
    for n in range(3):
        api.script(Reply([Thinking(f"thought {n}"), Text(f"answer {n}")]))
        answer = create(sdk, history, thinking={"type": "adaptive"})
        history += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]},
                    user(f"next {n}")]
    edits = {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]}
    api.script(Reply([Text("ok")]))
    answer = create(sdk, history, thinking={"type": "adaptive"}, context_management=edits,
                    betas=[CONTEXT_MANAGEMENT_BETA])
    assert [(e.type, e.cleared_thinking_turns) for e in answer.context_management.applied_edits] == [
        ("clear_thinking_20251015", 2)]
    wrong_order = {"edits": [{"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015"}]}
    assert "must come first" in refused(sdk, history, context_management=wrong_order, betas=[CONTEXT_MANAGEMENT_BETA])


# ---------------------------------------------------------------- cache diagnostics

def test_cache_diagnostics_name_what_changed(api, sdk):
    base = dict(system="You are terse.", diagnostics={"previous_message_id": None})
    api.script(*[Reply([Text(f"r{n}")]) for n in range(9)])
    first = create(sdk, HISTORY[:1], **base)
    assert first.diagnostics is None
    appended = create(sdk, [*HISTORY, user("more")], system=base["system"],
                      diagnostics={"previous_message_id": first.id})
    assert appended.diagnostics is None  # append-only: the earlier prefix is reused whole
    reasons = {}
    for name, change in (("system", {"system": "You are verbose."}), ("model", {"model": "acme-plain-1"}),
                         ("tools", {"tools": TOOLS[:1]}),
                         ("messages", {"messages": [user("Read src/main.py"), *HISTORY[1:], user("more")]})):
        kwargs = {"system": base["system"], "messages": [*HISTORY, user("more")], **change}
        answer = create(sdk, diagnostics={"previous_message_id": appended.id}, **kwargs)
        reasons[name] = answer.diagnostics.cache_miss_reason
    assert reasons["system"].type == "system_changed" and reasons["system"].cache_missed_input_tokens > 0
    assert reasons["model"].type == "model_changed" and reasons["tools"].type == "tools_changed"
    # the same prompt to another model: all of it is missed (a cache is one model's), tools too, not only past a change
    assert reasons["model"].cache_missed_input_tokens > reasons["system"].cache_missed_input_tokens > 0
    assert reasons["messages"].type == "messages_changed" and reasons["messages"].cache_missed_input_tokens > 0
    missing = create(sdk, HISTORY[:1], diagnostics={"previous_message_id": "msg_unknown"})
    assert missing.diagnostics.cache_miss_reason.type == "previous_message_not_found"
    with sdk.beta.messages.stream(model=MODEL, max_tokens=1000, tools=TOOLS, messages=HISTORY[:1],
                                  system="Changed.", diagnostics={"previous_message_id": first.id}) as stream:
        streamed = stream.get_final_message()  # diagnostics ride in message_start, where the SDK reads them
    assert streamed.diagnostics.cache_miss_reason.type == "system_changed"


# ---------------------------------------------------------------- the Models API

def test_models_advertise_compaction_and_context_management_as_the_sdk_reads_them(sdk):
    strict = sdk.beta.models.retrieve(MODEL)
    assert strict.capabilities.compaction.summarize.supported and strict.capabilities.compaction.supported
    editing = strict.capabilities.context_management
    assert editing.supported and editing.clear_tool_uses_20250919.supported
    assert editing.clear_thinking_20251015.supported and not editing.compact_20260112.supported
    plain = sdk.beta.models.retrieve("acme-plain-1")
    assert not plain.capabilities.compaction.supported and not plain.capabilities.context_management.supported
    assert "_mock" not in plain.model_dump() and all("_mock" not in m.model_dump() for m in sdk.beta.models.list())
