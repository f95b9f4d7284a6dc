"""The optimize step in a warm process: the optimizer's imports and first calls paid once per build.

Importing the optimizer (islpy, networkx, numpy, the C front end, the scheduler) and its first
calls cost an ``s2s-cc`` process more than gcc takes to compile a whole file. As sccache does
with its server, the first ``s2s-cc`` that finds none starts one, detached (``python -m
s2s.driver.optimize_server``); it imports everything, optimizes a small program to warm up, then
forks a child per request. The child takes the client's working directory, environment and
umask, runs ``optimize_c_file`` and sends back its result, or the exception it raised, exactly
as ``run_with_time_limit``'s child does; the client goes on as if it had run the step itself,
and kills the child at the time limit. The client that starts a server, and any client that
cannot reach one, runs the step in its own process, so a build never waits for a server.

One server per user, interpreter and s2s code: its socket is in a private directory
(``$S2S_SERVER_DIR``, else ``$XDG_RUNTIME_DIR/s2s``, else ``$TMPDIR/s2s-<uid>``; owned by the
user with mode 0700, or no server is used), under a name that carries a digest of the
interpreter and of ``compile_cache.code_stamp`` (the sizes and times of the s2s sources and of
their libraries), so an edited or upgraded s2s gets a server of its own. The server answers
only its own user (``SO_PEERCRED``) and leaves after ``$S2S_SERVER_IDLE`` seconds (default 120)
without a request; ``S2S_SERVER=off`` keeps every optimize step in its ``s2s-cc`` process.

    python -m s2s.driver.optimize_server [--idle S]   # a server in the foreground (until idle)
"""
from __future__ import annotations

import os
import socket
import struct
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from s2s.time_limit import TimeLimitExceeded, outcome, unpacked

ANSWER_SECONDS = 10.0     # how long a client waits for a server's child to say its pid
WARM_UP_TARGETS = ("c", "openmp")   # what a server started without a target warms up for
_LENGTH = struct.Struct("!Q")
_MAX_SOCKET_PATH = 100    # sun_path holds 108 bytes on Linux


@dataclass(frozen=True)
class OptimizeRequest:
    """One call of ``optimize_c_file`` (``optimize_llvm_file`` for an LLVM module) and the process
    state it runs in."""

    path: str
    cpp_args: tuple[str, ...]
    options: object            # s2s.driver.pipeline.PipelineOptions
    preprocessed: str | None
    cwd: str
    env: dict[str, str]
    umask: int
    module: bool = False       # an LLVM module (``.ll``, ``.bc``), not a C file

    @classmethod
    def here(cls, path: str, cpp_args, options, preprocessed: str | None, module: bool = False) -> OptimizeRequest:
        """The call as this process would make it."""
        mask = os.umask(0)
        os.umask(mask)
        return cls(path, tuple(cpp_args), options, preprocessed, os.getcwd(), dict(os.environ), mask, module)

    def run(self):
        if self.module:
            from s2s.driver.pipeline import optimize_llvm_file

            return optimize_llvm_file(self.path, self.options)
        from s2s.driver.pipeline import optimize_c_file

        return optimize_c_file(self.path, list(self.cpp_args), self.options, preprocessed=self.preprocessed)


# ---- where ----------------------------------------------------------------------------------------
def server_directory(env: Mapping[str, str]) -> str | None:
    """The user's private directory for servers, made if missing; None where it is not private
    (another owner, access for others) or the platform lacks what a server needs."""
    if not hasattr(os, "fork") or not hasattr(socket, "SO_PEERCRED"):
        return None
    directory = env.get("S2S_SERVER_DIR")
    if not directory:
        runtime = env.get("XDG_RUNTIME_DIR")
        directory = (os.path.join(runtime, "s2s") if runtime
                     else os.path.join(env.get("TMPDIR") or "/tmp", f"s2s-{os.getuid()}"))
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        st = os.lstat(directory)
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or not os.path.isdir(directory):
        return None
    return directory


def socket_path(env: Mapping[str, str]) -> str | None:
    """The socket of the server for this interpreter and this s2s code, or None (no server)."""
    import hashlib

    from s2s.driver.compile_cache import code_stamp

    directory = server_directory(env)
    if directory is None:
        return None
    interpreter = f"{sys.prefix}\n{os.path.realpath(sys.executable)}\n{sys.version}"
    digest = hashlib.sha256(f"{interpreter}\n{code_stamp()}".encode()).hexdigest()[:20]
    path = os.path.join(directory, f"optimize-{digest}.sock")
    return path if len(path.encode()) <= _MAX_SOCKET_PATH else None


# ---- the client -----------------------------------------------------------------------------------
def optimize(request: OptimizeRequest, timeout: float, idle: float):
    """``request`` run by the server: its ``PipelineResult``, or the exception it raised raised
    here (``TimeLimitExceeded`` past ``timeout`` seconds, 0: no limit). None where no server
    answered: one is started for the next files when there is none, and the caller runs the step."""
    path = socket_path(request.env)
    if path is None:
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        start_server(path, idle, modules=request.module, target=request.options.target)
        return None
    import pickle
    import time

    with conn:
        try:
            pid = _LENGTH.unpack(_receive(conn, _LENGTH.size, time.monotonic() + ANSWER_SECONDS))[0]
            _send(conn, pickle.dumps(request))
        except (OSError, EOFError, pickle.PicklingError):
            return None   # (a server that is leaving, or one that died)
        deadline = time.monotonic() + timeout if timeout > 0 else None
        try:
            payload = _receive_message(conn, deadline)
        except TimeoutError:
            _kill(pid)
            raise TimeLimitExceeded(timeout) from None
        except (OSError, EOFError):
            return None   # the child died: the caller runs the step
        except BaseException:
            _kill(pid)   # (interrupted: the work is not wanted any more)
            raise
    return unpacked(payload)


def start_server(path: str, idle: float, modules: bool = False, target: str = "") -> None:
    """A detached server for ``path`` (it leaves at once where another is starting); with
    ``modules``, warmed up for LLVM modules too (s2s-c++, s2s-fc, .ll inputs); with ``target``,
    warmed up for that target only (the one the build that starts it asks for)."""
    import fcntl
    import subprocess
    from pathlib import Path

    try:   # (a server that holds the lock is starting or serving: one is enough)
        lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return
    finally:
        os.close(lock)
    root = str(Path(__file__).resolve().parents[2])   # (where s2s is imported from, for -m)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    try:
        subprocess.Popen([sys.executable, "-m", "s2s.driver.optimize_server", "--socket", path,
                          "--idle", f"{idle:g}", *(["--modules"] if modules else []),
                          *(["--target", target] if target else [])], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True, env=env)
    except OSError:
        pass


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


# ---- messages -------------------------------------------------------------------------------------
def _send(conn: socket.socket, payload: bytes) -> None:
    conn.sendall(_LENGTH.pack(len(payload)) + payload)


def _receive_message(conn: socket.socket, deadline: float | None) -> bytes:
    size = _LENGTH.unpack(_receive(conn, _LENGTH.size, deadline))[0]
    return _receive(conn, size, deadline)


def _receive(conn: socket.socket, size: int, deadline: float | None) -> bytes:
    """Exactly ``size`` bytes; ``TimeoutError`` past ``deadline`` (time.monotonic), ``EOFError``
    where the other side hung up first."""
    import time

    chunks: list[bytes] = []
    while size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            conn.settimeout(left)
        else:
            conn.settimeout(None)
        try:
            chunk = conn.recv(min(size, 1 << 20))
        except socket.timeout:
            raise TimeoutError from None
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


# ---- the server -----------------------------------------------------------------------------------
WARM_UP_PROGRAM = r"""
void warm_up(int n, double a[n][n], double b[n][n], double c[n][n], double *v, double *s) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        c[i][j] += a[i][k] * b[k][j];
  for (int t = 0; t < 10; t++)
    for (int i = 1; i < n - 1; i++)
      v[i] = (v[i - 1] + v[i] + v[i + 1]) / 3.0;
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    sum += v[i] * v[i];
  *s = sum;
}
"""


class _Stop(Exception):
    """SIGTERM arrived while the server waited for a request."""


def serve(path: str, idle: float, modules: bool = False, targets: tuple[str, ...] = WARM_UP_TARGETS) -> int:
    """Serve on ``path`` until ``idle`` seconds pass without a request (or SIGTERM); a child per
    request, each waited for. Returns at once where another server holds ``path``'s lock, which
    holds the serving one's process id. On its way out a server writes the processor time it and
    its children took to ``path.usage`` (``user system`` seconds; see ``stop_servers``)."""
    import fcntl
    import select
    import signal
    import time

    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0
    os.ftruncate(lock, 0)
    os.write(lock, str(os.getpid()).encode())
    waiting: list[bool] = []   # (a SIGTERM ends a wait for a request at once, else the next one)
    stopping: list[bool] = []

    def on_term(*_) -> None:
        stopping.append(True)
        if waiting:
            raise _Stop

    signal.signal(signal.SIGTERM, on_term)
    children: set[int] = set()
    listener = None
    try:
        _warm_up(os.path.dirname(path), modules, targets)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        os.chmod(path, 0o600)
        listener.listen(128)
        last = time.monotonic()
        while not stopping:
            waiting.append(True)
            try:
                ready = select.select([listener], [], [], 1.0)[0]
            finally:
                waiting.clear()
            _reap(children, block=False)
            if ready:
                conn, _ = listener.accept()
                last = time.monotonic()
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    try:
                        _serve_one(conn)
                    finally:
                        os._exit(0)
                conn.close()
                children.add(pid)
            elif not children and time.monotonic() - last > idle:
                break
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if listener is not None:
            os.unlink(path)   # (before closing: a client that connects now is refused, not left waiting)
            listener.close()
        _reap(children, block=True)
        _write_usage(path + ".usage")
        os.ftruncate(lock, 0)
        os.close(lock)
    return 0


def _write_usage(path: str) -> None:
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(path, "w") as f:
        f.write(f"{own.ru_utime + children.ru_utime:.6f} {own.ru_stime + children.ru_stime:.6f}\n")


def stop_servers(directory: str | os.PathLike, seconds: float = 60) -> float:
    """Stop the servers of ``directory`` (``S2S_SERVER_DIR``) and wait for them; the processor
    seconds they and their children took, from their ``.usage`` files (then removed). For
    measurements: a server's time is not in its clients' accounting."""
    import fcntl
    import signal
    import time

    for lock in sorted(os.listdir(directory)):
        if not lock.endswith(".sock.lock"):
            continue
        try:
            with open(os.path.join(directory, lock)) as f:
                try:   # (a lock nobody holds names no server, whatever it says)
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    continue
                except OSError:
                    pid = int(f.read() or 0)
        except (OSError, ValueError):
            continue
        if pid <= 0:
            continue
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            continue
        deadline = time.monotonic() + seconds
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
    total = 0.0
    for name in os.listdir(directory):
        if name.endswith(".sock.usage"):
            usage = os.path.join(directory, name)
            with open(usage) as f:
                total += sum(float(v) for v in f.read().split())
            os.unlink(usage)
    return total


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def _warm_up(directory: str, modules: bool = False, targets: tuple[str, ...] = WARM_UP_TARGETS) -> None:
    """Import the optimizer and make its first calls for ``targets``, so that each child starts
    warm; with ``modules``, the LLVM front end and llvmlite's LLVM too (0.2 s that C builds need
    not pay). A request for another target is served too, its first calls in its child."""
    import tempfile

    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    if modules:
        try:
            import frontends.llvm.lift  # noqa: F401
            import llvmlite.binding as llvm

            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
        except Exception:  # noqa: BLE001 - as below
            pass
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        source = os.path.join(tmp, "warm_up.c")
        with open(source, "w") as f:
            f.write(WARM_UP_PROGRAM)
        for target in targets:
            try:
                optimize_c_file(source, [], PipelineOptions(target=target, report=True), preprocessed=WARM_UP_PROGRAM)
            except Exception:  # noqa: BLE001 - a warm-up that fails leaves a colder server, no more
                pass


def _serve_one(conn: socket.socket) -> None:
    """A child's work: the request of one client, answered on ``conn``."""
    import pickle
    import threading

    ucred = struct.Struct("3i")
    _pid, uid, _gid = ucred.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, ucred.size))
    if uid != os.getuid():
        return
    conn.sendall(_LENGTH.pack(os.getpid()))
    request: OptimizeRequest = pickle.loads(_receive_message(conn, None))
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    os.umask(request.umask)
    threading.Thread(target=_leave_with_client, args=(conn,), daemon=True).start()
    _send(conn, outcome(request.run))


def _leave_with_client(conn: socket.socket) -> None:
    """End this child when its client hangs up (interrupted, or killed by make) before the answer."""
    try:
        conn.settimeout(None)
        data = conn.recv(1)
    except OSError:
        data = b""
    if not data:
        os._exit(1)


def _reap(children: set[int], block: bool) -> None:
    for pid in list(children):
        try:
            done, _status = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            children.discard(pid)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from s2s.driver.settings import DEFAULT_SERVER_IDLE

    ap = argparse.ArgumentParser(prog="python -m s2s.driver.optimize_server", description=__doc__.split("\n\n")[0])
    ap.add_argument("--socket", help="where to listen (default: this user's, interpreter's and code's socket)")
    ap.add_argument("--idle", type=float, default=DEFAULT_SERVER_IDLE, help="seconds without a request before it leaves")
    ap.add_argument("--modules", action="store_true", help="warm up for LLVM modules too")
    ap.add_argument("--target", action="append", help="warm up for this target (default: c and openmp)")
    ns = ap.parse_args(argv)
    path = ns.socket or socket_path(os.environ)
    if path is None:
        ap.error("no private directory for the socket (S2S_SERVER_DIR)")
    return serve(path, ns.idle, ns.modules, tuple(ns.target or WARM_UP_TARGETS))


if __name__ == "__main__":
    raise SystemExit(main())
