"""A hostile Models API answer never sets the default model; an id from outside is never echoed whole
(issue 30, finding 11). The list is served by the mock's Models API and read through the real SDK."""

from __future__ import annotations

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, mock_model
from agentls.model import ModelSettings
from agentls.model.catalog import ENDPOINT, Catalog, choose_model, default_model
from agentls.model.models_api import fetch_catalog

MODEL_ID_MAX, DISPLAY_NAME_MAX = 256, 200  # models_api.py's documented bounds

SECRET = "sk-ant-hostile-SECRET-77"
HUGE_ID = "claude-sonnet-" + "9" * 1_000_000  # 1 MB, in the balanced line, the newest: the default rule's pick


async def test_a_one_megabyte_model_id_never_becomes_the_default():
    models = [mock_model(HUGE_ID, created_at="2027-01-01T00:00:00Z", line="sonnet"),
              mock_model("claude-sonnet-bad id", created_at="2027-01-02T00:00:00Z", line="sonnet"),
              mock_model("claude-sonnet-ctl\u0007", created_at="2027-01-03T00:00:00Z", line="sonnet"),
              mock_model("claude-sonnet-4-5", created_at="2025-09-29T00:00:00Z", line="sonnet",
                         display_name="N" * 50_000),
              mock_model("anthropic.claude-x-v1:0", created_at="2024-01-01T00:00:00Z"),
              mock_model("claude-y@20241022", created_at="2024-01-01T00:00:00Z")]
    async with MockAnthropicServer(models=models, responder=demo_reply) as api:
        catalog = await fetch_catalog(ModelSettings(base_url=api.base_url, api_key=SECRET))
    assert catalog.source == ENDPOINT
    assert catalog.ids == ["claude-sonnet-4-5", "anthropic.claude-x-v1:0", "claude-y@20241022"]
    assert all(len(i) <= MODEL_ID_MAX for i in catalog.ids)
    assert default_model(catalog.models) == "claude-sonnet-4-5"
    assert len(catalog.get("claude-sonnet-4-5").label) == DISPLAY_NAME_MAX


def test_a_configured_id_is_quoted_cut_in_the_warning():
    catalog = Catalog((mock_info := __import__("agentls.model.catalog", fromlist=["ModelInfo"]).ModelInfo(
        "claude-sonnet-4-5", line="sonnet"),), ENDPOINT, "", "api.example")
    choice = choose_model("x" * 10_000, catalog)
    assert choice.model == mock_info.id and len(choice.warning) < 600 and "xxx…" in choice.warning
