"""Falcon on granian in WSGI mode: a main process forks one worker per core on one socket; in each,
Rust (tokio, hyper) does the HTTP I/O and runs the app on a pool of blocking Python threads,
where a backend call blocks one thread.

Keep-alive on, backlog 1024. SIGTERM to the main process stops the workers (killed after 3 s);
a worker that dies is replaced (respawn_failed_workers).
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_granian")
