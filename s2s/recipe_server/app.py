"""The recipe server's HTTP API (FastAPI; its OpenAPI description at ``/docs`` and
``/openapi.json``):

    POST /v1/transfer       loop-nest features + machine features + topk -> the nearest tuned nests
    POST /v1/recipes        tuned rows with their measurements (a write token)
    GET  /v1/recipes/{id}   one row
    GET  /v1/health         up, and how many rows

Writes need a token of scope ``write``; reads are open unless the server requires a token for
them. Every request is rate-limited per token (or per address without one); bodies past a bound
are refused as they arrive (Starlette's body limit); a submission is stored all together or, if any of its
rows is not one the server takes (``limits.checked_record``), not at all.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from s2s.tuning.database import TARGETS
from s2s.tuning.embedding import Weights
from s2s.recipe_server.limits import Bounds, Rejected, checked_record
from s2s.recipe_server.neighbours import NeighbourIndex
from s2s.recipe_server.rate_limit import RateLimiter
from s2s.recipe_server.store import Store, StoreError
from s2s.recipe_server.tokens import TokenInfo, allows, looks_like_token

API_VERSION = "v1"


@dataclass(frozen=True)
class ServerConfig:
    """How a recipe server runs (data: each is a command-line option of ``s2s recipe-server``)."""

    db: str                                  # a SQLAlchemy URL (store.database_url)
    read_requires_token: bool = False
    requests_per_minute: float = 600.0       # per token or address; 0: unlimited
    max_body_bytes: int = 4 * 1024 * 1024
    max_topk: int = 20
    max_nests: int = 64                      # per transfer request
    bounds: Bounds = field(default_factory=Bounds)


Text = Annotated[str, StringConstraints(min_length=1, max_length=256)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


class NestQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: Text = Field(description="the caller's name for the nest (its SCoP id), given back")
    features: dict[Text, Finite | None] = Field(max_length=256, description="s2s.perf.features values")


class TransferRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target: Literal[TARGETS]  # type: ignore[valid-type]
    features_version: int = Field(ge=0, le=1_000_000)
    machine_features: dict[Text, Finite] = Field(default_factory=dict, max_length=64)
    nests: list[NestQuery] = Field(min_length=1, max_length=1024)
    topk: int = Field(3, ge=1, le=1000)
    min_speedup: float = Field(0.0, ge=0.0, le=1e6, description="only nests that gained this much when tuned")
    exclude_programs: list[Text] = Field(default_factory=list, max_length=256)
    weights: dict[Literal["structure", "arithmetic", "access", "dependences", "sizes", "measured", "machine"],
                  Annotated[float, Field(ge=0.0, le=100.0)]] = Field(default_factory=dict)


class Neighbour(BaseModel):
    id: int
    distance: float
    speedup: float | None
    record: dict[str, Any]


class NestAnswer(BaseModel):
    id: str
    neighbours: list[Neighbour]


class TransferAnswer(BaseModel):
    candidates: int = Field(description="tuned nests of this target and feature version searched")
    nests: list[NestAnswer]


class Submission(BaseModel):
    model_config = ConfigDict(extra="forbid")
    records: list[dict[str, Any]] = Field(min_length=1, description="rows as `s2s recipes export` writes them")


class Submitted(BaseModel):
    added: int
    replaced: int
    skipped: int
    ids: list[int]


class Health(BaseModel):
    status: str
    api: str
    database: str
    nests: int
    reads: Literal["open", "token"]


@dataclass(frozen=True)
class Caller:
    """Who asks: a live token, or an address without one."""

    key: str
    token: TokenInfo | None


def create_app(config: ServerConfig, store: Store | None = None) -> FastAPI:
    store = store or Store(config.db)
    index = NeighbourIndex(store)
    limiter = RateLimiter(config.requests_per_minute)
    noted: dict[int, float] = {}
    noted_lock = threading.Lock()

    app = FastAPI(title="s2s recipe server", version=API_VERSION, max_body_size=config.max_body_bytes,
                  description="Tuned loop-nest recipes of s2s, shared: transfer tuning by performance embeddings.")
    app.state.store = store

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        # what was wrong and where, not the input back: it may be large, or hold a NaN that JSON cannot carry
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                  for e in exc.errors()[:20]]
        return JSONResponse({"detail": errors}, status_code=422)

    @app.exception_handler(StoreError)
    async def _store_failed(_request: Request, exc: StoreError):
        return JSONResponse({"detail": f"the server's database failed: {exc}"}, status_code=503)

    def limited(key: str) -> None:
        wait = limiter.admit(key)
        if wait > 0:
            raise HTTPException(429, "too many requests", headers={"Retry-After": str(max(1, math.ceil(wait)))})

    def caller(request: Request) -> Caller:
        """The token the request carries (checked), or its address; counted against its allowance.
        A request with a bad token counts against its address's: guessing tokens is rate-limited too."""
        address = f"address:{request.client.host if request.client else '?'}"
        header = request.headers.get("authorization")
        if header is None:
            limited(address)
            return Caller(address, None)
        scheme, _, secret = header.partition(" ")
        secret = secret.strip()
        token = store.token(secret) if scheme.lower() == "bearer" and looks_like_token(secret) else None
        if token is None:
            limited(address)
            why = "unknown or revoked token" if scheme.lower() == "bearer" and looks_like_token(secret) else \
                "malformed Authorization header (Bearer <token>)"
            raise HTTPException(401, why, headers={"WWW-Authenticate": "Bearer"})
        limited(f"token:{token.id}")
        _note(token.id)
        return Caller(f"token:{token.id}", token)

    def _note(token_id: int) -> None:
        """A token's last use, written at most once a minute (not a write per read)."""
        t = time.monotonic()
        with noted_lock:
            if t - noted.get(token_id, -math.inf) < 60.0:
                return
            noted[token_id] = t
        store.note_use(token_id)

    def reader(who: Caller = Depends(caller)) -> Caller:
        if who.token is None and config.read_requires_token:
            raise HTTPException(401, "this server needs a token to read", headers={"WWW-Authenticate": "Bearer"})
        return who

    def writer(who: Caller = Depends(caller)) -> Caller:
        if who.token is None:
            raise HTTPException(401, "writing needs a token of scope write", headers={"WWW-Authenticate": "Bearer"})
        if not allows(who.token.scope, "write"):
            raise HTTPException(403, f"token {who.token.name!r} may only {who.token.scope}")
        return who

    @app.get(f"/{API_VERSION}/health", response_model=Health)
    def health() -> Health:
        return Health(status="ok", api=API_VERSION, database=store.kind, nests=store.count(),
                      reads="token" if config.read_requires_token else "open")

    @app.post(f"/{API_VERSION}/transfer", response_model=TransferAnswer)
    def transfer(request: TransferRequest, _who: Caller = Depends(reader)) -> TransferAnswer:
        if len(request.nests) > config.max_nests:
            raise HTTPException(422, f"at most {config.max_nests} nests per request")
        if request.topk > config.max_topk:
            raise HTTPException(422, f"topk is at most {config.max_topk}")
        found = index.candidates(request.target, request.features_version, request.min_speedup,
                                 tuple(sorted(set(request.exclude_programs))))
        weights = Weights(**request.weights)
        answers = []
        for nest in request.nests:
            near = found.nearest(nest.features, request.machine_features, request.topk, weights)
            answers.append(NestAnswer(id=nest.id, neighbours=[
                Neighbour(id=r.id, distance=d, speedup=r.speedup, record={"id": r.id, **r.to_json()})
                for r, d in near]))
        return TransferAnswer(candidates=len(found.records), nests=answers)

    @app.post(f"/{API_VERSION}/recipes", response_model=Submitted)
    def submit(submission: Submission, who: Caller = Depends(writer)) -> Submitted:
        if len(submission.records) > config.bounds.records_per_request:
            raise HTTPException(422, f"at most {config.bounds.records_per_request} rows per request")
        records, problems = [], []
        for k, data in enumerate(submission.records):
            try:
                records.append(checked_record(data, config.bounds))
            except Rejected as exc:
                problems.append({"index": k, "error": str(exc)})
        if problems:
            raise HTTPException(422, {"rejected": problems, "stored": 0})
        added = store.add(records, submitted_by=who.token.name)
        return Submitted(added=added.summary.added, replaced=added.summary.replaced,
                         skipped=added.summary.skipped, ids=list(added.ids))

    @app.get(f"/{API_VERSION}/recipes/{{row_id}}")
    def get(row_id: int, _who: Caller = Depends(reader)) -> dict[str, Any]:
        record = store.get(row_id) if 0 < row_id < 2 ** 62 else None
        if record is None:
            raise HTTPException(404, f"no row {row_id}")
        return {"id": record.id, **record.to_json()}

    return app
