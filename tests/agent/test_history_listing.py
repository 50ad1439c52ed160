"""Show Chat History lists what can be resumed: a chat that never got a prompt (only state records, e.g.
plan mode switched on in a new chat) is not listed once another chat is open; it is while it is the
window's own."""

from __future__ import annotations

from agentls.agent.approval import ApprovalPolicy
from agentls.agent.runtime import AgentRuntime
from agentls.agent.settings import parse_settings
from agentls.agent.workspace import Workspace
from agentls.mock_api import Reply, Text

from conftest import SECRET


async def test_a_chat_without_a_prompt_is_not_listed_once_another_is_open(mock_api, workspace, data_dir):
    runtime = AgentRuntime(Workspace([workspace]), ApprovalPolicy(), session_root=workspace, api_key=SECRET,
                           new_session=True)
    await runtime.start(parse_settings({"baseUrl": mock_api.base_url})[0])
    try:
        conversations = runtime.conversations
        assert runtime.agent is not None
        runtime.agent.set_mode("plan")  # saved at once: the chat is stored without a prompt
        empty = conversations.current
        listed = await conversations.sessions()
        assert [info.id for info in listed.sessions] == [empty]  # the window's own: listed
        await conversations.new()
        mock_api.script(Reply([Text("hi")]))
        await runtime.agent.run_turn("hello")
        ids = [info.id for info in (await conversations.sessions()).sessions]
        assert ids == [conversations.current]
        assert empty not in ids
    finally:
        await runtime.aclose()
