"""The recipe database (s2s.tuning.database) and `s2s recipes`: rows, merging, pruning, schema
migrations and the errors of a bad file."""
import io
import json
import sqlite3

import pytest

from s2s.cli import main
from s2s.perf.features import FEATURES_VERSION
from s2s.transforms.decisions import Step
from s2s.tuning import database
from s2s.tuning.database import NestRecord, RecipeDB, RecipeDBError, default_path, recipe_json
from s2s.tuning.recipe import machine_fingerprint

HERE = machine_fingerprint()
TUNED = (Step.of("fuse", "scop", policy="max"), Step.of("tile", "band0:S0", sizes=[32, 64]))
DEFAULT = (Step.of("fuse", "scop", policy="smart"), Step.of("tile", "band0:S0", sizes=[]))


def record(scop: str = "kernel_gemm/94e655f3d23e", **changes) -> NestRecord:
    fields = dict(scop=scop, function=scop.split("/")[0], program="polybench/gemm", target="c", machine=HERE,
                  params={"NI": 1000, "NJ": 1100}, dataset="LARGE", features_version=FEATURES_VERSION,
                  features={"depth": 3.0, "gflops": None}, statements=[{"depth": 3, "reads": 3}],
                  machine_features={"peak_gflops": 100.0}, recipe=recipe_json(TUNED),
                  default_recipe=recipe_json(DEFAULT), default_seconds=2.0, tuned_seconds=1.0, evaluations=20,
                  tune_seconds=60.0, provenance={"s2s_version": "0.1", "flags": ["-O3"]})
    fields.update(changes)
    return NestRecord(**fields)


@pytest.fixture
def db_path(tmp_path, monkeypatch):
    path = tmp_path / "db" / "recipes.sqlite"
    monkeypatch.setenv("S2S_RECIPE_DB", str(path))
    return path


def test_default_path(tmp_path, monkeypatch):
    monkeypatch.delenv("S2S_RECIPE_DB", raising=False)
    monkeypatch.setenv("S2S_CACHE_DIR", str(tmp_path / "cache"))
    assert default_path() == tmp_path / "cache" / "recipes.sqlite"
    monkeypatch.setenv("S2S_RECIPE_DB", str(tmp_path / "x.sqlite"))
    assert default_path() == tmp_path / "x.sqlite"


def test_add_get_and_the_record_round_trip(db_path):
    with RecipeDB() as db:
        assert db.path == db_path and db_path.exists() and len(db) == 0
        row_id = db.add(record())
        got = db.get(row_id)
    assert got.id == row_id and got.steps() == TUNED and got.default_steps() == DEFAULT
    assert got.speedup == 2.0 and got.features == {"depth": 3.0, "gflops": None}
    assert got.created and got.updated == got.created
    assert got == record(id=row_id, created=got.created, updated=got.updated)
    assert record(tuned_seconds=None).speedup is None and record(default_seconds=0.0).speedup is None


def test_add_replaces_the_row_of_its_key(db_path):
    with RecipeDB() as db:
        first = db.add(record())
        created = db.get(first).created
        again = db.add(record(tuned_seconds=0.5, evaluations=40))
        assert again == first and len(db) == 1
        row = db.get(first)
        assert row.created == created and row.updated > created and row.evaluations == 40
        # each part of the key makes another row
        db.add(record(target="openmp"))
        db.add(record(machine="other machine x2"))
        db.add(record(program="gemm.c"))
        db.add(record(params={"NJ": 1100, "NI": 500}))
        db.add(record(scop="kernel_gemm/000000000000"))
        assert len(db) == 6
        db.add(record(params={"NJ": 1100, "NI": 1000}))   # the same parameters in another order
        assert len(db) == 6


def test_add_refuses_a_malformed_record(db_path):
    with RecipeDB() as db:
        with pytest.raises(RecipeDBError, match="target"):
            db.add(record(target="cuda"))
        with pytest.raises(RecipeDBError, match="unknown kind 'melt'"):
            db.add(record(recipe=[{"kind": "melt", "target": "scop", "params": {}}]))
        db.add(record(features={"depth": float("nan")}, machine_features={"a": 1.0, "b": float("inf")}))
        row = db.records()[0]
        assert row.features == {"depth": None} and row.machine_features == {"a": 1.0}


def test_records_filter(db_path):
    with RecipeDB() as db:
        a = db.add(record())
        b = db.add(record(target="openmp", program="gemm.c"))
        c = db.add(record(machine="other x4", features_version=FEATURES_VERSION + 1))
        ids = lambda rows: [r.id for r in rows]   # noqa: E731
        assert ids(db.records()) == [a, b, c]
        assert ids(db.records(machine=HERE)) == [a, b]
        assert ids(db.records(target="openmp")) == [b]
        assert ids(db.records(program="polybench/gemm")) == [a, c]
        assert ids(db.records(features_version=FEATURES_VERSION, target="c")) == [a]
        assert db.remove([a, 999]) == 1 and ids(db.records()) == [b, c]


def _backdate(path, row_id: int, stamp: str) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE nests SET updated = ? WHERE id = ?", (stamp, row_id))
    conn.close()


def test_prune_each_criterion_and_dry_run(db_path):
    with RecipeDB() as db:
        old = db.add(record(scop="f/old"))
        other = db.add(record(scop="f/other", machine="other x4"))
        stale = db.add(record(scop="f/stale", features_version=FEATURES_VERSION + 1))
        slow = db.add(record(scop="f/slow", tuned_seconds=1.9))
        untimed = db.add(record(scop="f/untimed", tuned_seconds=None))
        good = db.add(record(scop="f/good"))
    _backdate(db_path, old, "2020-01-01T00:00:00+00:00")
    with RecipeDB() as db:
        with pytest.raises(RecipeDBError, match="criterion"):
            db.prune()
        assert [r.id for r in db.prune(older_than_days=30, dry_run=True)] == [old] and len(db) == 6
        assert [r.id for r in db.prune(older_than_days=30)] == [old]
        assert [r.id for r in db.prune(other_machines=True)] == [other]
        assert [r.id for r in db.prune(stale_features=True)] == [stale]
        assert [r.id for r in db.prune(no_gain_below=1.1, dry_run=True)] == [slow, untimed]
        assert [r.id for r in db.prune(ids=[good, 12345])] == [good]
        # criteria together: a row goes when any matches
        assert [r.id for r in db.prune(no_gain_below=1.1, ids=[good])] == [slow, untimed]
        assert len(db) == 0


def test_export_import_round_trip(db_path, tmp_path):
    with RecipeDB() as db:
        db.add(record())
        db.add(record(target="openmp"))
        out = io.StringIO()
        assert db.export_jsonl(out) == 2
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["schema"] == database.schema_version() and "id" not in first
    with RecipeDB(tmp_path / "other.sqlite") as other:
        summary = other.import_jsonl(io.StringIO(out.getvalue()), "x.jsonl")
        assert (summary.added, summary.replaced, summary.skipped) == (2, 0, 0)
        with RecipeDB() as db:
            assert [r.to_json() for r in other.records()] == [r.to_json() for r in db.records()]
        summary = other.import_jsonl(io.StringIO(out.getvalue()), "x.jsonl")
        assert (summary.added, summary.replaced, summary.skipped) == (0, 0, 2)


def test_import_merge_later_updated_wins(db_path):
    base = record().to_json()
    with RecipeDB() as db:
        db.import_jsonl([json.dumps({**base, "evaluations": 1, "updated": "2026-01-02T00:00:00+00:00",
                                     "created": "2026-01-01T00:00:00+00:00"})])
        older = json.dumps({**base, "evaluations": 2, "updated": "2026-01-01T12:00:00+00:00"})
        undated = json.dumps({**base, "evaluations": 3, "updated": ""})
        summary = db.import_jsonl([older, undated])
        assert (summary.added, summary.replaced, summary.skipped) == (0, 0, 2)
        assert db.records()[0].evaluations == 1
        later = json.dumps({**base, "evaluations": 4, "updated": "2026-01-03T00:00:00+00:00",
                            "created": "2026-01-02T00:00:00+00:00"})
        assert db.import_jsonl([later]).replaced == 1
        row = db.records()[0]
        assert row.evaluations == 4 and row.created == "2026-01-01T00:00:00+00:00"   # the first one's
        assert row.updated == "2026-01-03T00:00:00+00:00"
        # a minimal line: the optional fields take their defaults, the timestamps now
        minimal = {"scop": "f/1", "program": "p.c", "target": "c", "machine": HERE,
                   "features_version": FEATURES_VERSION, "recipe": []}
        assert db.import_jsonl([json.dumps(minimal)]).added == 1
        row = db.records(program="p.c")[0]
        assert row.function == "f" and row.params == {} and row.speedup is None and row.updated


@pytest.mark.parametrize("bad, message", [
    ("{not json", "x.jsonl:2: not JSON"),
    ("[1, 2]", "x.jsonl:2: a row is a JSON object"),
    ('{"scop": "f/1"}', "x.jsonl:2: missing 'program'"),
    ("SCHEMA", "x.jsonl:2: schema 99, this s2s reads up to"),
    ("UNKNOWN", "x.jsonl:2: unknown field 'colour'"),
    ("KIND", r"x.jsonl:2: 'recipe\[0\]': unknown kind 'melt'"),
    ("PARAMS", r"x.jsonl:2: 'params.NI' must be one of integers"),
    ("DATE", "x.jsonl:2: 'updated' is not an ISO date"),
])
def test_a_bad_line_refuses_the_whole_file(db_path, bad, message):
    good = record().to_json()
    bad = {"SCHEMA": json.dumps({**good, "schema": 99}), "UNKNOWN": json.dumps({**good, "colour": "red"}),
           "KIND": json.dumps({**good, "recipe": [{"kind": "melt"}]}),
           "PARAMS": json.dumps({**good, "params": {"NI": "big"}}),
           "DATE": json.dumps({**good, "updated": "yesterday"})}.get(bad, bad)
    lines = [json.dumps(record(scop="f/a").to_json()), bad, json.dumps(record(scop="f/b").to_json())]
    with RecipeDB() as db:
        with pytest.raises(RecipeDBError, match=message):
            db.import_jsonl(lines, "x.jsonl")
        assert len(db) == 0


def test_a_corrupt_file(db_path):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"this is no SQLite database, just some text that is long enough " * 20)
    with pytest.raises(RecipeDBError, match="not a recipe database.*move it away or set S2S_RECIPE_DB") as e:
        RecipeDB()
    assert str(db_path) in str(e.value)


def test_an_unwritable_path(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(RecipeDBError, match="S2S_RECIPE_DB") as e:
        RecipeDB(blocker / "sub" / "recipes.sqlite")
    assert str(blocker) in str(e.value)


def test_a_newer_schema(db_path):
    RecipeDB().close()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(RecipeDBError, match=f"schema 99, this s2s reads up to {database.schema_version()}"):
        RecipeDB()


def test_a_migration_is_applied_on_open(db_path, monkeypatch):
    with RecipeDB() as db:
        row_id = db.add(record())
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()
    monkeypatch.setattr(database, "MIGRATIONS",
                        [*database.MIGRATIONS, ("ALTER TABLE nests ADD COLUMN note TEXT NOT NULL DEFAULT ''",
                                                "UPDATE nests SET note = 'migrated'")])
    with RecipeDB() as db:
        assert db.get(row_id).steps() == TUNED
        db.add(record(scop="f/new"))
        assert len(db) == 2
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    assert [n for n, in conn.execute("SELECT note FROM nests ORDER BY id")] == ["migrated", ""]
    conn.close()


def test_a_failed_migration_changes_nothing(db_path, monkeypatch):
    RecipeDB().close()
    monkeypatch.setattr(database, "MIGRATIONS",
                        [*database.MIGRATIONS, ("ALTER TABLE nests ADD COLUMN note TEXT", "NOT SQL AT ALL")])
    with pytest.raises(RecipeDBError, match="syntax error"):
        RecipeDB()
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "note" not in [c[1] for c in conn.execute("PRAGMA table_info(nests)")]
    conn.close()


def test_a_locked_database(db_path):
    RecipeDB().close()
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RecipeDBError, match="locked by another process.*S2S_RECIPE_DB") as e:
            RecipeDB(timeout=0.05)
        assert str(db_path) in str(e.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# --- s2s recipes ----------------------------------------------------------------------------------------

def _cli(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(["recipes", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_list_and_show(db_path, capsys):
    rc, out, _ = _cli(capsys, "list")
    assert rc == 0 and "no recipes" in out and str(db_path) in out
    with RecipeDB() as db:
        a = db.add(record())
        db.add(record(target="openmp", machine="x86_64 Some Very Long Processor Model Name x128",
                      tuned_seconds=None))
    rc, out, _ = _cli(capsys, "list")
    lines = out.splitlines()
    assert rc == 0 and lines[0].split() == ["id", "program", "scop", "target", "dataset", "speedup", "evals",
                                            "updated", "machine"]
    assert len(lines) == 3 and "2.00x" in lines[1] and " - " in lines[2]
    assert lines[2].endswith(" x86_64 Some Very Long.. x128")    # the model shortened, its CPUs kept
    rc, out, _ = _cli(capsys, "list", "--machine", "this")
    assert len(out.splitlines()) == 2
    rc, out, _ = _cli(capsys, "list", "--target", "openmp", "--json")
    assert [json.loads(line)["target"] for line in out.splitlines()] == ["openmp"]
    rc, out, _ = _cli(capsys, "list", "--program", "nothing")
    assert "no recipes matching" in out
    rc, out, _ = _cli(capsys, "show", str(a))
    assert rc == 0 and "kernel_gemm/94e655f3d23e" in out and "2.000x" in out
    assert "  fuse(scop: policy=max)\n  tile(band0:S0: sizes=32x64)\n" in out
    assert "default recipe:\n  fuse(scop: policy=smart)\n" in out
    assert "depth=3" in out and "gflops=-" in out and "NI=1000 NJ=1100" in out
    rc, _, err = _cli(capsys, "show", "99")
    assert rc == 1 and err.startswith("s2s recipes: error:") and "no row 99" in err


def test_cli_export_import_prune(db_path, tmp_path, capsys):
    with RecipeDB() as db:
        db.add(record())
        db.add(record(scop="f/slow", tuned_seconds=1.95))
    rc, out, _ = _cli(capsys, "export")
    assert rc == 0 and len(out.splitlines()) == 2
    exported = tmp_path / "all.jsonl"
    rc, _, _ = _cli(capsys, "export", "-o", str(exported))
    assert rc == 0 and exported.read_text() == out
    other = tmp_path / "other.sqlite"
    rc, out, _ = _cli(capsys, "import", "--db", str(other), str(exported), str(exported))
    assert rc == 0 and out.splitlines() == [f"{exported}: 2 added, 0 replaced, 0 skipped",
                                            f"{exported}: 0 added, 0 replaced, 2 skipped"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(exported.read_text() + "{oops\n")
    rc, _, err = _cli(capsys, "import", str(bad))
    assert rc == 1 and f"s2s recipes: error: {bad}:3: not JSON" in err
    rc, _, err = _cli(capsys, "import", str(tmp_path / "missing.jsonl"))
    assert rc == 1 and "s2s recipes: error:" in err
    rc, _, err = _cli(capsys, "prune")
    assert rc == 1 and "--older-than" in err
    rc, out, _ = _cli(capsys, "prune", "--no-gain-below", "1.1", "--dry-run")
    assert rc == 0 and "f/slow" in out and "would remove 1 row of 2" in out
    rc, out, _ = _cli(capsys, "prune", "--no-gain-below", "1.1")
    assert rc == 0 and "removed 1 row; 1 left" in out
    rc, out, _ = _cli(capsys, "prune", "--id", "1", "--db", str(other))
    assert rc == 0 and "removed 1 row; 1 left" in out


def test_cli_errors_on_a_corrupt_database(db_path, capsys):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"garbage " * 200)
    rc, out, err = _cli(capsys, "list")
    assert rc == 1 and out == "" and err.startswith("s2s recipes: error:") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
