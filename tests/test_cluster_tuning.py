"""Tuning on a Dask cluster (s2s/tuning/cluster.py): against a real LocalCluster of two worker
processes started here, each candidate built and run on one worker, both workers used, the times
of the workers' machine, the best recipes replayed; a wrong address, a Ray address and files the
workers cannot read are clear errors. No test asserts a time."""
from __future__ import annotations

import socket

import pytest

distributed = pytest.importorskip("distributed")

from s2s.tuning import RecipeDB, machine_fingerprint   # noqa: E402
from s2s.tuning.cluster import ClusterError, absolute, evaluator, in_units_of, scheduler_address   # noqa: E402
from s2s.tuning.transfer_tuner import record   # noqa: E402
from s2s.tuning.tuner import Program, Timing, autotune, build_and_run, default_recipes   # noqa: E402
from test_autotune import PROGRAM as AUTOTUNED   # noqa: E402

# test_autotune's transposed 2-D heat step (a band to tile: several moves at once), one SCoP to
# tune, at a size that keeps each of the workers' runs short.
PROGRAM = AUTOTUNED.replace("int n = 300;", "int n = 200;")

THRESHOLDS = ("optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=0,parallel_wake=0,"
              "parallel_wavefront=0")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two worker processes of one thread, whose environment is the tests' (set before they start:
    they keep the environment they were started with)."""
    cache = tmp_path_factory.mktemp("worker-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("S2S_WORK_THRESHOLDS", THRESHOLDS)
        mp.setenv("S2S_CACHE", str(cache / "s2s-cc-cache"))
        mp.setenv("S2S_RECIPE_DB", str(cache / "recipes.sqlite"))
        for name in ("S2S_RECIPE_SERVER", "S2S_TOKEN", "S2S_RECIPE_SERVER_CA"):
            mp.delenv(name, raising=False)
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        yield local
    finally:
        local.close()


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "smooth.c"
    path.write_text(PROGRAM)
    return Program((str(path),), ("-O2",), time_from_output=True, functions=("step",))


def dask_address(cluster) -> str:
    return "dask://" + cluster.scheduler_address.removeprefix("tcp://")


def test_candidates_are_built_and_run_on_every_worker(cluster, program, tmp_path):
    workers = set(cluster.scheduler_info["workers"])
    result = autotune(program, budget=4, repeat=1, workdir=tmp_path / "work", search="local",
                      cluster=dask_address(cluster))
    assert [ev.number for ev in result.evaluations] == [1, 2, 3, 4]
    assert all(ev.status in ("ok", "refused") for ev in result.evaluations), result.evaluations
    assert all(ev.speedup for ev in result.evaluations if ev.status == "ok")
    assert not any(ev.kept for ev in result.evaluations if ev.status != "ok")
    # one task per worker a round: both workers ran candidates, each under its machine
    assert {ev.worker for ev in result.evaluations} == workers
    assert {ev.machine for ev in result.evaluations} == {machine_fingerprint()}
    # the times are the workers' machine's (here the same host as the client's)
    assert result.machine == machine_fingerprint() and result.machine_features["log2_cpus"] >= 0
    assert 0 < result.search_seconds <= result.wall_seconds
    # the best recipes replay: built and run here they print what the rules' recipes print
    best, _ = build_and_run(program, result.best, tmp_path / "replayed", 1, timeout=None)
    default, _ = build_and_run(program, default_recipes(program), tmp_path / "default", 1, timeout=None)
    assert not isinstance(best, str) and best[0].splitlines()[0] == default[0].splitlines()[0]
    # stored under the machine the result names
    with RecipeDB() as db:
        record(db, program, result, "smooth", features=None)
        rows = db.records()
    assert [r.function for r in rows] == ["step"] and rows[0].machine == result.machine
    assert rows[0].machine_features == {k: v for k, v in result.machine_features.items() if v == v}   # (not NaN)


def test_s2s_tune_on_the_cluster(cluster, program, tmp_path, capsys):
    from s2s.cli import main

    out = tmp_path / "best.json"
    rc = main(["tune", program.sources[0], "--cflags=-O2", "--time-from-output", "--kernel", "step", "--budget", "2",
               "--repeat", "1", "-o", str(out), "--cluster", cluster.scheduler_address, "--no-record"])
    assert rc == 0 and out.exists()
    assert "evaluations" in capsys.readouterr().out


def test_each_machine_measures_its_own_default(cluster, program, tmp_path):
    # the second worker says it is another machine: it measures the default before its first
    # candidate, its candidates are checked against its own default's output, and their times
    # converted to the reference machine's (the first worker's)
    first, second = sorted(cluster.scheduler_info["workers"])
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        client.run(_pretend, "elsewhere x2", workers=[second])
        try:
            result = autotune(program, budget=2, repeat=1, workdir=tmp_path / "work", search="local",
                              cluster=cluster.scheduler_address)
        finally:
            client.run(_pretend, None, workers=[second])
    assert {(ev.worker, ev.machine) for ev in result.evaluations} == {(first, machine_fingerprint()),
                                                                      (second, "elsewhere x2")}, result.evaluations
    assert all(ev.status in ("ok", "refused") for ev in result.evaluations), result.evaluations
    assert all(ev.speedup for ev in result.evaluations if ev.status == "ok")
    assert result.machine == machine_fingerprint()
    assert (tmp_path / "work" / "default.exe").is_file() and (tmp_path / "work" / "default-1.exe").is_file()


# (a lambda, which Dask ships by value: the workers cannot import the tests)
_pretend = lambda fingerprint: __import__("s2s.tuning.cluster", fromlist=["_"]).__dict__.update(   # noqa: E731
    machine_fingerprint=(lambda: fingerprint) if fingerprint else __import__(
        "s2s.tuning.recipe", fromlist=["_"]).machine_fingerprint)


def test_workers_that_cannot_read_the_program_are_named(cluster, program, tmp_path):
    missing = tmp_path / "elsewhere" / "util.c"
    with_missing = Program((*program.sources, str(missing)), program.cflags, time_from_output=True)
    with pytest.raises(ClusterError) as caught:
        autotune(with_missing, budget=1, repeat=1, workdir=tmp_path / "work", cluster=dask_address(cluster))
    message = str(caught.value)
    assert all(f"worker {w} cannot read {missing}" in message for w in cluster.scheduler_info["workers"])


def test_a_wrong_address_is_a_clear_error():
    with socket.socket() as s:     # (a port nothing listens on)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ClusterError, match=f"dask://127.0.0.1:{port}: cannot reach a Dask scheduler"):
        evaluator(f"dask://127.0.0.1:{port}", timeout=1)
    with pytest.raises(ClusterError, match="not a cluster address"):
        scheduler_address("127.0.0.1:8786")


def test_ray_is_not_supported(program, tmp_path, capsys):
    from s2s.cli import main

    with pytest.raises(ClusterError, match="only Dask clusters are supported"):
        autotune(program, budget=1, cluster="ray://head:10001")
    rc = main(["tune", program.sources[0], "--cflags=-O2", "--budget", "1", "-o", str(tmp_path / "b.json"),
               "--cluster", "ray://head:10001"])
    err = capsys.readouterr().err
    assert rc == 1 and "s2s tune: error: ray://head:10001: only Dask clusters are supported" in err
    assert "Traceback" not in err


def test_transfer_tuning_evaluates_on_the_cluster(cluster, program, tmp_path):
    from s2s.perf.features import FEATURES_VERSION, scop_features
    from s2s.transforms.decisions import Step
    from s2s.tuning import NestRecord
    from s2s.tuning.embedding import machine_features
    from s2s.tuning.transfer_tuner import transfer_tune

    f = next(f for f in scop_features(program.sources[0]) if f.function == "step")
    steps = [s.as_dict() for s in (Step.of("fuse", "scop", policy="smart"), Step.of("tile", "band0:S0", sizes=[8, 96]))]
    row = NestRecord(scop=f.scop, function=f.function, program="other.c", target="c", machine="m", params={},
                     dataset="", features_version=FEATURES_VERSION, features=f.values, statements=f.statements,
                     machine_features=machine_features(), recipe=steps, default_recipe=steps,
                     default_seconds=1.0, tuned_seconds=0.5)
    result, lent = transfer_tune(program, [row], topk=1, repeat=1, workdir=tmp_path / "transfer",
                                 cluster=dask_address(cluster))
    assert [item.source for item in lent] == [f.scop]
    assert result.machine == machine_fingerprint()
    for ev in result.evaluations:
        assert ev.worker in cluster.scheduler_info["workers"] and ev.machine == machine_fingerprint()
        assert ev.status in ("ok", "refused"), ev


def test_times_are_converted_to_the_reference_machines_units():
    nest, other = frozenset(["f/1"]), frozenset(["g/2"])
    reference = Timing((2.0, 2.0, 2.2), (2.1,), {nest: (1.0, 1.0, 1.0), other: (0.5, 0.5, 0.5)})
    mine = Timing((1.0, 1.0, 1.0), (1.05,), {nest: (0.25, 0.25, 0.25), other: (0.25, 0.25, 0.25)})
    converted = in_units_of(Timing((0.5,), (0.6,), {nest: (0.125,), other: (0.25,), frozenset(["h/3"]): (0.1,)}),
                            mine, reference)
    assert converted.runs == (1.0,) and converted.walls == pytest.approx((1.2,))
    # each nest by its own defaults' ratio; one neither default timed by the programs'
    assert converted.nests == {nest: (0.5,), other: (0.5,), frozenset(["h/3"]): (0.2,)}


def test_the_workers_are_given_the_files_by_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    given = absolute(Program(("prog.c", "/src/util.c"), ("-O2", "-Iinclude", "-I/usr/include/x", "-DN=4")))
    assert given.sources == (str(tmp_path / "prog.c"), "/src/util.c")
    assert given.cflags == ("-O2", f"-I{tmp_path / 'include'}", "-I/usr/include/x", "-DN=4")
