"""A private PostgreSQL cluster for FerretDB: Debian's `postgresql` binaries, our own data dir.

The cluster listens on 127.0.0.1 only (no Unix socket, so no file outside the data dir and no
socket-path length limit), trusts loopback connections as user `postgres`, and is made by initdb
once per data dir (UTF8, C locale: what FerretDB requires). PostgreSQL refuses to run as root, so
as root initdb and postgres run as the `postgres` system user (or `nobody`) through setpriv,
keeping only the capability to traverse directories: state dirs under a root-only tmp dir work.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from pathlib import Path

HOST = "127.0.0.1"
SUPERUSER = "postgres"
DATABASE = "postgres"
# Ports 32768-60999 are the machine's ephemeral range: a client's outgoing connection could
# take a long-lived server's port between a stop and a restart there.
PORT_RANGE = (20000, 32767)

# Settings given on the command line, so that they hold for data dirs made by older versions too.
SETTINGS = {
    "listen_addresses": HOST,
    "unix_socket_directories": "",
    # FerretDB runs prepared statements on pooled connections; a generic plan made before the
    # GIN index on `id` existed would keep scanning. A custom plan per execution always sees it.
    "plan_cache_mode": "force_custom_plan",
    # Benchmark data is re-seedable: do not wait for the disk on each commit.
    "synchronous_commit": "off",
    # Nor at the shutdown checkpoint: on a slow CI disk it outlasted the stop's grace period.
    "fsync": "off",
    "shared_buffers": "32MB",
    "max_connections": "200",
    "log_min_messages": "warning",
}

HBA = f"# written by backends.postgres: loopback TCP only, trusted\nhost all all {HOST}/32 trust\n"


class PostgresError(Exception):
    """PostgreSQL is missing or its cluster could not be made; the message says what to do."""


def bin_dir() -> Path:
    """The directory of postgres, initdb, pg_isready and psql (newest installed major version)."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        if found.returncode == 0:
            candidates.append(Path(found.stdout.strip()))
    versions = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += [Path(p) for p in sorted(versions, key=lambda p: int(Path(p).parent.name), reverse=True)]
    postgres = shutil.which("postgres")
    if postgres:
        candidates.append(Path(postgres).parent)
    for candidate in candidates:
        if (candidate / "postgres").exists() and (candidate / "initdb").exists():
            return candidate
    raise PostgresError("PostgreSQL server binaries not found: apt-get install postgresql")


def tool(name: str) -> str:
    return str(bin_dir() / name)


def _service_user() -> pwd.struct_passwd:
    for name in (SUPERUSER, "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise PostgresError("running as root, but neither a postgres nor a nobody user exists to run PostgreSQL")


# Capability bits (linux/capability.h), in the order they are preferred for reaching the data dir.
TRAVERSE_CAPS = (("dac_read_search", 2), ("dac_override", 1))


def _traverse_cap() -> str | None:
    """A capability this process may hand down that lets the server reach its data dir through
    parents that are root's alone (pytest's tmp dir): dac_read_search, else (Docker's default
    set lacks it) dac_override; None if neither is in the bounding set."""
    try:
        status = Path("/proc/self/status").read_text().splitlines()
        bounding = int(next(line for line in status if line.startswith("CapBnd:")).split()[1], 16)
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return next((name for name, bit in TRAVERSE_CAPS if bounding >> bit & 1), None)


def as_server_user(command: list[str]) -> list[str]:
    """command as the unprivileged user if we are root (postgres and initdb refuse root)."""
    if os.geteuid() != 0:
        return command
    user = _service_user()
    cap = _traverse_cap()
    caps = [f"--inh-caps=+{cap}", f"--ambient-caps=+{cap}"] if cap else []
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", *caps, *command]


def _give_to_server_user(path: Path) -> None:
    if os.geteuid() == 0:
        user = _service_user()
        os.chown(path, user.pw_uid, user.pw_gid)


def init_cluster(data: Path) -> bool:
    """initdb `data` unless it holds a cluster already; True if made now."""
    if (data / "PG_VERSION").exists():
        return False
    data.mkdir(parents=True, exist_ok=True)
    data.chmod(0o700)
    _give_to_server_user(data)
    result = subprocess.run(
        as_server_user([tool("initdb"), "-D", str(data), "-U", SUPERUSER, "-E", "UTF8", "--locale=C",
                        "--auth=trust", "--no-sync", "--no-instructions"]),
        capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0:
        raise PostgresError(f"initdb {data} failed:\n{(result.stderr or result.stdout).strip()}")
    (data / "pg_hba.conf").write_text(HBA)
    return True


def server_command(data: Path, port: int) -> list[str]:
    settings = [arg for key, value in SETTINGS.items() for arg in ("-c", f"{key}={value}")]
    return as_server_user([tool("postgres"), "-D", str(data), "-p", str(port), *settings])


# FerretDB's pool of PostgreSQL connections (pgxpool settings in its URL): some kept open spare
# a burst of new Mongo clients the start of a backend process each. The maximum stays FerretDB's
# 50: it holds one connection per update statement of a command until the command ends, and
# wedges when they run out (the seed's update batches stay below it).
FERRETDB_POOL = {"pool_min_conns": "16"}


def url(port: int) -> str:
    return f"postgres://{SUPERUSER}@{HOST}:{port}/{DATABASE}"


def ferretdb_url(port: int) -> str:
    """url(port) with FerretDB's pool settings (which psql would refuse)."""
    return url(port) + "?" + "&".join(f"{key}={value}" for key, value in FERRETDB_POOL.items())


def ping(port: int) -> None:
    """Return if the cluster accepts connections, else raise PostgresError."""
    result = subprocess.run(
        [tool("pg_isready"), "-q", "-h", HOST, "-p", str(port), "-U", SUPERUSER, "-d", DATABASE, "-t", "1"],
        capture_output=True,
    )
    if result.returncode != 0:
        raise PostgresError(f"pg_isready on {HOST}:{port}: exit {result.returncode}")


def psql(pg_url: str, sql: str, timeout: float = 60.0) -> str:
    """Run sql through psql on pg_url; its unaligned, tuples-only output."""
    command = [tool("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", pg_url, "-c", sql]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise PostgresError(f"psql on {pg_url} failed: {result.stderr.strip()}")
    return result.stdout.strip()
