"""The recipe server as users run it (``s2s recipe-server``, on SQLite, PostgreSQL and TLS) and
its clients: the Python client with its cache, ``s2s-cc --s2s-tune=transfer`` and ``s2s tune
--transfer``/``--upload`` with ``S2S_RECIPE_SERVER``, and what they do when it cannot be reached."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("fastapi")

from s2s.transforms.decisions import Step
from s2s.tuning import RecipeDB
from s2s.tuning.remote import RecipeServer, RecipeServerError, Unreachable

from recipe_services import free_port, postgres_bin, postgres_server, recipe_server, s2s, self_signed, token
from test_transfer import BLUR, SHARPEN, _row
from s2s.tuning.tuner import Program

STEPS = (Step.of("fuse", "scop", policy="smart"), Step.of("parallelize", "scop", enabled=False),
         Step.of("tile", "band0:S0", sizes=[8, 128]))


@pytest.fixture
def programs(tmp_path):
    blur, sharpen = tmp_path / "blur.c", tmp_path / "sharpen.c"
    blur.write_text(BLUR)
    sharpen.write_text(SHARPEN)
    return (Program((str(blur),), ("-O2",), time_from_output=True, functions=("smooth",)),
            Program((str(sharpen),), ("-O2",), time_from_output=True, functions=("sharpen",)))


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "server.sqlite")


def client(url: str, tmp_path, secret: str | None = None, **options) -> RecipeServer:
    return RecipeServer(url, secret, cache=tmp_path / "answers", **options)


def test_the_server_as_users_start_it(db, tmp_path, programs):
    write, read = token(db, "write", "ci"), token(db, "read")
    row = _row(programs[0], STEPS)
    with recipe_server(db) as url:
        anyone = client(url, tmp_path)
        assert anyone.health()["nests"] == 0
        with pytest.raises(RecipeServerError, match="401 writing needs a token"):
            anyone.submit([row])
        with pytest.raises(RecipeServerError, match="403 token 'token-2' may only read"):
            client(url, tmp_path, read).submit([row])
        sent = client(url, tmp_path, write).submit([row])
        assert sent["added"] == 1
        stored = anyone.get(sent["ids"][0])
        assert stored.steps() == STEPS and stored.scop == row.scop and stored.speedup == 2.0
        found = anyone.transfer("c", {"q": row.features}, row.machine_features, topk=3)
        assert [(r.scop, d) for r, d in found["q"]] == [(row.scop, 0.0)]
        listed = s2s("recipe-server", "token", "list", "--db", db).stdout
        assert "ci" in listed and "token-2" in listed and write not in listed
        assert s2s("recipe-server", "token", "revoke", "1", "--db", db).returncode == 0
        with pytest.raises(RecipeServerError, match="401 unknown or revoked token"):
            client(url, tmp_path, write).submit([row])


@pytest.mark.skipif(postgres_bin() is None, reason="PostgreSQL is not installed (`make setup` installs it)")
def test_the_server_on_postgresql(tmp_path, programs):
    with postgres_server() as pg:
        write = token(pg, "write")
        with recipe_server(pg) as url:
            assert client(url, tmp_path).health()["database"] == "postgresql"
            row = _row(programs[0], STEPS)
            assert client(url, tmp_path, write).submit([row, row])["ids"][0] == 1
            found = client(url, tmp_path).transfer("c", {"q": row.features}, row.machine_features)
            assert [r.steps() for r, _ in found["q"]] == [STEPS]


def test_https_with_the_users_certificate(db, tmp_path):
    cert, key = self_signed(tmp_path)
    with recipe_server(db, "--ssl-certfile", str(cert), "--ssl-keyfile", str(key), scheme="https", ca=cert) as url:
        assert url.startswith("https://")
        assert client(url, tmp_path, ca_file=str(cert)).health()["status"] == "ok"
        with pytest.raises(Unreachable, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            client(url, tmp_path).health()
    assert "go together" in s2s("recipe-server", "--db", db, "--ssl-certfile", str(cert)).stderr


def test_answers_are_cached_for_when_the_server_is_away(db, tmp_path, programs):
    write = token(db, "write")
    row = _row(programs[0], STEPS)
    with recipe_server(db) as url:
        client(url, tmp_path, write).submit([row])
        asked = client(url, tmp_path, ttl=0).transfer("c", {"q": row.features}, row.machine_features)
    away = client(url, tmp_path, ttl=0, timeout=1.0)
    assert away.transfer("c", {"q": row.features}, row.machine_features)["q"][0][0].scop == asked["q"][0][0].scop
    with pytest.raises(Unreachable, match="not reached"):
        away.transfer("c", {"another": row.features}, row.machine_features)
    with pytest.raises(RecipeServerError, match="http"):
        RecipeServer("ftp://example.org")
    assert RecipeServer.from_env({}) is None
    with pytest.raises(RecipeServerError, match="seconds"):
        RecipeServer.from_env({"S2S_RECIPE_SERVER": url, "S2S_RECIPE_SERVER_TIMEOUT": "soon"})


def _cc(source: str, exe, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s2s.driver.cc", "-O2", "--s2s-report", source, "-o", str(exe)],
                          capture_output=True, text=True, env={**os.environ, "S2S_TUNE": "transfer", **env})


def test_s2s_cc_takes_recipes_from_the_server(db, tmp_path, programs):
    write = token(db, "write")
    env = {"S2S_RECIPE_SERVER_CACHE": str(tmp_path / "answers")}
    with recipe_server(db) as url:
        RecipeServer(url, write).submit([_row(programs[0], STEPS)])
        built = _cc(programs[1].sources[0], tmp_path / "sharpen", {**env, "S2S_RECIPE_SERVER": url})
    assert built.returncode == 0, built.stderr
    assert "on the recipe server" in built.stderr and "blur" in built.stderr, built.stderr
    assert not os.path.exists(os.environ["S2S_RECIPE_DB"])            # the local database is not needed
    assert subprocess.run([str(tmp_path / "sharpen")], capture_output=True).returncode == 0


def test_a_build_never_fails_because_of_the_server(tmp_path, programs):
    with RecipeDB() as local:
        local.add(_row(programs[0], STEPS))
    gone = f"http://127.0.0.1:{free_port()}"
    env = {"S2S_RECIPE_SERVER": gone, "S2S_RECIPE_SERVER_TIMEOUT": "1",
           "S2S_RECIPE_SERVER_CACHE": str(tmp_path / "answers")}
    built = _cc(programs[1].sources[0], tmp_path / "sharpen", env)
    assert built.returncode == 0, built.stderr
    said = [line for line in built.stderr.splitlines() if "not reached" in line]
    assert len(said) == 1 and "the local recipe database lends instead" in said[0], built.stderr
    assert "blur" in built.stderr and "on the recipe server" not in built.stderr
    assert subprocess.run([str(tmp_path / "sharpen")], capture_output=True).returncode == 0
    bad = _cc(programs[1].sources[0], tmp_path / "sharpen2", {"S2S_RECIPE_SERVER": "gopher://x"})
    assert bad.returncode == 0 and "recipe server not used" in bad.stderr
    alone = _cc(programs[1].sources[0], tmp_path / "sharpen3", {"S2S_RECIPE_SERVER": "gopher://x",
                                                               "S2S_RECIPE_DB": str(tmp_path / "none.sqlite")})
    assert alone.returncode == 0 and "recipe server not used" in alone.stderr, alone.stderr


def test_s2s_tune_uploads_and_transfers_through_the_server(db, tmp_path, programs):
    write = token(db, "write")
    blur, sharpen = programs[0].sources[0], programs[1].sources[0]
    with recipe_server(db) as url:
        env = {"S2S_RECIPE_SERVER": url, "S2S_RECIPE_SERVER_CACHE": str(tmp_path / "answers")}
        refused = s2s("tune", blur, "--upload", "--budget", "1", env=env)
        assert refused.returncode == 2 and "write token" in refused.stderr
        tuned = s2s("tune", blur, "--kernel", "smooth", "--budget", "1", "--repeat", "1", "--time-from-output",
                    "--search", "local", "--upload", "-o", str(tmp_path / "blur.json"),
                    "--cflags=-O2", env={**env, "S2S_TOKEN": write})
        assert tuned.returncode == 0, tuned.stderr
        assert "uploaded to" in tuned.stderr and "1 added" in tuned.stderr, tuned.stderr
        assert RecipeServer(url).health()["nests"] == 1
        empty = {"S2S_RECIPE_DB": str(tmp_path / "empty.sqlite")}
        lent = s2s("tune", sharpen, "--kernel", "sharpen", "--transfer", "--repeat", "1", "--time-from-output",
                   "--cflags=-O2", "-o", str(tmp_path / "sharpen.json"), env={**env, **empty})
        assert lent.returncode == 0, lent.stderr
        assert "lent by blur.c smooth/" in lent.stderr, lent.stderr
