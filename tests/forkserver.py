"""The tests' fork server: `agentls` processes started without importing the SDKs again.

A test starts hundreds of `python -m agentls …` processes (language servers, ACP agents, terminal
chats). Each spent ~2 s of CPU importing the same third-party packages (the anthropic SDK alone is
~3,200 modules), over half of the suite's CPU. Each pytest worker therefore keeps fork servers
that imported them once; a test's command is a small launcher (`python -I -S forkserver.py run …`)
that hands the server its argv, environment, working folder and its three standard streams, and
lives exactly as long as the forked `agentls` process: same pipes, same exit status (a signal
death included), and the signals it receives (SIGTERM, SIGINT, SIGHUP…) are passed on. If the
launcher itself is killed, the fork server kills the process it started.

What is not the same, and why it does not matter here: `agentls` modules are imported fresh in
each child (they read the environment at import), third-party modules are already imported (the
start-up path itself is measured by the tests and the bench that start servers plainly:
`plain=True`), and /proc/<pid>/environ shows the fork server's block (the test of the credential
wipe starts its server plainly). `AGENTLS_TEST_FORKSERVER=0` runs the whole suite with plain
starts; a launcher that cannot reach its fork server starts the command plainly too.
"""

from __future__ import annotations

import array
import itertools
import json
import os
import signal
import socket
import struct
import subprocess
import sys

HERE = os.path.abspath(__file__)
# Packages every agentls process imports that cost the most (measured: -X importtime, py-spy).
PRELOAD = ("anthropic", "httpx", "lsprotocol.types", "pygls.lsp.server", "pygls.protocol", "cattrs",
           "acp", "acp.schema", "mcp", "mcp.client.stdio", "mcp.client.session", "pydantic", "re2")
# What the interpreter decides at start-up from the environment: a child asking for other values
# is started plainly.
STARTUP_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE")
FORWARDED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


SERVERS = 2  # each with its own hash seed, taken in turn: a test's consecutive processes differ as plain ones do
_addresses: list[str] = []
_processes: list = []
_turn = itertools.count()


def agentls_command(*args: str, plain: bool = False) -> list[str]:
    """The command a test runs `agentls …` with: through this worker's fork servers when there are any."""
    if plain or not _addresses:
        return [sys.executable, "-m", "agentls", *args]
    address = _addresses[next(_turn) % len(_addresses)]
    return [sys.executable, "-I", "-S", HERE, "run", address, "--", *args]


def startup_environment(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PYTHON") or k in STARTUP_VARIABLES}


def start_for_this_process() -> None:
    """Start this test process's fork servers (each serves once its imports are done; until then the
    launchers start plainly). They end with this process (`stop`). None where there is no fork or it is off."""
    if os.environ.get("AGENTLS_TEST_FORKSERVER", "1") == "0" or not hasattr(os, "fork") \
            or not hasattr(socket, "AF_UNIX") or not hasattr(socket.socket, "sendmsg"):
        return
    import random
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="agentls-fork-")
    for n in range(SERVERS):
        address = os.path.join(folder, f"socket{n}")
        seed = str(random.randrange(1, 2**32))
        _processes.append(subprocess.Popen([sys.executable, HERE, "serve", address, str(os.getpid()), seed],
                                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=folder,
                                           env={**os.environ, "PYTHONHASHSEED": seed}))
        _addresses.append(address)


def serving(timeout: float) -> list[int]:
    """The pids of this process's fork servers once they all listen (empty: none here, or not in time)."""
    import time

    deadline = time.monotonic() + timeout
    while not all(os.path.exists(address) for address in _addresses):
        if time.monotonic() > deadline:
            return []
        time.sleep(0.05)
    return [process.pid for process in _processes]


def stop() -> None:
    _addresses.clear()
    for process in _processes:
        process.terminate()
    for process in _processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:  # a loaded machine: the end of the session must not fail the run
            process.kill()
            process.wait()
    _processes.clear()


# -- the launcher (a test's process) -----------------------------------------------------------


def launch(address: str, args: list[str]) -> None:
    plain = [sys.executable, "-m", "agentls", *args]
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(address)
    except OSError:
        os.execv(sys.executable, plain)  # no fork server (yet): start it plainly
    # signals ignored where this launcher was started (a pytest-xdist worker ignores SIGINT): a plain
    # start inherits that, so the child must too
    ignored = [int(signum) for signum in FORWARDED_SIGNALS if signal.getsignal(signum) == signal.SIG_IGN]
    request = json.dumps({"args": args, "env": dict(os.environ), "cwd": os.getcwd(), "ignored": ignored}).encode()
    fds = array.array("i", [0, 1, 2])
    conn.sendmsg([struct.pack("!I", len(request))], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds.tobytes())])
    conn.sendall(request)
    reader = conn.makefile("rb")
    answer = reader.readline().split()
    if len(answer) != 2 or answer[0] != b"pid":  # "plain", or the fork server ended before it forked
        conn.close()
        os.execv(sys.executable, plain)
    pid = int(answer[1])
    # The child holds the streams now; so does nobody else here (an early close by it is seen).
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, lambda received, _frame: _forward(pid, received))
    line = reader.readline().split()
    status = int(line[1]) if len(line) == 2 and line[0] == b"exit" else 255 << 8  # the fork server died
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _forward(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


# -- the fork server (one per pytest worker) ----------------------------------------------------


def serve(address: str, parent: int, hash_seed: str) -> None:
    import importlib
    import threading

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if threading.active_count() != 1:  # a fork must not copy a lock another thread holds
        sys.stderr.write(f"forkserver: {threading.active_count()} threads after the imports; not serving\n")
        return
    own = dict(os.environ)
    if own.get("PYTHONHASHSEED") == hash_seed:
        del own["PYTHONHASHSEED"]  # given by start_for_this_process, not by the tests' environment
    server = ForkServer(address, startup_environment(own))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while os.getppid() == parent:  # the pytest worker is gone: so is its fork server
            server.step(timeout=1.0)
    finally:
        server.kill_children()


class ForkServer:
    def __init__(self, address: str, startup: dict[str, str]) -> None:
        import selectors

        self.startup = startup
        self.children: dict[int, socket.socket] = {}  # child pid → its launcher's connection
        self.wake_read, self.wake_write = os.pipe()  # SIGCHLD wakes the selector
        os.set_blocking(self.wake_write, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_write)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(address + ".new")
        self.listener.listen(64)
        os.rename(address + ".new", address)  # launchers connect only once it listens
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_read, selectors.EVENT_READ, "child")

    def step(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            if key.data == "accept":
                self.start_one()
            elif key.data == "child":
                try:
                    os.read(self.wake_read, 4096)
                except BlockingIOError:
                    pass
            else:  # a launcher's connection is readable only when the launcher died
                self.selector.unregister(key.fileobj)
                _kill(key.data)
        self.reap()

    def start_one(self) -> None:
        import selectors

        conn, _ = self.listener.accept()
        request = _receive(conn)
        if request is None:
            conn.close()
            return
        args, env, cwd, ignored, fds = request
        if startup_environment(env) != self.startup:
            _close(fds)
            conn.sendall(b"plain\n")
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            self.close_in_child()
            run_child(conn, args, env, cwd, ignored, fds)  # never returns
        _close(fds)
        self.children[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ, pid)
        conn.sendall(f"pid {pid}\n".encode())

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            try:
                self.selector.unregister(conn)
            except (KeyError, ValueError):
                pass
            try:
                conn.sendall(f"exit {status}\n".encode())
            except OSError:
                pass
            conn.close()

    def close_in_child(self) -> None:
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        self.selector.close()
        self.listener.close()
        for conn in self.children.values():
            conn.close()
        os.close(self.wake_read)
        os.close(self.wake_write)

    def kill_children(self) -> None:
        for pid in self.children:
            _kill(pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _receive(conn: socket.socket) -> tuple[list[str], dict[str, str], str, list[int], list[int]] | None:
    fds = array.array("i")
    header, ancillary, _, _ = conn.recvmsg(4, socket.CMSG_SPACE(3 * fds.itemsize))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    if len(header) != 4 or len(fds) != 3:
        _close(list(fds))
        return None
    (size,) = struct.unpack("!I", header)
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            _close(list(fds))
            return None
        body += chunk
    request = json.loads(body)
    return request["args"], request["env"], request["cwd"], request["ignored"], list(fds)


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def run_child(conn: socket.socket, args: list[str], env: dict[str, str], cwd: str, ignored: list[int],
              fds: list[int]) -> None:
    """In the forked child: become `python -m agentls *args` with the launcher's streams; never return."""
    code = 1
    try:
        conn.close()
        for signum in FORWARDED_SIGNALS:  # what the interpreter sets at start-up, given what it inherited
            default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            signal.signal(signum, signal.SIG_IGN if signum in ignored else default)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        _close([fd for fd in fds if fd > 2])
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        _standard_streams()
        import runpy

        sys.argv = ["-m", *args]
        sys.path[0] = cwd  # `python -m` puts the working folder first
        try:
            runpy.run_module("agentls", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as done:  # as the interpreter ends on one: a code, or a message and 1
            code = 0 if done.code is None else done.code if isinstance(done.code, int) else 1
            if code == 1 and not isinstance(done.code, int):
                print(done.code, file=sys.stderr)
        import threading
        threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter does at its end
        import atexit
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - the interpreter prints an uncaught error and exits 1
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _standard_streams() -> None:
    """Standard streams on the new fds 0-2, made the way the interpreter makes them at start-up."""
    import io

    encoding = sys.stdout.encoding
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(open(0, "rb", closefd=False), encoding=encoding,
                                                 errors=sys.stdin.errors)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        tty = os.isatty(fd)
        stream = io.TextIOWrapper(open(fd, "wb", closefd=False), encoding=encoding,
                                  errors="backslashreplace" if fd == 2 else sys.stdout.errors,
                                  line_buffering=tty or fd == 2)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


if __name__ == "__main__":
    if sys.argv[1] == "run":
        launch(sys.argv[2], sys.argv[4:])
    elif sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]), sys.argv[4])
