"""How `agentls chat` shows things on a terminal: streamed text, tool lines, the status prompt."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from ..agent.mcp.report import tools_changed_text
from ..agent.visible import visible


def _k(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    return f"{tokens / 1000:.0f}K" if tokens >= 10_000 else f"{tokens / 1000:.1f}K"


class Terminal:
    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.color = out.isatty()
        self.usage: dict[str, Any] | None = None
        self._mid_line = False
        self._thinking = False

    # ---- pieces ------------------------------------------------------------

    def _style(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def line(self, text: str, style: str = "") -> None:
        """A line of its own (after ending any streamed text)."""
        if self._mid_line:
            self.write("\n")
        self.write((self._style(text, style) if style else text) + "\n")

    def end_turn(self) -> None:
        if self._mid_line:
            self.write("\n")
        self._thinking = False

    def prompt(self) -> str:
        """`[42% 84K/200K] > ` from the last agent/contextUsage."""
        if not self.usage:
            return "> "
        percent = round(self.usage.get("utilization", 0) * 100)
        status = f"[{percent}% {_k(self.usage.get('used', 0))}/{_k(self.usage.get('window', 0))}]"
        if self.usage.get("demo"):
            status += " demo"
        level = self.usage.get("level")
        styled = self._style(status, {"warn": "33", "high": "31"}.get(level, "2"))
        return f"{styled} > "

    # ---- agent/event ---------------------------------------------------------

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "textDelta":
            if self._thinking:
                self._thinking = False
                self.line("")
            self.write(event.get("text", ""))
        elif kind == "thinkingDelta":
            if not self._thinking:
                self._thinking = True
                self.line("thinking…", "2")
        elif kind == "toolStart":
            self.line(f"  ⏺ {visible(str(event.get('summary') or event.get('tool')))}", "36")
        elif kind == "toolEnd":
            mark = "✗" if event.get("isError") else "✓"
            note = f" [{event['marker']}]" if event.get("marker") else ""
            self.line(f"    {mark} {event.get('summary', '')}{note}", "31" if event.get("isError") else "2")
        elif kind == "retry":
            self.line(f"  ↻ retry {event.get('attempt')} in {event.get('delaySeconds', 0):.1f}s: "
                      f"{event.get('reason', '')}", "33")
        elif kind == "compactionStarted":
            self.line(f"  ⋯ compacting the conversation ({event.get('reason')})", "2")
        elif kind == "compactionFinished":
            self.line(f"  ⋯ compacted: {_k(event.get('tokensBefore', 0))} → {_k(event.get('tokensAfter', 0))}", "2")
        elif kind == "toolsChanged":
            self.line(f"  ⋯ {tools_changed_text(event.get('added', []), event.get('removed', []))}", "2")
        elif kind == "error":
            self.line(f"  ! {event.get('message', '')}", "31")

    # ---- answers to commands ------------------------------------------------------

    def cost(self, cost: dict[str, Any]) -> None:
        self.line(cost_line(cost))

    def models(self, listing: dict[str, Any]) -> None:
        """`/model`: the agent/models list, the answering model marked."""
        for row in model_lines(listing):
            self.line(row)

    def context(self, context: dict[str, Any]) -> None:
        self.line(f"{context['used']:,} of {context['effectiveWindow']:,} tokens "
                  f"({context['utilization']:.0%}, {context['level']}) · window {context['window']:,}"
                  + (" · demo model" if context.get("demo") else f" · {context.get('model', '')}"))
        for name, tokens in context["categories"].items():
            self.line(f"  {name:<12} {tokens:>9,}")
        for layer in context["layers"]:
            if layer["count"]:
                self.line(f"  {layer['layer']:<12} {layer['count']:>4}× saved {layer['tokensSaved']:,} tokens", "2")
        for server in context.get("mcpTools", []):
            self.line(f"  mcp {server['server']:<8} {server['tools']:>4} tools {server['tokens']:>7,} tokens", "2")
        if context.get("toolListChanges"):
            self.line(f"  {context['toolListChanges']} tool-list change(s): each one prompt-cache break", "2")
        if context["placeholders"]:
            self.line(f"  {len(context['placeholders'])} placeholders (re-readable via context://…)", "2")

    def sessions(self, sessions: list[dict[str, Any]]) -> None:
        for line in session_lines(sessions, time.time()):
            self.line(line)

    def transcript(self, entries: list[dict[str, Any]], last: int = 6) -> None:
        """The end of a resumed conversation, so the user knows where it stands."""
        if len(entries) > last:
            self.line(f"  … {len(entries) - last} earlier messages", "2")
        for entry in entries[-last:]:
            who = "you" if entry["role"] == "user" else "agent"
            text = " ".join(entry["text"].split())
            self.line(f"  {who}: {text[:160]}{'…' if len(text) > 160 else ''}", "2" if who == "agent" else "")
            for tool in entry.get("tools", []):
                self.line(f"    ⏺ {tool['summary']}", "36")

    def approval(self, params: dict[str, Any]) -> None:
        if params.get("kind") == "shell":
            self.line(f"  ? run: {visible(str(params.get('command')))}", "33")
        elif params.get("kind") == "mcp":
            self.line(f"  ? call {visible(str(params.get('tool')))} on MCP server "
                      f"'{visible(str(params.get('server')))}'", "33")
            for row in visible(str(params.get("input") or "")).splitlines()[:40]:
                self.line(f"    {row}", "2")
        else:
            self.line(f"  ? {visible(str(params.get('kind')))} {visible(str(params.get('path')))}", "33")
            for row in visible(str(params.get("diff") or "")).split("\n")[:60]:
                self.line(f"    {row}", "32" if row.startswith("+") else "31" if row.startswith("-") else "2")


def dollars(cost: dict[str, Any]) -> str:
    """"$0.1234", or "price unknown" for the part no price covers (tokens are still counted)."""
    unpriced = cost.get("unpricedModels") or []
    if not unpriced:
        return f"${cost['usd']:.4f}"
    unknown = f"price unknown for {', '.join(unpriced)}"
    return f"${cost['usd']:.4f} + {unknown}" if cost["usd"] else unknown


def cost_line(cost: dict[str, Any]) -> str:
    """`/cost` (agent/cost) on one line."""
    return (f"{cost['requests']} requests · {cost['inputTokens']:,} in / {cost['outputTokens']:,} out tokens "
            f"· cache {cost['cacheReadTokens']:,} read / {cost['cacheWriteTokens']:,} written "
            f"(TTL {cost.get('cacheTtl', '5m')}, {cost.get('cacheWrite1hTokens', 0):,} for 1 h) "
            f"· {dollars(cost)} ({cost['model']})")


def _price(model: dict[str, Any]) -> str:
    if model.get("inputPerMTok") is None or model.get("outputPerMTok") is None:
        return "price unknown"
    return f"${model['inputPerMTok']:g}/${model['outputPerMTok']:g} per MTok"


def model_lines(listing: dict[str, Any]) -> list[str]:
    """`/model`: whose list it is, one line per model (window, output limit, thinking, price)."""
    if listing.get("source") == "endpoint":
        lines = ["models offered by the endpoint:"]
    else:
        lines = [f"offline list ({listing.get('note') or 'the endpoint lists no models'}):"]
    current = listing.get("current")
    for model in listing.get("models", []):
        window = f"{_k(model['contextWindow'])} window" if model.get("contextWindow") else "window unknown"
        output = f" · {_k(model['maxOutput'])} out" if model.get("maxOutput") else ""
        mark = "*" if model["id"] == current else " "
        lines.append(f" {mark} {model['id']:<28} {window}{output} · thinking {model.get('thinking', 'none')} "
                     f"· {_price(model)}")
    if current and all(m["id"] != current for m in listing.get("models", [])):
        lines.append(f" * {current} (answering now)")
    configured = listing.get("configured")
    if configured and configured != current:
        lines.append(f"configured: {configured} (not offered: {current} answers)")
    lines.append("/model ID switches to another model")
    return lines


def _ago(seconds: float, now: float) -> str:
    if not seconds:
        return "not started"
    gap = max(0, now - seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if gap >= size:
            return f"{int(gap // size)} {unit} ago"
    return "just now"


def session_lines(sessions: list[dict[str, Any]], now: float) -> list[str]:
    """`/sessions`: one numbered line each; `/resume N` (or an id) picks one."""
    if not sessions:
        return ["no conversations yet"]
    lines = []
    for number, s in enumerate(sessions, 1):
        mark = " (this chat)" if s.get("current") else " (open in another window)" if s.get("inUse") else ""
        lines.append(f"{number:>3}. {s['title'][:60]:<60} {_ago(s['updated'], now):>12} · {s['turns']} turns"
                     f" · ${s['costUsd']:.2f} · {s['id']}{mark}")
    return lines


def pick_session(sessions: list[dict[str, Any]], choice: str) -> str | None:
    """The id a `/resume` argument names: a number from the last list, an id or a unique id prefix."""
    choice = choice.strip()
    if choice.isdigit() and 1 <= int(choice) <= len(sessions):
        return sessions[int(choice) - 1]["id"]
    matches = [s["id"] for s in sessions if s["id"].startswith(choice)] if choice else []
    return matches[0] if len(matches) == 1 else None
