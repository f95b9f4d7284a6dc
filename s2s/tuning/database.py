"""The recipe database: one row per tuned loop nest (a SCoP), what transfer tuning learns from.

    with RecipeDB() as db:                       # $S2S_RECIPE_DB, else <cache dir>/recipes.sqlite
        db.add(NestRecord(scop="kernel_gemm/94e655f3d23e", function="kernel_gemm", program="polybench/gemm",
                          target="openmp", machine=machine_fingerprint(), ...))
        for r in db.records(machine=machine_fingerprint(), target="openmp"):
            r.steps(), r.speedup

A row is keyed by (scop, program, target, machine, params): tuning the same nest again on the same
machine replaces its row. ``export_jsonl``/``import_jsonl`` carry rows between databases as JSON
Lines; an imported row replaces one of the same key only when it was updated later, so databases
can be shared and merged in any order. The schema is versioned (``PRAGMA user_version``) and
migrated on open (``MIGRATIONS``). Every SQLite failure (a corrupt file, a lock held too long, a
path that cannot be written) is a ``RecipeDBError`` that names the file.
"""
from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from s2s.errors import S2SError
from s2s.transforms.decisions import Step
from s2s.tuning.recipe import RecipeError, _step

TARGETS = ("c", "openmp")
HINT = "move it away or set S2S_RECIPE_DB to another file"

# MIGRATIONS[n] takes a database from schema n to n + 1; a new schema is one more entry, never an
# edit of an old one, since databases out there are at every version already written.
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """CREATE TABLE nests (
            id INTEGER PRIMARY KEY,
            scop TEXT NOT NULL,
            function TEXT NOT NULL,
            program TEXT NOT NULL,
            target TEXT NOT NULL,
            machine TEXT NOT NULL,
            params TEXT NOT NULL,
            dataset TEXT NOT NULL,
            features_version INTEGER NOT NULL,
            features TEXT NOT NULL,
            statements TEXT NOT NULL,
            machine_features TEXT NOT NULL,
            recipe TEXT NOT NULL,
            default_recipe TEXT NOT NULL,
            default_seconds REAL,
            tuned_seconds REAL,
            evaluations INTEGER NOT NULL,
            tune_seconds REAL NOT NULL,
            provenance TEXT NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            UNIQUE (scop, program, target, machine, params))""",
        "CREATE INDEX nests_machine_target ON nests (machine, target)",
    ),
]


def schema_version() -> int:
    """The schema this s2s writes (and the newest it reads)."""
    return len(MIGRATIONS)


class RecipeDBError(S2SError):
    """The recipe database cannot be opened, read or written, or an imported row is malformed."""


def default_path() -> Path:
    """``$S2S_RECIPE_DB``, else ``recipes.sqlite`` in s2s's cache directory."""
    if os.environ.get("S2S_RECIPE_DB"):
        return Path(os.environ["S2S_RECIPE_DB"]).expanduser()
    from s2s.user_cache import cache_dir

    return cache_dir() / "recipes.sqlite"


def now() -> str:
    # microseconds: the merge rule compares these, and two tunings within a second must still order
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def recipe_json(steps: Iterable[Step]) -> list[dict[str, Any]]:
    """Steps as recipe.py writes them: ``{"kind", "target", "params"}`` each."""
    return [s.as_dict() for s in steps]


def recipe_steps(recipe: Iterable[dict[str, Any]]) -> tuple[Step, ...]:
    return tuple(Step.from_dict(s) for s in recipe)


@dataclass
class NestRecord:
    scop: str                                  # stable id: function/digest
    function: str
    program: str                               # "polybench/gemm", or a file's basename
    target: str                                # "c" or "openmp"
    machine: str                               # s2s.tuning.recipe.machine_fingerprint()
    params: dict[str, int]                     # parameter values it was tuned at ({}: unknown)
    dataset: str                               # "" or a PolyBench dataset, "LARGE"
    features_version: int                      # s2s.perf.features.FEATURES_VERSION of `features`
    features: dict[str, float | None]          # None: unknown
    statements: list[dict[str, Any]]           # per statement structure, for matching (opaque here)
    machine_features: dict[str, float]
    recipe: list[dict[str, Any]]               # the tuned steps
    default_recipe: list[dict[str, Any]]       # the rules' steps
    default_seconds: float | None
    tuned_seconds: float | None
    evaluations: int = 0
    tune_seconds: float = 0.0                  # wall time the search cost
    provenance: dict[str, Any] = field(default_factory=dict)
    created: str = ""                          # ISO UTC; the database fills them when empty
    updated: str = ""
    id: int | None = None

    @property
    def speedup(self) -> float | None:
        if not self.default_seconds or not self.tuned_seconds:
            return None
        return self.default_seconds / self.tuned_seconds

    def steps(self) -> tuple[Step, ...]:
        return recipe_steps(self.recipe)

    def default_steps(self) -> tuple[Step, ...]:
        return recipe_steps(self.default_recipe)

    def key(self) -> tuple[str, str, str, str, str]:
        return (self.scop, self.program, self.target, self.machine, canonical_json(self.params))

    def to_json(self) -> dict[str, Any]:
        """The export's object: every field but ``id``, after the database schema."""
        data = dataclasses.asdict(self)
        del data["id"]
        return {"schema": schema_version(), **data}


@dataclass(frozen=True)
class ImportSummary:
    added: int = 0
    replaced: int = 0
    skipped: int = 0     # an equal or newer row of the same key was there already


COLUMNS = tuple(f.name for f in dataclasses.fields(NestRecord) if f.name != "id")
JSON_COLUMNS = ("params", "features", "statements", "machine_features", "recipe", "default_recipe", "provenance")
REQUIRED = ("scop", "program", "target", "machine", "features_version", "recipe")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _timestamp(text: str) -> datetime.datetime:
    stamp = datetime.datetime.fromisoformat(text)
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=datetime.timezone.utc)


# --- validation: one function per field kind, each raising ValueError with what is wrong ----------------

def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_record(r: NestRecord) -> None:
    for name in ("scop", "function", "program", "machine", "dataset", "created", "updated"):
        if not isinstance(getattr(r, name), str):
            raise ValueError(f"'{name}' must be a string")
    if not r.scop or not r.program or not r.machine:
        raise ValueError("'scop', 'program' and 'machine' must not be empty")
    if r.target not in TARGETS:
        raise ValueError(f"'target' must be one of {', '.join(TARGETS)}, not {r.target!r}")
    for name in ("created", "updated"):
        if getattr(r, name):
            try:
                _timestamp(getattr(r, name))
            except ValueError:
                raise ValueError(f"'{name}' is not an ISO date: {getattr(r, name)!r}") from None
    _check_mapping(r.params, "params", lambda v: isinstance(v, int) and not isinstance(v, bool), "integers")
    _check_mapping(r.features, "features", lambda v: v is None or _is_number(v), "numbers or null")
    _check_mapping(r.machine_features, "machine_features", _is_number, "numbers")
    if not isinstance(r.provenance, dict):
        raise ValueError("'provenance' must be an object")
    if not isinstance(r.statements, list) or not all(isinstance(s, dict) for s in r.statements):
        raise ValueError("'statements' must be a list of objects")
    for name in ("features_version", "evaluations"):
        value = getattr(r, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"'{name}' must be a whole number >= 0")
    for name in ("default_seconds", "tuned_seconds", "tune_seconds"):
        value = getattr(r, name)
        if value is not None and not (_is_number(value) and math.isfinite(value) and value >= 0):
            raise ValueError(f"'{name}' must be a number >= 0{' or null' if name != 'tune_seconds' else ''}")
    if r.tune_seconds is None:
        raise ValueError("'tune_seconds' must be a number >= 0")
    _check_steps(r.recipe, "recipe")
    _check_steps(r.default_recipe, "default_recipe")


def _check_mapping(value: Any, name: str, ok: Callable[[Any], bool], what: str) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"'{name}' must be an object")
    bad = next((k for k, v in value.items() if not ok(v)), None)
    if bad is not None:
        raise ValueError(f"'{name}.{bad}' must be one of {what}, not {value[bad]!r}")


def _check_steps(steps: Any, name: str) -> None:
    if not isinstance(steps, list):
        raise ValueError(f"'{name}' must be a list of steps")
    for k, s in enumerate(steps):
        try:
            _step(s, f"'{name}[{k}]'")
        except RecipeError as e:
            raise ValueError(str(e)) from None
        except TypeError:    # params whose names are not strings
            raise ValueError(f"'{name}[{k}]': bad params") from None


def strict_json_record(r: NestRecord) -> NestRecord:
    """NaN (s2s.perf.features' unknown) as None in features, and left out of machine features, so
    that the rows stay strict JSON."""
    def nan(v: Any) -> bool:
        return _is_number(v) and not math.isfinite(v)

    features, machine = r.features, r.machine_features
    if isinstance(features, dict):
        features = {k: None if nan(v) else v for k, v in features.items()}
    if isinstance(machine, dict):
        machine = {k: v for k, v in machine.items() if not nan(v)}
    return dataclasses.replace(r, features=features, machine_features=machine)


def record_from_json(data: Any) -> NestRecord:
    """An export's object as a record (ValueError: what is wrong with it)."""
    if not isinstance(data, dict):
        raise ValueError("a row is a JSON object")
    schema = data.get("schema", schema_version())
    if not isinstance(schema, int) or schema > schema_version():
        raise ValueError(f"schema {schema!r}, this s2s reads up to {schema_version()}")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ValueError(f"missing {', '.join(repr(k) for k in missing)}")
    unknown = sorted(set(data) - set(COLUMNS) - {"schema"})
    if unknown:
        raise ValueError(f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}")
    scop = data["scop"]
    record = NestRecord(
        scop=scop, function=data.get("function", scop.split("/")[0] if isinstance(scop, str) else ""),
        program=data["program"], target=data["target"], machine=data["machine"], params=data.get("params", {}),
        dataset=data.get("dataset", ""), features_version=data["features_version"],
        features=data.get("features", {}), statements=data.get("statements", []),
        machine_features=data.get("machine_features", {}), recipe=data["recipe"],
        default_recipe=data.get("default_recipe", []), default_seconds=data.get("default_seconds"),
        tuned_seconds=data.get("tuned_seconds"), evaluations=data.get("evaluations", 0),
        tune_seconds=data.get("tune_seconds", 0.0), provenance=data.get("provenance", {}),
        created=data.get("created", ""), updated=data.get("updated", ""))
    _check_record(record)
    return strict_json_record(record)


# --- the database -----------------------------------------------------------------------------------------

class RecipeDB:
    """The database at ``path`` (default: ``default_path()``), created and migrated on open.
    ``timeout``: seconds to wait for another process's lock before giving up."""

    def __init__(self, path: str | Path | None = None, timeout: float = 5.0):
        self.path = Path(path) if path is not None else default_path()
        self.timeout = timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise RecipeDBError(f"{self.path}: cannot create its directory: {e.strerror}; {HINT}") from None
        with self._guard():
            # autocommit: transactions are begun and ended explicitly, so that an import or a migration
            # is all or nothing (sqlite3's implicit transactions would commit DDL and scripts early)
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        try:
            self._migrate()
        except BaseException:
            self._conn.close()
            raise

    # -- plumbing
    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise RecipeDBError(self._explain(e)) from None

    def _explain(self, e: sqlite3.Error) -> str:
        text = str(e)
        if "not a database" in text or "malformed" in text:
            return f"{self.path}: not a recipe database ({text}); {HINT}"
        if "locked" in text or "busy" in text:
            return (f"{self.path}: the database is locked by another process (waited {self.timeout:g} s); "
                    f"try again, or set S2S_RECIPE_DB to another file")
        if "unable to open" in text or "readonly" in text or "read-only" in text or "disk I/O" in text:
            return f"{self.path}: cannot open or write the database ({text}); {HINT}"
        return f"{self.path}: {text}; {HINT}"

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._guard():
            # IMMEDIATE: take the write lock at once, so that a concurrent writer waits here rather
            # than failing half-way through
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _version(self) -> int:
        with self._guard():
            return self._conn.execute("PRAGMA user_version").fetchone()[0]

    def _migrate(self) -> None:
        latest = schema_version()
        if self._version() > latest:
            raise RecipeDBError(f"{self.path}: the database has schema {self._version()}, this s2s reads up to "
                                f"{latest}; use a newer s2s, or set S2S_RECIPE_DB to another file")
        if self._version() == latest:
            return
        with self._transaction() as conn:
            version = self._version()     # again under the lock: another process may have migrated it
            for statements in MIGRATIONS[version:]:
                for sql in statements:
                    conn.execute(sql)
            conn.execute(f"PRAGMA user_version = {latest}")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "RecipeDB":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- rows
    def _row(self, row: sqlite3.Row | tuple) -> NestRecord:
        values = dict(zip(("id",) + COLUMNS, row))
        for name in JSON_COLUMNS:
            values[name] = json.loads(values[name])
        return NestRecord(**values)

    def _select(self, where: str = "", args: tuple = ()) -> list[NestRecord]:
        with self._guard():
            rows = self._conn.execute(f"SELECT id, {', '.join(COLUMNS)} FROM nests {where} ORDER BY id",
                                      args).fetchall()
        return [self._row(r) for r in rows]

    def _find(self, conn: sqlite3.Connection, record: NestRecord) -> tuple[int, str, str] | None:
        """(id, created, updated) of the row with the record's key."""
        return conn.execute("SELECT id, created, updated FROM nests WHERE scop = ? AND program = ? AND target = ? "
                            "AND machine = ? AND params = ?", record.key()).fetchone()

    def _write(self, conn: sqlite3.Connection, record: NestRecord, row_id: int | None) -> int:
        values = [canonical_json(v) if name in JSON_COLUMNS else v
                  for name, v in ((n, getattr(record, n)) for n in COLUMNS)]
        if row_id is None:
            cursor = conn.execute(f"INSERT INTO nests ({', '.join(COLUMNS)}) "
                                  f"VALUES ({', '.join('?' for _ in COLUMNS)})", values)
            return int(cursor.lastrowid)
        conn.execute(f"UPDATE nests SET {', '.join(f'{n} = ?' for n in COLUMNS)} WHERE id = ?", [*values, row_id])
        return row_id

    def add(self, record: NestRecord) -> int:
        """Insert the record, or replace the row of its key (keeping that row's ``created``); its id."""
        record = strict_json_record(record)
        try:
            _check_record(record)
        except ValueError as e:
            raise RecipeDBError(f"{self.path}: row {record.scop!r}: {e}") from None
        stamp = now()
        with self._transaction() as conn:
            found = self._find(conn, record)
            created = found[1] if found else (record.created or stamp)
            return self._write(conn, dataclasses.replace(record, created=created, updated=stamp),
                               found[0] if found else None)

    def get(self, row_id: int) -> NestRecord | None:
        rows = self._select("WHERE id = ?", (row_id,))
        return rows[0] if rows else None

    def records(self, machine: str | None = None, target: str | None = None, features_version: int | None = None,
                program: str | None = None) -> list[NestRecord]:
        """The rows, by id, of the given machine, target, ... (None: any)."""
        wanted = {"machine": machine, "target": target, "features_version": features_version, "program": program}
        given = {k: v for k, v in wanted.items() if v is not None}
        where = ("WHERE " + " AND ".join(f"{k} = ?" for k in given)) if given else ""
        return self._select(where, tuple(given.values()))

    def remove(self, ids: Iterable[int]) -> int:
        """Delete these rows; how many there were."""
        ids = list(ids)
        with self._transaction() as conn:
            return sum(conn.execute("DELETE FROM nests WHERE id = ?", (i,)).rowcount for i in ids)

    def __len__(self) -> int:
        with self._guard():
            return self._conn.execute("SELECT COUNT(*) FROM nests").fetchone()[0]

    def prune(self, older_than_days: float | None = None, other_machines: bool = False, stale_features: bool = False,
              no_gain_below: float | None = None, ids: Iterable[int] = (), dry_run: bool = False) -> list[NestRecord]:
        """Remove every row that any criterion given matches (or, with ``dry_run``, only say which):
        updated more than ``older_than_days`` ago; tuned on another machine; features of another
        ``FEATURES_VERSION``; a speedup below ``no_gain_below`` (a row without both times has none);
        one of ``ids``."""
        from s2s.perf.features import FEATURES_VERSION
        from s2s.tuning.recipe import machine_fingerprint

        ids = set(ids)
        if older_than_days is None and not other_machines and not stale_features and no_gain_below is None \
                and not ids:
            raise RecipeDBError("prune needs a criterion: older than, other machines, stale features, "
                                "no gain below, or ids")
        cutoff = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=older_than_days)
                  if older_than_days is not None else None)
        here = machine_fingerprint() if other_machines else None

        def matches(r: NestRecord) -> bool:
            return (r.id in ids
                    or (cutoff is not None and _timestamp(r.updated) < cutoff)
                    or (here is not None and r.machine != here)
                    or (stale_features and r.features_version != FEATURES_VERSION)
                    or (no_gain_below is not None and (r.speedup is None or r.speedup < no_gain_below)))

        doomed = [r for r in self.records() if matches(r)]
        if not dry_run and doomed:
            self.remove(r.id for r in doomed if r.id is not None)
        return doomed

    # -- JSON Lines
    def export_jsonl(self, stream: IO[str], records: Iterable[NestRecord] | None = None) -> int:
        """Every row (or these records) as one JSON object a line; how many."""
        count = 0
        for r in self.records() if records is None else records:
            stream.write(json.dumps(r.to_json(), separators=(",", ":")) + "\n")
            count += 1
        return count

    def import_jsonl(self, stream: IO[str] | Iterable[str], where: str = "<input>") -> ImportSummary:
        """Merge the rows of an export: a new key is added; a row of a known key replaces the one
        here only when it was updated later. Any bad line refuses the whole input."""
        incoming = [(n, r) for n, r in _parse_lines(stream, where)]
        added = replaced = skipped = 0
        with self._transaction() as conn:
            for _, record in incoming:
                found = self._find(conn, record)
                if found is None:
                    stamp = now()
                    self._write(conn, dataclasses.replace(record, created=record.created or stamp,
                                                          updated=record.updated or stamp), None)
                    added += 1
                elif updated_later(record.updated, found[2]):
                    self._write(conn, dataclasses.replace(record, created=found[1] or record.created), found[0])
                    replaced += 1
                else:
                    skipped += 1
        return ImportSummary(added, replaced, skipped)


def updated_later(incoming: str, existing: str) -> bool:
    # a row that does not say when it was updated is older than any that does: it never replaces one
    if not incoming:
        return False
    return not existing or _timestamp(incoming) > _timestamp(existing)


def _parse_lines(stream: IO[str] | Iterable[str], where: str) -> Iterator[tuple[int, NestRecord]]:
    """Every record of the input, each checked; RecipeDBError at the first bad line (before any is
    stored: the caller consumes them all first)."""
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecipeDBError(f"{where}:{number}: not JSON: {e.msg} (column {e.colno}); nothing imported") \
                from None
        try:
            yield number, record_from_json(data)
        except ValueError as e:
            raise RecipeDBError(f"{where}:{number}: {e}; nothing imported") from None
