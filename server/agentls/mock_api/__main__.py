"""`python -m agentls.mock_api [--port N] [--script FILE.json] [--verbose]`.

Serves until killed. The script file is a JSON list of replies (and
{"fault": {...}} entries) consumed in order; then the demo agent answers.
"""

from __future__ import annotations

import argparse
import signal
import sys

from .server import MockAnthropicServer, load_script_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentls.mock_api",
                                     description="Anthropic-compatible mock Messages API on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    parser.add_argument("--script", metavar="FILE.json", help="JSON list of scripted replies, consumed in order")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)

    script = load_script_file(args.script) if args.script else []
    server = MockAnthropicServer(args.port, script=script, verbose=args.verbose).start()
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
