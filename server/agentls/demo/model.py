"""The offline demo model: the mock Messages API on 127.0.0.1, in a thread of this process.

Started when there is no API key and no base URL, so the product works out
of the box; every reply is labelled as coming from the demo model.
"""

from __future__ import annotations

import asyncio
from typing import Any

NOTICE = ("agentls: no API key was found, so the offline demo model answers: it reads, lists and searches "
          "files, and runs commands and edits files after you approve them. To use a real model, set your "
          "editor's agentls API key (or ANTHROPIC_API_KEY where the server starts).")


class DemoModel:
    def __init__(self, server: Any) -> None:
        self._server = server
        self.base_url = server.base_url

    @classmethod
    async def start(cls) -> DemoModel:
        from ..mock_api import MockAnthropicServer  # imported only when needed (http.server is not free)
        from .brain import demo_reply

        return cls(await asyncio.to_thread(MockAnthropicServer(responder=demo_reply).start))

    async def close(self) -> None:
        await asyncio.to_thread(self._server.close)
