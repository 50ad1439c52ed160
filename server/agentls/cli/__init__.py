"""The agentls command line: serve | acp | ask | repl | chat | sessions | replay | bench.

The terminal front ends live here (local.py: ask and repl in-process;
lsp_chat.py: chat over LSP; both render through render.py and share repl.py);
the other commands are dispatched to their packages, imported only when run.
"""

from __future__ import annotations

import argparse
import atexit
import json
import logging
import os
import sys
from typing import NoReturn


def _replay(args: argparse.Namespace) -> int:
    from ..evaluation.replay import format_table, replay_trace, total_of
    from ..evaluation.trace_file import checked_trace

    if args.subagents:
        return _replay_subagents(args)
    if args.model:  # --compare --model ID: the model's comparison (its baselines, prices and bound thinking)
        return _replay_model(args)
    if args.compare:
        return _replay_compare(args)

    results = []
    ledger = open(args.ledger, "w", encoding="utf-8") if args.ledger else None
    try:
        for path in args.traces:
            try:
                trace_id, messages = checked_trace(path)
            except (OSError, ValueError) as error:
                print(f"agentls replay: {error}", file=sys.stderr)
                return 2
            results.append(replay_trace(trace_id, messages, args.policy, args.window, ledger,
                                        cache=args.cache, breakpoints=args.breakpoints, ttl=args.ttl,
                                        pauses=(args.pause_every, args.pause_seconds)))
    finally:
        if ledger is not None:
            ledger.close()
    total = total_of(results)
    if args.json:
        print(json.dumps({"policy": args.policy, "window": args.window, "cache": args.cache,
                          "breakpoints": args.breakpoints, "ttl": args.ttl,
                          "traces": [r.as_dict() for r in results], "total": total.as_dict()}, indent=1))
    else:
        print(f"cache={args.cache} breakpoints={args.breakpoints} ttl={args.ttl}")
        print(format_table([*results, total], args.policy, args.window))
    return 0


def _replay_subagents(args: argparse.Namespace) -> int:
    from ..evaluation.trace_file import checked_trace
    from ..evaluation.subagent_bench import compare, format_comparisons

    items = []
    for path in args.traces:
        try:
            trace_id, messages = checked_trace(path)
        except (OSError, ValueError) as error:
            print(f"agentls replay: {error}", file=sys.stderr)
            return 2
        items.append(compare(trace_id, messages, args.window))
    print(format_comparisons(items, args.window))
    return 0


def _replay_compare(args: argparse.Namespace) -> int:
    from ..evaluation.trace_file import checked_trace
    from ..evaluation.replay_compare import compare, comparison_json, format_comparison

    for path in args.traces:  # fail early and plainly, not inside a worker
        try:
            checked_trace(path)
        except (OSError, ValueError) as error:
            print(f"agentls replay: {error}", file=sys.stderr)
            return 2
    comparisons = compare(args.traces, jobs=args.jobs, cache=args.cache)
    print(json.dumps(comparison_json(comparisons)) if args.json else format_comparison(comparisons))
    return 0


def _replay_model(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..evaluation.baselines import POLICIES
    from ..evaluation.trace_file import checked_trace
    from ..evaluation.thinking_replay import (Settings, bounds_with_thinking, compare_with_thinking, format_thinking,
                                              kept_bounds_with_thinking, oracles_with_thinking, thinking_json)

    try:
        settings = Settings(args.model, not args.no_server_editing, not args.no_server_compaction)
        if args.thinking_chars is not None:
            settings = replace(settings, thinking_chars=args.thinking_chars)
        windows = tuple(int(w) for w in args.windows.split(","))
        policies = tuple(args.policies.split(",")) if args.policies else POLICIES
        unknown = set(policies) - set(POLICIES)
        if unknown:
            raise ValueError(f"unknown policies {', '.join(sorted(unknown))}; choose among {', '.join(POLICIES)}")
        for path in args.traces:  # fail early and plainly, not inside a worker
            checked_trace(path)
        runs = compare_with_thinking(args.traces, settings, windows, policies, jobs=args.jobs)
        bounds = bounds_with_thinking(args.traces, settings, windows)
        kept_bounds = kept_bounds_with_thinking(args.traces, settings, windows)
        oracles = oracles_with_thinking(args.traces, settings, windows, jobs=args.jobs)
    except (OSError, ValueError) as error:
        print(f"agentls replay: {error}", file=sys.stderr)
        return 2
    print(json.dumps(thinking_json(runs, settings, bounds, oracles, kept_bounds)) if args.json
          else format_thinking(runs, settings, bounds, oracles=oracles, kept_bounds=kept_bounds))
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.what == "checkpoint":
        from ..evaluation.checkpoint_bench import main as checkpoint_bench

        return checkpoint_bench(args.json, files=args.files, runs=args.runs)
    if args.what == "lsp":
        from ..evaluation.lsp_bench import main as lsp_bench

        sizes = ["--spawns", str(args.spawns), "--messages", str(args.messages)]
        return lsp_bench(["--json", *sizes] if args.json else sizes) or 0
    from ..evaluation.pipeline_bench import format_bench, run_pipeline_bench

    figures = run_pipeline_bench()
    print(json.dumps(figures, indent=1) if args.json else format_bench(figures))
    return 0


def _ask(args: argparse.Namespace) -> int:
    from .local import run_ask
    from .logs import terminal_logging

    terminal_logging()
    return run_ask(args)


def _repl(args: argparse.Namespace) -> int:
    from .local import run_repl
    from .logs import terminal_logging

    terminal_logging()
    return run_repl(args)


def _serve(args: argparse.Namespace) -> int:
    from ..lsp.server import serve_stdio

    return serve_stdio(args) or 0


def _acp(args: argparse.Namespace) -> int:
    from ..acp import run_acp

    return run_acp(args)


def _chat(args: argparse.Namespace) -> int:
    from .logs import terminal_logging
    from .lsp_chat import run_chat

    terminal_logging(logging.WARNING)  # AGENTLS_LOG raises the log of the server it spawns (forwarded)
    return run_chat(args) or 0


def _sessions(args: argparse.Namespace) -> int:
    from .sessions import run_sessions

    return run_sessions(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentls", description=__doc__)
    commands = parser.add_subparsers(dest="command")

    def agent_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--workspace", default=".", help="workspace folder (default: current directory)")
        sub.add_argument("--model", help="model id (default: chosen from the models the endpoint lists)")
        sub.add_argument("--base-url", help="Anthropic-compatible endpoint (default: ANTHROPIC_BASE_URL)")
        sub.add_argument("--yes", action="store_true", help="approve every command and edit without asking")
        sub.add_argument("--new", action="store_true", help="start a new session instead of resuming the last")
        sub.add_argument("--mcp-config", metavar="FILE",
                         help="MCP servers, in the mcp.json shape ({\"mcpServers\": …})")

    ask = commands.add_parser("ask", help="one agent turn: stream the answer to stdout")
    ask.add_argument("prompt")
    agent_options(ask)
    ask.set_defaults(run=_ask)

    repl = commands.add_parser("repl", help="interactive agent in the terminal (in-process)")
    agent_options(repl)
    repl.set_defaults(run=_repl)

    serve = commands.add_parser("serve", help="run the language server (the default without arguments)")
    serve.add_argument("--stdio", action="store_true", help="speak LSP over stdin/stdout (the only transport)")
    serve.set_defaults(run=_serve)

    acp = commands.add_parser("acp", help="run as an Agent Client Protocol agent on stdio (Zed, JetBrains, "
                                             "Neovim, Emacs…; see docs/acp.md)")
    acp.add_argument("--verbose", action="store_true", help="log what happens to stderr")
    acp.set_defaults(run=_acp)

    chat = commands.add_parser("chat", help="terminal chat over LSP with a spawned agentls server")
    chat.add_argument("--workspace", default=".", help="workspace folder (default: current directory)")
    chat.add_argument("--new", action="store_true", help="start a new session instead of resuming")
    chat.add_argument("--yes", action="store_true", help="approve every command and edit without asking")
    chat.add_argument("--mcp-config", metavar="FILE", help="MCP servers, in the mcp.json shape ({\"mcpServers\": …})")
    chat.set_defaults(run=_chat)

    sessions = commands.add_parser("sessions", help="list, export, import or vacuum saved conversations")
    sessions.add_argument("--workspace", default=".", help="workspace folder (default: current directory)")
    actions = sessions.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="the workspace's sessions, most recent first")
    listing.add_argument("--all", action="store_true", help="every workspace's sessions")
    export = actions.add_parser("export", help="a session as JSONL on stdout (default: the most recent)")
    export.add_argument("id", nargs="?")
    imported = actions.add_parser("import", help="a JSONL export as a new session of the workspace")
    imported.add_argument("file", help="the .jsonl file ('-' for stdin)")
    vacuum = actions.add_parser("vacuum", help="prune old sessions' stored originals and checkpoint "
                                               "contents to the size limit and give the free space back")
    vacuum.add_argument("--limit", type=float, metavar="MB",
                        help="keep at most this many MB of stored originals, and as many of "
                        "checkpoint contents (default: AGENTLS_STORE_LIMIT_MB or 1000)")
    sessions.set_defaults(run=_sessions)

    replay = commands.add_parser("replay", help="price recorded conversations under a context policy")
    replay.add_argument("traces", nargs="+", metavar="TRACE.json")
    replay.add_argument("--window", type=int, default=200_000)
    replay.add_argument("--policy", choices=("default", "seed", "anthropic", "none", "append-only"), default="default")
    replay.add_argument("--cache", choices=("anthropic", "ideal"), default="anthropic",
                        help="how requests are billed: the real prompt cache, or an ideal prefix cache")
    replay.add_argument("--breakpoints", choices=("frontier", "legacy"), default="frontier",
                        help="where cache breakpoints go (legacy: before the stable frontier existed)")
    replay.add_argument("--ttl", choices=("auto", "5m", "1h"), default="auto",
                        help="TTL of the head and frontier breakpoints (auto: from the gaps between calls)")
    replay.add_argument("--pause-every", type=int, default=0, metavar="N",
                        help="simulate a pause before every N-th call (the traces carry no clock)")
    replay.add_argument("--pause-seconds", type=float, default=900.0, metavar="S")
    replay.add_argument("--json", action="store_true")
    replay.add_argument("--ledger", metavar="FILE", help="write one JSON line per request")
    replay.add_argument("--compare", action="store_true",
                        help="seed, default and anthropic at 32K, 64K and 200K: cost ratios and outliers")
    replay.add_argument("--subagents", action="store_true",
                        help="the parent's peak and total tokens with each exploration run as a subagent, "
                        "against inline (ratios)")
    replay.add_argument("--jobs", type=int, default=1, help="processes for --compare and --model")
    replay.add_argument("--model", metavar="ID", help="compare agentls with the baselines for this model: its "
                        "prices, thinking on every reply, invalidated thinking blocks counted")
    replay.add_argument("--windows", default="32000,64000,200000", help="with --model: windows, comma-separated")
    replay.add_argument("--policies", default="", help="with --model: policies, comma-separated (default: all)")
    replay.add_argument("--thinking-chars", type=int, help="with --model: thinking per reply (default 800)")
    replay.add_argument("--no-server-editing", action="store_true",
                        help="with --model: the model does not advertise context editing")
    replay.add_argument("--no-server-compaction", action="store_true",
                        help="with --model: the model does not advertise on-demand compaction")
    replay.set_defaults(run=_replay)

    bench = commands.add_parser("bench", help="benchmarks")
    bench.add_argument("what", choices=("pipeline", "lsp", "checkpoint"),
                       help="pipeline: context pipeline time per call; lsp: first-delta latency over LSP; "
                            "checkpoint: a checkpoint on a 10,000-file workspace against git status")
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--files", type=int, default=10_000, help="checkpoint: files in the generated workspace")
    bench.add_argument("--runs", type=int, default=30, help="checkpoint: timed runs")
    bench.add_argument("--spawns", type=int, default=5, help="lsp: server starts to time, of each kind")
    bench.add_argument("--messages", type=int, default=5000, help="lsp: messages of the resumed session")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        # No arguments: an editor launched us as its language server.
        args = parser.parse_args(["serve", "--stdio"])
    return args.run(args)


def run() -> NoReturn:
    """The `agentls` command and `python -m agentls`: run a command, then end the process at once.

    A command returns when it is done: its event loops, worker threads, stores and child processes
    are closed. What the interpreter would still do is free the SDKs' thousands of modules and
    classes, most of a second of CPU at every exit of the language server (an editor waits for it
    at each restart or reload) that protects nothing. Exit handlers still run and output is flushed.
    Under a profiler, a debugger or coverage the interpreter ends as usual: they report at its end.
    """
    code = main()
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed with the protocol stream, or a reader gone
            pass
    os._exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    run()
