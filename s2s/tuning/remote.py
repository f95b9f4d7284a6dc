"""The recipe server's client: ``S2S_RECIPE_SERVER=https://host:8790 S2S_TOKEN=s2s_...``.

    server = RecipeServer.from_env()                   # None when no server is named
    found = server.transfer("openmp", {"kernel/94e655f3d23e": features}, machine, topk=3)
    server.submit(records)                             # a write token

Built on the standard library only (a build that asks the server imports nothing more). Every
request has a short timeout; answers to transfer questions are kept in a local cache, used
without asking while fresh (``ttl``) and, when the server cannot be reached, however old they
are. A server that cannot be reached is ``Unreachable``: callers fall back to the local recipe
database and say so once; a build never fails because of the server.
"""
from __future__ import annotations

import hashlib
import json
import os
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from s2s.errors import S2SError
from s2s.tuning.database import NestRecord, record_from_json, strict_json_record

SUBMIT_CHUNK = 256        # rows per POST /v1/recipes (the server's default bound)
TRANSFER_CHUNK = 64       # nests per POST /v1/transfer


class RecipeServerError(S2SError):
    """The recipe server answered with an error (a bad token, a refused row), or not at all."""


class Unreachable(RecipeServerError):
    """The recipe server could not be reached in time."""


@dataclass
class RecipeServer:
    url: str                                   # https://host:port (no path: the API is under /v1)
    token: str | None = None
    timeout: float = 3.0                       # seconds per request
    ca_file: str | None = None                 # a certificate authority for a self-signed server
    ttl: float = 3600.0                        # seconds a cached answer is used without asking
    cache: Path | None = None                  # default: <cache dir>/recipe-server
    _context: ssl.SSLContext | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.url = self.url.rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise RecipeServerError(f"recipe server {self.url!r}: an http:// or https:// URL")
        if self.cache is None:
            from s2s.user_cache import cache_dir

            self.cache = cache_dir() / "recipe-server"
        if self.url.startswith("https://"):
            self._context = ssl.create_default_context(cafile=self.ca_file)

    @staticmethod
    def from_env(env: Mapping[str, str] = os.environ) -> "RecipeServer | None":
        """The server ``S2S_RECIPE_SERVER`` names (None: none), with ``S2S_TOKEN``,
        ``S2S_RECIPE_SERVER_CA``, ``S2S_RECIPE_SERVER_TIMEOUT``, ``S2S_RECIPE_SERVER_TTL`` and
        ``S2S_RECIPE_SERVER_CACHE`` (the cache's directory)."""
        url = env.get("S2S_RECIPE_SERVER", "").strip()
        if not url:
            return None
        try:
            timeout = float(env.get("S2S_RECIPE_SERVER_TIMEOUT") or 3.0)
            ttl = float(env.get("S2S_RECIPE_SERVER_TTL") or 3600.0)
        except ValueError:
            raise RecipeServerError("S2S_RECIPE_SERVER_TIMEOUT and S2S_RECIPE_SERVER_TTL are seconds") from None
        try:
            return RecipeServer(url, env.get("S2S_TOKEN") or None, timeout=timeout,
                                ca_file=env.get("S2S_RECIPE_SERVER_CA") or None, ttl=ttl,
                                cache=Path(env["S2S_RECIPE_SERVER_CACHE"]) if env.get("S2S_RECIPE_SERVER_CACHE")
                                else None)
        except (OSError, ssl.SSLError) as exc:
            raise RecipeServerError(f"S2S_RECIPE_SERVER_CA: {exc}") from None

    # --- the API ------------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._request("GET", "/v1/health")

    def get(self, row_id: int) -> NestRecord:
        return _record(self._request("GET", f"/v1/recipes/{int(row_id)}"))

    def submit(self, records: Iterable[NestRecord]) -> dict[str, Any]:
        """Store ``records`` on the server (a write token): the counts of rows added, replaced and
        skipped (an equal or newer row of the key was there), and their ids."""
        rows = [strict_json_record(r).to_json() for r in records]
        total: dict[str, Any] = {"added": 0, "replaced": 0, "skipped": 0, "ids": []}
        for k in range(0, len(rows), SUBMIT_CHUNK):
            answer = self._request("POST", "/v1/recipes", {"records": rows[k:k + SUBMIT_CHUNK]})
            for key in ("added", "replaced", "skipped"):
                total[key] += answer[key]
            total["ids"] += answer["ids"]
        return total

    def transfer(self, target: str, nests: Mapping[str, Mapping[str, float | None]], machine: Mapping[str, float],
                 topk: int = 3, min_speedup: float = 0.0, exclude: Iterable[str] = (),
                 features_version: int | None = None) -> dict[str, list[tuple[NestRecord, float]]]:
        """Per nest (its id -> its features) the ``topk`` nearest tuned nests of the server and
        their distances, nearest first."""
        from s2s.perf.features import FEATURES_VERSION

        out: dict[str, list[tuple[NestRecord, float]]] = {}
        ids = list(nests)
        for k in range(0, len(ids), TRANSFER_CHUNK):
            request = {"target": target, "features_version": FEATURES_VERSION if features_version is None
                       else features_version, "machine_features": _finite(machine),
                       "nests": [{"id": i, "features": _finite(nests[i], keep_none=True)}
                                 for i in ids[k:k + TRANSFER_CHUNK]],
                       "topk": topk, "min_speedup": min_speedup, "exclude_programs": sorted(set(exclude))}
            answer = self._cached("POST", "/v1/transfer", request)
            for nest in answer["nests"]:
                out[nest["id"]] = [(_record(n["record"]), float(n["distance"])) for n in nest["neighbours"]]
        return out

    # --- transport ----------------------------------------------------------------------------------

    def _cached(self, method: str, path: str, body: Any) -> Any:
        """The answer to a question asked before, while fresh; else the server's (kept); else,
        when the server cannot be reached, the last answer however old."""
        key = hashlib.sha256(json.dumps([self.url, path, body], sort_keys=True).encode()).hexdigest()
        file = self.cache / f"{key}.json"
        try:
            if time.time() - file.stat().st_mtime < self.ttl:
                return json.loads(file.read_text())
        except (OSError, ValueError):
            pass
        try:
            answer = self._request(method, path, body)
        except Unreachable as unreachable:
            try:
                return json.loads(file.read_text())
            except (OSError, ValueError):
                raise unreachable from None
        try:
            self.cache.mkdir(parents=True, exist_ok=True)
            temporary = file.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(answer))
            temporary.replace(file)
        except OSError:
            pass       # (a cache that cannot be written only costs the next build a question)
        return answer

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body, allow_nan=False).encode()
        headers = {"Accept": "application/json", "User-Agent": "s2s"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self._context) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise RecipeServerError(f"recipe server {self.url}: {exc.code} {_detail(exc)}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, ssl.SSLError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise Unreachable(f"recipe server {self.url} not reached: {reason}") from None
        except ValueError:
            raise RecipeServerError(f"recipe server {self.url}: an answer that is not JSON") from None


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(exc.read()).get("detail", "")
    except (ValueError, OSError, AttributeError):
        return exc.reason or ""
    if isinstance(detail, dict) and "rejected" in detail:
        return "; ".join(f"row {p['index']}: {p['error']}" for p in detail["rejected"][:5])
    if isinstance(detail, list):
        return "; ".join(str(d.get("msg", d)) for d in detail[:5])
    return str(detail)


def _record(data: dict[str, Any]) -> NestRecord:
    data = dict(data)
    row_id = data.pop("id", None)
    record = record_from_json(data)
    record.id = row_id
    return record


def _finite(values: Mapping[str, float | None], keep_none: bool = False) -> dict[str, float | None]:
    """JSON has no NaN: an unknown value is null (features) or left out (machine features)."""
    out: dict[str, float | None] = {}
    for name, value in values.items():
        if value is None or value != value or value in (float("inf"), float("-inf")):
            if keep_none:
                out[name] = None
            continue
        out[name] = float(value)
    return out
