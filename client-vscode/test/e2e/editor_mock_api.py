"""The e2e's scripted model: agentls' mock API, recording every /v1/messages body to a JSONL file.

    python editor_mock_api.py SCRIPT.json RECORD.jsonl

Prints "listening on <base url>" once serving. The recording is what the
model received at the API endpoint (the tool results included), which the
e2e steps read back.
"""

from __future__ import annotations

import json
import signal
import sys

from agentls.mock_api import MockAnthropicServer
from agentls.mock_api.server import RecordedRequest, load_script_file


class RecordingMockApi(MockAnthropicServer):
    def __init__(self, record_path: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.record_path = record_path

    def record(self, request: RecordedRequest) -> None:
        super().record(request)
        if request.path == "/v1/messages":
            with open(self.record_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(request.body) + "\n")


def main(script: str, record: str) -> int:
    server = RecordingMockApi(record, script=load_script_file(script)).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"listening on {server.base_url}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
