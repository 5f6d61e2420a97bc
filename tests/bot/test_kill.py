"""Real processes: kill -9 a running ``simulate`` at random points, resume with --matches 0, on
an SQLite file and on a PostgreSQL database.

Afterwards every match is finished, the audit is clean, every acknowledged move is in the move
log, and no step was resolved (or announced) twice.

The window is long enough that the AI players answer in time on a loaded machine (with 5 test
workers on 2 cores, a 0.04 s window ran out on nearly every answer, leaving no acknowledgement
to check); windows run out for sure because each run freezes the process (SIGSTOP) for longer
than a window before its kill.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bot.database import is_postgres, open_store
from tests import postgres
from tests.bot.test_simulate import ROOT, cli

MATCHES = 4
WINDOW_S = 0.25
FROZEN_S = 2 * WINDOW_S  # every window open when the process froze has run out when it wakes
ACK = re.compile(r"^\[m(\d+) seat(\d+) ack step (\d+)\]")


def start_simulate(db: str, log: Path, matches: int) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-u",
                "-m",
                "bot",
                "simulate",
                "floral-extract",
                "--matches",
                str(matches),
                "--seed",
                "21",
                "--window",
                str(WINDOW_S),
                "--db",
                db,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def matches_stored(db: str) -> int:
    if is_postgres(db):
        made = postgres.fetch(db, "SELECT to_regclass('matches') IS NOT NULL")
        if not made[0][0]:  # the schema is not created yet
            return 0
        return int(postgres.fetch(db, "SELECT count(*) FROM matches")[0][0])
    if not Path(db).exists():
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as db_:
        try:
            (count,) = db_.execute("SELECT count(*) FROM matches").fetchone()
        except sqlite3.OperationalError:  # the schema is not created yet
            return 0
    return int(count)


def acks_in(log: Path) -> int:
    return sum(bool(ACK.match(line)) for line in log.read_text(errors="replace").splitlines())


def wait_until(
    check: Callable[[], bool], process: subprocess.Popen[bytes], every_s: float = 0.01
) -> bool:
    """Until ``check()`` holds (True) or the process ends by itself (False), looking
    ``every_s``; the limit only stops a broken test from hanging."""
    end = time.monotonic() + 120
    while not check():
        if process.poll() is not None:
            return False
        assert time.monotonic() < end, "simulate made no progress"
        time.sleep(every_s)
    return True


def freeze(process: subprocess.Popen[bytes]) -> None:
    """Stop the process for ``FROZEN_S``, as a machine that stalls would."""
    process.send_signal(signal.SIGSTOP)
    time.sleep(FROZEN_S)
    process.send_signal(signal.SIGCONT)


async def test_kill_nine_and_resume_lose_nothing(database: str, tmp_path: Path) -> None:
    """Each kill comes after a random number of new acknowledgements, chosen from the output
    rather than the clock; the first only once every match exists, as resuming creates none."""
    db, log = database, tmp_path / "out.txt"
    log.touch()
    rng = random.Random()
    for run in range(3):
        process = start_simulate(db, log, matches=MATCHES if run == 0 else 0)
        freeze_at = acks_in(log) + rng.randint(1, 30)
        kill_at = freeze_at + rng.randint(1, 30)
        # a count of the matches is a new connection (on PostgreSQL, a server process too):
        # looked at less often; the kill point is chosen by acknowledgements, looked at often
        running = wait_until(
            lambda: matches_stored(db) == MATCHES, process, every_s=0.1
        ) and wait_until(lambda: acks_in(log) >= freeze_at, process)  # noqa: B023 (this iteration)
        if running:
            freeze(process)
            running = wait_until(lambda: acks_in(log) >= kill_at, process)  # noqa: B023
        if running:
            process.send_signal(signal.SIGKILL)
            assert process.wait() == -signal.SIGKILL
        else:  # every match finished before that many acknowledgements
            assert process.wait() == 0, log.read_text()[-2000:]

    final = cli(
        "simulate", "floral-extract", "--matches", "0", "--db", db, "--window", str(WINDOW_S)
    )
    assert final.returncode == 0, final.stdout[-2000:] + final.stderr
    audit = cli("audit", "--db", db)
    assert audit.returncode == 0, audit.stdout
    summary = json.loads(audit.stdout.splitlines()[-1])
    assert summary["matches"] == summary["finished"] == MATCHES

    acks = [ACK.match(line) for line in log.read_text().splitlines() + final.stdout.splitlines()]
    acked = {tuple(map(int, m.groups())) for m in acks if m}
    assert acked, log.read_text()[-3000:] + final.stdout[-2000:]  # no answer in time: why
    store = await open_store(db)
    timed_out = [
        step
        for record in await store.list_matches()
        for step in await store.steps(record.id)
        if step.kind == "resolve" and step.moves and None in step.moves.values()
    ]
    assert timed_out, "no window ran out: the kills met only answered steps"
    for match_id, seat, step in acked:
        logged = (await store.steps(match_id))[step]
        assert logged.kind == "resolve" and logged.moves is not None
        assert logged.moves[seat] is not None, f"acknowledged move lost: m{match_id} step {step}"
    for record in await store.list_matches():
        announced = Counter(
            (row.message.audience, row.message.payload["step"])
            for row in await store.outbox(record.id)
            if row.message.payload["kind"] == "turn"
        )
        assert max(announced.values()) == 1, "a step was resolved or announced twice"
    await store.close()
