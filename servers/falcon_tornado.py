"""Falcon in tornado's WSGIContainer: HTTP parsed on tornado's asyncio event loop.

The Falcon app runs on a ThreadPoolExecutor of 16 threads, off the loop thread.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_tornado")
