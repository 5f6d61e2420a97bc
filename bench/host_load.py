"""Load on the match host: N concurrent matches of AI players, real host, store and scheduler.

Prints JSON:
``submit_ack_ms_p50/p99``  a submission received -> its durable acknowledgement (accepted ones)
``deadline_late_ms_p99``   a window's deadline -> its timeout default applied and committed
``prompt_lag_ms_p50/p99``  a prompt's commit -> the transport accepting its DM (from the time the
                           change was made, just before its commit: the commit's own time counts)
``messages_per_turn``      every message delivered / steps resolved (moderator log included)
``player_messages_per_turn``  the same without the moderator log (channel posts and DMs)
``turn_messages_per_turn`` channel posts and DMs of the resolutions alone (no hello/start posts)
``lost_submissions``       acknowledged moves missing from the move log
``double_resolutions``     steps announced more than once
``peak_rss_mb``            peak resident memory of this process
``load_before/after``      the machine's 1-minute load average (other work skews the figures)
``fsync_ms_p50/p99``       one fsync of a small file beside the database: a durable ack waits for
                           one or two of these (the WAL's group sync), whatever the host does

Usage: python bench/host_load.py [--matches 200] [--game floral-extract] [--window 1.0]
       [--config '{"max_turns": 15}'] [--agent random] [--db PATH|URL|pgserver ...]

``--db`` names the database: an SQLite file (default: a temporary one), a ``postgresql://`` URL
(an empty database), or ``pgserver``: a PostgreSQL server started from the pgserver wheel in a
temporary folder, with PostgreSQL's defaults (commits wait for the disk). Given more than once,
the runs go one after the other and the JSON holds each one's figures under its backend's name
(``sqlite``, ``postgresql``), side by side.

``bench/shard_load.py`` is the two-process variant: two sharded hosts on one PostgreSQL, DM
answers handed over, one request budget.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.database import is_postgres, open_store
from bot.host import Host, SubmitResult
from bot.simulate import SimulatedPlayers, Simulation
from bot.store.common import SqlStore
from bot.transport import Delivery


class TimedHost(Host):
    """The real host, timing each submission up to its acknowledgement."""

    ack_ms: list[float]
    acked: list[tuple[int, int, int]]

    async def submit(
        self, match_id: int, user_id: int, raw: str, *, step: int | None = None
    ) -> SubmitResult:
        started = time.perf_counter()
        result = await super().submit(match_id, user_id, raw, step=step)
        if result.accepted:
            self.ack_ms.append((time.perf_counter() - started) * 1000)
            assert result.step is not None and result.seat is not None
            self.acked.append((match_id, result.step, result.seat))
        return result


class TimedPlayers(SimulatedPlayers):
    """The simulation's transport, noting when each prompt (a DM with a request) is accepted."""

    prompted_at: dict[int, float]

    async def send(self, delivery: Delivery) -> None:
        if delivery.audience.seat is not None and "request" in delivery.payload:
            self.prompted_at[delivery.message_id] = time.time()
        await super().send(delivery)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def run(args: argparse.Namespace, db: str) -> dict[str, Any]:
    store = await open_store(db)
    players = TimedPlayers(io.StringIO(), quiet=True)
    players.prompted_at = {}
    host = TimedHost(store, players, grace_s=args.window)
    host.ack_ms, host.acked, host.stats.late_ms = [], [], []
    sim = Simulation(host, players, args.window, level=args.agent)
    await host.start()
    seeds = random.Random(args.seed)
    config = json.loads(args.config) if args.config else None
    ids = [
        await sim.new_match(args.game, seeds.getrandbits(48), i, config)
        for i in range(args.matches)
    ]
    started = time.perf_counter()
    for match_id in ids:  # matches start spread over one window, as people start them
        await host.start_match(match_id)
        await asyncio.sleep(args.window / len(ids))
    await asyncio.gather(*(host.wait_over(match_id) for match_id in ids))
    await host.wait_idle()
    elapsed = time.perf_counter() - started
    figures = await measure(host, store, ids)
    figures.update(await prompt_lag(store, ids, players.prompted_at))
    figures["seconds"] = round(elapsed, 1)
    await players.stop()
    await host.close()
    return figures


async def measure(host: TimedHost, store: SqlStore, ids: list[int]) -> dict[str, Any]:
    logs = {match_id: await store.steps(match_id) for match_id in ids}
    lost = 0
    for match_id, step, seat in host.acked:
        moves = logs[match_id][step].moves
        lost += moves is None or moves.get(seat) is None
    announced: Counter[tuple[int, str, int]] = Counter()
    messages = player_messages = turn_messages = 0
    for match_id in ids:
        for row in await store.outbox(match_id):
            sent_to_players = row.status == "sent" and row.message.audience != "moderators"
            messages += row.status == "sent"
            player_messages += sent_to_players
            turn_messages += sent_to_players and row.message.payload["kind"] == "turn"
            if row.message.payload["kind"] == "turn":
                announced[(match_id, row.message.audience, row.message.payload["step"])] += 1
    turns = host.stats.turns
    late = host.stats.late_ms or []
    return {
        "matches": len(ids),
        "turns": turns,
        "submissions": len(host.ack_ms),
        "timeouts": host.stats.timeouts,
        "submit_ack_ms_p50": round(statistics.median(host.ack_ms), 3) if host.ack_ms else 0,
        "submit_ack_ms_p99": round(percentile(host.ack_ms, 0.99), 3),
        "deadline_late_ms_p99": round(percentile(late, 0.99), 3),
        "messages_per_turn": round(messages / max(1, turns), 2),
        "player_messages_per_turn": round(player_messages / max(1, turns), 2),
        "turn_messages_per_turn": round(turn_messages / max(1, turns), 2),
        "lost_submissions": lost,
        "double_resolutions": sum(count > 1 for count in announced.values()),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def fsync_ms(folder: Path, rounds: int = 50) -> dict[str, float]:
    times = []
    probe = folder / "fsync.probe"
    with probe.open("wb") as file:
        for _ in range(rounds):
            file.write(b"x" * 4096)
            file.flush()
            started = time.perf_counter()
            os.fsync(file.fileno())
            times.append((time.perf_counter() - started) * 1000)
    probe.unlink()
    return {
        "fsync_ms_p50": round(statistics.median(times), 2),
        "fsync_ms_p99": round(percentile(times, 0.99), 2),
    }


async def prompt_lag(
    store: SqlStore, ids: list[int], prompted_at: dict[int, float]
) -> dict[str, float]:
    rows = [row for match_id in ids for row in await store.outbox(match_id)]
    lags = [(prompted_at[r.id] - r.created_at) * 1000 for r in rows if r.id in prompted_at]
    return {
        "prompt_lag_ms_p50": round(statistics.median(lags), 1) if lags else 0,
        "prompt_lag_ms_p99": round(percentile(lags, 0.99), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--game", default="floral-extract")
    # 3 s windows: 200 matches resolve ~70 steps a second, 20 times the pace of 60 s windows
    # (--window 1 is a 60-fold stress: the loop is then CPU-bound and the tail grows)
    parser.add_argument("--window", type=float, default=3.0, help="window length in seconds")
    parser.add_argument("--config", default='{"max_turns": 10}', help="match config as JSON")
    parser.add_argument("--seed", type=int, default=1)
    # a cheap AI keeps the players' thinking from loading the host's event loop
    parser.add_argument("--agent", default="random", help="AI level of every seat")
    parser.add_argument(
        "--db",
        action="append",
        default=None,
        help="an SQLite file, a postgresql:// URL or pgserver (see above); again: side by side",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        runs = {}
        for index, given in enumerate(args.db or [str(folder / "host_load.db")]):
            with pgserver_database(folder) if given == "pgserver" else nullcontext(given) as db:
                name = "postgresql" if is_postgres(db) else "sqlite"
                load_before = os.getloadavg()[0]
                figures = asyncio.run(run(args, db))
                figures.update(load_before=load_before, load_after=os.getloadavg()[0])
            runs[name if name not in runs else f"{name}-{index + 1}"] = figures
        fsync = fsync_ms(folder)
        if len(runs) == 1:
            print(json.dumps({**next(iter(runs.values())), **fsync}))
        else:
            print(json.dumps({**runs, **fsync}))


@contextmanager
def pgserver_database(folder: Path) -> Iterator[str]:
    """A new database on a PostgreSQL server started from the pgserver wheel in ``folder``,
    stopped (and deleted) afterwards."""
    from tests import postgres

    server = postgres.start(folder / "pgserver")
    try:
        postgres.fetch(server.url(), "CREATE DATABASE host_load")
        yield server.url("host_load")
    finally:
        postgres.stop(server)


if __name__ == "__main__":
    main()
