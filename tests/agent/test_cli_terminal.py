"""`agentls ask` and `agentls repl` as a user runs them, against the offline demo model (and a mock endpoint)."""

import os
import subprocess
from forkserver import agentls_command


def run(args, tmp_path, stdin=None, env=None):
    base = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    env = {**base, **(env or {}), "AGENTLS_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run([*agentls_command(), *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120)


def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# Demo\nThe build uses make.\n")
    return root


def test_ask_reads_a_real_file_with_the_demo_model(tmp_path):
    root = workspace(tmp_path)
    done = run(["ask", "What does README.md say?", "--workspace", str(root)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[demo model — offline, no API key]" in done.stdout
    assert "The build uses make." in done.stdout
    assert "offline demo model" in done.stderr and "read_file README.md" in done.stderr


def test_ask_on_a_missing_workspace_fails_clearly(tmp_path):
    done = run(["ask", "hi", "--workspace", str(tmp_path / "nope")], tmp_path)
    assert done.returncode != 0 and "is not a folder" in done.stderr


def test_repl_commands_and_utilization_prompt(tmp_path):
    root = workspace(tmp_path)
    lines = "What does README.md say?\n/cost\n/context\n/compact keep it short\n/clear\n/quit\n"
    done = run(["repl", "--workspace", str(root)], tmp_path, stdin=lines)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "The build uses make." in out
    assert "requests" in out and "$0.0000" in out  # /cost: the demo model is free
    assert "toolResults" in out  # /context: the categories (the same view as `agentls chat`)
    assert "compacted:" in out  # /compact
    assert "new conversation" in out  # /clear
    assert "% · " in out and "/180K demo] > " in out  # utilization in the prompt: over the usable window


def test_repl_sessions_and_resume(tmp_path):
    root = workspace(tmp_path)
    lines = "What does README.md say?\n/new\nlist the files\n/sessions\n/resume 2\n/sessions\n/quit\n"
    done = run(["repl", "--workspace", str(root)], tmp_path, stdin=lines)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    listed = out.split("list the files", 1)[-1]
    assert "1. list the files" in listed and "(this chat)" in listed
    assert "2. What does README.md say?" in listed
    assert "resumed " in out and "you: What does README.md say?" in out and "⏺ read_file README.md" in out
    after = out.rsplit("resumed ", 1)[1]
    assert "What does README.md say?" in after.split("(this chat)")[0].rsplit("\n", 2)[-1] or \
        any(line.startswith("  1. What does README.md say?") and "(this chat)" in line for line in after.splitlines())


def test_repl_resume_shows_the_transcript_of_record_with_its_divider(tmp_path):
    """/resume shows what was seen: the prompt, the card with the tool's own summary, the compaction
    divider (never the summary as a message of the user)."""
    root = workspace(tmp_path)
    (root / "README.md").write_text("# Demo\n" + "".join(f"The build step {i} uses make.\n" for i in range(60)))
    lines = "What does README.md say?\n/compact\n/new\n/resume 2\n/quit\n"
    done = run(["repl", "--workspace", str(root)], tmp_path, stdin=lines)
    assert done.returncode == 0, done.stderr
    after = done.stdout.rsplit("resumed ", 1)[1]
    assert "you: What does README.md say?" in after
    assert "⏺ Read README.md" in after  # the card's own summary, not "read_file README.md"
    assert "── compacted: " in after and "(manual) ──" in after
    assert "Conversation summary" not in after


def test_repl_slash_model_lists_the_endpoints_models_and_switches(tmp_path):
    from agentls.demo.brain import demo_reply
    from agentls.mock_api import MockAnthropicServer, Reply, Text, mock_model

    root = workspace(tmp_path)
    models = [mock_model("acme-sonnet-9", window=750_000, max_tokens=64_000, thinking=("enabled",)),
              mock_model("acme-deep-9", window=1_000_000, max_tokens=128_000, thinking=("adaptive",))]
    with MockAnthropicServer(models=models, responder=demo_reply) as api:
        api.script(Reply([Text("one")]), Reply([Text("two")]))
        env = {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-ant-repl-test"}
        lines = "/model\nfirst\n/model claude-opus-4-1\n/model acme-deep-9\nsecond\n/cost\n/quit\n"
        done = run(["repl", "--workspace", str(root), "--model", "claude-gone-1"], tmp_path, stdin=lines, env=env)
        bodies = api.message_bodies
    assert done.returncode == 0, done.stderr
    # a --model the endpoint does not list: warned at start, never sent
    assert "'claude-gone-1' (setting --model) is not offered" in done.stderr
    out = done.stdout
    assert "models offered by the endpoint:" in out and " * acme-sonnet-9" in out
    assert "750K window · 64K out · thinking manual · price unknown" in out
    assert "'claude-opus-4-1' (setting /model) is not offered" in out
    assert [b["model"] for b in bodies] == ["acme-sonnet-9", "acme-deep-9"]
    assert bodies[1]["thinking"]["type"] == "adaptive" and "budget_tokens" not in str(bodies[1])
    assert "price unknown for acme-sonnet-9, acme-deep-9" in out
    assert "/180K] > " in out  # the working window: min(750K, 200K), less the output reserve (one meter)


def test_repl_custom_commands_always_rules_tasks_and_permissions(tmp_path):
    """Issue 21 in the terminal: a custom command from .agents/commands/, listed by /help and expanded with
    $ARGUMENTS; "always" prints the rule it adds and the next identical command runs unasked."""
    root = workspace(tmp_path)
    (root / ".agents" / "commands").mkdir(parents=True)
    (root / ".agents" / "commands" / "explain.md").write_text(
        "---\ndescription: Explain a file\nargument-hint: <file>\n---\nWhat does $ARGUMENTS say?\n")
    lines = "/help\n/explain README.md\nrun ls -la\na\nrun ls -la\n/permissions\n/tasks\n/nope\n/quit\n"
    done = run(["repl", "--workspace", str(root)], tmp_path, stdin=lines)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "/explain <file> — Explain a file (workspace)" in out
    assert "The build uses make." in out  # the expanded prompt reached the model, which read the file
    assert out.count("? run: ls -la") == 1  # asked once: "always" covered the second run
    assert "[a]lways allows: run_shell(ls -la)" in out
    assert "+ allow run_shell(ls -la) (for this session" in out
    assert "allow run_shell(ls -la)" in out.split("/permissions", 1)[1]
    assert "tasks: (none)" in out
    assert "unknown command /nope" in out
