"""The hand-off's hop alone, one answer at a time: what ``shard_load.py``'s hop costs without
the load around it, so it can be compared on a shared machine.

Both ends in one process, on one PostgreSQL: shard 0's end routes a DM answer naming its match
and forwards it (``bot.handoff``); shard 1's end, a sharded host (its writes fenced,
``bot.store.leases``), is notified, claims it and commits it (the toy game, a revisable guess:
each answer is accepted). One hop = route -> acknowledgement committed. Figures (JSON):

``statements_per_hop``  the statements sent to PostgreSQL (each a round trip once prepared)
``cpu_ms_per_hop``      this process's CPU time (user+sys, every thread) over the hops
``hop_ms_p50/p99``      wall time of a hop (say the machine's load beside it: ``load``)

Usage: python bench/shard_hop.py [--hops 500] [--db URL|pgserver]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.host_load import percentile, pgserver_database
from bench.shard_load import HOP, CountedHandOff, count_queries
from bot.database import open_store
from bot.handoff import HandOff
from bot.host import Host
from bot.shards import Shards
from bot.store.common import SqlStore
from bot.store.leases import leasing
from bot.transport import Delivery

GAME = "tests.bot.toy_game"
GUILD_ON_1 = (1 << 22) | 5  # a server on shard 1 of 2


class Quiet:
    async def send(self, delivery: Delivery) -> None:
        pass


async def hops(db: str, count: int) -> dict[str, Any]:
    async with leasing(db, Shards((1,), 2), "bench owner") as leases:
        store = await open_store(db)
        assert isinstance(store, SqlStore)
        store.fence = leases.fence()
        host = Host(store, Quiet(), shards=leases.shards)
        await host.start()
        record = await host.create_match(
            GAME,
            guild_id=GUILD_ON_1,
            channel_id=1,
            players=[101, 102],
            config={"revisable": True, "max": 9},
            window_s=3600,
        )
        await host.start_match(record.id)
        done: asyncio.Queue[tuple[float, int]] = asyncio.Queue()

        async def commit(event: str, data: dict[str, Any], again: bool) -> None:
            result = await host.submit(record.id, 101, data["raw"])
            assert result.accepted, result.text
            await done.put((time.perf_counter(), (HOP.get() or [0])[0]))

        owner = CountedHandOff(db, leases.shards, leases.owner, commit)
        zero = HandOff(db, Shards((0,), 2), "bench zero", commit)
        await owner.start()
        await zero.start()
        walls, sent = [], []
        cpu = time.process_time()
        for index in range(count):
            started, counter = time.perf_counter(), [0]
            marked = HOP.set(counter)
            try:
                shard = await zero.route(101, record.id)
                assert shard == 1, shard
                await zero.forward(shard, "BENCH_DM", {"raw": str(index % 10)})
            finally:
                HOP.reset(marked)
            acked, owner_sent = await done.get()
            walls.append((acked - started) * 1000)
            sent.append(counter[0] + owner_sent)
        cpu = time.process_time() - cpu
        await zero.close()
        await owner.close()
        await host.close()
    return {
        "hops": count,
        "statements_per_hop": statistics.median(sent),
        "cpu_ms_per_hop": round(cpu * 1000 / count, 3),
        "hop_ms_p50": round(statistics.median(walls), 3),
        "hop_ms_p99": round(percentile(walls, 0.99), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hops", type=int, default=500)
    parser.add_argument("--db", default="pgserver", help="a postgresql:// URL, or pgserver")
    args = parser.parse_args()
    count_queries()
    with tempfile.TemporaryDirectory() as scratch:
        given = args.db
        with pgserver_database(Path(scratch)) if given == "pgserver" else nullcontext(given) as db:
            load_before = os.getloadavg()[0]
            figures = asyncio.run(hops(db, args.hops))
            figures.update(load_before=load_before, load_after=os.getloadavg()[0])
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
