"""The module each uWSGI worker imports (`--module servers.adapters.uwsgi_worker:application`,
with --lazy-apps: after the fork): the app handed over by servers.adapters.workers (which counts
the worker loaded and, from the last of --workers, writes the ready line to the master's stdout),
with the Date and Server headers uWSGI's --http-socket leaves out."""
import signal

from servers.adapters import workers
from servers.adapters.wsgi_headers import with_default_headers

# The master stops its workers with SIGINT. Until the worker's loop installs uWSGI's own handler,
# Python's would only note it for the next bytecode, and after this import none may run: the worker
# would wait out the whole mercy (seen beside a CPU hog). A SIGINT while loading is a plain stop.
signal.signal(signal.SIGINT, signal.SIG_DFL)
application = with_default_headers(workers.worker_app(), server="uWSGI")
