"""A real PostgreSQL server for the tests (and ``bench/host_load.py --db pgserver``), started from
the ``pgserver`` wheel, which ships PostgreSQL's binaries: no Docker, no system service.

One server per test run: every pytest process of a run (the xdist workers) attaches to the same
server, in a folder named after the run; pgserver counts the processes using it, and the last one
to exit stops it and deletes the folder. Each test gets a database of its own, made empty
(``new_database``) and dropped afterwards. The tests' server trades durability for speed
(``fsync=off``: its data dies with the machine, not with a killed client); the bench's keeps
PostgreSQL's defaults, so its commits wait for the disk as a real server's do.

``PASSWORD_ROLE`` logs in with ``PASSWORD`` only: the other roles are trusted (the server
listens on a socket in its own folder, nowhere else).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import itertools
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

T = TypeVar("T")
PASSWORD_ROLE, PASSWORD = "floral_pw", "s3cret-pw"
# the tests' server: fast, not durable (see above); each a ``postgres -c`` setting
FAST = {"fsync": "off", "full_page_writes": "off"}


@dataclass(frozen=True, slots=True)
class Server:
    folder: Path  # the data folder; the socket is in it
    socket_dir: Path

    def url(self, database: str = "postgres", user: str = "postgres", password: str = "") -> str:
        secret = f":{quote(password, safe='')}" if password else ""
        return f"postgresql://{user}{secret}@/{database}?host={self.socket_dir}"


def start(folder: Path, settings: dict[str, str] | None = None) -> Server:
    """The server whose data lives in ``folder`` (made and started unless this or another
    process did already), configured once: ``settings`` and the password role."""
    warnings.filterwarnings("ignore", module="platformdirs")  # XDG_RUNTIME_DIR unset: fine
    import pgserver

    logging.getLogger("pgserver").setLevel(logging.WARNING)
    with _locked(folder.with_name("floral-pg.lock")):  # one start at a time, whichever run
        handle = pgserver.get_server(folder, cleanup_mode="delete")
        socket_dir = handle.get_postmaster_info().socket_dir
        assert socket_dir is not None, "pgserver started no socket"
        server = Server(folder, socket_dir)
        marker = folder / "floral-configured"  # goes with the folder
        if not marker.exists():
            _configure(server, settings or {})
            marker.touch()
    return server


def stop(server: Server) -> None:
    """Stop the server this process started (and delete its folder)."""
    import pgserver

    pgserver.get_server(server.folder).cleanup()


def _configure(server: Server, settings: dict[str, str]) -> None:
    hba = server.folder / "pg_hba.conf"
    hba.write_text(f"local all {PASSWORD_ROLE} scram-sha-256\n" + hba.read_text())

    async def configure() -> None:
        connection = await _connect(server.url())
        try:
            for name, value in settings.items():
                await connection.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            await connection.execute(
                f"CREATE ROLE {PASSWORD_ROLE} LOGIN SUPERUSER PASSWORD '{PASSWORD}'"
            )
            await connection.execute("SELECT pg_reload_conf()")
        finally:
            await connection.close()

    in_thread(configure)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        yield


def _run_folder() -> Path:
    """The same folder in every process of a test run (xdist names the run), else this one's."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    name = f"floral-pg-{run[:16]}" if run else f"floral-pg-{os.getpid()}"
    return Path(tempfile.gettempdir()) / name


_server: Server | None = None


def server() -> Server:
    """This test run's server, started at the first call."""
    global _server
    if _server is None:
        _server = start(_run_folder(), FAST)
    return _server


_names = itertools.count(1)
TEMPLATE = "floral_template"  # a database with floral-host's schema, copied for each test


def new_database(schema: bool = True) -> str:
    """The URL of a new database on the test run's server: with floral-host's schema already
    made (a copy of ``TEMPLATE``: no migrations each test), or with nothing (``schema=False``)."""
    name = f"floral_{os.getpid()}_{next(_names)}"
    template = _template() if schema else "template1"
    # FILE_COPY: copying the files takes the server half the CPU of WAL_LOG, PostgreSQL's
    # default, which writes the whole template through the WAL (fsync is off: its checkpoint
    # costs little)
    _admin.call(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY = FILE_COPY")
    return server().url(name)


def drop_database(url: str) -> None:
    """Drop it in the background (a drop waits for a checkpoint; nobody waits for the drop)."""
    name = url.split("/")[3].split("?")[0]
    _admin.later(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def admin(sql: str) -> None:
    """Run ``sql`` as the server's superuser, from any thread or event loop."""
    _admin.call(sql)


_made_template = False


def _template() -> str:
    """``TEMPLATE``, made once for the run (by whichever process comes first)."""
    global _made_template
    if not _made_template:
        with _locked(server().folder.with_name("floral-pg.lock")):
            if not fetch(server().url(), f"SELECT 1 FROM pg_database WHERE datname = '{TEMPLATE}'"):
                _admin.call(f"CREATE DATABASE {TEMPLATE}")

                async def migrate() -> None:
                    from bot.database import open_store

                    await (await open_store(server().url(TEMPLATE))).close()

                in_thread(migrate)
        _made_template = True
    return TEMPLATE


class _Admin:
    """The superuser's connections, on an event loop of their own in a daemon thread: one for
    what the tests wait for, one for what they do not (drops)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connections: dict[str, Any] = {}

    def call(self, sql: str) -> None:
        asyncio.run_coroutine_threadsafe(self._run("now", sql), self._started()).result()

    def later(self, sql: str) -> None:
        asyncio.run_coroutine_threadsafe(self._run("later", sql), self._started())

    def _started(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            threading.Thread(target=self._loop.run_forever, daemon=True).start()
        return self._loop

    async def _run(self, which: str, sql: str) -> None:
        if which not in self._connections:
            self._connections[which] = await _connect(server().url())
        await self._connections[which].execute(sql)


_admin = _Admin()


def fetch(url: str, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` on the database at ``url``, from any thread or event loop; a
    ``sql`` of several statements runs as a script (no rows)."""

    async def run() -> list[tuple[Any, ...]]:
        connection = await _connect(url)
        try:
            if ";" in sql.strip().rstrip(";"):
                await connection.execute(sql)
                return []
            return [tuple(row) for row in await connection.fetch(sql)]
        finally:
            await connection.close()

    return in_thread(run)


def in_thread(run: Callable[[], Awaitable[T]]) -> T:
    """``run()`` on an event loop of its own (a test's loop may be running here)."""

    async def main() -> T:
        return await run()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


async def _connect(url: str) -> Any:
    import asyncpg

    return await asyncpg.connect(url, timeout=30)
