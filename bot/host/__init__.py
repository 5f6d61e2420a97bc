"""The match host: lifecycle, windows and deadlines, submissions, moderator operations.

``Host`` is the one entry point; it wires small collaborators, one module each:
``matches`` (the cache of active matches, the commit, retried writes), ``lifecycle`` (setup,
resolution, moderator operations), ``submissions``, ``windows`` (timers, reminders, the sweep,
stalls and reopening), ``notices`` (the messages the host composes), ``queries`` (status, views,
open prompts), ``timers`` (the ``Timers`` interface) and ``model`` (results and cached state).

Game-agnostic: it drives any engine through ``games.protocol.Game``. The database is the source
of truth; the host keeps a cache of the active matches (state object and open window) and
changes it only after the store has committed the change. One lock per match orders the
operations on it; the store's conditional updates settle any race that remains (a deadline and a
last-second submission, or two processes), so a turn never resolves twice.

The timers (the event loop's by default, ``ManualTimers`` in tests) only hold the deadline and the
reminder of each open window (``deadline:<match>``, ``remind:<match>``), re-created from the
database on start.

Nothing may strand a match. A write that fails for a passing reason (``WriteFailed``: the
database locked by another process, a full disk) is retried with backoff where the host must
make it (a resolution, a reopening, a report), and a periodic sweep closes any window left open
past its deadline. A submission that cannot be saved is refused, never acknowledged. A deadline
met much later than it fell (the process was stopped, the event loop stalled, the VM paused) is
treated like downtime: the window reopens for the grace period and the players are told.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from bot.host.lifecycle import Lifecycle
from bot.host.matches import GameLoader, Matches
from bot.host.model import (
    ClaimTaken,
    HostError,
    HostStats,
    Live,
    MatchStatusView,
    NotSaved,
    OpenPrompt,
    SubmitResult,
    WindowStatus,
    storable,
)
from bot.host.notices import StartRule, UnreachableReports
from bot.host.queries import Queries
from bot.host.submissions import Submissions
from bot.host.timers import Clock, LoopTimers, ManualTimers, Timers
from bot.host.windows import Windows
from bot.outbox import ChannelPace, DeliveryWorker, Handover, Late, SharedChannel
from bot.shards import Shards
from bot.store import ACTIVE_STATUSES, MatchRecord, OutboxMessage, OutboxRow, Store
from bot.transport import Transport
from games.protocol import JSON, Game, Verdict

# an answer's reply waits this long at most for the window it closed to resolve (well within
# Discord's 3 s for a first answer), and has this long to be sent before its seat's messages go
# by DM after all
REPLY_WAIT_S = 1.0
REPLY_SEND_S = 2.0


class Host:
    def __init__(
        self,
        store: Store,
        transport: Transport,
        *,
        games: Mapping[str, Game[Any]] | None = None,
        loader: GameLoader | None = None,
        grace_s: float = 15.0,
        reminder_s: float = 15.0,
        clock: Clock = time.time,
        retry_base_s: float = 1.0,
        stall_s: float = 5.0,
        sweep_s: float = 2.0,
        write_tries: int = 8,
        write_retry_s: float = 0.25,
        timers: Timers | None = None,
        late_allowance_s: float = 2.0,
        late_cap_s: float = 30.0,
        delivery_batch: int = 500,
        shards: Shards | None = None,
        shared_channel: SharedChannel | None = None,
        pace: ChannelPace | None = None,
    ) -> None:
        """``stall_s``: a deadline met later than this is treated like downtime (grace).
        ``sweep_s``: how often the sweep looks for windows this long past their deadline.
        ``write_tries``, ``write_retry_s``: a must-do write's tries and first backoff.
        ``timers``: runs the deadlines and reminders (default: the event loop's, ``LoopTimers``).
        ``late_allowance_s``, ``late_cap_s``: a prompt that opens a window and reaches its seat
        later than the allowance after its commit moves the window's deadline by the delay, at
        most the cap, and the seat is told (fair clocks).
        ``delivery_batch``: the messages one pass of the delivery worker sends at most (with a
        paced transport, about a second's worth: a prompt committed meanwhile goes first in
        the next pass, not after a long backlog).
        ``shards``: a sharded process's (``bot.shards``): it hosts, times, resolves and delivers
        only the matches these shards hold; None: every match.
        ``shared_channel``, ``pace``: the channels other matches post to as well, and how many
        posts each takes (``bot.outbox.ChannelPace``)."""
        self.store = store
        self.shards = shards
        self.worker = DeliveryWorker(
            store,
            transport,
            self._report_unreachable,
            on_prompt=self._on_prompt,
            late_allowance_s=late_allowance_s,
            late_cap_s=late_cap_s,
            clock=clock,
            retry_base_s=retry_base_s,
            batch=delivery_batch,
            shards=shards,
            shared_channel=shared_channel,
            pace=pace,
        )
        self._matches = Matches(
            store,
            self.worker,
            clock,
            games=games,
            loader=loader,
            on_over=self._on_over,
            write_tries=write_tries,
            write_retry_s=write_retry_s,
        )
        self.stats: HostStats = self._matches.stats
        self._windows = Windows(
            self._matches,
            timers if timers is not None else LoopTimers(clock),
            self._close_window,
            grace_s=grace_s,
            reminder_s=reminder_s,
            stall_s=stall_s,
            sweep_s=sweep_s,
            late_cap_s=late_cap_s,
        )
        self._lifecycle = Lifecycle(self._matches, self._windows)
        self._submissions = Submissions(self._matches, self._windows)
        self._queries = Queries(self._matches)
        self._reports = UnreachableReports(self._matches)

    # --- service --------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the active matches, re-arm their windows (reopening expired ones with the grace
        period) and start delivering the outbox."""
        self._matches.stopping.clear()
        self._windows.start_timers()
        records = [
            record
            for record in await self.store.list_matches(statuses=ACTIVE_STATUSES)
            if self.hosts(record)
        ]
        for record in records:
            self._matches.live[record.id] = await self._matches.load(record)
        # the prompts not delivered before the stop hold their windows' deadlines, as before
        self._matches.owe_prompts(await self.store.pending_to_seats())
        for record in records:
            live = self._matches.live[record.id]
            if record.status == "running" and live.window is not None:
                await self._windows.rearm_after_restart(live)
        self.worker.start()
        self.worker.wake()
        self._windows.start_sweep()

    async def close(self) -> None:
        """Stop timers, let in-flight resolutions finish, stop delivery, close the store."""
        self._matches.stopping.set()  # writes waiting to be retried give up: the next start re-arms
        await self._windows.stop()
        await self._matches.wait_tasks()
        await self.worker.stop()
        await self.store.close()

    async def wait_idle(self) -> None:
        """Until no resolution is in flight and the outbox is delivered (tests, simulate).
        Again while either made work for the other: a delivered prompt's report is a task
        (a late prompt moves its deadline), a task's commit is more to deliver."""
        while True:
            await self._matches.wait_tasks()
            await self.worker.wait_idle()
            if not self._matches.busy():
                return

    async def wait_over(self, match_id: int) -> None:
        """Until the match is finished or aborted."""
        await self._matches.wait_over(match_id)

    def hosts(self, record: MatchRecord) -> bool:
        """Whether this process hosts the match (a sharded one: its shards hold it)."""
        return self.shards is None or self.shards.holds(record.guild_id, record.practice)

    def game(self, key: str) -> Game[Any]:
        return self._matches.game(key)

    # --- setup ----------------------------------------------------------------------------

    async def create_match(
        self,
        game: Game[Any] | str,
        *,
        guild_id: int,
        channel_id: int,
        players: Sequence[int],
        moderators: Sequence[int] = (),
        config: Mapping[str, JSON] | None = None,
        seed: int | None = None,
        names: Sequence[str] | None = None,
        window_s: float | None = None,
        timers: Mapping[str, float] | None = None,
        practice: bool = False,
        starts: StartRule = "moderator",
        rematch_of: int | None = None,
        table: int | None = None,
    ) -> MatchRecord:
        """A new match in setup. Raises ConfigError (bad config) or HostError (bad seats or
        timers). Each player gets a hello by DM, which also shows whether their DMs are open.
        ``window_s`` is the ``turn`` length; ``timers`` sets the length of any kind the game
        declares (``{"reaction": 10}``); kinds left out keep the game's default. A ``practice``
        match (against the AI) is never rated, and starts at once; else the hello tells who
        ``starts`` it (``StartRule``). ``rematch_of`` (a finished match: its one rematch) and
        ``table`` (an open table: its last seat) are claimed in the transaction that stores
        the match; HostError if the claim is gone."""
        return await self._lifecycle.create(
            game,
            guild_id=guild_id,
            channel_id=channel_id,
            players=players,
            moderators=moderators,
            config=config,
            seed=seed,
            names=names,
            window_s=window_s,
            timers=timers,
            practice=practice,
            starts=starts,
            rematch_of=rematch_of,
            table=table,
        )

    async def configure(
        self, match_id: int, config: Mapping[str, JSON], by: int | None = None
    ) -> MatchRecord:
        """Replace the config before the reveal (e.g. another spellbook)."""
        return await self._lifecycle.configure(match_id, config, by)

    async def reveal(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Post the public part of the setup (Floral Extract: the spellbook)."""
        return await self._lifecycle.reveal(match_id, by)

    async def start_match(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Tell every seat its secrets, post the start and open the first window."""
        return await self._lifecycle.start(match_id, by)

    # --- submissions ----------------------------------------------------------------------

    async def submit(
        self,
        match_id: int,
        user_id: int,
        raw: str,
        *,
        step: int | None = None,
        reply: bool = False,
    ) -> SubmitResult:
        """One player's answer. Acknowledged (accepted=True) only once it is committed.
        ``step``, from a button's prompt, makes an answer to an older prompt a refusal.
        ``reply``: the caller will ask ``reply_messages`` for what to send in its reply to an
        accepted answer; meanwhile the seat's messages wait for it (at most ``REPLY_WAIT_S``)."""
        live = self._matches.live.get(match_id)
        seat = live.seat_of(user_id) if live is not None and not live.record.practice else None
        held = f"seat{seat}" if reply and seat is not None else None
        if held is not None:
            self.worker.reserve(match_id, held, REPLY_WAIT_S + REPLY_SEND_S)
        result = await self._submissions.submit(match_id, user_id, raw, step)
        if held is not None and not result.accepted:
            self.worker.release(match_id, held)
        return result

    async def reply_messages(self, result: SubmitResult) -> Handover | None:
        """After an answer made with ``reply``: the messages its seat is sent next, once the
        resolution the answer caused (if any) is committed, taken from the outbox to go in the
        reply to the answer (its next prompt, when that resolution asks it again at once:
        the next command of a turn, the next window of a turn it plays, or the next round
        when its answer was the last one awaited). None when none is waiting; the caller
        calls ``Handover.done`` once the reply is sent or has failed. Discord does not count
        a button's reply against the bot's requests: a prompt sent in one costs none."""
        live = self._matches.live.get(result.match_id)
        if not result.accepted or result.seat is None or result.step is None:
            return None
        audience = f"seat{result.seat}"
        if live is None or live.record.practice:  # (a practice's posts share its DMs)
            self.worker.release(result.match_id, audience)
            return None
        await self._windows.settled(result.match_id, result.step, REPLY_WAIT_S)
        return await self.worker.claim(result.match_id, audience)

    # --- moderator operations -------------------------------------------------------------

    async def pause(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Freeze the open window's remaining time."""
        return await self._lifecycle.pause(match_id, by)

    async def resume(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Restore the remaining time the pause froze."""
        return await self._lifecycle.resume(match_id, by)

    async def extend(self, match_id: int, seconds: float, by: int | None = None) -> MatchRecord:
        """Give the open window ``seconds`` more (running or paused)."""
        return await self._lifecycle.extend(match_id, seconds, by)

    async def end(self, match_id: int, by: int | None = None) -> MatchRecord:
        """End the match now by the game's end rule; pending moves are not applied."""
        return await self._lifecycle.end(match_id, by)

    async def abort(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Stop the match with no result."""
        return await self._lifecycle.abort(match_id, by)

    # --- leaving --------------------------------------------------------------------------

    async def leave(self, match_id: int, user_id: int) -> MatchRecord:
        """The player leaves a running or paused match; the game decides what follows."""
        return await self._lifecycle.leave(match_id, user_id, None)

    async def kick(self, match_id: int, user_id: int, by: int) -> MatchRecord:
        """A moderator ``by`` removes the player, as if the player had left (logged as a
        kick). Whether ``by`` may is the caller's check, as for the other operations."""
        return await self._lifecycle.leave(match_id, user_id, by)

    # --- queries --------------------------------------------------------------------------

    async def status(self, match_id: int) -> MatchStatusView:
        """The public state of a match and its open window (no secrets)."""
        return await self._queries.status(match_id)

    async def view(self, match_id: int, user_id: int) -> JSON:
        """What this player may know of the match (their seat's view)."""
        return await self._queries.view(match_id, user_id)

    async def describe(self, match_id: int, user_id: int) -> str:
        """The same as ``view``, in the game's own words."""
        return await self._queries.describe(match_id, user_id)

    def would_accept(self, match_id: int, user_id: int, raw: str) -> Verdict | None:
        """The engine's verdict on ``raw`` as this player's answer now, nothing submitted."""
        return self._queries.would_accept(match_id, user_id, raw)

    async def list_matches(
        self, guild_id: int | None = None, active_only: bool = False
    ) -> list[MatchRecord]:
        return await self._queries.list_matches(guild_id, active_only)

    def prompts_for(self, user_id: int) -> list[OpenPrompt]:
        """The open requests of this user in every running match (to route a typed DM)."""
        return self._queries.prompts_for(user_id)

    async def viewed_prompts(self, user_id: int, match_ids: Sequence[int]) -> list[OpenPrompt]:
        """The user's open requests in these matches hosted by other processes, as stored (a
        sharded process holding shard 0 routes a typed DM among all of them); ``would_accept``
        judges them as read."""
        return await self._queries.viewed_prompts(user_id, match_ids)

    def active_match_ids(self) -> list[int]:
        return list(self._matches.live)

    # --- wiring between the collaborators -------------------------------------------------

    async def _close_window(self, match_id: int, step: int, reason: str) -> None:
        await self._lifecycle.close_window(match_id, step, reason)

    def _on_over(self, live: Live) -> None:
        self._windows.disarm(live)

    async def _report_unreachable(self, row: OutboxRow, error: str) -> None:
        await self._reports.report(row, error)

    def _on_prompt(self, row: OutboxRow, late: Late | None) -> None:
        self._windows.prompt_settled(row, late)


__all__ = [
    "ClaimTaken",
    "Handover",
    "Host",
    "HostError",
    "HostStats",
    "LoopTimers",
    "ManualTimers",
    "MatchStatusView",
    "NotSaved",
    "OpenPrompt",
    "OutboxMessage",
    "StartRule",
    "SubmitResult",
    "Timers",
    "WindowStatus",
    "storable",
]
