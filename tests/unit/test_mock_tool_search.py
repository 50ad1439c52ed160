"""The strict mock's tool search tool, through the real anthropic SDK (mock_api/tool_search.py, where the
documentation is named): malformed shapes refused with 400, a scripted search answered with tool_references from
a regex or BM25 search over the deferred tools, deferred tools out of the prompt's tokens until loaded, and a call
of a deferred tool nothing loaded refused."""

from __future__ import annotations

import anthropic
import pytest

from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolSearch, ToolUse, mock_model

MODEL, PLAIN = "acme-search-1", "acme-nosearch-1"
BM25 = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
REGEX = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
READ = {"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}


def deferred(name: str, description: str, **properties) -> dict:
    return {"name": name, "description": description, "defer_loading": True,
            "input_schema": {"type": "object", "properties": {k: {"type": "string", "description": v}
                                                              for k, v in properties.items()}}}


CATALOG = [deferred("get_weather", "Current weather", city="The city whose forecast is wanted"),
           deferred("send_mail", "Send an e-mail", to="Recipient"),
           deferred("list_invoices", "Invoices of a customer", customer="Customer id")]


@pytest.fixture(scope="module")
def api():
    with MockAnthropicServer(models=[mock_model(MODEL), mock_model(PLAIN, tool_search=False)]) as server:
        yield server


@pytest.fixture(scope="module")
def sdk(api):
    with anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as client:
        yield client


def create(sdk, tools, messages=None, model=MODEL):
    return sdk.messages.create(model=model, max_tokens=500, tools=tools,
                               messages=messages or [{"role": "user", "content": "hi"}])


def refused(sdk, tools, messages=None, model=MODEL) -> str:
    with pytest.raises(anthropic.BadRequestError) as error:
        create(sdk, tools, messages, model)
    return error.value.body["error"]["message"]


def test_malformed_or_refused_shapes_are_400(sdk, api):
    assert refused(sdk, [{**BM25, "name": "search"}, READ]) == "tools.0.name: Input should be 'tool_search_tool_bm25'"
    assert "cannot have defer_loading" in refused(sdk, [{**REGEX, "defer_loading": True}, READ])
    assert refused(sdk, [{"type": "tool_search_tool_fuzzy_20251119", "name": "x"}, READ]).startswith("tools.0.type:")
    assert "at least one tool must be loaded" in refused(sdk, CATALOG)
    assert refused(sdk, [READ, {**CATALOG[0], "defer_loading": "yes"}]) == \
        "tools.1.defer_loading: Input should be a valid boolean"
    assert refused(sdk, [BM25, READ, *CATALOG], model=PLAIN) == \
        f"tools.0.type: 'tool_search_tool_bm25_20251119' is not supported on {PLAIN}"
    ghost = [{"role": "user", "content": "hi"},
             {"role": "assistant", "content": [
                 {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
                  "input": {"query": "x"}},
                 {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {
                     "type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference", "tool_name": "nowhere"}]}},
                 {"type": "text", "text": "found nothing"}]},
             {"role": "user", "content": "ok"}]
    assert "tool_reference names 'nowhere', which is not defined in `tools`" in refused(sdk, [BM25, READ, *CATALOG],
                                                                                     ghost)


def test_a_call_of_a_deferred_tool_nothing_loaded_is_refused_in_history_and_in_a_script(sdk, api):
    blind = [{"role": "user", "content": "hi"},
             {"role": "assistant",
              "content": [{"type": "tool_use", "id": "toolu_1", "name": "send_mail", "input": {}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sent"}]}]
    assert "tool 'send_mail' is deferred (defer_loading) and no earlier tool_reference loaded it" in refused(
        sdk, [BM25, READ, *CATALOG], blind)
    api.script(Reply([ToolUse("send_mail", {"to": "a@b"})]))
    assert "a deferred tool (defer_loading) no tool_reference loaded" in refused(sdk, [BM25, READ, *CATALOG])


@pytest.mark.parametrize(("search", "query", "found"), [
    (BM25, "weather forecast city", ["get_weather"]),
    (REGEX, "(?i)invoice|mail", ["send_mail", "list_invoices"]),
    (REGEX, "forecast", ["get_weather"]),  # a parameter's description is searched too
])
def test_a_scripted_search_answers_tool_references_and_the_found_tool_is_called(sdk, api, search, query, found):
    api.script(Reply([ToolSearch(query), ToolUse(found[0], {})]))
    reply = create(sdk, [search, READ, *CATALOG])
    use, result, call = reply.content
    assert (use.type, use.name, use.input) == ("server_tool_use", search["name"], {"query": query})
    assert result.type == "tool_search_tool_result" and result.tool_use_id == use.id
    assert [r.tool_name for r in result.content.tool_references] == found
    assert (call.type, call.name, reply.stop_reason) == ("tool_use", found[0], "tool_use")
    # the history carrying the search is accepted, and the call of the loaded tool in it
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        b.model_dump(exclude_none=True) for b in reply.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "ok"}]}]
    api.script(Reply([Text("done")]))
    assert create(sdk, [search, READ, *CATALOG], history).content[0].text == "done"


def test_a_bad_regex_is_a_tool_search_error_and_deferred_schemas_cost_no_input_tokens(sdk, api):
    api.script(Reply([ToolSearch("(unclosed"), Text("no luck")]))
    reply = create(sdk, [REGEX, READ, *CATALOG])
    assert reply.content[1].content.type == "tool_search_tool_result_error"
    assert reply.content[1].content.error_code == "invalid_tool_input"
    api.script(Reply([Text("a")]), Reply([Text("b")]))
    with_deferred = create(sdk, [REGEX, READ, *CATALOG]).usage.input_tokens
    without = create(sdk, [REGEX, READ]).usage.input_tokens
    assert with_deferred == without
