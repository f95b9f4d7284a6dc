"""The recipe server's API and storage: tokens, validation and bounds, the merge rule under
concurrent writers, rate limits, and the nearest tuned nests. The storage runs on SQLite and on a
real PostgreSQL server that the tests start in a temporary directory."""
from __future__ import annotations

import copy
import json
import math
import random
import threading
import warnings

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from s2s.recipe_server import Bounds, ServerConfig, Store, checked_record, create_app, database_url
from s2s.recipe_server.neighbours import Candidates
from s2s.recipe_server.rate_limit import RateLimiter
from s2s.tuning.database import NestRecord
from s2s.tuning.embedding import Weights, embed, nearest

from recipe_services import postgres_bin, postgres_server

FEATURES = {"depth": 2.0, "n_loops": 2.0, "n_statements": 1.0, "flops_per_stmt": 4.0, "stride1_frac": 0.8,
            "log2_instances": 18.0, "parallel_loop_frac": 1.0}


def row(n: int = 0, **changes) -> dict:
    """A row as ``s2s recipes export`` writes it."""
    data = {"scop": f"kernel/{n:012x}", "function": "kernel", "program": f"prog{n}.c", "target": "openmp",
            "machine": "x86_64 test x2", "params": {"n": 1000}, "dataset": "", "features_version": 7,
            "features": {**FEATURES, "depth": 2.0 + n % 3}, "statements": [{"depth": 2, "reads": 3}],
            "machine_features": {"log2_cpus": 1.0, "log2_simd_bits": 9.0},
            "recipe": [{"kind": "tile", "target": "band0:S0", "params": {"sizes": [32, 64]}},
                       {"kind": "parallelize", "target": "scop", "params": {"enabled": True}}],
            "default_recipe": [{"kind": "tile", "target": "band0:S0", "params": {"sizes": [32, 32]}}],
            "default_seconds": 2.0, "tuned_seconds": 1.0, "evaluations": 20, "tune_seconds": 60.0,
            "provenance": {"cc": "gcc"}, "updated": f"2026-11-01T00:00:{n % 60:02d}+00:00"}
    data.update(changes)
    return data


@pytest.fixture(scope="module")
def postgres():
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (the Debian package postgresql; `make setup` installs it)")
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = database_url(str(tmp_path / "server.sqlite"))
    else:
        url = database_url(request.getfixturevalue("postgres"))
    s = Store(url)
    if request.param == "postgresql":     # one server for the module: each test starts empty
        import sqlalchemy as sa

        with s.engine.begin() as conn:
            conn.execute(sa.text("TRUNCATE nests, tokens RESTART IDENTITY"))
    yield s
    s.close()


def client(store: Store, **config) -> TestClient:
    return TestClient(create_app(ServerConfig(db=store.url, **config), store))


def bearer(secret: str) -> dict:
    return {"Authorization": f"Bearer {secret}"}


def test_health_and_the_openapi_description(store):
    c = client(store)
    assert c.get("/v1/health").json() == {"status": "ok", "api": "v1", "database": store.kind, "nests": 0,
                                          "reads": "open"}
    paths = c.get("/openapi.json").json()["paths"]
    assert {"/v1/transfer", "/v1/recipes", "/v1/recipes/{row_id}", "/v1/health"} <= set(paths)
    assert c.get("/docs").status_code == 200


def test_writing_needs_a_live_write_token(store):
    write, _ = store.create_token("write", "ci")
    read, _ = store.create_token("read", "")
    gone, info = store.create_token("write", "old")
    assert store.revoke(info.id) and not store.revoke(info.id)
    c = client(store)
    body = {"records": [row()]}
    assert c.post("/v1/recipes", json=body).status_code == 401
    assert c.post("/v1/recipes", json=body, headers=bearer("s2s_" + "x" * 43)).status_code == 401
    assert c.post("/v1/recipes", json=body, headers=bearer(gone)).status_code == 401
    assert c.post("/v1/recipes", json=body, headers={"Authorization": f"Basic {write}"}).status_code == 401
    refused = c.post("/v1/recipes", json=body, headers=bearer(read))
    assert refused.status_code == 403 and "only read" in refused.json()["detail"]
    assert store.count() == 0
    ok = c.post("/v1/recipes", json=body, headers=bearer(write))
    assert ok.status_code == 200 and ok.json() == {"added": 1, "replaced": 0, "skipped": 0, "ids": [1]}
    assert [t.name for t in store.tokens()] == ["ci", "token-2", "old"]
    assert all(write not in json.dumps(t.__dict__) for t in store.tokens())     # only digests are kept


def test_reads_are_open_or_need_a_token_by_option(store):
    read, _ = store.create_token("read")
    open_server, closed = client(store), client(store, read_requires_token=True)
    query = {"target": "openmp", "features_version": 7, "nests": [{"id": "q", "features": FEATURES}]}
    assert open_server.post("/v1/transfer", json=query).status_code == 200
    assert closed.post("/v1/transfer", json=query).status_code == 401
    assert closed.get("/v1/recipes/1").status_code == 401
    assert closed.post("/v1/transfer", json=query, headers=bearer(read)).status_code == 200
    assert closed.get("/v1/health").status_code == 200


@pytest.mark.parametrize("bad, reason", [
    ({"recipe": [{"kind": "rm -rf /", "target": "scop", "params": {}}]}, "unknown kind"),
    ({"recipe": [{"kind": "tile", "target": "band0:S0", "params": {"sizes": [10 ** 9]}}]}, "out of range"),
    ({"recipe": [{"kind": "sequential", "target": "scop", "params": {"steps": [{"kind": "exec"}]}}]}, "sequential"),
    ({"recipe": [{"kind": "tile", "target": "x", "params": {"a": [[[[[[[[[[1]]]]]]]]]]}}]}, "nest deeper"),
    ({"recipe": [{"kind": "tile", "target": "x", "params": {}}] * 300}, "more than 256 steps"),
    ({"target": "cuda"}, "'target' must be one of"),
    ({"features": {"depth": "2; DROP TABLE nests"}}, "numbers or null"),
    ({"params": {"n": 2 ** 62}}, "out of range"),
    ({"statements": [{"x": "y" * 5000}]}, "bytes of JSON"),
    ({"program": "p" * 300}, "longer than 256"),
    ({"tuned_seconds": -1}, ">= 0"),
    ({"updated": "yesterday"}, "not an ISO date"),
    ({"surprise": 1}, "unknown field"),
])
def test_a_submission_with_any_bad_row_stores_nothing(store, bad, reason):
    write, _ = store.create_token("write")
    c = client(store)
    answer = c.post("/v1/recipes", json={"records": [row(1), row(2, **bad)]}, headers=bearer(write))
    assert answer.status_code == 422, answer.text
    rejected = answer.json()["detail"]["rejected"]
    assert [r["index"] for r in rejected] == [1] and reason in rejected[0]["error"], rejected
    assert store.count() == 0


def test_malformed_and_oversized_bodies_are_refused_before_anything_is_stored(store):
    write, _ = store.create_token("write")
    c = client(store, max_body_bytes=20_000)
    headers = {**bearer(write), "Content-Type": "application/json"}
    assert c.post("/v1/recipes", content=b'{"records": [', headers=headers).status_code == 422
    assert c.post("/v1/recipes", content=b'{"records": [{"a": NaN}]}', headers=headers).status_code == 422
    assert c.post("/v1/recipes", json={"records": []}, headers=headers).status_code == 422
    assert c.post("/v1/recipes", json={"records": row()}, headers=headers).status_code == 422
    assert c.post("/v1/recipes", json={"rows": [row()]}, headers=headers).status_code == 422
    big = json.dumps({"records": [row(k) for k in range(40)]}).encode()
    assert len(big) > 20_000
    assert c.post("/v1/recipes", content=big, headers=headers).status_code == 413

    def streamed():          # no Content-Length: counted as it arrives
        for k in range(0, len(big), 1000):
            yield big[k:k + 1000]

    assert c.post("/v1/recipes", content=streamed(), headers=headers).status_code == 413
    nan_query = b'{"target": "c", "features_version": 7, "nests": [{"id": "q", "features": {"depth": NaN}}]}'
    assert c.post("/v1/transfer", content=nan_query, headers=headers).status_code == 422
    assert store.count() == 0
    assert c.post("/v1/recipes", json={"records": [row()]}, headers=headers).status_code == 200


def test_sql_looking_text_is_kept_as_text(store):
    write, _ = store.create_token("write")
    c = client(store)
    program = "x'); DROP TABLE nests; --"
    ids = c.post("/v1/recipes", json={"records": [row(program=program, scop="k/1' OR '1'='1")]},
                 headers=bearer(write)).json()["ids"]
    got = c.get(f"/v1/recipes/{ids[0]}").json()
    assert got["program"] == program and got["scop"] == "k/1' OR '1'='1"
    assert c.get("/v1/recipes/1 OR 1=1").status_code == 422
    assert c.get("/v1/recipes/99").status_code == 404
    query = {"target": "openmp", "features_version": 7, "exclude_programs": ["' OR 1=1 --"],
             "nests": [{"id": "'; DELETE FROM tokens; --", "features": FEATURES}]}
    answer = c.post("/v1/transfer", json=query).json()
    assert answer["nests"][0]["id"] == query["nests"][0]["id"] and len(answer["nests"][0]["neighbours"]) == 1
    assert store.count() == 1 and len(store.tokens()) == 1


def test_a_row_replaces_its_key_only_when_updated_later(store):
    write, _ = store.create_token("write", "alice")
    c = client(store)
    first = c.post("/v1/recipes", json={"records": [row(3, updated="2026-11-02T00:00:00+00:00")]},
                   headers=bearer(write)).json()
    older = c.post("/v1/recipes", json={"records": [row(3, updated="2026-11-01T00:00:00+00:00", tuned_seconds=0.1)]},
                   headers=bearer(write)).json()
    newer = c.post("/v1/recipes", json={"records": [row(3, updated="2026-11-03T00:00:00+00:00", tuned_seconds=0.5)]},
                   headers=bearer(write)).json()
    assert (first["added"], older["skipped"], newer["replaced"]) == (1, 1, 1)
    assert first["ids"] == older["ids"] == newer["ids"]
    kept = store.get(first["ids"][0])
    assert kept.tuned_seconds == 0.5 and kept.speedup == 4.0
    assert kept.to_json() == {**checked_record(row(3, updated="2026-11-03T00:00:00+00:00", tuned_seconds=0.5)).to_json(),
                              "created": kept.created}


def test_concurrent_writers_lose_nothing_and_store_nothing_twice(store):
    write, _ = store.create_token("write")
    c = client(store)
    keys, writers, rounds = 12, 6, 4
    errors: list[str] = []

    def writer(w: int) -> None:
        rng = random.Random(w)
        for r in range(rounds):
            batch = [row(k, updated=f"2026-11-01T00:{w:02d}:{r:02d}+00:00", tuned_seconds=0.01 * (1 + w) * (1 + r))
                     for k in rng.sample(range(keys), 6)]
            answer = c.post("/v1/recipes", json={"records": batch}, headers=bearer(write))
            if answer.status_code != 200:
                errors.append(answer.text)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    rows = store.candidates("openmp", 7)
    assert len(rows) == store.count() <= keys and len({r.scop for r in rows}) == len(rows)
    # each key holds the latest write any writer made of it
    latest: dict[str, tuple[str, float]] = {}
    for w in range(writers):
        rng = random.Random(w)
        for r in range(rounds):
            for k in rng.sample(range(keys), 6):
                stamp = f"2026-11-01T00:{w:02d}:{r:02d}+00:00"
                scop = row(k)["scop"]
                if scop not in latest or stamp > latest[scop][0]:
                    latest[scop] = (stamp, 0.01 * (1 + w) * (1 + r))
    assert {r.scop: (r.updated, r.tuned_seconds) for r in rows} == latest


def test_requests_past_the_rate_limit_wait(store):
    read, _ = store.create_token("read")
    c = client(store, requests_per_minute=3)
    codes = [c.get("/v1/recipes/1", headers=bearer(read)).status_code for _ in range(4)]
    assert codes == [404, 404, 404, 429]
    limited = c.get("/v1/recipes/1", headers=bearer(read))
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    assert c.get("/v1/recipes/1").status_code == 404          # another client (an address) has its own allowance
    guesses = [c.get("/v1/recipes/1", headers=bearer("s2s_" + "g" * 43)).status_code for _ in range(3)]
    assert guesses == [401, 401, 429]                          # wrong tokens count against the address


def test_the_rate_limiter_refills_with_time():
    now = [0.0]
    limiter = RateLimiter(60, clock=lambda: now[0])
    assert [limiter.admit("a") for _ in range(60)] == [0.0] * 60
    assert limiter.admit("a") == pytest.approx(1.0)
    now[0] += 2.0
    assert limiter.admit("a") == 0.0 and limiter.admit("a") == 0.0 and limiter.admit("a") > 0
    assert RateLimiter(0).admit("a") == 0.0


def test_transfer_answers_the_nearest_tuned_nests(store):
    write, _ = store.create_token("write")
    c = client(store)
    records = [row(k, features={**FEATURES, "depth": float(k), "log2_instances": 10.0 + k}) for k in range(6)]
    records.append(row(9, target="c"))
    records.append(row(10, tuned_seconds=2.0))                  # gained nothing when tuned
    assert c.post("/v1/recipes", json={"records": records}, headers=bearer(write)).status_code == 200
    query = {"target": "openmp", "features_version": 7, "topk": 2, "machine_features": {"log2_cpus": 1.0},
             "nests": [{"id": "a", "features": {**FEATURES, "depth": 4.2, "log2_instances": 14.0}},
                       {"id": "b", "features": {**FEATURES, "depth": 0.1, "log2_instances": 10.0}}]}
    answer = c.post("/v1/transfer", json=query).json()
    assert answer["candidates"] == 7
    near = {n["id"]: [x["record"]["program"] for x in n["neighbours"]] for n in answer["nests"]}
    assert near == {"a": ["prog4.c", "prog5.c"], "b": ["prog0.c", "prog1.c"]}
    first = answer["nests"][0]["neighbours"][0]
    assert first["speedup"] == 2.0 and first["record"]["recipe"] == records[4]["recipe"]
    assert first["distance"] < answer["nests"][0]["neighbours"][1]["distance"]
    gained = c.post("/v1/transfer", json={**query, "min_speedup": 1.5, "exclude_programs": ["prog4.c"]}).json()
    assert gained["candidates"] == 5
    assert [x["record"]["program"] for x in gained["nests"][0]["neighbours"]] == ["prog5.c", "prog3.c"]
    assert c.post("/v1/transfer", json={**query, "topk": 50}).status_code == 422
    assert c.post("/v1/transfer", json={**query, "target": "cuda"}).status_code == 422
    assert c.post("/v1/transfer", json={**query, "nests": [{"id": "x", "features": {}, "extra": 1}]}).status_code == 422


def test_the_vectorized_search_is_embedding_nearest():
    rng = random.Random(5)
    names = list(FEATURES) + ["n_arrays", "oi_access"]
    records = []
    for k in range(40):
        features = {n: rng.choice([None, rng.uniform(0, 20)]) if n != "depth" else float(rng.randint(1, 4))
                    for n in names}
        records.append(NestRecord(scop=f"f/{k}", function="f", program="p", target="c", machine="m", params={},
                                  dataset="", features_version=7, features=features, statements=[],
                                  machine_features={"log2_cpus": rng.choice([1.0, 4.0])}, recipe=[],
                                  default_recipe=[], default_seconds=None, tuned_seconds=None))
    found = Candidates.of(records)
    weights = Weights(sizes=2.0, machine=0.5)
    embeddings = [embed(r.features, r.machine_features) for r in records]
    for _ in range(20):
        query = {n: rng.uniform(0, 20) for n in rng.sample(names, 5)}
        machine = {"log2_cpus": 2.0}
        mine = found.nearest(query, machine, 5, weights)
        theirs = nearest(embed(query, machine), embeddings, 5, weights)
        assert [r.scop for r, _ in mine] == [records[n.index].scop for n in theirs]
        assert all(math.isclose(d, n.distance, rel_tol=1e-9) for (_, d), n in zip(mine, theirs))
    assert Candidates.of([]).nearest(FEATURES, {}, 3, weights) == []


def test_bounds_are_data():
    with pytest.raises(ValueError, match="32 is out of range"):
        checked_record(row(), Bounds(step_integer=16))
    assert checked_record(copy.deepcopy(row())).recipe == row()["recipe"]


def test_a_replaced_row_is_what_the_next_transfer_lends(store):
    write, _ = store.create_token("write")
    c = client(store)
    late, early = row(1, updated="2026-11-05T00:00:00+00:00"), row(2, updated="2026-11-01T00:00:00+00:00")
    c.post("/v1/recipes", json={"records": [late, early]}, headers=bearer(write))
    query = {"target": "openmp", "features_version": 7, "topk": 2, "nests": [{"id": "q", "features": early["features"]}]}

    def lent() -> list:      # the nearest's recipe: the row queried for
        return c.post("/v1/transfer", json=query).json()["nests"][0]["neighbours"][0]["record"]["recipe"]

    assert lent() == early["recipe"]
    changed = row(2, updated="2026-11-03T00:00:00+00:00",
                  recipe=[{"kind": "tile", "target": "band0:S0", "params": {"sizes": [8, 8]}}])
    assert c.post("/v1/recipes", json={"records": [changed]}, headers=bearer(write)).json()["replaced"] == 1
    assert lent() == changed["recipe"]
