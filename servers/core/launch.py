"""The one command line of every Python entrypoint: flags, checks, the ready line.

An entrypoint calls launch(name); the catalog says which app and which server adapter make up
that stack, and both are imported only here, after the flags are checked, so that gevent's
monkey-patching (done by its adapter) comes before any framework or driver is imported.
A free-threaded entry (<entry>_ft) started by a Python with the GIL re-executes itself on .venv-ft's
Python, so `python -m servers.NAME` runs every entry as written. A process told which interpreter it must
run on (servers.core.command.environment: the benchmark's interpreter axis) checks it does, and says on
stderr what it runs on (interpreters.MARKER), before any server or app is imported.
"""
from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import socket
import ssl
import sys
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Callable, NoReturn

from backends import DEFAULT_MONGO_URL, DEFAULT_REDIS_URL
from servers.core import catalog, entry_modules, gil_guard, interpreters, lessons, ready_line, specs
from servers.core.loading import import_string
from servers.core.options import Options

EXIT_USAGE = 2
ROOT = Path(__file__).resolve().parents[2]


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag is one clear line on stderr and exit 2 (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message} (see --help)")


def fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(EXIT_USAGE)


def _lessons(entry: catalog.Entry) -> str:
    found = lessons.pages(entry)
    return f"\nHow it serves a request: {', '.join(found)} (python -m anatomy {entry.name})." if found else ""


def build_parser(entry: catalog.Entry) -> argparse.ArgumentParser:
    workers = (f"default {entry.workers}" if entry.workers is not None
               else f"default one per usable core, {catalog.usable_cores()} here")
    parser = _OneLineParser(
        prog=f"python -m {entry.module}",
        description=f"{entry_modules.docstring(entry)}\n\nServes the suite's route contract "
                    f"(ops: {', '.join(entry.ops)}).{_lessons(entry)}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"worker processes ({workers}"
                             + (", this stack runs one only)" if entry.max_workers == 1 else ")"))
    parser.add_argument("--mongo-url", default=os.environ.get("MONGO_URL", DEFAULT_MONGO_URL),
                        help=f"MongoDB URL (env MONGO_URL, default {DEFAULT_MONGO_URL})")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
                        help=f"Redis URL (env REDIS_URL, default {DEFAULT_REDIS_URL})")
    how = (f"{entry.server} terminates it with {entry.tls.library} (HTTPS above)" if entry.tls.terminates
           else "refused here: this stack has no TLS (above)")
    parser.add_argument("--certfile", default=os.environ.get("TLS_CERTFILE", ""), metavar="PEM",
                        help=f"serve HTTPS with this certificate (chain) and --keyfile (env TLS_CERTFILE; "
                             f"`python -m harness.tls` makes a local pair); {how}")
    parser.add_argument("--keyfile", default=os.environ.get("TLS_KEYFILE", ""), metavar="PEM",
                        help="the certificate's private key, unencrypted (env TLS_KEYFILE)")
    parser.add_argument("--http2", action="store_true", help=http2_help(entry))
    return parser


def http2_help(entry: catalog.Entry) -> str:
    """What --http2 does on this stack, from its server's spec (Http2)."""
    h2 = entry.http2
    if not h2.speaks:
        return f"refused here: {entry.server} has no HTTP/2 ({h2.cannot})"
    modes = ", ".join(HTTP2_MODE_WORDS[m] for m in h2.modes)
    if not h2.flag_adds:
        return (f"HTTP/2 ({h2.library}): {entry.server} serves it by default ({modes}); the flag changes nothing "
                f"here" + ("" if h2.cleartext else ", and without --certfile it is refused (no cleartext HTTP/2)"))
    default = (f"by default it serves {', '.join(HTTP2_MODE_WORDS[m] for m in h2.default)}; " if h2.default else "")
    return (f"serve HTTP/2 too ({h2.library}): over TLS by ALPN with --certfile, else in cleartext (h2c); "
            f"{default}the flag adds {', '.join(HTTP2_MODE_WORDS[m] for m in h2.flag_adds)}, through {h2.setting}")


HTTP2_MODE_WORDS = {specs.ALPN: "h2 by ALPN over TLS", specs.PRIOR_KNOWLEDGE: "h2c by prior knowledge",
                    specs.UPGRADE: "h2c by Upgrade"}


def check_http2(entry: catalog.Entry, http2: bool, tls: bool) -> None:
    """Fail with exit 2 now, with one line, on --http2 this stack cannot serve (its server's spec says why)."""
    if not http2:
        return
    h2 = entry.http2
    if not h2.speaks:
        fail(f"{entry.name} cannot serve HTTP/2 (--http2): {h2.cannot}")
    if not tls and not h2.cleartext:
        fail(f"{entry.name} serves HTTP/2 only over TLS, by ALPN: give --certfile and --keyfile with --http2 "
             f"({h2.missing})")
    if tls and not h2.over_tls:
        fail(f"{entry.name} serves HTTP/2 only in cleartext (h2c): drop --certfile and --keyfile ({h2.missing})")
    missing = [package for package in h2.packages if not _installed(package)]
    if missing:
        fail(f"{entry.name}: --http2 needs {', '.join(missing)}, not installed for {sys.executable} "
             f"(pip install {' '.join(missing)})")


def _installed(distribution: str) -> bool:
    try:
        metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def check_tls(entry: catalog.Entry, certfile: str, keyfile: str) -> None:
    """Fail with exit 2 now, with one line, on TLS flags this stack cannot serve or files that do not load:
    not later inside a server, in a worker, or after the ready line."""
    if not certfile and not keyfile:
        return
    if not entry.tls.terminates:
        fail(f"{entry.name} cannot serve HTTPS (--certfile/--keyfile): {entry.tls.cannot}")
    if not certfile or not keyfile:
        fail("--certfile and --keyfile go together: give both (or neither, for plain HTTP)")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(certfile, keyfile)
    except ssl.SSLError as exc:  # an OSError too: first
        fail(f"--certfile {certfile} and --keyfile {keyfile} do not load as a PEM certificate and its key "
             f"({exc.reason or exc})")
    except OSError as exc:
        fail(f"cannot read --certfile/--keyfile: {exc.strerror or exc}: {exc.filename or certfile}")


def parse_options(entry: catalog.Entry, argv: list[str] | None = None) -> Options:
    args = build_parser(entry).parse_args(argv)
    workers = args.workers if args.workers is not None else entry.default_workers()
    if workers < 1:
        fail("--workers must be at least 1")
    if workers < entry.min_workers:  # the fewest it runs as itself: "one worker" means that many there
        print(f"{entry.name}: --workers {workers} raised to {entry.min_workers}: with fewer it is another server "
              "(its spec's min_workers)", file=sys.stderr)
        workers = entry.min_workers
    if entry.max_workers is not None and workers > entry.max_workers:
        fail(f"{entry.name} runs {entry.max_workers} process only; --workers must be {entry.max_workers}")
    if not 0 < args.port < 65536:
        fail(f"--port must be in 1..65535, not {args.port}")
    check_tls(entry, args.certfile, args.keyfile)
    check_http2(entry, args.http2, bool(args.certfile))
    # absolute: workers (uWSGI's, spawned ones) may not share the entry's working directory
    certfile, keyfile = (os.path.abspath(f) if f else "" for f in (args.certfile, args.keyfile))
    return Options(name=entry.name, host=args.host, port=args.port, workers=workers,
                   mongo_url=args.mongo_url, redis_url=args.redis_url, mongo_driver=entry.mongo_driver,
                   redis_client=entry.redis_client, certfile=certfile, keyfile=keyfile, http2=args.http2)


def check_port_free(host: str, port: int) -> None:
    """Fail with exit 2 now, rather than let a server retry, log or crash on a taken port."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        fail(f"cannot resolve --host {host!r}: {exc.strerror}")
    family, _, _, _, address = infos[0]
    probe = socket.socket(family, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(address)
    except OSError as exc:
        reason = "address already in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        fail(f"cannot listen on {host}:{port}: {reason}")
    finally:
        probe.close()


def announcement(options: Options) -> str:
    """The ready line (servers.core.ready_line): tests and the benchmark wait for it instead of sleeping."""
    return ready_line.announcement(options.url, options.name, options.workers)


def announce(options: Options) -> None:
    print(announcement(options), flush=True)


def run_on_free_threaded(entry: catalog.Entry, argv: list[str]) -> NoReturn:
    """Replace this process by the entry on .venv-ft's Python, with the same flags: the same pid, so
    signals, the ready line and the exit code are as if it had been started there. Without .venv-ft,
    say how to build it."""
    python = interpreters.python(interpreters.FREE_THREADED)
    if not python.exists():
        fail(f"{entry.name} runs on free-threaded CPython 3.13t, and {python} is missing: build it with "
             f"`{interpreters.SETUP_HINT}` (about 8 minutes the first time), then run this command again")
    if Path(sys.executable).absolute() == python.absolute():  # exec'd already, and still a GIL build
        fail(f"{entry.name} runs on free-threaded CPython 3.13t, but {python} is {sys.version.split()[0]} with "
             f"the GIL: rebuild it with `{interpreters.SETUP_HINT}`")
    sys.stdout.flush()
    sys.stderr.flush()
    # The code that runs is this checkout's, whatever .venv-ft's own install points at.
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    os.execve(python, [str(python), "-m", entry.module, *argv], {**os.environ, "PYTHONPATH": path})


def check_interpreter(entry: catalog.Entry) -> None:
    """Where the starter said which interpreter this process must be (interpreters.ENV), fail with exit 2
    unless it is that one, and say what it runs on (one line on stderr, read into the benchmark's results)."""
    asked = os.environ.get(interpreters.ENV)
    if not asked:
        return
    if asked not in interpreters.INTERPRETERS:
        fail(f"{interpreters.ENV}={asked!r}: expected one of {', '.join(interpreters.INTERPRETERS)}")
    facts = interpreters.running()
    if why := interpreters.mismatch(asked, facts):
        fail(f"{entry.name} was started for {asked} on {sys.executable}, which is not it ({why}): "
             f"run {interpreters.get(asked).setup_hint}")
    print(f"{interpreters.MARKER} {json.dumps({'key': asked, **facts})}", file=sys.stderr, flush=True)


def launch(name: str, argv: list[str] | None = None) -> None:
    gil_guard.watch()  # before any server or app is imported: which module takes the GIL back
    entry = catalog.get(name)
    if entry.language != "python":
        fail(f"{name} is a {entry.language} entry: start it with `python -m servers.run {name}`")
    if entry.free_threaded and not sysconfig.get_config_var("Py_GIL_DISABLED"):
        run_on_free_threaded(entry, sys.argv[1:] if argv is None else argv)
    check_interpreter(entry)
    # on the GIL twin the entry runs what its free-threaded variant runs (catalog.on_interpreter)
    entry = catalog.on_interpreter(entry, os.environ.get(interpreters.ENV) or interpreters.current())
    options = parse_options(entry, argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # errors only; no access log
    check_port_free(options.host, options.port)
    serve: Callable[..., None] = import_string(entry.server_spec.serve)
    serve(entry.app_spec.factory, options, lambda: announce(options))
