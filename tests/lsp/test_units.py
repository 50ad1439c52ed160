"""The pure pieces of the LSP layer: settings mapping, params checks, redaction, progress text."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from agentls.agent.approval import ApprovalRequest
from agentls.lsp.confirm import decision, message_text
from agentls.lsp.protocol import confirm_params
from agentls.lsp.methods import chat
from agentls.lsp.progress import progress_message
from agentls.agent.secrets import Secrets
from agentls.agent.settings import context_config, model_settings, parse_settings, settings_section, wants_demo


def test_settings_map_onto_model_and_context_config():
    settings, problems = parse_settings({
        "model": "m", "compactModel": "small", "baseUrl": "http://127.0.0.1:9", "contextWindow": 100_000,
        "outputReserve": 8_000, "maxTokens": 1_000, "cacheTtl": "1h", "cacheControl": True,
        "thresholds": {"budgetSoft": 0.4, "budgetHard": 0.6, "autoCompact": 0.8, "warn": 0.5, "high": 0.75},
        "approvals": {"shell": "never", "write": "always"}})
    assert problems == []
    config = context_config(settings)
    assert (config.window, config.output_reserve) == (100_000, 8_000)
    assert (config.budget_soft_at, config.budget_hard_at, config.compact_at, config.warn_at, config.high_at) == \
        (0.4, 0.6, 0.8, 0.5, 0.75)
    model = model_settings(settings, "sk-ant-x")
    assert (model.model, model.compact_model, model.base_url, model.max_tokens, model.api_key) == \
        ("m", "small", "http://127.0.0.1:9", 1_000, "sk-ant-x")
    assert model.cache_ttl == "1h" and model_settings(parse_settings({})[0], None).cache_ttl == "auto"
    assert model.use_cache_control and not model_settings(parse_settings({"baseUrl": "http://127.0.0.1:9"})[0],
                                                          None).use_cache_control
    assert not model_settings(parse_settings({"cacheControl": False})[0], None).use_cache_control  # even native
    assert settings.approval_modes() == {"shell": "never", "write": "always"}
    assert parse_settings({})[0].approval_modes() == {"shell": "ask", "write": "ask"}


def test_bad_settings_are_reported_and_ignored():
    settings, problems = parse_settings({"contextWindow": "big", "outputReserve": 10**9, "baseUrl": "ftp://x",
                                         "thresholds": {"warn": -1, "high": True}, "approvals": {"shell": "maybe"},
                                         "maxTokens": 0, "cacheTtl": "2h", "cacheControl": "yes"})
    assert settings == parse_settings({})[0]
    for field in ("contextWindow", "outputReserve", "baseUrl", "thresholds.warn", "thresholds.high",
                  "approvals.shell", "maxTokens", "cacheTtl", "cacheControl"):
        assert any(field in p for p in problems), field
    assert parse_settings("nope")[1] and parse_settings([]) == parse_settings(None)


def test_settings_section_forms():
    assert settings_section({"agentls": {"model": "x"}}) == {"model": "x"}
    assert settings_section({"model": "x"}) == {"model": "x"}
    assert settings_section({}) is None and settings_section({"python": {}}) is None and settings_section(None) is None


def test_demo_only_without_key_and_base_url(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    empty = parse_settings({})[0]
    assert wants_demo(empty, None)
    assert not wants_demo(empty, "key") and not wants_demo(parse_settings({"baseUrl": "http://h"})[0], None)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://proxy")
    assert not wants_demo(empty, None)


def test_secrets_are_scrubbed_even_before_they_are_known():
    secrets = Secrets()
    secrets.add("my-own-secret-value")
    text = ("initialization_options={'apiKey': 'sk-something-else', 'x': 1} my-own-secret-value "
            '"apiKey": "abc" sk-ant-api03-AAAABBBB')
    scrubbed = secrets.scrub(text)
    assert "sk-something-else" not in scrubbed and "my-own-secret-value" not in scrubbed
    assert '"abc"' not in scrubbed and "AAAABBBB" not in scrubbed and "'x': 1" in scrubbed


def test_progress_messages():
    assert progress_message("read_file", "read_file src/x.py") == "Reading src/x.py"
    assert progress_message("run_shell", "run_shell make test") == "Running make test"
    assert progress_message("grep_search", "grep_search") == "grep_search"
    assert progress_message("mystery", "mystery thing") == "mystery thing"


def test_confirm_params_and_answers():
    assert confirm_params(ApprovalRequest("shell", command="ls")) == {"kind": "shell", "command": "ls"}
    assert confirm_params(ApprovalRequest("edit", path="a.py", diff="-x\n+y\n")) == \
        {"kind": "edit", "path": "a.py", "diff": "-x\n+y\n"}
    assert decision({"approved": True, "remember": True}).remember is True
    assert decision({"approved": "yes"}).approved is False and decision(None).approved is False
    assert "a.py" in message_text(ApprovalRequest("write", path="a.py", diff="+" * 5000))
    assert len(message_text(ApprovalRequest("write", path="a.py", diff="+" * 5000))) < 2000


@pytest.mark.parametrize("params, field", [
    (None, "prompt"), ([1], "params"), ({"prompt": "x", "attachments": [None]}, "attachments[0]"),
    ({"prompt": "x", "attachments": [{"uri": "u", "text": 5}]}, "attachments[0].text"),
    ({"prompt": "x", "attachments": [{"uri": "u", "range": {"start": {"line": 2, "character": 0},
                                                            "end": {"line": 1, "character": 0}}}]},
     "attachments[0].range.end"),
    ({"prompt": "x", "workDoneToken": True}, "workDoneToken"),
])
def test_chat_params_name_the_field(params, field):
    with pytest.raises(JsonRpcException) as failure:
        chat.parse(params)
    assert failure.value.code == -32602 and field in failure.value.message


def test_valid_chat_params():
    parsed = chat.parse({"prompt": "hi", "workDoneToken": 3, "attachments": [{"uri": "untitled:1", "text": "t"}],
                         "future": "ignored"})
    assert parsed.prompt == "hi" and parsed.work_done_token == 3 and parsed.attachments[0]["text"] == "t"
