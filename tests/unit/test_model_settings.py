"""ModelSettings: defaults, env fallbacks, endpoint detection, and the key never shown."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from agentls.model import DEFAULT_MODEL, ModelSettings, Usage
from agentls.lsp import protocol

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

SECRET = "sk-ant-test-SECRET-123"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def test_defaults():
    settings = ModelSettings()
    assert settings.model == DEFAULT_MODEL and settings.effective_compact_model == DEFAULT_MODEL
    assert ModelSettings(compact_model="claude-haiku-4-5").effective_compact_model == "claude-haiku-4-5"
    assert settings.max_tokens == 8192 and settings.thinking_budget is None and settings.max_retries == 4
    assert settings.is_native_anthropic and settings.use_cache_control


def test_default_model_matches_protocol_doc():
    documented = re.search(r'model\?: string;\s*// default: chosen from the endpoint.*offline fallback "([^"]+)"',
                           PROTOCOL.read_text())
    assert documented and documented.group(1) == DEFAULT_MODEL


def test_repr_and_str_hide_the_key(monkeypatch):
    settings = ModelSettings(api_key=SECRET)
    assert SECRET not in repr(settings) and SECRET not in str(settings) and SECRET not in f"{settings}"
    assert "api_key=<set>" in repr(settings)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    env_settings = ModelSettings()
    assert env_settings.resolved_api_key() == SECRET and SECRET not in repr(env_settings)
    assert SECRET not in repr(dataclasses.replace(settings, model="x"))


def test_env_fallbacks_and_native_detection(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9999")
    settings = ModelSettings()
    assert settings.resolved_base_url() == "http://127.0.0.1:9999"
    assert not settings.is_native_anthropic and not settings.use_cache_control
    assert ModelSettings(base_url="https://api.anthropic.com/").is_native_anthropic
    assert not ModelSettings(base_url="https://api.deepseek.com/anthropic").is_native_anthropic
    assert ModelSettings(base_url="http://127.0.0.1:1", force_cache_control=True).use_cache_control
    assert not ModelSettings(force_cache_control=False).use_cache_control


def test_usage_helpers():
    usage = Usage.from_api({"input_tokens": 3, "output_tokens": None, "cache_read_input_tokens": 5})
    assert usage == Usage(3, 0, 0, 5) and usage.prompt_tokens == 8
    assert protocol.usage(usage) == {"inputTokens": 3, "outputTokens": 0, "cacheReadTokens": 5, "cacheWriteTokens": 0}
