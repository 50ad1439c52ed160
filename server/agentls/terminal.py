"""Terminal front ends of the agent: `agentls ask` (one turn) and `agentls repl`.

Both host the Agent in-process. Without an API key or base URL they start the
offline demo model (a local Anthropic-compatible server) and say so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from . import credentials
from .agent import events as ev
from .agent.approval import ApprovalPolicy, ApprovalRequest, auto_approve
from .agent.mcp.config import ServerConfig, parse_servers, read_mcp_json
from .agent.mcp.report import mcp_lines, tools_changed_text
from .agent.loop import Agent, AgentError
from .agent.store import SessionStore, StoreError, open_session
from .agent.transcript import transcript
from .agent.visible import visible
from .agent.workspace import Workspace
from .context import ContextConfig
from .lsp.terminal import Terminal, cost_line, model_lines, pick_session, session_lines
from .model import ModelSettings
from .model.catalog import DEMO_NOTE, Catalog, choose_model, fallback_catalog, working_window
from .model.settings import DEMO_MODEL, for_demo_model

DEMO_NOTICE = "[agentls] no ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL: using the offline demo model"


@contextlib.contextmanager
def model_settings(model: str | None, base_url: str | None) -> Iterator[ModelSettings]:
    """Settings for a real endpoint, or for the offline demo model started here."""
    settings = ModelSettings(base_url=base_url)
    if model:
        settings.model = model
    if settings.resolved_api_key() or settings.resolved_base_url():
        yield settings
        return
    from .mock_api import MockAnthropicServer

    print(DEMO_NOTICE, file=sys.stderr, flush=True)
    with MockAnthropicServer() as server:
        yield for_demo_model(settings, server.base_url)


async def choose_endpoint_model(settings: ModelSettings, configured: str | None) -> tuple[ModelSettings, Catalog]:
    """The endpoint's list (one bounded request) and the model that answers: `--model` when the
    endpoint offers it, else the default rule's model (a warning says so on stderr)."""
    from .model.models_api import fetch_catalog

    if settings.model == DEMO_MODEL:
        return settings, fallback_catalog(DEMO_NOTE)
    catalog = await fetch_catalog(settings)
    choice = choose_model(configured, catalog, "--model")
    if choice.warning:
        print(f"[agentls] {choice.warning}", file=sys.stderr, flush=True)
    names = {**settings.setting_names, "model": "--model"}
    return replace(settings, model=choice.model, catalog=catalog, setting_names=names), catalog


def context_for(settings: ModelSettings) -> ContextConfig:
    """The working window of the model (min(its window, 200K)), as the server's default."""
    return ContextConfig(window=working_window(settings.model_info(), None))


class Printer:
    """Prints agent events: text to stdout as it streams, the rest dimmed on stderr."""

    def __init__(self, out=None, err=None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.thinking = False
        self.midline = False  # streamed text without a newline yet

    def _note(self, text: str) -> None:
        print(f"\033[2m{text}\033[0m" if self.err.isatty() else text, file=self.err, flush=True)

    def __call__(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self.midline = not event.text.endswith("\n")
            return
        if self.midline and isinstance(event, (ev.ToolStart, ev.CompactionStarted, ev.ErrorEvent)):
            self.out.write("\n")
            self.out.flush()
            self.midline = False
        if isinstance(event, ev.ThinkingDelta) and not self.thinking:
            self.thinking = True
            self._note("(thinking…)")
        elif isinstance(event, ev.ToolStart):
            self._note(f"\n→ {visible(event.summary)}")
        elif isinstance(event, ev.ToolEnd):
            badge = f" [{event.marker}]" if event.marker else ""
            self._note(f"  {'✗' if event.is_error else '✓'} {event.summary} ({event.result_chars:,} chars){badge}")
        elif isinstance(event, ev.CompactionStarted):
            self._note(f"[compacting the conversation ({event.reason})…]")
        elif isinstance(event, ev.CompactionFinished):
            self._note(f"[compacted: {event.tokens_before:,} → {event.tokens_after:,} tokens]")
        elif isinstance(event, ev.RetryEvent):
            self._note(f"[retrying in {event.delay_seconds:.1f}s: {event.reason}]")
        elif isinstance(event, ev.ToolsChanged):
            self._note(f"[{tools_changed_text(event.added, event.removed)}]")
        elif isinstance(event, ev.ErrorEvent):
            self._note(f"[error] {event.message}")


def terminal_asker(stream_in=None, stream_err=None):
    async def ask(request: ApprovalRequest) -> bool:
        err = stream_err or sys.stderr
        if request.kind == "shell":
            question = f"Run `{visible(request.command or '')}`?"
        elif request.kind == "mcp":
            print(visible(request.input or ""), file=err)
            question = f"Call {visible(request.tool or '')} on MCP server '{visible(request.server or '')}'?"
        else:
            if request.diff:
                print(visible(request.diff), file=err)
            question = f"{request.kind.title()} {visible(request.path or '')}?"
        print(f"{question} [y/N] ", end="", file=err, flush=True)
        reader = stream_in or sys.stdin
        answer = await asyncio.to_thread(reader.readline)
        return answer.strip().lower() in ("y", "yes")

    return ask


def usage_prompt(usage: dict[str, Any]) -> str:
    def k(n: int) -> str:
        return f"{n / 1000:.0f}K" if n >= 1000 else str(n)

    return f"[{usage['utilization'] * 100:.0f}% · {k(usage['used'])}/{k(usage['window'])}] > "


def build_agent(workspace: Path, settings: ModelSettings, yes: bool, new: bool, mcp_config: str | None = None) -> Agent:
    approve = auto_approve if yes else ApprovalPolicy(terminal_asker())
    session = open_session(workspace, new=new)  # never fails; damage is noted at the first turn
    return Agent(Workspace([workspace]), settings, context=context_for(settings), approve=approve, session=session,
                 mcp_servers=_mcp_servers(mcp_config))


def _mcp_servers(path: str | None) -> tuple[ServerConfig, ...]:
    if not path:
        return ()
    try:
        servers, problems = parse_servers(read_mcp_json(path))
    except (OSError, ValueError) as error:
        raise SystemExit(f"agentls: --mcp-config: {error}") from None
    for problem in problems:
        print(f"agentls: {problem}", file=sys.stderr)
    return servers


def _workspace(arg: str) -> Path:
    path = Path(arg).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"agentls: workspace {arg!r} is not a folder")
    return path


async def _ask(args) -> int:
    workspace = _workspace(args.workspace)
    with model_settings(args.model, args.base_url) as settings:
        settings, _ = await choose_endpoint_model(settings, args.model)
        agent = build_agent(workspace, settings, args.yes, args.new, getattr(args, "mcp_config", None))
        try:
            result = await agent.run_turn(args.prompt, Printer())
            print()
            return 0 if result.stop_reason != "error" else 1
        except AgentError as error:
            print(f"\nagentls: {error}", file=sys.stderr)
            return 1
        finally:
            await agent.aclose()


def run_ask(args) -> int:
    credentials.take_from_environment()  # the agent's shell commands are our children
    return asyncio.run(_ask(args))


async def _command(agent: Agent, line: str, printer: Printer, catalog: Catalog | None = None) -> None:
    name, _, rest = line.partition(" ")
    if name == "/compact":
        result = await agent.compact(rest.strip() or None, printer)
        print(f"compacted: {result.tokens_before:,} → {result.tokens_after:,} tokens")
    elif name == "/cost":
        print(cost_line(agent.cost()))
    elif name == "/model":
        _model_command(agent, rest.strip(), catalog or agent.model_settings.catalog or fallback_catalog())
    elif name in ("/clear", "/new"):
        agent.clear(open_session(agent.workspace.roots[0], new=True))
        print("new conversation (the old one stays saved: /sessions lists it)")
    elif name == "/sessions":
        listed = _sessions(agent, rest.strip())
        print("\n".join(session_lines(listed, time.time())))
    elif name == "/resume":
        session_id = pick_session(_sessions(agent, ""), rest)
        if session_id is None:
            print("/resume N (a number from /sessions) or a session id")
            return
        try:
            agent.resume(open_session(agent.workspace.roots[0], session_id=session_id))
        except StoreError as error:
            print(f"cannot resume: {error}")
            return
        print(f"resumed {session_id}")
        terminal = Terminal()
        terminal.transcript(transcript(agent.history()))
    elif name == "/context":
        print(json.dumps(agent.context(), indent=1))
    elif name == "/mcp":
        await agent.mcp.refresh(retry_failed=True)
        print("\n".join(mcp_lines(agent.mcp.status(), agent.tool_list_changes)))
    else:
        print("commands: /compact [instructions], /cost, /model [ID], /new (or /clear), /sessions [words], "
              "/resume N|ID, /context, /mcp, /quit")


def _model_command(agent: Agent, choice: str, catalog: Catalog) -> None:
    """`/model` lists the endpoint's models (what agent/models answers); `/model ID` switches."""
    from .lsp.methods.models import listing

    settings = agent.model_settings
    if choice:
        if settings.model == DEMO_MODEL:
            print("the offline demo model answers (no API key): set ANTHROPIC_API_KEY to choose a model")
            return
        picked = choose_model(choice, catalog, "/model")
        if picked.warning:
            print(picked.warning)
        new = replace(settings, model=picked.model)
        agent.reconfigure(new, context_for(new))
        print(f"model: {picked.model} (from the next message)")
        return
    configured = "" if settings.model == DEMO_MODEL else settings.model
    print("\n".join(model_lines(listing(catalog, settings.model, configured, settings.model == DEMO_MODEL,
                                         settings.prices))))


def _sessions(agent: Agent, query: str) -> list[dict[str, Any]]:
    """This workspace's sessions as agent/sessions lists them (the REPL has no server to ask)."""
    store = SessionStore.open()
    try:
        infos = store.sessions(agent.workspace.roots[0])
    finally:
        store.close()
    current = agent.session.id if agent.session is not None else None
    listed = [{"id": i.id, "title": i.title or "(untitled)", "updated": i.updated, "turns": i.turns,
               "costUsd": i.cost_usd, "current": i.id == current, "inUse": i.in_use and i.id != current}
              for i in infos]
    words = query.lower().split()
    return [s for s in listed if all(w in s["title"].lower() or w in s["id"] for w in words)]


async def _repl(args) -> int:
    workspace = _workspace(args.workspace)
    with model_settings(args.model, args.base_url) as settings:
        settings, catalog = await choose_endpoint_model(settings, args.model)
        agent = build_agent(workspace, settings, args.yes, args.new, getattr(args, "mcp_config", None))
        printer = Printer()
        loop = asyncio.get_running_loop()
        print(f"agentls — {workspace} — session {agent.session.id}; /quit to leave", file=sys.stderr)
        try:
            while True:
                print(usage_prompt(agent.context_usage()), end="", flush=True)
                line = await asyncio.to_thread(sys.stdin.readline)
                if not line:
                    break
                line = line.strip()
                if not line:
                    continue
                if line in ("/quit", "/exit"):
                    break
                try:
                    if line.startswith("/"):
                        await _command(agent, line, printer, catalog)
                        continue
                    turn = asyncio.ensure_future(agent.run_turn(line, printer))
                    with contextlib.suppress(NotImplementedError, RuntimeError):
                        loop.add_signal_handler(signal.SIGINT, turn.cancel)  # Ctrl-C stops the turn
                    try:
                        await turn
                    finally:
                        with contextlib.suppress(NotImplementedError, RuntimeError):
                            loop.remove_signal_handler(signal.SIGINT)
                    print()
                except asyncio.CancelledError:
                    print("\n[stopped]")
                except AgentError as error:
                    print(f"\n[error] {error}", file=sys.stderr)
        finally:
            await agent.aclose()
    return 0


def run_repl(args) -> int:
    credentials.take_from_environment()
    return asyncio.run(_repl(args))

