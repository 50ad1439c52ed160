"""The tests' fork server (tests/forkserver.py) starts `agentls` as a plain start would: the same
output, exit status, standard input, environment and working folder; the signals its launcher gets
reach the server; a killed launcher takes its server with it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import forkserver
from forkserver import agentls_command


@pytest.fixture
def fork_servers() -> list[int]:
    if os.environ.get("AGENTLS_TEST_FORKSERVER") == "0":
        pytest.skip("the fork server is off (AGENTLS_TEST_FORKSERVER=0)")
    pids = forkserver.serving(timeout=120)
    assert pids, "the fork servers of this test process never listened"
    return pids


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)


def children_of(parents: list[int]) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) in parents:
            found.add(int(stat.parent.name))
    return found


def test_output_status_stdin_environment_and_folder_are_a_plain_starts(fork_servers, tmp_path):
    exported = tmp_path / "one.jsonl"
    exported.write_text('{"type": "message", "message": {"role": "user", "content": "a prompt from stdin"}}\n'
                        '{"type": "message", "message": {"role": "assistant", "content": "an answer"}}\n')
    results = {}
    for way, plain in (("plain", True), ("forked", False)):
        workspace = tmp_path / way / "ws"
        workspace.mkdir(parents=True)
        env = {**os.environ, "AGENTLS_DATA_DIR": str(tmp_path / way / "data")}
        # stdin, the environment (where the store is) and the working folder (the default workspace)
        imported = run(agentls_command("sessions", "import", "-", plain=plain), env=env, cwd=workspace,
                       input=exported.read_text())
        listed = run(agentls_command("sessions", "list", plain=plain), env=env, cwd=workspace)
        usage = run(agentls_command("sessions", plain=plain), env=env, cwd=workspace)  # no action: exit 2
        results[way] = [(done.returncode, _same(done.stdout, way), _same(done.stderr, way))
                        for done in (imported, listed, usage)]
        assert (tmp_path / way / "data" / "sessions.db").is_file()  # where the environment said
    assert "a prompt from stdin" in results["forked"][1][1]
    assert results["forked"][2][0] == 2 and "usage: agentls sessions" in results["forked"][2][2]
    assert results["forked"] == results["plain"]


def _same(text: str, way: str) -> str:
    """What differs between any two runs: the folder, session ids (a time and random digits) and times."""
    text = text.replace(f"/{way}/", "/WAY/")
    return re.sub(r"\d{8}-\d{6}-[0-9a-f]{6}|\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?|\d+ (second|minute)s? ago",
                  "X", text)


def test_a_signal_to_the_launcher_reaches_the_server(fork_servers, tmp_path):
    codes = {}
    for way, plain, signum in (("plain", True, signal.SIGTERM), ("forked", False, signal.SIGTERM),
                               ("plain", True, signal.SIGINT), ("forked", False, signal.SIGINT)):
        # SIGINT as a terminal leaves it (a pytest-xdist worker ignores it, and so would what it starts)
        process = subprocess.Popen(agentls_command("serve", "--stdio", plain=plain), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=default_sigint,
                                   env={**os.environ, "AGENTLS_DATA_DIR": str(tmp_path / way / signum.name)})
        body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":null}}'
        process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        process.stdin.flush()
        assert process.stdout.readline().startswith(b"Content-Length")  # it is up and answering
        process.send_signal(signum)
        codes[way, signum.name] = process.wait(60)
    # SIGINT: the server's own handling (130); the launcher would die of it (-2) if it kept it
    assert [codes["forked", name] for name in ("SIGTERM", "SIGINT")] == \
        [codes["plain", name] for name in ("SIGTERM", "SIGINT")], codes


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_ignored_signal_stays_ignored(fork_servers, tmp_path):
    """What a plain start inherits: a pytest-xdist worker ignores SIGINT, so do the servers it starts."""
    codes = {}
    for way, plain in (("plain", True), ("forked", False)):
        process = subprocess.Popen(agentls_command("serve", "--stdio", plain=plain), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
                                   env={**os.environ, "AGENTLS_DATA_DIR": str(tmp_path / way)})
        body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":null}}'
        process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        process.stdin.flush()
        assert process.stdout.readline().startswith(b"Content-Length")
        process.send_signal(signal.SIGINT)
        time.sleep(1.0)
        codes[way] = process.poll()  # still running: the signal was ignored
        process.stdin.close()  # the editor is gone: it ends
        process.wait(60)
    assert codes == {"plain": None, "forked": None}


def test_a_killed_launcher_takes_its_server_with_it(fork_servers):
    before = children_of(fork_servers)
    launcher = subprocess.Popen(agentls_command("serve", "--stdio"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (servers := children_of(fork_servers) - before):
        assert time.monotonic() < deadline and launcher.poll() is None, "no server was forked"
        time.sleep(0.02)
    launcher.kill()
    launcher.wait(10)
    deadline = time.monotonic() + 10
    while children_of(fork_servers) & servers:
        assert time.monotonic() < deadline, f"server {servers} outlived its launcher"
        time.sleep(0.02)
    assert sys.platform.startswith("linux")
