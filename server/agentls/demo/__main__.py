"""`python -m agentls.demo [--port N] [--script FILE.json] [--models FILE.json] [--verbose]`.

Serves until killed. The script file is a JSON list of replies (and
{"fault": {...}} entries) consumed in order; then the demo brain (demo/brain.py) answers.
The models file is a JSON list of Models API entries (see mock_api/models.py):
with it the mock serves GET /v1/models and refuses models it does not list.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

from ..mock_api import MockAnthropicServer, load_script_file
from .brain import demo_reply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentls.demo",
                                     description="the offline demo model: the mock Messages API on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    parser.add_argument("--script", metavar="FILE.json", help="JSON list of scripted replies, consumed in order")
    parser.add_argument("--models", metavar="FILE.json", help="JSON list of Models API entries to serve")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)

    script = load_script_file(args.script) if args.script else []
    models = None
    if args.models:
        with open(args.models, encoding="utf-8") as handle:
            models = json.load(handle)
    server = MockAnthropicServer(args.port, script=script, verbose=args.verbose, models=models,
                                 responder=demo_reply).start()
    # SIGTERM is the usual way a test harness stops us: leave through `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"agentls mock API listening on {server.base_url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
