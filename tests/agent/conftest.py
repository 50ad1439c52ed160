import pytest
import pytest_asyncio

from agentls.agent.approval import auto_approve
from agentls.agent.loop import Agent
from agentls.agent.store import open_session
from agentls.agent.workspace import Workspace
from agentls.context import ContextConfig
from agentls.model import ModelSettings

SECRET = "sk-ant-test-SECRET-4242"
# A model whose thinking is not bound to its prefix and that takes no mid-conversation system messages
# (model/binding.py): tests of the client-side context layers and of a rebuilt head run on it.
UNBOUND_MODEL = "claude-sonnet-4-5"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("AGENTLS_DATA_DIR", str(folder))
    return folder


def settings_for(server, **extra) -> ModelSettings:
    base = dict(base_url=server.base_url, api_key=SECRET, retry_base_delay=0.01, retry_max_delay=0.05,
                max_retries=3, timeout=5.0)
    base.update(extra)
    return ModelSettings(**base)


@pytest_asyncio.fixture
async def make_agent(mock_api, workspace, data_dir):
    made = []

    def build(approve=auto_approve, context=None, new=True, **model):
        session = open_session(workspace, new=new)
        agent = Agent(Workspace([workspace]), settings_for(mock_api, **model), approve=approve,
                      context=context or ContextConfig(), session=session, shell_timeout=10)
        made.append(agent)
        return agent

    yield build
    for agent in made:
        await agent.client.aclose()
        if agent.session is not None:
            agent.session.close()
