"""The e2e's scripted model: agentls' mock API, recording every /v1/messages body to a JSONL file.

    python editor_mock_api.py SCRIPT.json RECORD.jsonl [MODELS.json]

MODELS.json (optional) is a list of mock_model() keyword arguments: the mock then serves
them as its Models API and refuses models it does not list (mock_api/models.py).

Prints "listening on <base url>" once serving. The recording is what the
model received at the API endpoint (the tool results included), which the
e2e steps read back.
"""

from __future__ import annotations

import json
import signal
import sys

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, mock_model
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


def main(script: str, record: str, models: str | None = None) -> int:
    listed = None
    if models:
        with open(models, encoding="utf-8") as handle:
            listed = [mock_model(**spec) for spec in json.load(handle)]
    server = RecordingMockApi(record, script=load_script_file(script), models=listed,
                              responder=demo_reply).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"listening on {server.base_url}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
