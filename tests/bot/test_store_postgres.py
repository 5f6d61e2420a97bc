"""What only the PostgreSQL store has, against the test run's real server: its refusals in one
line (a server down or silent, a wrong password, a missing database, another program's
database), one process per database (an advisory lock naming its holder), a lost connection at a
deadline, and ``backup`` naming PostgreSQL's own tools."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.database import open_store
from bot.store.faults import UnusableDatabase
from bot.store.owner import owning
from tests import postgres
from tests.bot.conftest import PLAYERS, HostEnv, eventually
from tests.bot.test_owner import race
from tests.bot.test_simulate import ROOT

HOLD = """
import asyncio, sys
from bot.store.owner import owning

async def hold():
    async with owning(sys.argv[1], "holder " + sys.argv[2]):
        print("held", flush=True)
        seconds = float(sys.argv[3])
        if seconds >= 0:
            await asyncio.sleep(seconds)
        else:  # until stdin closes
            await asyncio.to_thread(sys.stdin.read)

asyncio.run(hold())
"""


def floral(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture
def url() -> Iterator[str]:
    """A new database holding nothing."""
    made = postgres.new_database(schema=False)
    yield made
    postgres.drop_database(made)


def refusal(*args: str) -> tuple[str, float]:
    """The one line a command refused with (exit 1), and the seconds it took."""
    started = time.monotonic()
    done = floral(*args)
    took = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    return line, took


def test_a_server_down_is_said_in_one_line_at_once(tmp_path: Path) -> None:
    nobody = socket.socket()
    nobody.bind(("127.0.0.1", 0))  # a port nothing listens on
    port = nobody.getsockname()[1]
    try:
        line, took = refusal("list", "--db", f"postgresql://floral:pw@127.0.0.1:{port}/floral")
    finally:
        nobody.close()
    assert line.startswith(f"floral-host list: postgresql://floral@127.0.0.1:{port}/floral:")
    assert "cannot reach the server" in line and "start PostgreSQL" in line
    assert "pw" not in line.split(":", 1)[1].replace("postgresql", "")
    assert took < 10
    socket_dir = tmp_path / "no-server"
    line, _ = refusal("audit", "--db", f"postgresql://floral@/floral?host={socket_dir}")
    assert "cannot reach the server" in line


def test_a_server_that_never_answers_is_refused_within_seconds() -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # the kernel accepts; nobody ever speaks
    port = silent.getsockname()[1]
    try:
        line, took = refusal("list", "--db", f"postgresql://floral@127.0.0.1:{port}/floral")
    finally:
        silent.close()
    assert "no answer from the server within 5 s" in line
    assert took < 15


def test_a_wrong_password_a_missing_database_and_a_missing_role(url: str) -> None:
    server = postgres.server()
    database = url.split("/")[3].split("?")[0]
    wrong = server.url(database, postgres.PASSWORD_ROLE, "not-the-password")
    line, _ = refusal("list", "--db", wrong)
    assert f"the server refused the password of user {postgres.PASSWORD_ROLE}" in line
    assert "not-the-password" not in line
    missing = server.url("nowhere_db")
    line, _ = refusal("audit", "--db", missing)
    assert (
        'database "nowhere_db" does not exist; create it: createdb -O postgres nowhere_db' in line
    )
    nobody = server.url(database, "no_such_role")
    line, _ = refusal("list", "--db", nobody)
    assert "the server refused user no_such_role" in line
    right = server.url(database, postgres.PASSWORD_ROLE, postgres.PASSWORD)
    line, _ = refusal("list", "--db", right)  # logged in: the database is empty
    assert line.endswith("holds no data; point --db or FLORAL_DB at floral-host's database")


def test_another_programs_database_is_refused_and_left_untouched(url: str) -> None:
    postgres.fetch(url, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    for command in (("list",), ("simulate", "floral-extract", "--quiet")):
        line, _ = refusal(*command, "--db", url)
        assert "a PostgreSQL database that is not floral-host's" in line, line
    tables = postgres.fetch(
        url, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    )
    assert tables == [("customers",)]


def test_a_read_only_open_of_an_empty_database_makes_nothing(url: str) -> None:
    line, _ = refusal("list", "--db", url)
    assert line.endswith("holds no data; point --db or FLORAL_DB at floral-host's database")
    assert postgres.fetch(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [
        (0,)
    ]


def test_backup_names_postgresqls_own_tools(url: str, tmp_path: Path) -> None:
    line, _ = refusal("backup", str(tmp_path / "copy.db"), "--db", url)
    assert "pg_dump" in line and "copy-db" in line
    assert not (tmp_path / "copy.db").exists()


def hold(url: str, name: str, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, url, name, str(seconds)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held", holder.stderr
    return holder


def test_run_is_refused_on_a_database_another_process_holds(url: str) -> None:
    holder = hold(url, "simulate", 60)
    try:
        env = {"FLORAL_DB": url, "DISCORD_TOKEN": "x" * 59}
        run = floral("run", env=env)
        assert run.returncode == 1
        (line,) = run.stderr.strip().splitlines()[-1:]
        assert line.startswith(
            f"floral-host run: {url}: in use by holder simulate (pid {holder.pid}"
        )
        assert line.endswith(
            "one process per database: stop that one first, or use another database"
        )
        second = floral("simulate", "floral-extract", "--db", url, "--quiet")
        assert second.returncode == 1 and "in use by holder simulate" in second.stderr
    finally:
        holder.kill()
        holder.wait()
    assert holder.returncode == -signal.SIGKILL


async def test_a_holder_killed_with_sigkill_leaves_no_stale_lock(url: str) -> None:
    holder = hold(url, "doomed", 60)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    deadline = time.monotonic() + 10  # the server ends the dead client's session
    while True:
        try:
            async with owning(url, "next"):
                break
        except UnusableDatabase:
            assert time.monotonic() < deadline, "the lock outlived its process"
            time.sleep(0.05)
    async with owning(url, "floral-host simulate"):
        with pytest.raises(UnusableDatabase, match="in use by floral-host simulate"):
            async with owning(url, "floral-host run"):
                pass


def test_of_processes_started_together_exactly_one_holds(url: str) -> None:
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", HOLD, url, str(n), "-1"],  # a holder holds until all are in
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    outcomes = race(racers)
    assert outcomes.count("held") == 1, outcomes
    assert all("in use by holder" in o for o in outcomes if o != "held"), outcomes


def terminate_sessions(url: str) -> None:
    """The server ends every session of the store's database (as a restart would)."""
    database = url.split("/")[3].split("?")[0]
    postgres.admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        f" WHERE datname = '{database}' AND pid <> pg_backend_pid()"
    )


@pytest.mark.postgres_only
async def test_sessions_lost_at_a_deadline_delay_the_resolution_only(env: HostEnv) -> None:
    env.options["write_retry_s"] = 0.05
    host = await env.reopen()
    record = await env.new_match(window_s=0.3, config={"rounds": 2})
    assert (await host.submit(record.id, PLAYERS[0], "3")).accepted
    stop = threading.Event()

    def keep_terminating() -> None:  # every session the pool opens dies for a while
        while not stop.wait(0.02):
            terminate_sessions(env.target)

    killer = threading.Thread(target=keep_terminating)
    killer.start()
    try:
        await asyncio.sleep(0.6)  # the deadline passes while no session lives
    finally:
        stop.set()
        killer.join()
    await eventually(lambda: record.id not in host.active_match_ids(), 30)
    finished = await host.store.get_match(record.id)
    assert finished is not None and finished.status == "finished"
    steps = await host.store.steps(record.id)
    assert [s.step for s in steps] == list(range(len(steps)))
    turns = [d for d in env.transport.to("public", record.id) if d.payload["kind"] == "turn"]
    assert len(turns) == len({d.payload["step"] for d in turns})  # none announced twice


async def test_open_store_refuses_a_silent_server_within_seconds() -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    started = time.monotonic()
    try:
        with pytest.raises(UnusableDatabase, match="no answer from the server within 5 s"):
            await open_store(f"postgresql://floral@127.0.0.1:{silent.getsockname()[1]}/floral")
    finally:
        silent.close()
    assert time.monotonic() - started < 10


@pytest.mark.postgres_only
async def test_the_first_read_after_the_server_ended_every_session_does_not_fail(
    env: HostEnv,
) -> None:
    record = await env.new_match(config={"rounds": 2})
    terminate_sessions(env.target)  # the pooled connections are dead, the pool does not know
    read = await env.host.store.get_match(record.id)
    assert read is not None and read.id == record.id
