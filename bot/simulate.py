"""``floral-host simulate``: whole matches between AI players through the real host, store,
scheduler and outbox, with a console transport that prints every message.

Each AI player learns only what its seat is sent (the public posts of its match and its own
messages), and about one attempt in 20 is junk, to exercise refusals. The players answer one at
a time, each answer after everything the last one caused has been delivered, so a seed gives the
same transcript every time as long as no window runs out; the default window is generous, as
the players answer at once. The transcript leaves out wall-clock times, the one thing a seed
cannot fix. With ``--db``, unfinished matches in that database are resumed first; their
players' memories are rebuilt by replaying the log, keeping only what each seat was told. The
last stdout line is a JSON summary (on a terminal, a table; ``--json`` for JSON there too);
``turns`` counts turns as each game does.

On a terminal, a progress bar (rich) counts the matches over and the steps resolved, the
transcript printed above it; with the transcript sent to a file or a pipe, the bar is drawn on
stderr if that is a terminal; with neither a terminal, there is no bar (nothing but the
transcript and the summary).

``AgentPlayer`` also has a timed mode (``play`` and the load benchmark): it answers after a
random delay, so some windows time out, as with people.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from bot.audit import replay
from bot.database import open_store
from bot.games import load_game_info
from bot.host import Host, SubmitResult
from bot.process import EXIT_OUTPUT_CLOSED, Stop, is_closed_output, run_command
from bot.report import wants_json
from bot.store import ACTIVE_STATUSES, MatchRecord, Store
from bot.store.owner import owning
from bot.transport import (
    Delivery,
    event_from_json,
    format_delivery,
    request_from_json,
    request_to_json,
)
from games.protocol import PUBLIC, Agent, ConfigError, Event, derive_rng, to_seat
from games.registry import GameInfo

if TYPE_CHECKING:  # rich is loaded only to draw for a person: ``run`` hosts practice matches
    from rich.console import Console

DEFAULT_WINDOW_S = 60.0  # the players answer at once: a long window costs nothing
JUNK = "?!#%&*~^"
JUNK_RATE = 0.05
FIRST_USER_ID = 1001
LINE_FIELDS = ("options", "variants", "rules", "config")  # a whole line, or its section
WALL_CLOCK = re.compile(r" \(until \d\d:\d\d:\d\d UTC\)")
PROGRESS_EVERY_S = 0.1


class Lockstep:
    """Gives the AI players their turns one at a time, in a fixed order: after everything the
    previous answer caused is delivered, the prompts that arrived meanwhile are answered in
    (match, seat) order. Nothing then depends on how fast the machine is, so a seed gives the
    same transcript, as long as no window runs out."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.pending: list[tuple[AgentPlayer, Mapping[str, Any]]] = []
        self.arrived = asyncio.Event()

    def enqueue(self, player: AgentPlayer, request: Mapping[str, Any]) -> None:
        self.pending.append((player, request))
        self.arrived.set()

    async def run(self, match_ids: list[int]) -> None:
        """Until every one of these matches is over and its messages delivered. Each round
        answers the prompts that had arrived when it began; later ones wait for the next round,
        so every match moves on in turn."""
        over = asyncio.ensure_future(
            asyncio.gather(*(self.host.wait_over(match_id) for match_id in match_ids))
        )
        try:
            while True:
                self.arrived.clear()
                await self.host.wait_idle()
                round_, self.pending = self.pending, []
                if not round_:
                    if over.done():
                        return
                    await self._wait_for_arrival(over)  # a window left to its deadline
                    continue
                round_.sort(key=lambda item: (item[0].match_id, item[0].seat))
                for player, request in round_:
                    await player.answer(request)
                    await self.host.wait_idle()
        finally:
            over.cancel()
            await asyncio.gather(over, return_exceptions=True)

    async def _wait_for_arrival(self, over: asyncio.Future[Any]) -> None:
        arrival = asyncio.ensure_future(self.arrived.wait())
        await asyncio.wait({over, arrival}, return_when=asyncio.FIRST_COMPLETED)
        arrival.cancel()


@dataclass
class AgentPlayer:
    """One AI seat, driven by what the transport delivers to it."""

    host: Host
    match_id: int
    seat: int
    user_id: int
    agent: Agent
    rng: random.Random  # timing and junk, apart from the agent's own RNG
    delay: Callable[[random.Random], float]  # before answering, in the timed mode
    junk_rate: float
    report: Callable[[str], None]
    lockstep: Lockstep | None = None  # None: the timed mode
    known_step: int = -1  # events up to this step are already known (rebuilt on resume)
    acted: set[int] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def blind(self) -> bool:
        """The agent answers from the request alone (``RandomAgent.request_only``): no view is
        fetched and no event decoded for it, so the load bench's players cost the host nothing
        but their answers."""
        return bool(getattr(self.agent, "request_only", False))

    def observe(self, events: list[Event], step: int) -> None:
        if step <= self.known_step:
            return
        for event in events:
            if event.audience in (PUBLIC, to_seat(self.seat)):
                self.agent.observe(event)

    def prompt(self, request: Mapping[str, Any]) -> None:
        """Answer this prompt once: in turn (lockstep), or later, as a person would."""
        step = request["step"]
        if step in self.acted:
            return
        self.acted.add(step)
        if self.lockstep is not None:
            self.lockstep.enqueue(self, request)
            return
        task = asyncio.create_task(self._answer_later(request))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _answer_later(self, payload: Mapping[str, Any]) -> None:
        await asyncio.sleep(self.delay(self.rng))
        await self.answer(payload, retype_s=self.delay(self.rng) / 10)

    async def answer(self, payload: Mapping[str, Any], retype_s: float = 0.0) -> None:
        step, request = payload["step"], request_from_json(payload)
        if self.rng.random() < self.junk_rate:
            await self._submit(self.rng.choice(JUNK), step)
            if retype_s:
                await asyncio.sleep(retype_s)
        view = None if self.blind else await self.host.view(self.match_id, self.user_id)
        await self._submit(self.agent.act(request, view), step)

    async def _submit(self, raw: str, step: int) -> SubmitResult:
        result = await self.host.submit(self.match_id, self.user_id, raw, step=step)
        verdict = f"ack step {result.step}" if result.accepted else "refused"
        self.report(f"[m{self.match_id} seat{self.seat} {verdict}] {raw!r}: {result.text}")
        return result


class SimulatedPlayers:
    """The transport of a simulation: prints each message and hands it to the AI players.

    When its output closes (``simulate | head``) it prints nothing more and calls
    ``on_closed``; a transport error would only make the outbox retry for ever."""

    def __init__(
        self, out: TextIO, quiet: bool, on_closed: Callable[[], None] | None = None
    ) -> None:
        self.out, self.quiet = out, quiet
        self.on_closed = on_closed
        self.closed = False
        self.players: dict[int, list[AgentPlayer]] = {}
        self.console: Console | None = None  # a progress bar's, on ``out``: printed above it

    def say(self, line: str) -> None:
        if self.quiet or self.closed:
            return
        try:
            if self.console is not None:
                self.console.print(line, markup=False, highlight=False, soft_wrap=True)
                return
            print(line, file=self.out, flush=True)
        except OSError as error:
            if not is_closed_output(error):
                raise
            self.closed = True
            if self.on_closed is not None:
                self.on_closed()

    async def send(self, delivery: Delivery) -> None:
        self.show(delivery)
        self.route(delivery)

    def show(self, delivery: Delivery) -> None:
        if self.quiet or self.closed:  # nobody reads it: not worth formatting (the bench's)
            return
        self.say(WALL_CLOCK.sub("", format_delivery(delivery)))

    def route(self, delivery: Delivery) -> None:
        deliver_to(self.players.get(delivery.match_id, []), delivery)

    async def stop(self) -> None:
        await stop_players(self.players.values())


def deliver_to(players: Sequence[AgentPlayer], delivery: Delivery) -> None:
    """Tell each AI player of the delivery's match what its seat sees; hand it its prompts."""
    step = delivery.payload.get("step", 0)
    told = [p for p in players if delivery.audience == PUBLIC or delivery.audience.seat == p.seat]
    if any(not player.blind for player in told):
        events = [event_from_json(e) for e in delivery.payload.get("events", [])]
        for player in told:
            player.observe(events, step)
    request = delivery.payload.get("request")
    for player in players:
        if request is not None and delivery.audience.seat == player.seat:
            player.prompt(request)


async def stop_players(matches: Iterable[Sequence[AgentPlayer]]) -> None:
    """Cancel every answer the players are still thinking about."""
    tasks = [task for players in matches for player in players for task in player.tasks]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def remember(players: Sequence[AgentPlayer], store: Store, record: MatchRecord) -> None:
    """After a restart: each player knows what its seat was told (the stored log replayed)."""
    game = load_game_info(record.game).game
    for step, _, events in replay(game, record, await store.steps(record.id)):
        for player in players:
            player.observe(events, step.step)
            player.known_step = step.step


def answer_open(host: Host, match_id: int, players: Sequence[AgentPlayer]) -> None:
    """Prompts sent before a restart are not sent again unless the window had expired: the
    players answer the open ones now."""
    for player in players:
        for prompt in host.prompts_for(player.user_id):
            if prompt.match_id == match_id and not prompt.answered:
                player.prompt(
                    request_to_json(prompt.request, match_id, prompt.step, prompt.deadline)
                )


@dataclass
class Simulation:
    host: Host
    players: SimulatedPlayers
    window_s: float
    junk_rate: float = JUNK_RATE
    level: str | None = None  # the AI level of every seat; None: the game's default
    seats: int | None = None  # seats of each new match; None: the game's smallest table
    lockstep: Lockstep | None = None  # None: the players answer after random delays
    config: Mapping[str, Any] | None = None  # the raw config of each new match (--options)
    infos: dict[str, GameInfo] = field(default_factory=dict)

    def info(self, key: str) -> GameInfo:
        if key not in self.infos:
            self.infos[key] = load_game_info(key)
        return self.infos[key]

    def seat_players(self, record: MatchRecord) -> list[AgentPlayer]:
        info = self.info(record.game)
        factory = info.agents[self.level or info.default_agent]
        limit = 1.25 * (record.window_s or self.window_s)
        return [
            AgentPlayer(
                self.host,
                record.id,
                seat,
                user_id,
                factory(seat, derive_rng(record.seed, "agent", seat)),
                derive_rng(record.seed, "timing", seat),
                lambda rng: rng.uniform(0, limit),
                self.junk_rate,
                self.players.say,
                self.lockstep,
            )
            for seat, user_id in enumerate(record.players)
        ]

    async def resume(self, store: Store) -> list[int]:
        """Attach players to the unfinished matches, each knowing what its seat was told."""
        resumed = []
        for record in await store.list_matches(statuses=ACTIVE_STATUSES):
            players = self.seat_players(record)
            await remember(players, store, record)
            self.players.players[record.id] = players
            resumed.append(record.id)
        return resumed

    def answer_open_windows(self, match_ids: list[int]) -> None:
        for match_id in match_ids:
            answer_open(self.host, match_id, self.players.players[match_id])

    async def new_match(self, key: str, seed: int, index: int) -> int:
        info = self.info(key)
        seats = self.seats or info.game.min_seats
        record = await self.host.create_match(
            key,
            guild_id=0,
            channel_id=index + 1,
            players=[FIRST_USER_ID + seat for seat in range(seats)],
            names=[f"{self.level or info.default_agent}{seat + 1}" for seat in range(seats)],
            config=self.config,
            seed=seed,
            window_s=self.window_s,
        )
        self.players.players[record.id] = self.seat_players(record)
        return record.id

    async def start_waiting(self, match_ids: list[int]) -> None:
        for match_id in match_ids:
            status = (await self.host.status(match_id)).match.status
            if status in ("setup", "revealed"):
                await self.host.start_match(match_id)


def progress_console(out: TextIO, err: TextIO) -> Console | None:
    """Where a progress bar is drawn: the terminal the transcript goes to, else stderr if it is
    a terminal; None when no person watches (a pipe, a file, a test)."""
    for stream in (out, err):
        if stream.isatty():
            from rich.console import Console

            return Console(file=stream, highlight=False)
    return None


class ProgressBar:
    """The matches over out of all, and the steps resolved, redrawn every 0.1 s."""

    def __init__(self, console: Console, host: Host) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.host = host
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[steps]} steps"),
            TimeElapsedColumn(),
            console=console,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self.task = self.bar.add_task("matches over", total=None, steps=0)
        self.over: list[asyncio.Future[Any]] = []

    def watch(self, match_ids: Sequence[int]) -> None:
        self.over = [asyncio.ensure_future(self.host.wait_over(i)) for i in match_ids]
        self.bar.update(self.task, total=len(match_ids))

    def redraw(self) -> None:
        done = sum(future.done() for future in self.over)
        self.bar.update(self.task, completed=done, steps=self.host.stats.turns)

    @contextlib.asynccontextmanager
    async def shown(self) -> AsyncIterator[None]:
        async def tick() -> None:
            while True:
                self.redraw()
                await asyncio.sleep(PROGRESS_EVERY_S)

        ticker = asyncio.ensure_future(tick())
        try:
            with self.bar:
                yield
                self.redraw()
        finally:
            for future in (ticker, *self.over):
                future.cancel()
            await asyncio.gather(ticker, *self.over, return_exceptions=True)


async def simulate(
    key: str,
    *,
    matches: int = 1,
    seed: int | None = None,
    window_s: float | None = None,
    level: str | None = None,
    seats: int | None = None,
    options: str | None = None,
    db: str | Path | None = None,
    quiet: bool = False,
    out: TextIO = sys.stdout,
    on_closed: Callable[[], None] | None = None,
    progress: Console | None = None,
) -> dict[str, int]:
    """Run the simulation; the summary. Raises KeyError for an unknown game or level, a number
    of players the game does not seat, or an ``options`` line it refuses. ``progress``: the
    console a progress bar is drawn on (the transcript goes through it when it draws on
    ``out``)."""
    window = window_s or DEFAULT_WINDOW_S
    check_level(load_game_info(key), level)
    seats = check_players(load_game_info(key), seats)
    config = match_config(load_game_info(key), options, seats)
    seed = seed if seed is not None else random.SystemRandom().getrandbits(32)
    with tempfile.TemporaryDirectory() as scratch:
        async with owning(db, "floral-host simulate") if db else contextlib.nullcontext():
            store = await open_store(db or Path(scratch) / "simulate.db")
            players = SimulatedPlayers(out, quiet, on_closed)
            host = Host(store, players, grace_s=max(window, 0.05), retry_base_s=0.05)
            bar = ProgressBar(progress, host) if progress is not None else None
            if progress is not None and progress.file is out:
                players.console = progress
            try:
                sim = Simulation(
                    host,
                    players,
                    window,
                    level=level,
                    seats=seats,
                    lockstep=Lockstep(host),
                    config=config,
                )
                async with bar.shown() if bar else contextlib.nullcontext():
                    ids = await _start_all(sim, store, key, matches, seed)
                    if bar is not None:
                        bar.watch(ids)
                    assert sim.lockstep is not None
                    await sim.lockstep.run(ids)
                summary = await _summary(host, ids)
            finally:
                await players.stop()
                await host.close()
    return {"seed": seed, **summary}


def check_level(info: GameInfo, level: str | None) -> None:
    if level is not None and level not in info.agents:
        raise KeyError(f"unknown AI level {level!r}; known: {', '.join(info.agents)}")


def check_players(info: GameInfo, players: int | None) -> int:
    """The seats of a new match: ``players``, or the game's smallest table; KeyError in one
    line when the game is not played by that many."""
    game = info.game
    if players is None:
        return game.min_seats
    if not game.min_seats <= players <= game.max_seats:
        seats = (
            str(game.min_seats)
            if game.min_seats == game.max_seats
            else f"{game.min_seats} to {game.max_seats}"
        )
        raise KeyError(f"{game.title} is played by {seats} players, not {players}")
    return players


def match_config(info: GameInfo, options: str | None, seats: int) -> dict[str, Any]:
    """The raw config an options line asks for (``--options``: the line the game's setup
    command reads), checked by the game's rules for ``seats`` players now, so that a bad
    option is refused in one line naming it before any match starts (KeyError)."""
    if not options or not options.strip():
        return {}
    if info.parse_options is None:
        raise KeyError(f"--options: {info.title} takes no options")
    try:
        config = info.parse_options(options)
        info.game.parse_config(dict(config), seats)
    except ConfigError as error:
        line, _, option = error.field.partition(".")
        field = option if line in LINE_FIELDS and option else error.field
        named = "" if field in LINE_FIELDS else f"{field}: "
        raise KeyError(f"--options: {named}{error.message}") from None
    return config


async def _start_all(sim: Simulation, store: Store, key: str, matches: int, seed: int) -> list[int]:
    """Resume the unfinished matches, then create and start new ones; each step delivered
    before the next, so that the transcript's order is fixed."""
    host = sim.host
    resumed = await sim.resume(store)
    await host.start()
    await host.wait_idle()
    sim.answer_open_windows(resumed)
    await sim.start_waiting(resumed)
    seeds = random.Random(seed)
    created = []
    for index in range(matches):
        match_id = await sim.new_match(key, seeds.getrandbits(48), index)
        await host.wait_idle()
        await host.start_match(match_id)
        await host.wait_idle()
        created.append(match_id)
    return resumed + created


async def _summary(host: Host, ids: list[int]) -> dict[str, int]:
    """``turns`` as each game counts them (the ``turn`` of its public view; a planting phase
    or a rebid is a step but not a turn), ``steps`` as the host resolved them."""
    statuses = [await host.status(match_id) for match_id in ids]
    return {
        "matches": len(ids),
        "finished": sum(status.match.status == "finished" for status in statuses),
        "turns": sum(int(status.public_view.get("turn", 0)) for status in statuses),
        "steps": host.stats.turns,
        "submissions": host.stats.submissions,
        "timeouts": host.stats.timeouts,
        "refused": host.stats.refused,
        "messages": host.worker.sent,
    }


def print_summary(summary: Mapping[str, int], *, as_json: bool, out: TextIO | None = None) -> None:
    """One JSON line for a program; for a person, a table of what was counted."""
    out = out or sys.stdout
    if as_json:
        print(json.dumps(summary), file=out, flush=True)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Simulated", title_justify="left", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    for key, value in summary.items():
        table.add_row(key, str(value))
    Console(file=out, highlight=False).print(table)


def main(args: argparse.Namespace) -> int:
    async def run(stop: Stop) -> int:
        summary = await simulate(
            args.game,
            matches=args.matches,
            seed=args.seed,
            window_s=args.window,
            level=args.level,
            seats=args.players,
            options=args.options,
            db=args.db or None,
            quiet=args.quiet,
            out=sys.stdout,
            on_closed=lambda: stop(EXIT_OUTPUT_CLOSED),
            progress=progress_console(sys.stdout, sys.stderr),
        )
        try:
            print_summary(summary, as_json=wants_json(args.json, sys.stdout))
        except OSError as error:
            if not is_closed_output(error):
                raise
            return EXIT_OUTPUT_CLOSED
        return 0 if summary["finished"] == summary["matches"] else 1

    try:
        return run_command(run)
    except KeyError as error:
        print(f"floral-host simulate: {error.args[0]}", file=sys.stderr)
        return 2
