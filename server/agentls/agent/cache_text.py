"""The cache report as plain lines, for the text front ends (the terminal's /cost and /context, ACP's).

The panel formats the same report itself (client-vscode/src/shared/format.ts); the
figures and the words for each reason come from agent/cache_report.py in both.
Each line is an item: the front end adds its bullet or indent.
"""

from __future__ import annotations

from .cache_report import CacheMiss, CacheReport, RequestCache

TERMINAL_ROWS = 10  # per-request rows /cost prints (the report holds more; the panel shows them all)


def _tokens(miss: CacheMiss) -> str:
    return f", {miss.missed_tokens:,} tokens not read from cache" if miss.missed_tokens is not None else ""


def request_line(request: RequestCache) -> str:
    line = (f"request {request.number} ({request.model}): {request.cache_read_tokens:,} read / "
            f"{request.cache_write_tokens:,} written")
    if request.miss is not None:
        line += f" — missed: {request.miss.text}{_tokens(request.miss)}"
    if request.thinking_dropped:
        line += f" — {request.thinking_dropped} thinking block(s) dropped"
    return line


def dropped_line(report: CacheReport) -> str:
    reasons = ", ".join(f"{item.text} ×{item.count}" for item in report.thinking_dropped)
    return f"Thinking dropped by the API: {report.dropped_blocks} block(s)" + (f" ({reasons})" if reasons else "")


def miss_totals(report: CacheReport) -> list[str]:
    return [f"{item.text}: {item.count}×" + (f", {item.missed_tokens:,} tokens not read from cache"
                                             if item.missed_tokens else "") for item in report.misses]


def cost_lines(report: CacheReport, rows: int = TERMINAL_ROWS) -> list[str]:
    """/cost: the misses by reason, then the last requests with their reads, writes and reason."""
    missed = sum(item.count for item in report.misses)
    lines = [f"Prompt cache misses: {missed} of {report.total_requests} requests", *miss_totals(report)]
    lines += [request_line(request) for request in report.requests[-rows:]]
    if report.thinking_dropped:
        lines.append(dropped_line(report))
    return lines


def context_lines(report: CacheReport) -> list[str]:
    """/context's Cache section: the last misses and the thinking the API dropped."""
    lines = [f"last miss: {request_line(request)}" for request in report.recent_misses] or ["no cache miss diagnosed"]
    lines.append(dropped_line(report))
    if report.thinking_let_through:
        lines.append(f"Thinking that failed a binding check but was shown to the model: {report.thinking_let_through}")
    if report.server_edits:
        lines.append(f"Server-side context edits applied: {report.server_edits}")
    return lines
