"""The offline demo "model": a few deterministic rules, clearly labelled.

It lets the whole product run without an API key: it asks for the files the
user names, lists or searches when asked, runs a command ("run ls -la") and
edits a file ("edit notes.md", "replace `a` with `b` in notes.md") so the
approval and diff flow can be tried, and once tool results are back it answers
in markdown with what it saw. It only calls tools the request offers, and it
reads only what the user typed: paths inside attached files are not requests.

Modules: request (reading the request), conversation (the request's conversation), answers (the labelled
replies), editing (the edit rules), memory (what may be answered from an earlier read); the other rules
and the entry point, demo_reply, are here.
"""

from __future__ import annotations

import re
from typing import Any

from ..context.compact import SUMMARY_PROMPT
from ..mock_api.script import Reply, Text
from .answers import DEMO_LABEL, describe_attachment, describe_images, describe_result, help_text, summary_reply
from .conversation import DemoConversation
from .editing import continue_edit, edit_rule
from .memory import message_blocks, normalise_path, out_of_date
from .request import QUOTED, named_paths, prompt_text, results_by_id, search_pattern, tool_uses

__all__ = ["DEMO_LABEL", "demo_reply", "named_paths"]

_LIST = re.compile(r"\blist\b|^\s*ls\b|\b(?:what|which)\s+files\b|\bshow\s+(?:me\s+)?(?:the\s+|all\s+)?files\b",
                   re.IGNORECASE)
_LIST_DIR = re.compile(r"\bfiles?\s+(?:in|under|of)\s+([\w./-]+)", re.IGNORECASE)
_RUN = re.compile(r"^\s*(?:please\s+)?run\s+(?:the\s+command\s+)?(.+?)\s*$", re.IGNORECASE | re.DOTALL)


# Each rule answers the user's text or returns None to let the next one try.

def _run_rule(text: str, chat: DemoConversation) -> Reply | None:
    match = _RUN.match(text)
    if not match:
        return None
    quoted = QUOTED.search(match.group(1))
    command = next(g for g in quoted.groups() if g) if quoted else match.group(1).splitlines()[0]
    return chat.call([("run_shell", {"command": command.strip()})], f"Running `{command.strip()}`.")


def _search_rule(text: str, chat: DemoConversation) -> Reply | None:
    pattern = search_pattern(text)
    if not pattern:
        return None
    args: dict[str, Any] = {"pattern": pattern}
    paths = [p for p in named_paths(text) if p != pattern]
    if paths:
        args["glob"] = paths[0]
    return chat.call([("grep_search", args)], f"Searching for `{pattern}`.")


def _list_rule(text: str, chat: DemoConversation) -> Reply | None:
    directory = _LIST_DIR.search(text)
    # "list the files in docs/api" lists; "what does the file README.md say" reads.
    if not _LIST.search(text) or (named_paths(text) and not directory):
        return None
    path = (normalise_path(directory.group(1).rstrip("/")) if directory else "") or "."
    return chat.call([("list_files", {"path": path})], f"Listing `{path}`.")


def _read_rule(text: str, chat: DemoConversation) -> Reply | None:
    paths = named_paths(text)
    if not paths:
        return None
    attached = chat.attached
    read_before = {normalise_path(str((u.get("input") or {}).get("path", ""))): u
                   for u in chat.uses_by_id.values() if u.get("name") == "read_file"}
    results = results_by_id(chat.messages)
    # Read (again) what was never read, what only a placeholder stands for now, and what changed since.
    unread = [p for p in paths if p not in attached and
              (p not in read_before or out_of_date(p, read_before[p], results, chat.messages))]
    if unread:
        names = ", ".join(f"`{p}`" for p in unread)
        return chat.call([("read_file", {"path": p}) for p in unread], f"Reading {names}.")
    sections = [describe_attachment(p, attached[p]) if p in attached else
                f"I read `{p}` earlier in this conversation. "
                + describe_result(read_before[p], results.get(read_before[p].get("id"), {})) for p in paths]
    return summary_reply(sections, chat.thinking)


def _summary_rule(text: str, chat: DemoConversation) -> Reply | None:
    """The core's compaction request (context/compact.py): a real, if plain, summary of the conversation —
    what the user asked and which tools ran on what — never the help text with the instruction quoted."""
    if not text.startswith(SUMMARY_PROMPT.split(":", 1)[0]):
        return None
    asked = [prompt_text(m).strip().replace("\n", " ")[:200] for m in chat.messages[:chat.prompt_index]
             if m.get("role") == "user" and prompt_text(m).strip()]
    done = []
    for use in tool_uses(chat.messages[:chat.prompt_index]):
        args = use.get("input") or {}
        subject = args.get("path") or args.get("pattern") or args.get("command") or ""
        done.append(f"`{use.get('name', '?')}` {subject}".strip())
    lines = ["The offline demo model summarises by listing what happened; it does not judge what matters."]
    lines += ["1. Goal: the user's requests, in order:", *(f"   - {item}" for item in asked or ["(none)"])]
    lines += ["2. Tool calls:", *(f"   - {item}" for item in done or ["(none)"])]
    lines.append("3. Next step: answer the user's next request.")
    return Reply([Text("<summary>\n" + "\n".join(lines) + "\n</summary>")], stop_reason="end_turn")


def demo_reply(body: dict) -> Reply:
    """The demo agent's next assistant message for a (validated) request body."""
    messages: list[dict] = body.get("messages") or []
    thinking = body.get("thinking")
    chat = DemoConversation(messages=messages,
                         offered={t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)},
                         thinking=isinstance(thinking, dict) and thinking.get("type") == "enabled")
    last = messages[-1] if messages else {"role": "user", "content": ""}
    if last.get("role") != "user":
        return Reply([Text(f"{DEMO_LABEL} (nothing to add)")], stop_reason="end_turn")

    text = prompt_text(messages[chat.prompt_index]) if messages else ""
    fresh_results = [b for b in message_blocks(last) if b.get("type") == "tool_result"]
    # Results beside typed text are those of calls a cancel cut short, followed by the user's new prompt
    # (one user message carries both): the prompt is what to answer.
    if fresh_results and chat.prompt_index != len(messages) - 1:
        follow_up = continue_edit(text, chat, fresh_results)
        if follow_up is not None:
            return follow_up
        uses_by_id = chat.uses_by_id
        return summary_reply([describe_result(uses_by_id.get(r.get("tool_use_id"), {}), r)
                               for r in fresh_results], chat.thinking, chat.opens_turn)

    for rule in (_summary_rule, _run_rule, edit_rule, _search_rule, _list_rule, _read_rule):
        reply = rule(text, chat)
        if reply is not None:
            return reply
    sections = [describe_images(chat.images)] if chat.images else []
    sections += [describe_attachment(p, t) for p, t in chat.attached.items()]
    if sections:
        return summary_reply(sections, chat.thinking)
    return Reply([Text(help_text(text))])
