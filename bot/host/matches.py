"""The cache of active matches and the one way to change one: commit to the store, then mirror.

Also the host's background work: tracked tasks (``close`` waits for them) and the writes the
host must make, retried with backoff while the store fails them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping
from typing import Any

from bot.games import load_game_info
from bot.host.model import HostError, HostStats, Live, NotSaved, Window
from bot.host.timers import Clock
from bot.outbox import WINDOW_OPENING_KINDS, DeliveryWorker
from bot.store import (
    ACTIVE_STATUSES,
    Change,
    MatchRecord,
    NotOwner,
    OutboxMessage,
    Store,
    WriteFailed,
)
from bot.transport import parse_audience
from games.moves import closes_early
from games.protocol import Game

log = logging.getLogger(__name__)

GameLoader = Callable[[str], Game[Any]]


def prompted_seats(outbox: Iterable[OutboxMessage]) -> list[tuple[int, int]]:
    """The (match, seat) of each message that opens a window for its seat."""
    return [
        (message.match_id, audience.seat)
        for message in outbox
        if message.payload.get("kind") in WINDOW_OPENING_KINDS
        and "request" in message.payload
        and (audience := parse_audience(message.audience)).seat is not None
    ]


class Matches:
    def __init__(
        self,
        store: Store,
        worker: DeliveryWorker,
        clock: Clock,
        *,
        games: Mapping[str, Game[Any]] | None,
        loader: GameLoader | None,
        on_over: Callable[[Live], None],
        write_tries: int,
        write_retry_s: float,
    ) -> None:
        """``on_over``: called when a match leaves the cache (finished or aborted)."""
        self.store = store
        self.worker = worker
        self.clock = clock
        self.stats = HostStats()
        self.live: dict[int, Live] = {}
        self.stopping = asyncio.Event()  # set by close: writes waiting to be retried give up
        self._games: dict[str, Game[Any]] = dict(games or {})
        self._loader = loader or (lambda key: load_game_info(key).game)
        self._on_over = on_over
        self._over: dict[int, asyncio.Event] = {}  # set when the match leaves self.live
        self._tasks: set[asyncio.Task[None]] = set()
        # (match, seat) -> window prompts committed but not yet sent (nor failed for good): a
        # deadline does not close on a seat whose prompt has not reached it (fair clocks)
        self.undelivered: Counter[tuple[int, int]] = Counter()
        self._write_tries = write_tries
        self._write_retry_s = write_retry_s

    # --- games and records ----------------------------------------------------------------

    def game(self, key: str) -> Game[Any]:
        if key not in self._games:
            self._games[key] = self._loader(key)
        return self._games[key]

    def resolve(self, game: Game[Any] | str) -> tuple[str, Game[Any]]:
        if isinstance(game, str):
            return game, self.game(game)
        self._games.setdefault(game.name, game)
        return game.name, game

    async def record(self, match_id: int) -> MatchRecord:
        record = await self.store.get_match(match_id)
        if record is None:
            raise HostError(f"There is no match {match_id}.")
        return record

    def active(self, match_id: int) -> Live:
        live = self.live.get(match_id)
        if live is None:
            raise HostError(f"Match {match_id} does not exist or is over.")
        return live

    async def load(self, record: MatchRecord) -> Live:
        """An active match as stored: its latest state and its open window."""
        game = self.game(record.game)
        state = game.load((await self.store.latest_step(record.id)).snapshot)
        live = Live(record, game, state)
        stored = await self.store.open_window(record.id)
        if stored is not None:
            requests = {r.seat: r for r in game.requests(state)}
            if set(requests) != set(stored.seats):
                log.warning(
                    "match %d: stored window seats %s differ from the engine's %s",
                    record.id,
                    stored.seats,
                    sorted(requests),
                )
            window = Window(
                stored.step,
                requests,
                stored.deadline,
                stored.remaining,
                stored.reminded,
                dict(stored.moves),
                prompted=dict(stored.prompted),
            )
            # a close rule that fired before the host stopped fires again (it is not stored)
            window.closing = any(
                seat in requests and closes_early(game, state, requests[seat], window.moves)
                for seat in window.moves
            )
            live.window = window
        return live

    @contextlib.asynccontextmanager
    async def running_window(
        self, match_id: int, step: int, seat: int | None = None
    ) -> AsyncIterator[tuple[Live, Window] | None]:
        """Under the match's lock, the running match and its open window ``step`` (with
        ``seat``: the window where the seat's prompt of ``step`` is still current); None when
        the match is over or paused, or that window has closed meanwhile (a timer or a report
        that arrived late)."""
        live = self.live.get(match_id)
        if live is None:
            yield None
            return
        async with live.lock:
            window = live.window
            if window is None or live.record.status != "running":
                yield None
            elif window.step == step or (
                seat is not None
                and seat in window.requests
                and window.prompt_is_current(seat, step)
            ):
                yield live, window
            else:
                yield None

    async def commit(self, live: Live, change: Change, new_step: int | None = None) -> bool:
        """Apply a change; on success mirror it in the cache and wake the delivery worker.
        NotSaved (a HostError) when the store cannot write it now: nothing changed."""
        try:
            applied = await self.store.apply(change)
        except WriteFailed as error:
            raise NotSaved from error
        if not applied:
            return False
        updates: dict[str, Any] = {}
        if change.status is not None:
            updates.update(status=change.status, outcome=change.outcome)
        if new_step is not None:
            updates["step"] = new_step
        if updates:
            live.record = dataclasses.replace(live.record, **updates)
        if change.outbox:
            self.owe_prompts(change.outbox)
            self.worker.wake()
        if live.record.status in ("finished", "aborted"):
            self._forget(live)
        return True

    def _forget(self, live: Live) -> None:
        """A match over: no longer hosted; its waiters wake."""
        self._on_over(live)
        self.live.pop(live.id, None)
        for key in [key for key in self.undelivered if key[0] == live.id]:
            del self.undelivered[key]  # (its prompts still on their way matter no more)
        self._over.pop(live.id, asyncio.Event()).set()

    async def resync(self, live: Live) -> Live | None:
        """The store moved on past this cache (a commit that went through though the answer
        to it was lost with its connection): the match as stored replaces it, so it goes on
        from there; None when it is over."""
        record = await self.store.get_match(live.id)
        if record is None or record.status not in ACTIVE_STATUSES:
            self._forget(live)
            return None
        fresh = await self.load(record)
        self.live[live.id] = fresh
        self.worker.wake()
        return fresh

    def owe_prompts(self, outbox: Iterable[OutboxMessage]) -> None:
        """Count the window prompts among these messages, committed and not delivered yet, of
        the active matches: a deadline does not close on a seat whose prompt has not reached it
        (fair clocks)."""
        for key in prompted_seats(outbox):
            if key[0] in self.live:
                self._count_prompt(key, 1)

    def settle_prompt(self, match_id: int, seat: int) -> None:
        """A window prompt of the seat was delivered (or failed for good). Its report may come
        before the commit that owed it has returned (the worker reads the outbox meanwhile): the
        count goes below zero until then."""
        if match_id in self.live:
            self._count_prompt((match_id, seat), -1)

    def _count_prompt(self, key: tuple[int, int], change: int) -> None:
        self.undelivered[key] += change
        if not self.undelivered[key]:
            del self.undelivered[key]

    async def wait_over(self, match_id: int) -> None:
        if match_id in self.live:  # one event per match: a finish wakes only its waiters
            await self._over.setdefault(match_id, asyncio.Event()).wait()

    # --- background work ------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        task = asyncio.create_task(self._run_tracked(coro))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        """Whether a tracked task is still running."""
        return bool(self._tasks)

    async def wait_tasks(self) -> None:
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def persist(self, what: str, action: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        """Run a write the host must make, retrying with backoff while the store fails it;
        whether it was made. Bounded: after the last try the sweep (for windows) or the next
        start takes over."""
        delay = self._write_retry_s
        for attempt in range(1, self._write_tries + 1):
            try:
                await action()
                return True
            except (WriteFailed, NotSaved) as error:
                cause = error.__cause__ if isinstance(error, NotSaved) else error
                if isinstance(cause, NotOwner):  # another process hosts the match now
                    log.warning("%s not made: %s", what, cause)
                    return False
                if attempt == self._write_tries:
                    log.warning("%s failed %d times, giving up: %s", what, attempt, cause)
                    return False
                log.warning("%s failed (%s); trying again in %.2f s", what, cause, delay)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self.stopping.wait()
            if self.stopping.is_set():
                return False
            delay = min(delay * 2, 30.0)
        return False

    async def _run_tracked(self, coro: Coroutine[Any, Any, object]) -> None:
        try:
            await coro
        except Exception:
            log.exception("host task failed")
