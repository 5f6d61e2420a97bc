"""One process per database, with real processes: a second ``simulate --db`` (or ``run``) on a
database another process hosts on is refused in one line naming the holder, exit 1, whatever
the timing; the lock dies with its process (kill -9), so the next start works."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.store.faults import UnusableDatabase
from bot.store.owner import own, owner_path
from tests.bot.test_simulate import ROOT

HOLD = """
import sys, time
from pathlib import Path
from bot.store.owner import own
with own(Path(sys.argv[1]), "holder " + sys.argv[2]):
    print("held", flush=True)
    seconds = float(sys.argv[3])
    time.sleep(seconds) if seconds >= 0 else sys.stdin.read()  # < 0: until stdin closes
"""


def floral(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def hold(db: Path, name: str, seconds: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db), name, str(seconds)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_held(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "held", process.stderr


def race(racers: list[subprocess.Popen[str]]) -> list[str]:
    """Each racer's outcome: "held" (it holds until its stdin closes, after all are in) or
    the last line of its refusal."""
    outcomes = []
    for racer in racers:  # each says "held" and waits, or is refused and ends
        assert racer.stdout is not None and racer.stderr is not None
        held = racer.stdout.readline().strip() == "held"
        outcomes.append("held" if held else (racer.stderr.read().strip().splitlines() or [""])[-1])
    for racer in racers:
        racer.communicate(timeout=60)
    return outcomes


def test_a_second_simulate_on_a_held_database_is_refused_naming_the_holder(
    tmp_path: Path,
) -> None:
    db = tmp_path / "host.db"
    many = ("--matches", "500", "--window", "30")  # busy for far longer than the test
    first = floral("simulate", "floral-extract", *many, "--db", str(db), "--quiet")
    try:
        deadline = time.monotonic() + 60
        while not (db.exists() and owner_path(db).read_text()):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        second = floral("simulate", "floral-extract", "--db", str(db), "--quiet")
        out, err = second.communicate(timeout=60)
        assert second.returncode == 1 and out == ""
        (line,) = err.splitlines()
        assert line.startswith(f"floral-host simulate: {db}: in use by floral-host simulate")
        assert f"(pid {first.pid} on " in line
    finally:
        first.kill()
        first.wait()
    with own(db, "floral-host simulate"):  # kill -9 released it
        pass


def test_run_is_refused_on_a_database_another_process_holds(tmp_path: Path) -> None:
    db = tmp_path / "host.db"
    holder = hold(db, "simulate", 60)
    try:
        wait_held(holder)
        env = {"FLORAL_DB": str(db), "DISCORD_TOKEN": "x" * 59}
        run = floral("run", env=env)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 1
        (line,) = err.strip().splitlines()[-1:]
        assert f"in use by holder simulate (pid {holder.pid}" in line
        assert not db.exists()  # refused before the database was opened, let alone migrated
    finally:
        holder.kill()
        holder.wait()


def test_of_processes_started_together_exactly_one_holds(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    outcomes = race([hold(db, str(n), -1) for n in range(6)])  # a holder holds until all are in
    assert outcomes.count("held") == 1, outcomes
    assert all("in use by holder" in o for o in outcomes if o != "held"), outcomes


def test_a_holder_killed_with_sigkill_leaves_no_stale_lock(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    holder = hold(db, "doomed", 60)
    wait_held(holder)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with own(db, "next"):  # at once: the kernel dropped the lock with the process
        assert "next (pid" in owner_path(db).read_text()


def test_in_one_process_a_second_owner_is_refused_too(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with (
        own(db, "floral-host simulate"),
        pytest.raises(UnusableDatabase) as refused,
        own(db, "floral-host run"),
    ):
        pass
    assert "in use by floral-host simulate (pid" in str(refused.value)
