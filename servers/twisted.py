"""twisted.web's Site and one leaf Resource on the asyncio reactor, one process.

The backend routes run asyncio coroutines (AsyncMongoClient, redis.asyncio) wrapped in Deferreds,
so the reactor thread never blocks.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("twisted")
