"""Falcon on waitress: one process, an event loop that reads whole requests and buffers whole
responses, and 16 threads that run the app (a blocking backend call holds one thread).

Keep-alive on; waitress listens with a backlog of 1024 but serves at most 100 connections at once
(connection_limit), the rest waiting unaccepted. SIGTERM stops the loop and its threads.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_waitress")
