"""tornado's own HTTPServer and RequestHandlers on the asyncio event loop, one process.

Handlers are coroutines: AsyncMongoClient and redis.asyncio calls yield to the loop; --workers N
pre-forks N processes on one socket, each with its own loop and clients.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("tornado")
