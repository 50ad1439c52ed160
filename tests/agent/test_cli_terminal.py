"""`agentls ask` and `agentls repl` as a user runs them, against the offline demo model."""

import os
import subprocess
import sys


def run(args, tmp_path, stdin=None):
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    env["AGENTLS_DATA_DIR"] = str(tmp_path / "data")
    return subprocess.run([sys.executable, "-m", "agentls", *args], input=stdin, capture_output=True,
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
