"""The messages the host composes: hellos, prompts, reminders, re-prompts after a retiming,
the reopening after downtime, a late prompt's new deadline, and the report of a player who
cannot be reached."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Literal

from bot.games import load_game_info
from bot.host.matches import Matches
from bot.host.model import Live, Window
from bot.outbox import Prompt, clock_text, notice, prompt_text, seconds_text
from bot.store import Change, LogEntry, OutboxMessage, OutboxRow
from bot.transport import parse_audience, request_to_json
from games.protocol import JSON, Game
from games.text import names_text

StartRule = Literal["moderator", "opener", "now"]
"""Who starts a match once it is set up: a moderator (the default); the opener of its table
(``FLORAL_OPENER_STARTS``) or a moderator; nobody, it starts at once (a practice)."""

HOW_IT_STARTS: dict[StartRule, str] = {
    "moderator": "It starts when a moderator starts it.",
    "opener": "It starts when the table's opener presses its Start button (or a moderator"
    " starts it).",
    "now": "It starts at once.",
}


def hellos(
    game: Game[Any], names: tuple[str, ...], starts: StartRule
) -> Callable[[int], list[OutboxMessage]]:
    """One hello a seat, sent at creation (it also shows whether their DMs are open), composed
    once the match has its id."""

    def compose(match_id: int) -> list[OutboxMessage]:
        texts = [hello_text(game, names, seat, match_id, starts) for seat in range(len(names))]
        return [
            notice(match_id, f"seat{seat}", text, 0, "setup") for seat, text in enumerate(texts)
        ]

    return compose


def others_text(names: Sequence[str], seat: int) -> str:
    """The other seats' names, as a sentence lists them."""
    return names_text([name for i, name in enumerate(names) if i != seat])


def hello_text(
    game: Game[Any], names: Sequence[str], seat: int, match_id: int, starts: StartRule
) -> str:
    return (
        f"👋 You are {names[seat]} in match {match_id}, {game.title}, against"
        f" {others_text(names, seat)}. Your prompts will come here. {HOW_IT_STARTS[starts]}"
    )


def how_to_answer(live: Live, seat: int) -> str:
    """The one-screen card that opens each player's first message of a match."""
    record = live.record
    return (
        f"🃏 **How to play match {live.id}.** You are {record.names[seat]} in {live.game.title}"
        f" against {others_text(record.names, seat)}. Answer each prompt with its buttons or"
        " menu, or type the answer here, or use `/submit`. A prompt shows its deadline and what"
        " happens if you let it pass. Type `help` for what a prompt's choices do and `cards`"
        f" for the match's cards; `/look` shows what only you know, `/rules game:{record.game}`"
        " the rules, `/match leave` leaves the match."
    )


def seats_card(live: Live, view: JSON, winners: Sequence[int] = ()) -> list[dict[str, JSON]]:
    """The seats' card of a post: each seat's name, its public line (the game's
    ``public_lines`` of the public ``view``; none for a game without them) and on the end post
    whether it won."""
    try:
        public_lines = load_game_info(live.record.game).public_lines
    except KeyError:  # a game outside the registry (tests)
        public_lines = None
    lines = [str(line) for line in public_lines(view)] if public_lines is not None else []
    return [
        {"name": name, "line": lines[seat] if seat < len(lines) else "", "won": seat in winners}
        for seat, name in enumerate(live.record.names)
    ]


def public_turn(view: JSON) -> JSON:
    """The turn a public view is at (every game's view holds ``"turn"``)."""
    return view.get("turn") if isinstance(view, dict) else None


def prompts(live: Live, window: Window | None, now: float) -> dict[int, Prompt]:
    """The prompts a new window sends: to every seat it asks, but those whose prompt goes on."""
    if window is None:
        return {}
    return {
        seat: prompt(live, window, seat, now)
        for seat in window.prompted_seats()
        if window.prompt_step(seat) == window.step
    }


def prompt(live: Live, window: Window, seat: int, now: float) -> Prompt:
    request = window.requests[seat]
    deadline = window.deadline if window.remaining is None else now + window.remaining
    return Prompt(
        request_to_json(request, live.id, window.step, deadline),
        prompt_text(request, deadline, now),
    )


# a seat that let this many windows in a row pass without answering is away: its prompts still
# come, but no reminder until it answers again (one more DM a window that nobody reads)
AWAY_AFTER = 2


def reminders(live: Live, window: Window, now: float) -> tuple[OutboxMessage, ...]:
    """One short line to each seat that has not answered, unless it is away: its prompt's
    buttons still work."""
    left = seconds_text(window.deadline - now)
    return tuple(
        notice(
            live.id,
            f"seat{seat}",
            f"⏰ {left} left to answer in match {live.id}.",
            live.record.step,
            "reminder",
            deadline=window.deadline,
        )
        for seat in window.missing()
        if live.missed.get(seat, 0) < AWAY_AFTER
    )


def retimed(live: Live, window: Window, text: str, now: float) -> tuple[OutboxMessage, ...]:
    """A window's new timing told to the channel, and with the prompt to who has not answered."""
    step = live.record.step
    outbox = [notice(live.id, "public", text, step)]
    outbox += [
        notice(live.id, f"seat{seat}", text, step, "notice", prompt(live, window, seat, now))
        for seat in window.missing()
    ]
    return tuple(outbox)


def reopened(
    live: Live, window: Window, now: float, grace_s: float, cause: str
) -> tuple[OutboxMessage, ...]:
    """An expired window open again for the grace period: why, and the prompt to who must
    still answer (who has answered is told their answer is kept)."""
    what = "was stalled (paused or overloaded)" if cause == "stalled" else "restarted"
    text = (
        f"⚠ The host {what} while match {live.id} was waiting for answers; the window"
        f" is open again for {seconds_text(grace_s)}."
    )
    step = live.record.step
    outbox = [notice(live.id, "public", text, step, "reopened")]
    for seat in window.prompted_seats():
        if seat in window.moves:
            outbox.append(
                notice(live.id, f"seat{seat}", f"{text} Your answer is kept.", step, "reopened")
            )
        else:
            outbox.append(
                notice(
                    live.id,
                    f"seat{seat}",
                    text,
                    step,
                    "reopened",
                    prompt(live, window, seat, now),
                )
            )
    return tuple(outbox)


class UnreachableReports:
    """A player who cannot be reached is reported to the channel and the moderators, once
    per match, with the fallback command."""

    def __init__(self, matches: Matches) -> None:
        self._matches = matches
        self._reported: set[tuple[int, str]] = set()

    async def report(self, row: OutboxRow, error: str) -> None:
        """The delivery worker's handler of a message that failed for good."""
        audience = parse_audience(row.message.audience)
        key = (row.message.match_id, row.message.audience)
        if audience.seat is None or key in self._reported:
            return
        self._reported.add(key)
        what = f"match {row.message.match_id} unreachable report"
        action = partial(self._report, row, audience.seat, error)
        self._matches.spawn(self._matches.persist(what, action))

    async def _report(self, row: OutboxRow, seat: int, error: str) -> None:
        store = self._matches.store
        match_id, user_id = row.message.match_id, row.players[seat]
        if any(  # reported before a restart: the match log remembers
            entry.kind == "unreachable" and entry.by_user == user_id
            for entry in await store.match_log(match_id)
        ):
            return
        text = (
            f"⚠ I cannot send direct messages to <@{user_id}> (match {match_id}). They can"
            " still answer with /submit here and see their game with /garden."
        )
        step = row.message.payload.get("step", 0) if isinstance(row.message.payload, dict) else 0
        outbox = (
            notice(match_id, "public", text, step, "unreachable"),
            notice(match_id, "moderators", f"{text} ({error})", step, "unreachable"),
        )
        change = Change(
            match_id,
            self._matches.clock(),
            log=(LogEntry("unreachable", user_id, {"seat": seat, "error": error}),),
            outbox=outbox,
        )
        await store.apply(change)
        self._matches.worker.wake()


def late_prompt(live: Live, seat: int, delay_s: float, deadline: float) -> OutboxMessage:
    """To a seat whose prompt was held up while it was being sent (a 429 wait), so its text
    could not show it: the new deadline (the prompt has the buttons)."""
    text = (
        f"⏳ Your prompt in match {live.id} reached you {seconds_text(delay_s)} late:"
        f" you have until {clock_text(deadline)}."
    )
    return notice(live.id, f"seat{seat}", text, live.record.step, "late_prompt")
