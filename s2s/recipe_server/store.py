"""The recipe server's storage, through SQLAlchemy: the embedded SQLite by default, PostgreSQL
for a shared deployment. One row per tuned loop nest, keyed as the local recipe database keys
them (scop, program, target, machine, params) and merged by the same rule (a row replaces one of
its key only when it was updated later), so that concurrent writers and repeated submissions end
in the same table whatever their order. Tokens live beside the rows, as digests.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from s2s.errors import S2SError
from s2s.tuning.database import COLUMNS, JSON_COLUMNS, ImportSummary, NestRecord, canonical_json, updated_later, now
from s2s.recipe_server.tokens import SCOPES, TokenInfo, digest, new_token

SCHEMA_VERSION = 1
T = TypeVar("T")

metadata = sa.MetaData()

nests = sa.Table(
    "nests", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("scop", sa.String(256), nullable=False),
    sa.Column("function", sa.String(256), nullable=False),
    sa.Column("program", sa.String(256), nullable=False),
    sa.Column("target", sa.String(16), nullable=False),
    sa.Column("machine", sa.String(256), nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("dataset", sa.String(256), nullable=False),
    sa.Column("features_version", sa.Integer, nullable=False),
    sa.Column("features", sa.Text, nullable=False),
    sa.Column("statements", sa.Text, nullable=False),
    sa.Column("machine_features", sa.Text, nullable=False),
    sa.Column("recipe", sa.Text, nullable=False),
    sa.Column("default_recipe", sa.Text, nullable=False),
    sa.Column("default_seconds", sa.Float),
    sa.Column("tuned_seconds", sa.Float),
    sa.Column("speedup", sa.Float),
    sa.Column("evaluations", sa.Integer, nullable=False),
    sa.Column("tune_seconds", sa.Float, nullable=False),
    sa.Column("provenance", sa.Text, nullable=False),
    sa.Column("created", sa.String(40), nullable=False),
    sa.Column("updated", sa.String(40), nullable=False),
    sa.Column("submitted_by", sa.String(256), nullable=False),   # the name of the write token
    sa.UniqueConstraint("scop", "program", "target", "machine", "params", name="nests_key"),
    sa.Index("nests_target_version", "target", "features_version"),
)

tokens = sa.Table(
    "tokens", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(256), nullable=False),
    sa.Column("scope", sa.String(16), nullable=False),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),
    sa.Column("created", sa.String(40), nullable=False),
    sa.Column("revoked", sa.String(40)),
    sa.Column("last_used", sa.String(40)),
)

schema_info = sa.Table(
    "schema_info", metadata,
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("writes", sa.Integer, nullable=False, default=0),    # submissions stored: a cache key
)


class StoreError(S2SError):
    """The server's database cannot be opened, read or written."""


def database_url(db: str | None) -> str:
    """A SQLAlchemy URL from what a user types: a URL as it is (``postgresql://`` through
    psycopg 3), a path as a SQLite file; default ``$S2S_RECIPE_SERVER_DB``, else
    ``recipe-server.sqlite`` in s2s's cache directory."""
    db = db or os.environ.get("S2S_RECIPE_SERVER_DB")
    if not db:
        from s2s.user_cache import cache_dir

        db = str(cache_dir() / "recipe-server.sqlite")
    if db.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if "://" in db:
        return db
    path = Path(db).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def _sqlite_serialized(engine: sa.Engine) -> None:
    """Every SQLite transaction takes the write lock when it begins (``BEGIN IMMEDIATE``): two
    writers that both read first could otherwise each wait on the other's lock upgrade, one failing
    at once. Readers still read beside a writer (WAL)."""
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA journal_mode=WAL")
        dbapi_connection.execute("PRAGMA busy_timeout=30000")

    @event.listens_for(engine, "begin")
    def _begin(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")


@dataclass(frozen=True)
class Added:
    summary: ImportSummary
    ids: tuple[int, ...]            # each submitted row's id, in the order given


class Store:
    """The server's database at ``url`` (``database_url``), its tables created on open."""

    def __init__(self, url: str):
        self.url = url
        self.kind = sa.make_url(url).get_backend_name()
        try:
            self.engine = sa.create_engine(url, pool_pre_ping=True,
                                           connect_args={"timeout": 30, "check_same_thread": False}
                                           if self.kind == "sqlite" else {"connect_timeout": 10})
            if self.kind == "sqlite":
                _sqlite_serialized(self.engine)
            with self.engine.begin() as conn:
                metadata.create_all(conn)
                version = conn.execute(sa.select(schema_info.c.version)).scalar()
                if version is None:
                    conn.execute(schema_info.insert().values(version=SCHEMA_VERSION, writes=0))
                elif version > SCHEMA_VERSION:
                    raise StoreError(f"{self.shown}: schema {version}, this s2s reads up to {SCHEMA_VERSION}")
        except (DBAPIError, sa.exc.ArgumentError, ImportError) as exc:
            raise StoreError(f"{self.shown}: {_reason(exc)}") from None

    @property
    def shown(self) -> str:
        """The URL without its password."""
        return sa.make_url(self.url).render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()

    def _retried(self, work: Callable[[sa.Connection], T]) -> T:
        """``work`` in one transaction, again when a concurrent writer took the same key first or
        held a lock too long."""
        for attempt in range(8):
            try:
                with self.engine.begin() as conn:
                    return work(conn)
            except DBAPIError as exc:
                if attempt == 7 or not _transient(exc):
                    raise StoreError(f"{self.shown}: {_reason(exc)}") from None
                time.sleep(0.01 * 2 ** attempt)
        raise AssertionError("unreachable")

    # --- rows ---------------------------------------------------------------------------------------

    def add(self, records: Iterable[NestRecord], submitted_by: str) -> Added:
        """Store ``records`` all together or not at all; a row replaces one of its key only when
        it was updated later."""
        records = list(records)
        # rows are locked in key order, the same in every transaction: two writers never wait on each other
        order = sorted(range(len(records)), key=lambda k: records[k].key())

        def work(conn: sa.Connection) -> Added:
            added = replaced = skipped = 0
            ids: list[int] = [0] * len(records)
            for k in order:
                r = records[k]
                stamp = now()
                row = _row(r, submitted_by, created=r.created or stamp, updated=r.updated or stamp)
                # (locked until the transaction ends: a concurrent writer of the key waits, then compares)
                found = conn.execute(sa.select(nests.c.id, nests.c.updated, nests.c.created).where(
                    *(nests.c[k] == row[k] for k in ("scop", "program", "target", "machine", "params")))
                    .with_for_update()).first()
                if found is None:
                    ids[k] = conn.execute(nests.insert().values(**row)).inserted_primary_key[0]
                    added += 1
                elif updated_later(row["updated"], found.updated):
                    conn.execute(nests.update().where(nests.c.id == found.id).values(
                        **{**row, "created": found.created}))
                    ids[k] = found.id
                    replaced += 1
                else:
                    ids[k] = found.id
                    skipped += 1
            if added or replaced:
                conn.execute(schema_info.update().values(writes=schema_info.c.writes + 1))
            return Added(ImportSummary(added, replaced, skipped), tuple(ids))

        return self._retried(work)

    def get(self, row_id: int) -> NestRecord | None:
        row = self._read(lambda conn: conn.execute(sa.select(nests).where(nests.c.id == row_id)).first())
        return _record(row) if row is not None else None

    def candidates(self, target: str, features_version: int, min_speedup: float = 0.0,
                   exclude: Iterable[str] = ()) -> list[NestRecord]:
        """The rows a transfer may lend from, in id order."""
        query = sa.select(nests).where(nests.c.target == target, nests.c.features_version == features_version)
        if min_speedup > 0:
            query = query.where(nests.c.speedup >= min_speedup)
        exclude = list(exclude)
        if exclude:
            query = query.where(nests.c.program.not_in(exclude))
        return [_record(r) for r in self._read(lambda conn: conn.execute(query.order_by(nests.c.id)).all())]

    def revision(self) -> int:
        """What changes whenever a row is added or replaced: a cache key."""
        return self._read(lambda conn: conn.execute(sa.select(schema_info.c.writes)).scalar_one())

    def count(self) -> int:
        return self._read(lambda conn: conn.execute(sa.select(sa.func.count()).select_from(nests)).scalar_one())

    def _read(self, work: Callable[[sa.Connection], T]) -> T:
        try:
            with self.engine.connect() as conn:
                return work(conn)
        except DBAPIError as exc:
            raise StoreError(f"{self.shown}: {_reason(exc)}") from None

    # --- tokens -------------------------------------------------------------------------------------

    def create_token(self, scope: str, name: str = "") -> tuple[str, TokenInfo]:
        """A new token of ``scope``: the secret (shown once, never stored) and what is stored; a
        token without a name is called after its id."""
        if scope not in SCOPES:
            raise StoreError(f"unknown scope {scope!r} (known: {', '.join(SCOPES)})")
        secret, created = new_token(), now()

        def work(conn: sa.Connection) -> TokenInfo:
            token_id = conn.execute(tokens.insert().values(name=name, scope=scope, digest=digest(secret),
                                                           created=created)).inserted_primary_key[0]
            if not name:
                conn.execute(tokens.update().where(tokens.c.id == token_id).values(name=f"token-{token_id}"))
            return TokenInfo(token_id, name or f"token-{token_id}", scope, created)

        return secret, self._retried(work)

    def token(self, secret: str) -> TokenInfo | None:
        """The live token of ``secret`` (None: unknown or revoked), its use noted."""
        key = digest(secret)

        def work(conn: sa.Connection) -> TokenInfo | None:
            row = conn.execute(sa.select(tokens).where(tokens.c.digest == key)).first()
            if row is None or row.revoked:
                return None
            return _token(row)

        return self._read(work)

    def note_use(self, token_id: int) -> None:
        stamp = now()
        self._retried(lambda conn: conn.execute(tokens.update().where(tokens.c.id == token_id)
                                                .values(last_used=stamp)))

    def tokens(self) -> list[TokenInfo]:
        return [_token(r) for r in self._read(lambda conn: conn.execute(sa.select(tokens).order_by(tokens.c.id)).all())]

    def revoke(self, token_id: int) -> bool:
        stamp = now()
        return self._retried(lambda conn: conn.execute(
            tokens.update().where(tokens.c.id == token_id, tokens.c.revoked.is_(None)).values(revoked=stamp)
        ).rowcount) > 0


def _row(r: NestRecord, submitted_by: str, created: str, updated: str) -> dict[str, Any]:
    row: dict[str, Any] = {c: getattr(r, c) for c in COLUMNS}
    for c in JSON_COLUMNS:
        row[c] = canonical_json(row[c]) if c == "params" else json.dumps(row[c])
    row.update(created=created, updated=updated, speedup=r.speedup, submitted_by=submitted_by)
    return row


def _record(row: sa.Row) -> NestRecord:
    data = row._mapping
    values = {c: (json.loads(data[c]) if c in JSON_COLUMNS else data[c]) for c in COLUMNS}
    return NestRecord(**values, id=data["id"])


def _token(row: sa.Row) -> TokenInfo:
    return TokenInfo(row.id, row.name, row.scope, row.created, row.revoked, row.last_used)


def _transient(exc: DBAPIError) -> bool:
    """A failure that the same transaction, run again, may not meet: a concurrent writer took the
    key first (a unique violation), a lock held too long (SQLite), a deadlock or serialization
    failure (PostgreSQL's SQLSTATE class 40)."""
    if isinstance(exc, IntegrityError):
        return True
    state = getattr(getattr(exc, "orig", None), "sqlstate", None)
    if state:
        return state.startswith("40")
    return isinstance(exc, OperationalError) and "locked" in str(exc.orig)


def _reason(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    return " ".join(str(original).split())[:300] or type(original).__name__
