"""Flask in tornado's WSGIContainer: tornado's HTTPServer parses HTTP on the asyncio event loop.

The Flask app runs on a ThreadPoolExecutor of 16 threads (not on the loop thread), so blocking
driver calls do not stall the loop; --workers N pre-forks N such processes.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_tornado")
