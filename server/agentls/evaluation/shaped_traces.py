"""Generated sessions shaped like harnesses the shared traces do not cover (issue 31's held-out kinds).

The 49 shared traces are mostly SWE-style sessions of a few harnesses. Sessions of other harnesses differ:
many small shell calls (Codex), a few huge MCP results (Gemini CLI), long assistant prose, whole files
written in tool inputs (Cline, Roo), a short session that fits any window, several user prompts, results
sent back as user text (classic Cline: no tool_use blocks), whole files written in a reply's own text. Each
generator here builds one such session from a seed, in the trace format ``agentls replay`` reads, with
replies that name what earlier results showed (paths, symbols) at every distance back, so reference recall
has something to measure. `write_traces` writes one file per shape; the policy test replays them all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

Message = dict[str, Any]


class SessionBuilder:
    """Appends turns in the API's shape and remembers the distinctive names each result showed."""

    def __init__(self, seed: int, task: str) -> None:
        self.rng = random.Random(seed)
        self.messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": task}]}]
        self.shown: list[list[str]] = []  # per result, in order: the names it showed
        self._calls = 0
        self._names = 0

    def name(self, kind: str = "module") -> str:
        self._names += 1
        return f"{kind}_{self.rng.choice(['alpha', 'delta', 'sigma', 'omega', 'kappa'])}_{self._names:04d}"

    def body(self, chars: int, names: list[str]) -> str:
        """A result of about `chars` characters: numbered source-like lines, the names spread through it."""
        lines, size, n = [], 0, 0
        while size < chars:
            n += 1
            named = names[n % len(names)] if names and n % 7 == 1 else "value"
            line = f"{n:5}  let v{n % 13} = compute({named}, {self.rng.randint(0, 9999)}) // step {n}"
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)

    def recall_words(self) -> list[str]:
        """Names a reply picks from earlier results: mostly recent, often far back (37% of real references)."""
        if not self.shown or self.rng.random() < 0.4:
            return []
        far = self.rng.random() < 0.37
        back = self.rng.randint(1, len(self.shown) if far else min(3, len(self.shown)))
        return self.shown[-back][:2]

    def prose(self, chars: int) -> str:
        picked = self.recall_words()
        filler = "Looking at the code, the change belongs where the handler reads its settings. "
        named = f"{' and '.join(picked)} matter here. " if picked else ""
        return named + (filler * (chars // len(filler) + 1))[:chars]

    def turn(self, calls: list[tuple[str, dict[str, Any], int]], prose_chars: int = 120, context: str = "") -> None:
        """One assistant message making `calls` (name, input, result size) and the user message of results."""
        text = self.prose(prose_chars)
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        results: list[dict[str, Any]] = []
        for tool, tool_input, size in calls:
            self._calls += 1
            tool_use_id = f"toolu_shape_{self._calls:05d}"
            names = [self.name(), self.name("path/src")]
            content.append({"type": "tool_use", "id": tool_use_id, "name": tool, "input": tool_input})
            results.append({"type": "tool_result", "tool_use_id": tool_use_id, "content": self.body(size, names)})
            self.shown.append(names)
        self.messages.append({"role": "assistant", "content": content})
        extra = [{"type": "text", "text": context}] if context else []  # what a harness appends to every turn
        self.messages.append({"role": "user", "content": results + extra})

    def answer(self, chars: int, next_prompt: str | None = None) -> None:
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": self.prose(chars)}]})
        if next_prompt:
            self.messages.append({"role": "user", "content": [{"type": "text", "text": next_prompt}]})

    def trace(self, trace_id: str) -> dict[str, Any]:
        return {"id": trace_id, "source": {"harness": "generated"}, "messages": self.messages}


def many_small_shell_calls(seed: int) -> dict[str, Any]:
    """A Codex-like rollout: 160 shell calls of 100–2,500 characters, one call per turn, terse replies."""
    s = SessionBuilder(seed, "Fix the failing build in the payments service.")
    for i in range(160):
        s.turn([("shell", {"command": ["bash", "-lc", f"sed -n {i},{i + 40}p src/lib.rs"]},
                 s.rng.randint(100, 2_500))], prose_chars=s.rng.randint(0, 200))
    s.answer(400)
    return s.trace("shape-codex-small-shell")


def few_huge_mcp_results(seed: int) -> dict[str, Any]:
    """A Gemini-CLI-like session: small calls, then three MCP results of 150K–496K characters."""
    s = SessionBuilder(seed, "Summarise what the design documents say about retries.")
    for i in range(24):
        size = [150_000, 496_000, 220_000][i // 8] if i % 8 == 3 else s.rng.randint(200, 3_000)
        s.turn([("mcp__docs__fetch", {"url": f"https://docs.example/{i}"}, size)], prose_chars=300)
    s.answer(1_500)
    return s.trace("shape-gemini-huge-mcp")


def long_assistant_prose(seed: int) -> dict[str, Any]:
    """Replies of 2–6K characters of prose between a few medium reads, over four user prompts."""
    s = SessionBuilder(seed, "Explain the architecture of this repository.")
    for prompt in range(4):
        for _ in range(8):
            s.turn([("read_file", {"path": f"docs/part{prompt}.md"}, s.rng.randint(2_000, 9_000))],
                   prose_chars=s.rng.randint(2_000, 6_000))
        s.answer(4_000, next_prompt=f"Now go deeper into part {prompt + 1}.")
    s.answer(3_000)
    return s.trace("shape-long-prose")


def whole_files_in_inputs(seed: int) -> dict[str, Any]:
    """A Cline/Roo-like session: reads of 5–15K characters, whole files written back in tool inputs, and
    the same files read again (an 87K-token session uncapped)."""
    s = SessionBuilder(seed, "Port the settings page to the new component library.")
    for i in range(30):
        path = f"src/Settings{i % 6}.cs"
        if i % 3 == 2:
            content = s.body(s.rng.randint(4_000, 12_000), [s.name()])
            s.turn([("write_to_file", {"path": path, "content": content}, 120)], prose_chars=400)
        else:
            s.turn([("read_file", {"path": path}, s.rng.randint(5_000, 15_000))], prose_chars=300)
    s.answer(800)
    return s.trace("shape-cline-whole-files")


def environment_every_turn(seed: int) -> dict[str, Any]:
    """A Roo-like session: every result message also carries ~1.5K characters of environment details (open
    tabs, time, running terminals) that change each turn, and many tiny results (a confirmation, a count)."""
    s = SessionBuilder(seed, "Make the exporter write CSV as well as JSON.")
    for i in range(50):
        tabs = "\n".join(f"src/export/file{j}.ts" for j in range(40))
        details = f"<environment_details>\n# Open tabs\n{tabs}\n# Current time\n10:{i:02d}\n</environment_details>"
        size = s.rng.choice([40, 60, 90, s.rng.randint(2_000, 12_000)])
        s.turn([("execute_command", {"command": f"npm test -- -t case{i}"}, size)], prose_chars=250, context=details)
    s.answer(900)
    return s.trace("shape-roo-environment")


def short_session(seed: int) -> dict[str, Any]:
    """A session of about 40K tokens: fits a 200K window; nothing should be rewritten there."""
    s = SessionBuilder(seed, "Add a --verbose flag to the CLI.")
    for _ in range(14):
        s.turn([("read_file", {"path": "cli.py"}, s.rng.randint(3_000, 16_000))], prose_chars=200)
    s.answer(600)
    return s.trace("shape-short-fits")


def several_prompts(seed: int) -> dict[str, Any]:
    """Six user prompts, each a short burst of parallel calls: the work of one task after another."""
    s = SessionBuilder(seed, "First: rename the logger module.")
    for prompt in range(6):
        for _ in range(5):
            s.turn([("grep", {"pattern": s.name()}, s.rng.randint(300, 4_000)),
                    ("read_file", {"path": "x.py"}, s.rng.randint(1_000, 8_000))], prose_chars=150)
        s.answer(700, next_prompt=f"Next task {prompt + 2}: update the callers.")
    s.answer(500)
    return s.trace("shape-several-prompts")


def results_as_user_text(seed: int) -> dict[str, Any]:
    """A classic Cline session: no tool_use blocks; each reply ends in an XML tool call written as text and
    the harness answers with a user message of the result as text, beside its environment details."""
    s = SessionBuilder(seed, "<task>\nPort the settings page.\n</task>")
    for i in range(40):
        names = [s.name(), s.name("path/src")]
        s.shown.append(names)
        call = f"\n<read_file>\n<path>src/File{i}.cs</path>\n</read_file>"
        s.messages.append({"role": "assistant", "content": [{"type": "text", "text": s.prose(300) + call}]})
        size = s.rng.choice([60, s.rng.randint(2_000, 12_000)])
        tabs = "\n".join(f"src/File{j}.cs" for j in range(40))
        s.messages.append({"role": "user", "content": [
            {"type": "text", "text": f"[read_file for 'src/File{i}.cs'] Result:"},
            {"type": "text", "text": s.body(size, names)},
            {"type": "text", "text": f"<environment_details>\n# Open tabs\n{tabs}\n# Time\n10:{i:02d}\n"
                                     "</environment_details>"}]})
    s.answer(500)
    return s.trace("shape-results-as-user-text")


def text_protocol_whole_files(seed: int) -> dict[str, Any]:
    """A Roo-style session in the same text protocol: reads of 5–15K characters answered as user text, and
    every third reply writes a whole file of 4–12K characters in its own text (``<write_to_file>``)."""
    s = SessionBuilder(seed, "<task>\nPort the settings page to the new component library.\n</task>")
    tabs = "\n".join(f"src/Settings{j}.cs" for j in range(6))
    for i in range(30):
        path = f"src/Settings{i % 6}.cs"
        names = [s.name(), s.name("path/src")]
        s.shown.append(names)
        if i % 3 == 2:
            content = s.body(s.rng.randint(4_000, 12_000), [s.name()])
            call = f"<write_to_file>\n<path>{path}</path>\n<content>\n{content}\n</content>\n</write_to_file>"
            text = s.prose(400) + "\n" + call
            result = f"[write_to_file for '{path}'] Result:\nThe content was successfully saved to {path}."
        else:
            text = s.prose(300) + f"\n<read_file>\n<path>{path}</path>\n</read_file>"
            result = f"[read_file for '{path}'] Result:\n" + s.body(s.rng.randint(5_000, 15_000), names)
        environment = (f"<environment_details>\n# VSCode Open Tabs\n{tabs}\n# Current Time\n10:{i:02d}\n"
                       "</environment_details>")
        s.messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        s.messages.append({"role": "user", "content": [{"type": "text", "text": result},
                                                        {"type": "text", "text": environment}]})
    s.answer(800)
    return s.trace("shape-text-protocol-whole-files")


def server_tools_in_replies(seed: int) -> dict[str, Any]:
    """An agent on the API's own web tools (Claude Managed Agents, the API's web_fetch / web_search): each reply
    fetches a page of 12–24K characters, the API answers inside the reply itself (`server_tool_use`, then its
    `web_fetch_tool_result` in the same assistant message), and the reply goes on to a client shell call."""
    s = SessionBuilder(seed, "Compare how the three HTTP client libraries retry, and patch ours to match.")
    for i in range(30):
        fetch_id, names = f"srvtoolu_shape_{i:05d}", [s.name(), s.name("path/docs")]
        page = s.body(s.rng.randint(12_000, 24_000), names)
        s.shown.append(names)
        fetched = {"type": "web_fetch_result", "url": f"https://docs.example/http/{i}", "retrieved_at": "2026-12-01",
                   "content": {"type": "document", "title": f"Retries part {i}",
                               "source": {"type": "text", "media_type": "text/plain", "data": page}}}
        opening = [{"type": "text", "text": s.prose(200)},
                   {"type": "server_tool_use", "id": fetch_id, "name": "web_fetch",
                    "input": {"url": f"https://docs.example/http/{i}"}},
                   {"type": "web_fetch_tool_result", "tool_use_id": fetch_id, "content": fetched}]
        s.messages.append({"role": "assistant", "content": opening})
        s.turn([("bash", {"command": f"grep -rn retry src/client{i % 4}.py"}, s.rng.randint(200, 1_500))],
               prose_chars=150)
        opening.extend(s.messages.pop(-2)["content"])  # the reply's words and shell call follow its fetch
    s.answer(900)
    return s.trace("shape-server-tools-in-replies")


SHAPES: tuple[Callable[[int], dict[str, Any]], ...] = (
    many_small_shell_calls, few_huge_mcp_results, long_assistant_prose, whole_files_in_inputs,
    environment_every_turn, short_session, several_prompts, results_as_user_text, text_protocol_whole_files,
    server_tools_in_replies)


def write_traces(directory: Path, seed: int = 7) -> list[Path]:
    """One trace file per shape in `directory`; the paths, in SHAPES order."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, shape in enumerate(SHAPES):
        trace = shape(seed * 100 + index)
        path = directory / f"{trace['id']}.json"
        path.write_text(json.dumps(trace), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":  # python -m agentls.evaluation.shaped_traces DIR: then agentls replay --compare DIR/*.json
    import sys

    for written in write_traces(Path(sys.argv[1] if len(sys.argv) > 1 else "shaped-traces")):
        print(written)
