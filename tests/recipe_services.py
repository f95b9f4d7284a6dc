"""Services the recipe server's tests start for themselves: a PostgreSQL server in a temporary
directory, the recipe server as the command users run, and a certificate of their own for TLS."""
from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin() -> Path | None:
    """Debian's PostgreSQL programs (the project's setup installs the package), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server of its own in a temporary directory on a free local port, stopped and
    removed at the end: its URL. PostgreSQL refuses to run as root, so as root it runs as
    ``postgres``, in a directory of its own outside pytest's (which only root may enter)."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("no PostgreSQL (Debian package postgresql; `make setup` installs it)")
    directory = Path(tempfile.mkdtemp(prefix="s2s-postgres-"))
    data, port = directory / "pgdata", free_port()
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    # initdb refuses a LANG or LC_ALL naming a locale the machine has not generated, as CI's may
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    log = directory / "postgres.log"
    for step in ([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "s2s", "--no-sync",
                  "--no-locale", "-E", "UTF8"],
                 [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
                  "-o", f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off", "start"]):
        done = subprocess.run([*as_user, *step], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            server_log = log.read_text(errors="replace") if log.exists() else ""
            shutil.rmtree(directory, ignore_errors=True)
            raise RuntimeError(f"{Path(step[0]).name} failed ({done.returncode}): "
                               f"{done.stderr.strip() or done.stdout.strip()} {server_log.strip()}")
    try:
        yield f"postgresql://s2s@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True, env=env)
        shutil.rmtree(directory, ignore_errors=True)


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key (openssl)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def s2s(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s2s.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def token(db: str, scope: str, name: str = "") -> str:
    made = s2s("recipe-server", "token", "create", "--scope", scope, "--db", db,
               *(["--name", name] if name else []))
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


@contextlib.contextmanager
def recipe_server(db: str, *options: str, scheme: str = "http", ca: Path | None = None) -> Iterator[str]:
    """``s2s recipe-server`` on a free port, as users start it: its URL once it answers."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "s2s.cli", "recipe-server", "--db", db, "--port", str(port),
                                "--log-level", "warning", *options],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"{scheme}://127.0.0.1:{port}"
    context = None
    if scheme == "https":
        import ssl

        context = ssl.create_default_context(cafile=str(ca))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/v1/health", timeout=2, context=context) as answer:
                    json.loads(answer.read())
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the recipe server did not start: {process.stdout.read()}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
