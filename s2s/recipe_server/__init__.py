"""The recipe server (``s2s recipe-server``): tuned recipes shared between users and build
machines over HTTP, with tokens for writing, bounded and validated submissions, and the nearest
tuned nests found in its database. Its client is ``s2s.tuning.remote``.

Needs the ``server`` extra (FastAPI, uvicorn, SQLAlchemy, psycopg). The names below are imported on
first use, so that the ``s2s`` command's parser (``command.configure``) costs none of them.
"""
__all__ = ["Bounds", "Rejected", "ServerConfig", "Store", "StoreError", "checked_record", "create_app",
           "database_url"]

_LAZY = {"ServerConfig": "app", "create_app": "app", "Bounds": "limits", "Rejected": "limits",
         "checked_record": "limits", "Store": "store", "StoreError": "store", "database_url": "store"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"s2s.recipe_server.{_LAZY[name]}"), name)
    raise AttributeError(f"module 's2s.recipe_server' has no attribute {name!r}")
