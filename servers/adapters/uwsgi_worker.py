"""The module each uWSGI worker imports (`--module servers.adapters.uwsgi_worker:application`,
with --lazy-apps: after the fork): the app named by servers.adapters.handoff, with the Date and
Server headers uWSGI's --http-socket leaves out. The worker that completes the set of --workers
loaded apps writes the ready line (see servers.adapters.uwsgi_server)."""
import fcntl
import os
import signal

from servers.adapters.handoff import from_environ
from servers.adapters.uwsgi_server import READY_COUNT_VARIABLE
from servers.core.launch import announcement
from servers.core.loading import build_app
from servers.adapters.wsgi_headers import with_default_headers


def _count_loaded_app(options) -> None:
    """One line per loaded worker in a file the master removes at exit; the line that makes
    --workers of them announces. A worker respawned later makes it longer and says nothing."""
    with open(os.environ[READY_COUNT_VARIABLE], "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.write(f"{os.getpid()}\n")
        counter.flush()
        counter.seek(0)
        if len(counter.read().splitlines()) == options.workers:
            # uWSGI points a worker's stdout at its log (stderr): the line goes to the master's.
            with open(f"/proc/{os.getppid()}/fd/1", "w") as master_stdout:
                print(announcement(options), file=master_stdout, flush=True)


# The master stops its workers with SIGINT. Until the worker's loop installs uWSGI's own handler,
# Python's would only note it for the next bytecode, and after this import none may run: the worker
# would wait out the whole mercy (seen beside a CPU hog). A SIGINT while loading is a plain stop.
signal.signal(signal.SIGINT, signal.SIG_DFL)
app_path, options = from_environ()
application = with_default_headers(build_app(app_path, options), server="uWSGI")
_count_loaded_app(options)
