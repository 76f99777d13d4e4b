"""Sanic on its own server: the main process binds, then manages --workers spawned workers.

Each worker runs an asyncio (uvloop) loop with async handlers; Mongo through pymongo's
AsyncMongoClient and Redis through redis.asyncio, their pools created inside the worker's loop.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("sanic")
