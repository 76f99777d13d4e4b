"""Sanic on its own server, as `servers.sanic`, but the Mongo routes use motor.

motor wraps synchronous pymongo in a thread pool (and is deprecated since 2025-05), against
AsyncMongoClient's native asyncio: this entry exists to measure that difference.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("sanic_motor")
