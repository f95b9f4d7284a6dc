"""The optimize step in a warm server process (s2s/driver/optimize_server.py): what it answers is
what the step makes in the client's own process, in the client's directory and environment; its
time limit, a client that hangs up, idleness and a second server; and s2s-cc with and without it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from s2s.driver import optimize_server
from s2s.driver.optimize_server import OptimizeRequest
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.errors import S2SError
from s2s.time_limit import TimeLimitExceeded

ROOT = Path(__file__).resolve().parents[1]
S2S_CC = str(Path(sys.executable).with_name("s2s-cc"))

STENCIL = """\
#define N 300
double a[N][N], b[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = (i * 7 + j * 3) % 11;
  for (int t = 0; t < 4; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        b[i][j] = 0.2 * (a[i][j] + a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += b[i][j];
  return (int)s % 256;
}
"""


class SlowRequest(OptimizeRequest):
    """A request whose step writes its process id to ``path`` and then takes far too long."""

    def run(self):
        Path(self.path).write_text(str(os.getpid()))
        time.sleep(60)


@pytest.fixture
def server(tmp_path):
    """A server in the foreground on a socket of the test's own; its socket path."""
    directory = tmp_path / "servers"
    directory.mkdir(mode=0o700)
    path = str(directory / "optimize.sock")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    proc = subprocess.Popen([sys.executable, "-m", "s2s.driver.optimize_server", "--socket", path,
                             "--idle", "60"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _wait_for(lambda: os.path.exists(path) or proc.poll() is not None, 60)
    assert proc.poll() is None, proc.stderr.read().decode()
    yield path
    proc.terminate()
    proc.wait(timeout=60)
    assert not os.path.exists(path)   # (it leaves no socket behind)


def _wait_for(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _ask(path: str, request: OptimizeRequest, monkeypatch, timeout: float = 60):
    monkeypatch.setattr(optimize_server, "socket_path", lambda env: path)
    return optimize_server.optimize(request, timeout, idle=60)


def test_answers_what_the_client_would_make(server, tmp_path, monkeypatch):
    source = tmp_path / "stencil.c"
    source.write_text(STENCIL)
    options = PipelineOptions(compiler="gcc", target="openmp", report=True)
    monkeypatch.chdir(tmp_path)
    here = optimize_c_file("stencil.c", [], options)
    served = _ask(server, OptimizeRequest.here("stencil.c", [], options, None), monkeypatch)
    assert served is not None
    assert served.changed and here.changed
    assert served.source == here.source
    seconds = re.compile(r"\d+\.\d+ s\b")   # (what the scheduler took, which a busy machine changes)
    assert [seconds.sub("t s", line) for line in served.report] == [seconds.sub("t s", line) for line in here.report]


def test_runs_in_the_clients_directory_and_environment(server, tmp_path, monkeypatch):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "size.h").write_text("#define N 300\n")
    (tmp_path / "k.c").write_text('#include "size.h"\n' + STENCIL.replace("#define N 300\n", ""))
    monkeypatch.chdir(tmp_path)
    options = PipelineOptions(compiler="gcc", target="openmp", report=True)
    served = _ask(server, OptimizeRequest.here("k.c", ["-Iinc"], options, None), monkeypatch)
    assert served is not None and served.changed
    # (the work thresholds come from the client's environment: here no nest is worth optimizing)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", ",".join(f"{name}=1000000000000" for name in (
        "optimize", "parallel", "parallel_start", "kernel")))
    request = OptimizeRequest.here("k.c", ["-Iinc"], options, None)
    assert request.cwd == str(tmp_path)
    served = _ask(server, request, monkeypatch)
    assert served is not None and not served.changed
    assert served.source == optimize_c_file("k.c", ["-Iinc"], options).source


def test_an_error_of_the_step_is_raised_in_the_client(server, tmp_path, monkeypatch):
    (tmp_path / "bad.c").write_text("int f(void) { return 1 +; }\n")
    monkeypatch.chdir(tmp_path)
    options = PipelineOptions(compiler="gcc")
    with pytest.raises(S2SError) as here:
        optimize_c_file("bad.c", [], options)
    with pytest.raises(S2SError) as served:
        _ask(server, OptimizeRequest.here("bad.c", [], options, None), monkeypatch)
    assert str(served.value) == str(here.value)


def test_time_limit_kills_the_servers_child(server, tmp_path, monkeypatch):
    marker = tmp_path / "pid"
    request = SlowRequest.here(str(marker), [], PipelineOptions(), None)
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded):
        _ask(server, request, monkeypatch, timeout=3)
    assert time.monotonic() - started < 30
    pid = int(marker.read_text())
    _wait_for(lambda: not _alive(pid), 10)


def test_a_client_that_hangs_up_ends_its_child(server, tmp_path):
    marker = tmp_path / "pid"
    client = subprocess.Popen([sys.executable, "-c", f"""
import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]
from s2s.driver import optimize_server
from s2s.driver.pipeline import PipelineOptions
from test_optimize_server import SlowRequest
optimize_server.socket_path = lambda env: {server!r}
optimize_server.optimize(SlowRequest.here({str(marker)!r}, [], PipelineOptions(), None), 0, 60)
"""])
    _wait_for(lambda: marker.exists() and marker.read_text(), 60)
    pid = int(marker.read_text())
    assert _alive(pid)
    client.kill()
    client.wait()
    _wait_for(lambda: not _alive(pid), 10)


@pytest.fixture
def short_dir():
    """A directory whose sockets' paths fit a socket address (a test's tmp_path may be too long)."""
    directory = tempfile.mkdtemp(prefix="s2s-test-", dir="/tmp")
    yield Path(directory)
    shutil.rmtree(directory, ignore_errors=True)


def test_no_server_no_answer_and_one_is_started(tmp_path, short_dir, monkeypatch):
    directory = short_dir / "servers"
    monkeypatch.setenv("S2S_SERVER_DIR", str(directory))
    path = optimize_server.socket_path(os.environ)
    assert path is not None and path.startswith(str(directory))
    assert oct(directory.stat().st_mode & 0o777) == oct(0o700)
    (tmp_path / "k.c").write_text(STENCIL)
    monkeypatch.chdir(tmp_path)
    request = OptimizeRequest.here("k.c", [], PipelineOptions(compiler="gcc"), None)
    assert optimize_server.optimize(request, 60, idle=2) is None   # (the caller runs the step)
    _wait_for(lambda: os.path.exists(path), 60)
    assert optimize_server.optimize(request, 60, idle=2) is not None
    _wait_for(lambda: not os.path.exists(path), 60)   # idle: it leaves, and takes its socket


def test_a_second_server_on_the_same_socket_leaves_at_once(server):
    proc = subprocess.run([sys.executable, "-m", "s2s.driver.optimize_server", "--socket", server, "--idle", "60"],
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert proc.returncode == 0
    assert os.path.exists(server)


def test_no_server_in_a_directory_others_may_enter(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    assert optimize_server.server_directory({"S2S_SERVER_DIR": str(shared)}) is None
    shared.chmod(0o700)
    assert optimize_server.server_directory({"S2S_SERVER_DIR": str(shared)}) == str(shared)


def test_s2s_cc_builds_the_same_with_and_without_a_server(tmp_path, short_dir):
    (tmp_path / "k.c").write_text(STENCIL)
    base = {**os.environ, "S2S_SERVER_DIR": str(short_dir), "S2S_SERVER_IDLE": "20",
            "S2S_CACHE": "off"}
    kept: dict[str, str] = {}
    for run, server in (("first", "on"), ("served", "on"), ("alone", "off")):
        if run == "served":
            _wait_for(lambda: any(p.suffix == ".sock" for p in short_dir.iterdir()), 60)
        env = {**base, "S2S_SERVER": server, "S2S_KEEP": str(tmp_path / run)}
        proc = subprocess.run([S2S_CC, "gcc", "-O2", "-c", "k.c", "-o", f"{run}.o"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        kept[run] = (tmp_path / run / "k.s2s.c").read_text()
    assert kept["first"] == kept["served"] == kept["alone"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_stop_servers_stops_them_and_counts_their_time(short_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_SERVER_DIR", str(short_dir))
    path = optimize_server.socket_path(os.environ)
    optimize_server.start_server(path, idle=600)
    _wait_for(lambda: os.path.exists(path), 60)
    pid = int(Path(path + ".lock").read_text())
    assert _alive(pid)
    seconds = optimize_server.stop_servers(short_dir)
    assert seconds > 0.1   # (at least its imports and warm-up)
    assert not _alive(pid) and not os.path.exists(path)
    assert optimize_server.stop_servers(short_dir) == 0   # (none left: its lock names nobody)


def test_the_server_settings():
    from s2s.driver import settings

    flags, rest = settings.split_flags(["--s2s-server=off", "--s2s-server-idle", "5", "-c", "k.c"])
    cfg = settings.resolve(flags, {}, ())
    assert rest == ["-c", "k.c"] and not cfg.warnings
    assert cfg.server is False and cfg.server_idle == 5
    cfg = settings.resolve([], {"S2S_SERVER_IDLE": "soon"}, ())
    assert cfg.server is True and cfg.server_idle == settings.DEFAULT_SERVER_IDLE and len(cfg.warnings) == 1


def test_answers_for_an_llvm_module_what_the_client_would_make(server, tmp_path, monkeypatch):
    """s2s-c++'s and .ll inputs' optimize step in the server too (optimize_llvm_file)."""
    clang = shutil.which("clang-14") or shutil.which("clang")
    if clang is None:
        pytest.skip("no clang (the project's setup installs clang-14)")
    from s2s.driver.pipeline import optimize_llvm_file

    source = tmp_path / "stencil.c"
    source.write_text(STENCIL)
    module = tmp_path / "stencil.ll"
    subprocess.run([clang, "-O1", "-fno-vectorize", "-fno-unroll-loops", "-S", "-emit-llvm", str(source), "-o",
                    str(module)], check=True)
    options = PipelineOptions(compiler="gcc", report=True)
    monkeypatch.chdir(tmp_path)
    here = optimize_llvm_file("stencil.ll", options)
    served = _ask(server, OptimizeRequest.here("stencil.ll", [], options, None, module=True), monkeypatch)
    assert served is not None
    assert served.c.source == here.c.source and served.residual == here.residual


def test_a_server_warms_up_for_the_target_of_the_build_that_starts_it(tmp_path, monkeypatch):
    import subprocess

    started: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: started.append(argv))
    optimize_server.start_server(str(tmp_path / "a.sock"), idle=5, target="openmp")
    optimize_server.start_server(str(tmp_path / "b.sock"), idle=5)
    assert started[0][-2:] == ["--target", "openmp"] and "--target" not in started[1]

    warmed: list[str] = []
    from s2s.driver import pipeline

    monkeypatch.setattr(pipeline, "optimize_c_file", lambda path, args, options, preprocessed: warmed.append(options.target))
    optimize_server._warm_up(str(tmp_path), targets=("openmp",))
    assert warmed == ["openmp"]
    warmed.clear()
    optimize_server._warm_up(str(tmp_path))
    assert warmed == list(optimize_server.WARM_UP_TARGETS)
