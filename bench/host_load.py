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

``--mix all``: every game at once, each match on its own window length (3 to 12 s, uniform;
every timer kind of its game that long), its game's smallest table; ``--matches`` live at once
for ``--seconds`` (a finished match is replaced by a new one), measured after the first 12 s.
``loop_cpu_ms_per_window`` is the event loop's thread's share of ``cpu_ms_per_window`` (the rest:
the store's connection thread, the syncs and checkpoints). Where an acknowledgement's time goes:
``ack_store_ms_p50/p99`` the store's part (SQLite: the answer's line in the answers' journal
and its sync, ``bot.store.journal``; its transaction commits after; PostgreSQL: the commit),
``journal_sync_ms_p50/p99`` the journal's sync alone, in its thread (the disk's part of
``ack_store_ms``; the rest is the hops between the loop and that thread),
``sync_ms_p50/p99`` a sync of the database (``Store.sync``: the WAL's fsync, shared; what a
delivery waits for), and ``loop_lag_ms_p50/p99`` how late a 5 ms
timer of the event loop fires (every callback that ran meanwhile, and the collector's pauses:
what any answer or deadline waits for the loop); each also has its ``_max``, the slowest of the
run. ``journal_syncs_over_30_ms`` counts the journal's syncs slower than 30 ms.

Disk stalls: an acknowledgement waits for its journal line's fdatasync (an acknowledged move is
never lost), so while a sync stalls every ack due meanwhile waits with it. On the 2-core VM
these figures come from, journal syncs that take 0.2-0.3 ms have now and then taken 75-124 ms
(once 921 ms), and a run with one has ack p99 past 10 ms. Tell one by ``journal_sync_ms_max``
(tens of ms or more, while ``journal_sync_ms_p50`` stays under 1 ms). ``journal_sync_ms``
counts from the call to the syncing thread running again, so it holds that thread's wait for a
CPU as well as the disk's: ``bench/disk_stalls.py --dir`` the database's folder syncs two files
from two threads with no host, and tells a stall the device's when both files stall together
(device-wide) from one its thread spent waiting for a CPU (``starved``: other work on the
machine). An ack p99 well above twice ``journal_sync_ms_max`` (an ack waits at most for the
sync under way and the next) is not the disk's: the rest of ``ack_store_ms`` is the sync
thread's wait for a CPU and for the loop (``loop_lag_ms_max``), which other processes on the
machine lengthen.

``--sweep 300,600,900,1200`` runs each count in turn (a fresh database each) and names the
knee: the first count where ack p99 passes 10 ms or lateness p99 50 ms. ``--against DIR`` runs
the same in a subprocess on the code in DIR (a checkout of another commit) and prints both side
by side, ``this`` and ``against`` (the subprocess runs this Python: a checkout from before the
host's own timers, 3697df6 the code before issue 20 among them, needs APScheduler 3 installed
in it, ``pip install 'apscheduler<4'``).

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
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

# the code measured: this checkout's, or the one --against gave a subprocess
sys.path.insert(0, os.environ.get("FLORAL_BENCH_CODE") or str(Path(__file__).resolve().parents[1]))

from bot.database import is_postgres, open_store
from bot.host import Host, SubmitResult
from bot.simulate import FIRST_USER_ID, SimulatedPlayers, Simulation, stop_players
from bot.store.common import SqlStore
from bot.transport import Delivery
from games import registry

try:
    from bot.process import tune_gc
except ImportError:  # --against a checkout from before it: Python's defaults

    def tune_gc() -> None:
        pass


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
    config = json.loads(args.config) if args.config else None
    sim = Simulation(host, players, args.window, level=args.agent, config=config)
    await host.start()
    seeds = random.Random(args.seed)
    ids = [await sim.new_match(args.game, seeds.getrandbits(48), i) for i in range(args.matches)]
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


MIX_WINDOW_S = (3.0, 12.0)
WARM_UP_S = 12.0  # the first window of every match is under way by then
ACK_KNEE_MS, LATE_KNEE_MS = 10.0, 50.0
STALL_MS = 30.0  # a journal sync this slow is the disk's stall (bench/disk_stalls.py)


def timed(store: Any, method: str) -> list[float]:
    """Time every call of the store's ``method`` (in ms) from now on; the list they go to (empty
    for ever when the store has no such method: a checkout from before it)."""
    times: list[float] = []
    original = getattr(store, method, None)
    if original is None:
        return times

    async def call(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await original(*args, **kwargs)
        finally:
            times.append((time.perf_counter() - started) * 1000)

    setattr(store, method, call)
    return times


def timed_syncs() -> list[float]:
    """Time every sync of the answers' journal files (in ms, in the thread that makes it): what
    the disk takes of an acknowledgement, the rest of ``ack_store_ms`` being the hops between
    the loop and that thread. Empty for a checkout without the journal."""
    times: list[float] = []
    try:
        from bot.store import journal
    except ImportError:
        return times
    # the sync as the store has it (a sweep's later runs wrap it, not the last run's wrapper)
    sync = vars(journal).setdefault("untimed_sync", getattr(journal, "_fdatasync_all", None))
    if sync is None:
        return times

    def call(fds: list[int]) -> None:
        started = time.perf_counter()
        try:
            sync(fds)
        finally:
            times.append((time.perf_counter() - started) * 1000)

    journal._fdatasync_all = call  # type: ignore[attr-defined]
    return times


async def loop_lag(lags: list[float], every_s: float = 0.005) -> None:
    """How late a timer of ``every_s`` fires, in ms, again and again (cancelled at the end)."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(every_s)
        lags.append((time.perf_counter() - started - every_s) * 1000)


def spread(name: str, values: list[float]) -> dict[str, float]:
    return {
        f"{name}_p50": round(statistics.median(values), 3) if values else 0,
        f"{name}_p99": round(percentile(values, 0.99), 3),
        f"{name}_max": round(max(values, default=0.0), 3),
    }


async def run_mix(args: argparse.Namespace, db: str, matches: int) -> dict[str, Any]:
    """``matches`` live matches of every game for ``args.seconds``; the figures after the
    warm-up."""
    store = await open_store(db)
    parts = {"ack_store_ms": timed(store, "add_attempt"), "sync_ms": timed(store, "sync")}
    parts["journal_sync_ms"] = timed_syncs()
    parts["loop_lag_ms"] = []
    lagging = asyncio.create_task(loop_lag(parts["loop_lag_ms"]))
    players = TimedPlayers(io.StringIO(), quiet=True)
    players.prompted_at = {}
    host = TimedHost(store, players, grace_s=3.0)
    host.ack_ms, host.acked, host.stats.late_ms = [], [], []
    sim = Simulation(host, players, MIX_WINDOW_S[1], level=args.agent)
    await host.start()
    tune_gc()  # as the service does
    games = registry.names()
    seeds = random.Random(args.seed)
    started = time.perf_counter()
    ids: list[int] = []
    measured = asyncio.Event()

    async def keep_one(index: int) -> None:
        await asyncio.sleep(MIX_WINDOW_S[1] * index / matches)  # starts spread over a window
        while True:
            match_id = await mix_match(host, sim, games[index % len(games)], index, seeds)
            ids.append(match_id)
            await host.start_match(match_id)
            await host.wait_over(match_id)

    cpu = [0.0, 0.0]  # the process's, the loop's thread's

    def measure_from_now() -> None:
        host.ack_ms.clear()
        host.stats.late_ms = []
        host.stats.turns = host.stats.timeouts = 0
        for values in parts.values():
            values.clear()
        cpu[0], cpu[1] = time.process_time(), time.thread_time()
        measured.set()

    keepers = [asyncio.create_task(keep_one(index)) for index in range(matches)]
    asyncio.get_running_loop().call_later(WARM_UP_S, measure_from_now)
    await asyncio.sleep(WARM_UP_S + args.seconds)
    late, acks, turns = list(host.stats.late_ms or []), list(host.ack_ms), host.stats.turns
    cpu_ms = (time.process_time() - cpu[0]) * 1000  # every thread's: the loop's and the store's
    loop_cpu_ms = (time.thread_time() - cpu[1]) * 1000
    split = {
        key: value
        for name, values in parts.items()
        for key, value in spread(name, list(values)).items()
    }
    # the disk's stalls (see above)
    split["journal_syncs_over_30_ms"] = sum(ms > STALL_MS for ms in parts["journal_sync_ms"])
    for task in (*keepers, lagging):
        task.cancel()
    await asyncio.gather(*keepers, lagging, return_exceptions=True)
    playing, players.players = players.players, {}  # nobody answers what the close delivers
    await stop_players(playing.values())
    await host.close()
    store = await open_store(db)
    figures = {
        "matches": matches,
        "seconds": args.seconds,
        "windows_per_s": round(turns / args.seconds, 1),
        "cpu_ms_per_window": round(cpu_ms / max(1, turns), 2),
        "loop_cpu_ms_per_window": round(loop_cpu_ms / max(1, turns), 2),
        "submissions": len(acks),
        "submit_ack_ms_p50": round(statistics.median(acks), 3) if acks else 0,
        "submit_ack_ms_p99": round(percentile(acks, 0.99), 3),
        "submit_ack_ms_max": round(max(acks, default=0.0), 3),
        "deadline_late_ms_p50": round(statistics.median(late), 3) if late else 0,
        "deadline_late_ms_p99": round(percentile(late, 0.99), 3),
        **split,
        "lost_submissions": await lost(store, host.acked),
        "double_resolutions": await doubled(store, ids),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    await store.close()
    return figures


async def mix_match(
    host: Host, sim: Simulation, game: str, index: int, seeds: random.Random
) -> int:
    """A new match of ``game`` at its smallest table, every timer one window length."""
    window = seeds.uniform(*MIX_WINDOW_S)
    info = sim.info(game)
    seats = info.game.min_seats
    record = await host.create_match(
        game,
        guild_id=0,
        channel_id=index + 1,
        players=[FIRST_USER_ID + 10 * index + seat for seat in range(seats)],
        names=[f"{args_level(sim)}{seat + 1}" for seat in range(seats)],
        seed=seeds.getrandbits(48),
        window_s=window,
        timers={kind: window for kind in info.timers if kind != "turn"},
    )
    sim.players.players[record.id] = sim.seat_players(record)
    return record.id


def args_level(sim: Simulation) -> str:
    return sim.level or "ai"


async def lost(store: SqlStore, acked: list[tuple[int, int, int]]) -> int:
    """Acknowledged moves missing from the move log (or from their window, still open)."""
    missing = 0
    logs: dict[int, list[Any]] = {}
    for match_id, step, seat in acked:
        if match_id not in logs:
            logs[match_id] = await store.steps(match_id)
        steps = logs[match_id]
        if step < len(steps):
            moves = steps[step].moves
            missing += moves is None or moves.get(seat) is None
        else:
            window = await store.open_window(match_id)
            missing += window is None or seat not in window.moves
    return missing


async def doubled(store: SqlStore, ids: list[int]) -> int:
    """Steps announced (a public turn post) more than once."""
    announced: Counter[tuple[int, int]] = Counter()
    for match_id in ids:
        for row in await store.outbox(match_id):
            payload = row.message.payload
            if row.message.audience == "public" and payload.get("kind") == "turn":
                announced[(match_id, payload["step"])] += 1
    return sum(count > 1 for count in announced.values())


def knee(runs: dict[str, dict[str, Any]]) -> dict[str, int | None]:
    """The first count of live matches past each goal (None: none of those run)."""
    counts = sorted(runs, key=int)

    def first(key: str, limit: float) -> int | None:
        return next((int(n) for n in counts if runs[n][key] > limit), None)

    return {
        "ack_p99_over_10_ms_from": first("submit_ack_ms_p99", ACK_KNEE_MS),
        "late_p99_over_50_ms_from": first("deadline_late_ms_p99", LATE_KNEE_MS),
    }


def sweep(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    runs: dict[str, dict[str, Any]] = {}
    for matches in args.sweep:
        load_before = os.getloadavg()[0]
        db = str(folder / f"mix-{matches}.db")
        runs[str(matches)] = asyncio.run(run_mix(args, db, matches))
        runs[str(matches)].update(load_before=load_before, load_after=os.getloadavg()[0])
        print(f"{matches}: {json.dumps(runs[str(matches)])}", file=sys.stderr, flush=True)
    return {"runs": runs, "knee": knee(runs), **fsync_ms(folder)}


def against(args: argparse.Namespace) -> dict[str, Any]:
    """The same sweep on the code in ``args.against``, in a subprocess."""
    argv = [sys.executable, __file__, *(a for a in sys.argv[1:])]
    at = argv.index("--against")
    del argv[at : at + 2]
    env = {**os.environ, "FLORAL_BENCH_CODE": str(Path(args.against).resolve())}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


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
    parser.add_argument("--mix", choices=["all"], default=None, help="every game at once")
    parser.add_argument("--seconds", type=float, default=60.0, help="--mix: measured seconds")
    parser.add_argument(
        "--sweep",
        type=lambda s: [int(n) for n in s.split(",")],
        default=None,
        help="--mix: several counts of live matches, one after the other",
    )
    parser.add_argument("--against", default=None, help="--mix: also on the code in DIR")
    args = parser.parse_args()
    if args.mix:
        args.sweep = args.sweep or [args.matches]
        if args.against:
            other = against(args)
        with tempfile.TemporaryDirectory() as scratch:
            this = sweep(args, Path(scratch))
        print(json.dumps({"this": this, "against": other} if args.against else this))
        return
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
