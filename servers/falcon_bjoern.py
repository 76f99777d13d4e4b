"""Falcon on bjoern: one process per core on one shared socket, each a libev event loop in C that
calls the app on the loop's own thread: one request at a time per process, and a backend call
blocks that whole process.

Keep-alive on, backlog 1024. SIGTERM stops the workers (bjoern itself stops only on SIGINT: the
adapter turns one into the other); the supervisor replaces a worker that dies.
"""
from servers.launch import launch

if __name__ == "__main__":
    launch("falcon_bjoern")
