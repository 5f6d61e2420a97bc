"""Real processes: kill -9 a running ``simulate`` at random moments, resume with --matches 0.

Afterwards every match is finished, the audit is clean, every acknowledged move is in the move
log, and no step was resolved (or announced) twice.
"""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bot.store.sqlite import SqliteStore
from tests.bot.test_simulate import ROOT, cli

ACK = re.compile(r"^\[m(\d+) seat(\d+) ack step (\d+)\]")


def start_simulate(db: Path, log: Path, matches: int) -> subprocess.Popen[bytes]:
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
                "0.04",
                "--db",
                str(db),
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_for_output(log: Path, size: int, limit_s: float = 60) -> None:
    """Until the process has printed past ``size`` bytes (it is really running)."""
    end = time.monotonic() + limit_s
    while log.stat().st_size <= size:
        assert time.monotonic() < end, "simulate printed nothing"
        time.sleep(0.02)


async def test_kill_nine_and_resume_lose_nothing(tmp_path: Path) -> None:
    db, log = tmp_path / "kill.db", tmp_path / "out.txt"
    log.touch()
    rng = random.Random()
    for run in range(3):
        size = log.stat().st_size
        process = start_simulate(db, log, matches=4 if run == 0 else 0)
        wait_for_output(log, size)
        time.sleep(rng.uniform(0.05, 1.0))
        process.send_signal(signal.SIGKILL)
        assert process.wait() == -signal.SIGKILL

    final = cli("simulate", "floral-extract", "--matches", "0", "--db", str(db), "--window", "0.04")
    assert final.returncode == 0, final.stdout[-2000:] + final.stderr
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0, audit.stdout
    summary = json.loads(audit.stdout.splitlines()[-1])
    assert summary["matches"] == summary["finished"] == 4

    acks = [ACK.match(line) for line in log.read_text().splitlines() + final.stdout.splitlines()]
    acked = {tuple(map(int, m.groups())) for m in acks if m}
    assert acked
    store = await SqliteStore.open(db)
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
