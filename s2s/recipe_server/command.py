"""``s2s recipe-server``: serve the recipe server, or manage its tokens.

    s2s recipe-server [--db URL] [--host H] [--port P] [--read-token] [--ssl-certfile F --ssl-keyfile F]
    s2s recipe-server token create --scope read|write [--name N] [--db URL]
    s2s recipe-server token list|revoke ID [--db URL]

Nothing heavy is imported until a command runs: the ``s2s`` parser is built on every call.
"""
from __future__ import annotations

import argparse
import sys

DEFAULT_PORT = 8790
DB_HELP = ("the database: a SQLite path or a URL (sqlite:///F, postgresql://USER@HOST/DB); default "
           "$S2S_RECIPE_SERVER_DB, else recipe-server.sqlite in the cache directory")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="URL", default=None, help=DB_HELP)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--read-token", action="store_true",
                   help="reads need a token too (default: reads are open, writes need a write token)")
    p.add_argument("--rate-limit", type=float, default=600.0, metavar="N",
                   help="requests per minute per token or address (default 600; 0: none)")
    p.add_argument("--max-body", type=int, default=4 * 1024 * 1024, metavar="BYTES",
                   help="the largest request body taken (default 4 MiB)")
    p.add_argument("--ssl-certfile", metavar="F", help="serve HTTPS with this certificate (PEM)")
    p.add_argument("--ssl-keyfile", metavar="F", help="and this private key (PEM)")
    p.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    tokens = sub.add_parser("token", help="create, list or revoke access tokens",
                            description="create, list or revoke access tokens", allow_abbrev=False)
    what = tokens.add_subparsers(dest="token_action", metavar="ACTION", required=True)

    def action(name: str, help: str) -> argparse.ArgumentParser:
        q = what.add_parser(name, help=help, description=help, allow_abbrev=False)
        q.add_argument("--db", metavar="URL", default=argparse.SUPPRESS, help=DB_HELP)
        return q

    q = action("create", "a new token, printed once (only its digest is stored)")
    q.add_argument("--scope", choices=("read", "write"), required=True, help="write implies read")
    q.add_argument("--name", default="", help="who or what it is for (default: token-<id>)")
    action("list", "the tokens: id, name, scope, created, last used, revoked")
    q = action("revoke", "a token stops working at once")
    q.add_argument("id", type=int, help="its id (token list)")
    p.epilog = ("The API: POST /v1/transfer, POST /v1/recipes, GET /v1/recipes/{id}, GET /v1/health; "
                "its OpenAPI description at /docs. Clients: S2S_RECIPE_SERVER=URL and S2S_TOKEN=TOKEN "
                "(docs/recipe-server.md).")


def run(ns: argparse.Namespace) -> int:
    try:
        from s2s.recipe_server.store import Store, StoreError, database_url
    except ImportError as exc:
        return _fail(f"the recipe server needs its extra: pip install 's2s[server]' ({exc})")
    try:
        store = Store(database_url(ns.db))
        try:
            if ns.action == "token":
                return _token(store, ns)
            return _serve(store, ns)
        finally:
            store.close()
    except StoreError as exc:
        return _fail(str(exc))


def _token(store, ns: argparse.Namespace) -> int:
    if ns.token_action == "create":
        secret, info = store.create_token(ns.scope, ns.name)
        print(secret)
        print(f"token {info.id} ({info.name}, {info.scope}) created; it is shown only now", file=sys.stderr)
        return 0
    if ns.token_action == "list":
        for t in store.tokens():
            state = f"revoked {t.revoked}" if t.revoked else f"last used {t.last_used or 'never'}"
            print(f"{t.id:>4}  {t.scope:<5}  {t.name:<24}  created {t.created}  {state}")
        return 0
    if not store.revoke(ns.id):
        return _fail(f"no live token {ns.id} (s2s recipe-server token list)")
    print(f"token {ns.id} revoked", file=sys.stderr)
    return 0


def _serve(store, ns: argparse.Namespace) -> int:
    import uvicorn

    from s2s.recipe_server.app import ServerConfig, create_app

    if bool(ns.ssl_certfile) != bool(ns.ssl_keyfile):
        return _fail("--ssl-certfile and --ssl-keyfile go together")
    config = ServerConfig(db=store.url, read_requires_token=ns.read_token, requests_per_minute=ns.rate_limit,
                          max_body_bytes=ns.max_body)
    app = create_app(config, store)
    scheme = "https" if ns.ssl_certfile else "http"
    print(f"s2s recipe-server: {scheme}://{ns.host}:{ns.port} on {store.shown} ({store.count()} nests; reads "
          f"{'need a token' if ns.read_token else 'open'})", file=sys.stderr, flush=True)
    uvicorn.run(app, host=ns.host, port=ns.port, ssl_certfile=ns.ssl_certfile, ssl_keyfile=ns.ssl_keyfile,
                log_level=ns.log_level, proxy_headers=False, server_header=False)
    return 0


def _fail(text: str) -> int:
    print(f"s2s recipe-server: error: {text}", file=sys.stderr, flush=True)
    return 1
