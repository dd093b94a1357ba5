"""A throwaway PostgreSQL cluster for the tests: its own data directory and port.

``Cluster().start()`` runs ``initdb`` in a fresh temporary directory and starts a postmaster
listening on a free port of 127.0.0.1 only (its Unix socket lives in that directory too), so a
system cluster on 5432, or another test process's cluster, is never touched. ``initdb``
refuses to run as root, so when we are root the cluster runs as Debian's ``postgres`` user
(``nobody`` if there is none) and the directory belongs to that user. Authentication is
``trust``: the cluster is a test fixture that lives for one test run. ``stop()`` shuts it down
(fast) and removes the directory; a watchdog process does the same if our process dies first.

``Cluster.attach(url)`` wraps a cluster someone else runs (``CHUHAN_TEST_POSTGRES``): it creates
and drops databases there and never starts or stops anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import asyncpg  # type: ignore[import-untyped]

T = TypeVar("T")

NOT_FOUND = (
    "PostgreSQL server binaries not found: install Debian's postgresql package (make test does)"
)

# Settings for a cluster that only ever holds test data: crash safety is not wanted.
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "200",
    "shared_buffers": "32MB",
    "fsync": "off",
    "full_page_writes": "off",
    "wal_level": "minimal",
    "max_wal_senders": "0",
    "max_wal_size": "256MB",  # the cluster may live in memory (/dev/shm)
    "min_wal_size": "32MB",
    "log_min_messages": "warning",
    "log_line_prefix": "'%m [%p] %d '",
}
#: PostgreSQL's defaults where :data:`SETTINGS` turns safety off (a commit flushed to disk),
#: for the benchmarks (bench/load.py, bench/explorer.py) that measure a real server.
DURABLE_SETTINGS = {
    "fsync": "on",
    "full_page_writes": "on",
    "synchronous_commit": "on",
    "max_connections": "100",
    "shared_buffers": "128MB",
}
UNPRIVILEGED_USERS = ("postgres", "nobody")
SHM = "/dev/shm"
SHM_NEEDED = 1 << 30  # Docker's default /dev/shm is 64 MB: too small for a cluster
START_ATTEMPTS = 3


class PostgresNotFound(RuntimeError):
    """PostgreSQL's server binaries (``initdb``, ``pg_ctl``, ``postgres``) are not installed."""


def find_bindir() -> Path:
    """The directory of the newest installed PostgreSQL server binaries: Debian's
    /usr/lib/postgresql/N/bin, else ``pg_config --bindir``, else wherever ``initdb`` is on
    the PATH."""
    found: list[tuple[int, Path]] = []
    for initdb in glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        version = Path(initdb).parent.parent.name
        if version.isdigit():
            found.append((int(version), Path(initdb).parent))
    if found:
        return max(found)[1]
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True
            ).stdout
            candidates.append(Path(out.strip()))
    on_path = shutil.which("initdb")
    if on_path is not None:
        candidates.append(Path(on_path).parent)
    for bindir in candidates:
        if all((bindir / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return bindir
    raise PostgresNotFound(NOT_FOUND)


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def with_database(url: str, name: str) -> str:
    """``url`` with its database (the path) replaced by ``name``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def database_of(url: str) -> str:
    name = urlsplit(url).path.lstrip("/")
    if not name:
        raise ValueError(f"no database in {url!r}")
    return name


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (our own child not yet reaped) counts as gone.
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return re.search(r"^State:\s+Z", status, re.MULTILINE) is None


def postmaster_pid(datadir: Path) -> int | None:
    """The pid in ``datadir/postmaster.pid``, or None when there is none."""
    try:
        first = (datadir / "postmaster.pid").read_text().split("\n", 1)[0]
    except OSError:
        return None
    return int(first) if first.strip().isdigit() else None


def kill_postmaster(datadir: Path, timeout: float = 10.0) -> None:
    """Shut the postmaster of ``datadir`` down by signals: fast (SIGINT), then immediate
    (SIGQUIT), then SIGKILL, waiting ``timeout`` seconds for each."""
    pid = postmaster_pid(datadir)
    if pid is None:
        return
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not pid_alive(pid):
                return
            time.sleep(0.05)


class _AdminConnection:
    """One asyncpg connection to the admin database, on an event loop of its own thread, so
    the synchronous fixtures can use it whatever loop the calling thread runs."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="postgres-admin", daemon=True
        )
        self.thread.start()
        self.connection: asyncpg.Connection | None = None
        self.major: int | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result()

    async def _connection(self) -> asyncpg.Connection:
        if self.connection is None or self.connection.is_closed():
            import asyncpg  # here, so that the tests without a database run without it

            self.connection = await asyncpg.connect(self.url)
        return self.connection

    async def _execute(self, sql: str) -> None:
        await (await self._connection()).execute(sql)

    def execute(self, sql: str) -> None:
        self.run(self._execute(sql))

    async def _server_major(self) -> int:
        major: int = (await self._connection()).get_server_version().major
        return major

    def server_major(self) -> int:
        """The server's major version (15 for 15.8)."""
        if self.major is None:
            self.major = self.run(self._server_major())
        return self.major

    async def _close(self) -> None:
        if self.connection is not None and not self.connection.is_closed():
            await self.connection.close(timeout=5)
        self.connection = None

    def close(self) -> None:
        if self.loop.is_closed():
            return
        with contextlib.suppress(Exception):
            self.run(self._close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class Cluster:
    """A PostgreSQL cluster for tests: ``start()``, ``create_database()`` for each test,
    ``drop_database(url)`` after it, ``stop()`` at the end."""

    def __init__(self, *, admin_url: str | None = None) -> None:
        self.owned = admin_url is None
        self._admin_url = admin_url
        self.directory: Path | None = None
        self.port: int | None = None
        self.user: pwd.struct_passwd | None = None
        self._admin: _AdminConnection | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @classmethod
    def attach(cls, admin_url: str) -> Cluster:
        """A running cluster at ``admin_url`` (a superuser's, or one allowed to create
        databases); ``start()`` and ``stop()`` leave the server alone."""
        return cls(admin_url=admin_url)

    # -- paths

    @property
    def datadir(self) -> Path:
        assert self.directory is not None, "the cluster was not started"
        return self.directory / "data"

    @property
    def logfile(self) -> Path:
        assert self.directory is not None, "the cluster was not started"
        return self.directory / "postgres.log"

    @property
    def admin_url(self) -> str:
        if self._admin_url is None:
            raise RuntimeError("the cluster was not started")
        return self._admin_url

    @property
    def pid(self) -> int | None:
        """The postmaster's pid (None for an attached or stopped cluster)."""
        if not self.owned or self.directory is None:
            return None
        return postmaster_pid(self.datadir)

    # -- running commands as the cluster's user

    def _run(self, args: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
        extra: dict[str, Any] = {}
        if self.user is not None:
            extra = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        if self.user is not None:
            env["HOME"] = str(self.directory)
            env["USER"] = env["LOGNAME"] = self.user.pw_name
        result = subprocess.run(
            args,
            cwd=self.directory,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            **extra,
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}"
                + self._log_tail()
            )
        return result

    def _log_tail(self) -> str:
        if self.directory is None:
            return ""
        try:
            lines = self.logfile.read_text(errors="replace").splitlines()[-20:]
        except OSError:
            return ""
        return "\n--- postgres.log ---\n" + "\n".join(lines)

    @staticmethod
    def _unprivileged_user() -> pwd.struct_passwd:
        for name in UNPRIVILEGED_USERS:
            with contextlib.suppress(KeyError):
                return pwd.getpwnam(name)
        raise RuntimeError(
            "PostgreSQL refuses to run as root and there is no 'postgres' (or 'nobody') user"
        )

    def _temp_parent(self) -> str | None:
        """Where to make the directory: /dev/shm when it is a large enough tmpfs (creating a
        database there takes a tenth of the time it takes on a disk, fsync off or not), else
        the usual temporary folder, unless (as root) the cluster's user could not reach it,
        then /tmp."""
        with contextlib.suppress(OSError):
            shm = os.statvfs(SHM)
            if (
                shm.f_bavail * shm.f_frsize >= SHM_NEEDED
                and os.stat(SHM).st_mode & 0o1777 == 0o1777
            ):
                return SHM
        if self.user is None:
            return None
        parent = Path(tempfile.gettempdir()).resolve()
        for folder in (parent, *parent.parents):
            if not folder.stat().st_mode & 0o001:
                return "/tmp"
        return None

    # -- life cycle

    def start(self) -> None:
        """initdb in a fresh temporary directory and start the postmaster on a free port."""
        if not self.owned or self.directory is not None:
            return
        bindir = find_bindir()
        if os.geteuid() == 0:
            self.user = self._unprivileged_user()
        self.directory = Path(tempfile.mkdtemp(prefix="chuhan-pg-", dir=self._temp_parent()))
        try:
            self._start_watchdog()
            if self.user is not None:
                os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
            self._run(
                [
                    str(bindir / "initdb"),
                    "--pgdata",
                    str(self.datadir),
                    "--username=postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-locale",
                    "--no-sync",
                    "--no-instructions",
                ]
            )
            settings = dict(SETTINGS)
            settings["unix_socket_directories"] = f"'{self.directory}'"
            with open(self.datadir / "postgresql.conf", "a", encoding="utf-8") as conf:
                conf.write("\n# chuhan test cluster\n")
                conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
            for attempt in range(START_ATTEMPTS):
                # Another process may take the free port before the postmaster binds it.
                self.port = free_port()
                result = self._run(
                    [
                        str(bindir / "pg_ctl"),
                        "start",
                        "--pgdata",
                        str(self.datadir),
                        "--log",
                        str(self.logfile),
                        "--wait",
                        "--timeout=60",
                        "--silent",
                        "-o",
                        f"-p {self.port}",
                    ],
                    check=attempt == START_ATTEMPTS - 1,
                )
                if result.returncode == 0:
                    break
                kill_postmaster(self.datadir)
            self._admin_url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        except BaseException:
            self.stop()
            raise

    def _start_watchdog(self) -> None:
        """A process that waits for the end of a pipe from ours and then shuts the cluster
        down and removes its directory: when we exit without calling ``stop()`` (killed, or
        a crash) the pipe ends all the same."""
        assert self.directory is not None
        self._watchdog = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--watch", str(self.directory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        """Shut the cluster down (fast) and remove its directory. Safe to call again, and on
        a cluster whose start failed halfway; on an attached cluster it only closes our
        connection."""
        with self._lock:
            if self._admin is not None:
                self._admin.close()
                self._admin = None
            if not self.owned or self.directory is None:
                return
            if postmaster_pid(self.datadir) is not None:
                result = self._run(
                    [
                        str(find_bindir() / "pg_ctl"),
                        "stop",
                        "--pgdata",
                        str(self.datadir),
                        "--mode=fast",
                        "--wait",
                        "--timeout=30",
                        "--silent",
                    ],
                    check=False,
                )
                if result.returncode != 0:
                    kill_postmaster(self.datadir)
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
            self._admin_url = None
            self.port = None
            if self._watchdog is not None:
                assert self._watchdog.stdin is not None
                self._watchdog.stdin.close()
                try:
                    self._watchdog.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._watchdog.kill()
                    self._watchdog.wait()
                self._watchdog = None

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- databases

    def _admin_connection(self) -> _AdminConnection:
        if self._admin is None:
            self._admin = _AdminConnection(self.admin_url)
        return self._admin

    def create_database(self, template: str = "template0") -> str:
        """A fresh database with a unique name, copied from ``template`` (empty by default);
        returns its URL."""
        name = "test_" + secrets.token_hex(8)
        sql = f"CREATE DATABASE {quote_ident(name)} TEMPLATE {quote_ident(template)}"
        with self._lock:
            admin = self._admin_connection()
            if admin.server_major() >= 15:
                # Copying the files (and a checkpoint, cheap with fsync off) is about twice as
                # fast as writing the template's pages to the WAL, PostgreSQL 15's default.
                sql += " STRATEGY FILE_COPY"
            admin.execute(sql)
        return with_database(self.admin_url, name)

    def allow_connections(self, url: str, allowed: bool) -> None:
        """Let the database at ``url`` take new connections, or refuse them all (as a
        database under maintenance does)."""
        name = quote_ident(database_of(url))
        with self._lock:
            self._admin_connection().execute(
                f"ALTER DATABASE {name} WITH ALLOW_CONNECTIONS {str(allowed).lower()}"
            )

    def drop_database(self, url: str) -> None:
        """Drop the database at ``url`` (gone already is fine), closing its connections."""
        name = database_of(url)
        with self._lock:
            self._admin_connection().execute(
                f"DROP DATABASE IF EXISTS {quote_ident(name)} WITH (FORCE)"
            )


def watch(directory: Path) -> None:
    """The watchdog: wait for our parent's pipe to end, then shut the cluster in
    ``directory`` down and remove it (if ``stop()`` has not done so already)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdin.buffer.read()
    if directory.exists():
        kill_postmaster(directory / "data")
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--watch":
        watch(Path(sys.argv[2]))
    else:
        sys.exit("usage: postgres_cluster.py --watch DIRECTORY (started by Cluster.start)")
