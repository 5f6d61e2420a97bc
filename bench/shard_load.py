"""Two sharded host processes on one PostgreSQL: the two-process variant of ``host_load.py``.

Two worker processes lease shards 0/2 and 1/2 (``bot.store.leases``) and each hosts half of the
matches (servers on its shard), with AI players, the real host, store, scheduler and the shared
request budget (``bot.budget``: every message delivered takes a token first, as each request to
Discord does in ``floral-host run --shards``). As on Discord, every DM answer arrives on shard 0:
the players of shard 1's matches answer through worker 0 (a ``NOTIFY`` stands for Discord's
gateway), which routes each answer and hands it over (``bot.handoff``) to worker 1, which
commits it. Figures (JSON):

``submit_ack_ms_p50/p99``  an answer received by a process -> its durable acknowledgement; for
                           shard 1's matches from its arrival at worker 0, the hop included
``local_ack_ms_p99``, ``hop_ack_ms_p99``  the same for each kind alone
``deadline_late_ms_p99``   a window's deadline -> its timeout default applied and committed
``lost_submissions``, ``double_resolutions``  as in host_load.py, over both processes
``requests_per_second_max``  the most messages both processes sent in any one second, against
                           ``budget_per_second`` (Discord's 50)
``prompt_lag_ms_p50/p99``  a prompt's commit -> its send (the budget's waits included)
``hop_queries_shard0``     per handed-over answer (the median), the statements worker 0 sends
                           PostgreSQL to route and forward it (each a round trip once prepared)
``hop_queries_owner``      the same on worker 1 to claim and commit it, up to its
                           acknowledgement (a pool's connection given back counts its reset)
``cpu_ms_per_answer``      both workers' CPU time (user+sys, every thread) over the answers

Usage: python bench/shard_load.py [--matches 200] [--window 10] [--config '{"max_turns": 3}']
       [--db URL|pgserver]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.host_load import (
    TimedHost,
    TimedPlayers,
    measure,
    percentile,
    pgserver_database,
    prompt_lag,
)
from bot.budget import BURST, RATE, RequestBudget, most_in_any_second
from bot.database import open_store
from bot.handoff import HandOff
from bot.host import SubmitResult
from bot.shards import Shards
from bot.simulate import FIRST_USER_ID, Simulation
from bot.store.leases import leasing
from bot.transport import Delivery

GATEWAY = "bench_gateway"  # the NOTIFY channel standing for Discord's DMs to shard 0
COUNT = 2
# while an answer's hop is handled: the statements sent to PostgreSQL for it so far
HOP: ContextVar[list[int] | None] = ContextVar("bench_hop", default=None)


def count_queries() -> None:
    """Each statement asyncpg sends (its connections' public calls, which do not call each
    other) adds one to the hop being handled, if any."""
    from asyncpg.connection import Connection

    for name in ("execute", "executemany", "fetch", "fetchval", "fetchrow"):
        send = getattr(Connection, name)

        async def counted(self: Any, *args: Any, _send: Any = send, **kwargs: Any) -> Any:
            hop = HOP.get()
            if hop is not None:
                hop[0] += 1
            return await _send(self, *args, **kwargs)

        setattr(Connection, name, counted)


class CountedHandOff(HandOff):
    """The hand-off whose claims count their statements (the hop ``HOP``)."""

    def _notified(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        marked = HOP.set([0])  # the claim's task, and the handling it starts, copy it
        try:
            super()._notified(connection, pid, channel, payload)
        finally:
            HOP.reset(marked)


class BudgetedPlayers(TimedPlayers):
    """Each message takes a token of the shared budget before it goes, as a request would."""

    budget: RequestBudget
    sends: list[float]

    async def send(self, delivery: Delivery) -> None:
        await self.budget.take(delivery.audience.seat is not None and "request" in delivery.payload)
        self.sends.append(time.time())
        await super().send(delivery)


class ThroughShardZero:
    """The host as shard 1's players reach it: their answers are DMs, which Discord sends to
    shard 0 (worker 0); reading their view is local."""

    def __init__(self, host: TimedHost, pool: Any) -> None:
        self._host, self._pool = host, pool

    def __getattr__(self, name: str) -> Any:
        return getattr(self._host, name)

    async def submit(
        self, match_id: int, user_id: int, raw: str, *, step: int | None = None
    ) -> SubmitResult:
        answer = {"match": match_id, "user": user_id, "raw": raw, "step": step}
        await self._pool.execute("SELECT pg_notify($1, $2)", GATEWAY, json.dumps(answer))
        return SubmitResult(False, "sent by DM", match_id, None, step)


async def worker(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    shard = args.worker
    shards = Shards((shard,), COUNT)
    async with leasing(args.db, shards, f"bench worker {shard}") as leases:
        store = await open_store(args.db)
        budget = RequestBudget(args.db)
        await budget.start()
        players = BudgetedPlayers(io.StringIO(), quiet=True)
        players.prompted_at, players.budget, players.sends = {}, budget, []
        host = TimedHost(store, players, grace_s=args.window, shards=shards)
        host.ack_ms, host.acked, host.stats.late_ms = [], [], []
        hop_ms: list[float] = []
        hop_queries: list[int] = []

        async def handed_over(event: str, data: dict[str, Any], again: bool) -> None:
            result = await host.submit(data["match"], data["user"], data["raw"], step=data["step"])
            if result.accepted:
                hop_ms.append((time.time() - data["at"]) * 1000)
                hop_queries.append((HOP.get() or [0])[0])

        handoff = CountedHandOff(args.db, shards, leases.owner, handed_over)
        await handoff.start()
        pool = await asyncpg.create_pool(args.db, min_size=1, max_size=4)
        gateway = await asyncpg.connect(args.db)
        tasks: set[asyncio.Task[None]] = set()
        if shard == 0:

            async def route(answer: dict[str, Any]) -> None:
                answer["at"] = time.time()  # arrived at shard 0
                target = await handoff.route(answer["user"], answer["match"])
                assert target == 1, target
                await handoff.forward(target, "BENCH_DM", answer)
                hop_queries.append((HOP.get() or [0])[0])

            def arrived(connection: Any, pid: int, channel: str, payload: str) -> None:
                marked = HOP.set([0])
                try:
                    task = asyncio.create_task(route(json.loads(payload)))
                finally:
                    HOP.reset(marked)
                tasks.add(task)
                task.add_done_callback(tasks.discard)

            await gateway.add_listener(GATEWAY, arrived)
        sim = Simulation(
            ThroughShardZero(host, pool) if shard == 1 else host,  # type: ignore[arg-type]
            players,
            args.window,
            level=args.agent,
        )
        await host.start()
        ids = await new_matches(sim, host, args, shard)
        await sync_with_other(pool, shard, "created")
        started, cpu = time.perf_counter(), time.process_time()
        for match_id in ids:  # started spread over one window
            await host.start_match(match_id)
            await asyncio.sleep(args.window / len(ids))
        await asyncio.gather(*(host.wait_over(match_id) for match_id in ids))
        await host.wait_idle()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        await sync_with_other(pool, shard, "over")  # worker 0 routes until both are done
        figures = await measure(host, store, ids)
        figures.update(await prompt_lag(store, ids, players.prompted_at))
        figures.update(
            seconds=round(elapsed, 1),
            local_ack_ms=host.ack_ms if shard == 0 else [],
            hop_ack_ms=hop_ms,
            hop_queries=hop_queries,
            cpu_s=cpu,
            late_ms=host.stats.late_ms,
            sends=players.sends,
            budget_waits=budget.waited,
        )
        await players.stop()
        await handoff.close()
        await budget.close()
        await gateway.close()
        await pool.close()
        await host.close()
    return figures


async def new_matches(
    sim: Simulation, host: TimedHost, args: argparse.Namespace, shard: int
) -> list[int]:
    """This worker's half of the matches, each in a server on its shard."""
    seeds = random.Random(args.seed * COUNT + shard)
    config = json.loads(args.config) if args.config else None
    info = sim.info(args.game)
    seats = info.game.min_seats
    ids = []
    for index in range(args.matches // COUNT):
        guild = ((index * COUNT + shard) << 22) | 1
        record = await host.create_match(
            args.game,
            guild_id=guild,
            channel_id=index + 1,
            players=[FIRST_USER_ID + seat for seat in range(seats)],
            config=config,
            seed=seeds.getrandbits(48),
            window_s=args.window,
        )
        sim.players.players[record.id] = sim.seat_players(record)
        ids.append(record.id)
    return ids


async def sync_with_other(pool: Any, shard: int, stage: str) -> None:
    """Wait until both workers reached ``stage`` (a row each in a scratch table)."""
    await pool.execute("INSERT INTO bench_sync VALUES ($1, $2)", stage, shard)
    while await pool.fetchval("SELECT count(*) FROM bench_sync WHERE stage = $1", stage) < COUNT:
        await asyncio.sleep(0.05)


def median_of(counts: list[int]) -> float:
    return round(statistics.median(counts), 2) if counts else 0.0


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    acks = [ms for part in parts for ms in part["local_ack_ms"] + part["hop_ack_ms"]]
    late = [ms for part in parts for ms in part["late_ms"]]
    sends = [at for part in parts for at in part["sends"]]
    return {
        "processes": len(parts),
        "matches": sum(part["matches"] for part in parts),
        "turns": sum(part["turns"] for part in parts),
        "submissions": len(acks),
        "timeouts": sum(part["timeouts"] for part in parts),
        "submit_ack_ms_p50": round(statistics.median(acks), 3) if acks else 0,
        "submit_ack_ms_p99": round(percentile(acks, 0.99), 3),
        "local_ack_ms_p99": round(percentile(parts[0]["local_ack_ms"], 0.99), 3),
        "hop_ack_ms_p99": round(percentile(parts[1]["hop_ack_ms"], 0.99), 3),
        "hop_queries_shard0": median_of(parts[0]["hop_queries"]),
        "hop_queries_owner": median_of(parts[1]["hop_queries"]),
        "cpu_ms_per_answer": round(
            sum(part["cpu_s"] for part in parts) * 1000 / max(1, len(acks)), 3
        ),
        "deadline_late_ms_p99": round(percentile(late, 0.99), 3),
        "lost_submissions": sum(part["lost_submissions"] for part in parts),
        "double_resolutions": sum(part["double_resolutions"] for part in parts),
        "requests_per_second_max": most_in_any_second(sends),
        "budget_per_second": int(RATE + BURST),
        "discord_per_second": 50,
        "budget_waits": sum(part["budget_waits"] for part in parts),
        "prompt_lag_ms_p50": max(part["prompt_lag_ms_p50"] for part in parts),
        "prompt_lag_ms_p99": max(part["prompt_lag_ms_p99"] for part in parts),
        "messages": len(sends),
        "seconds": max(part["seconds"] for part in parts),
        "peak_rss_mb": max(part["peak_rss_mb"] for part in parts),
    }


def coordinate(args: argparse.Namespace, db: str) -> dict[str, Any]:
    async def migrate() -> None:
        store = await open_store(db)
        await store.close()
        import asyncpg

        connection = await asyncpg.connect(db)
        await connection.execute("CREATE TABLE bench_sync (stage TEXT, shard INTEGER)")
        await connection.close()

    asyncio.run(migrate())  # once, before the workers race to
    own = [sys.executable, __file__, "--db", db, *forwarded(args)]
    workers = [
        subprocess.Popen([*own, "--worker", str(shard)], stdout=subprocess.PIPE, text=True)
        for shard in range(COUNT)
    ]
    parts = []
    for process in workers:
        out, _ = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"a worker failed (exit {process.returncode})")
        parts.append(json.loads(out.strip().splitlines()[-1]))
    return merge(parts)


def forwarded(args: argparse.Namespace) -> list[str]:
    return [
        "--matches", str(args.matches), "--window", str(args.window), "--config", args.config,
        "--seed", str(args.seed), "--agent", args.agent, "--game", args.game,
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--game", default="floral-extract")
    parser.add_argument("--window", type=float, default=10.0, help="window length in seconds")
    parser.add_argument("--config", default='{"max_turns": 3}', help="match config as JSON")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agent", default="random", help="AI level of every seat")
    parser.add_argument("--db", default="pgserver", help="a postgresql:// URL, or pgserver")
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        count_queries()
        print(json.dumps(asyncio.run(worker(args))))
        return
    with tempfile.TemporaryDirectory() as scratch:
        given = args.db
        with pgserver_database(Path(scratch)) if given == "pgserver" else nullcontext(given) as db:
            load_before = os.getloadavg()[0]
            figures = coordinate(args, db)
            figures.update(load_before=load_before, load_after=os.getloadavg()[0])
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
