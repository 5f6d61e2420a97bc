"""``floral-host play GAME``: you against the AI in the terminal, with real timers.

You are seat 1. You see what a Discord player sees: the match channel's posts and your own direct
messages, with the same texts, and a countdown while a prompt waits for you. Type an answer as you
would in a DM; ``help`` lists what you can type. ``/quit``, or the end of the input (Ctrl-D),
leaves: the match is aborted, with no result. Ctrl-C stops at once (exit code 130).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.games import load_game_info
from bot.host import Host
from bot.process import EXIT_OUTPUT_CLOSED, run_command
from bot.simulate import AgentPlayer, SimulatedPlayers, check_level, check_players
from bot.store.sqlite import SqliteStore
from bot.transport import Delivery
from games.protocol import Agent, derive_rng

HUMAN, COMPUTER = 1, 2
COUNTDOWN_MARKS = (45, 30, 20, 10, 5, 3, 2, 1)
HELP = """You can type:
  an answer    as in a DM: one of the choices of the prompt waiting for you
  /view        your own view of the match (your secrets included)
  /status      the match as everyone sees it, and the time left
  /quit        leave (the match is aborted, with no result); so does the end of the input
  help         this list"""
QUIT = "/quit"


async def play(
    key: str,
    level: str | None = None,
    seed: int | None = None,
    window_s: float | None = None,
    players: int | None = None,
    lines: TextIO = sys.stdin,
    out: TextIO = sys.stdout,
    on_closed: Callable[[], None] | None = None,
) -> int:
    info = load_game_info(key)
    check_level(info, level)
    seats = check_players(info, players)
    level = level or info.default_agent
    seed = seed if seed is not None else random.SystemRandom().getrandbits(48)
    with tempfile.TemporaryDirectory() as scratch:
        terminal = Terminal(out, quiet=False, on_closed=on_closed)
        host = Host(await SqliteStore.open(Path(scratch) / "play.db"), terminal)
        tasks: list[asyncio.Task[None]] = []
        try:
            await host.start()
            record = await host.create_match(
                key,
                guild_id=0,
                channel_id=0,
                players=[HUMAN, *(COMPUTER + seat for seat in range(seats - 1))],
                names=["Human", *(f"AI {seat} ({level})" for seat in range(1, seats))]
                if seats > 2
                else ["Human", f"AI ({level})"],
                seed=seed,
                window_s=window_s,
            )
            terminal.players[record.id] = [
                _computer(
                    host,
                    record.id,
                    seat,
                    info.agents[level](seat, derive_rng(seed, "ai", seat)),
                    seed,
                    window_s,
                )
                for seat in range(1, seats)
            ]
            terminal.say(HELP)
            await host.start_match(record.id)
            session = Session(host, record.id, terminal)
            tasks = [
                asyncio.create_task(session.read_answers(lines)),
                asyncio.create_task(_countdown(host, terminal)),
            ]
            over = asyncio.create_task(host.wait_over(record.id))
            await asyncio.wait([over, tasks[0]], return_when=asyncio.FIRST_COMPLETED)
            over.cancel()
            if session.leaving:
                await tasks[0]  # it says so
            else:  # the match ended by itself
                await host.wait_idle()
                status = await host.status(record.id)
                terminal.say(
                    f"Match over ({status.match.status}): {json.dumps(status.match.outcome)}"
                )
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await terminal.stop()
            await host.close()
    return 0


def _computer(
    host: Host, match_id: int, seat: int, agent: Agent, seed: int, window_s: float | None
) -> AgentPlayer:
    """The AI seat: it answers after a human-like pause, never with junk, and reports nothing."""
    window = window_s or 60.0
    return AgentPlayer(
        host,
        match_id,
        seat,
        COMPUTER + seat - 1,
        agent,
        derive_rng(seed, "ai-timing") if seat == 1 else derive_rng(seed, "ai-timing", seat),
        lambda rng: rng.uniform(0.3, min(5, window / 3)),
        0.0,
        lambda _: None,
    )


class Session:
    """The human's side: what they type, answered as a DM would be."""

    def __init__(self, host: Host, match_id: int, terminal: Terminal) -> None:
        self.host, self.match_id, self.terminal = host, match_id, terminal
        self.leaving = False

    async def read_answers(self, lines: TextIO) -> None:
        """Until ``/quit`` or the end of the input; then the match is aborted."""
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        threading.Thread(
            target=_read_lines, args=(lines, loop, queue), name="stdin", daemon=True
        ).start()
        while (line := await queue.get()) is not None and line.strip() != QUIT:
            try:
                await self.handle(line.strip())
            except Exception as error:  # nothing typed may end the session
                self.terminal.say(f"✖ That could not be handled ({type(error).__name__}).")
        await self.leave("you typed /quit" if line is not None else "the input ended")

    async def handle(self, text: str) -> None:
        say = self.terminal.say
        if text in ("help", "/help"):
            say(HELP)
        elif text == "/view":
            say(await self.host.describe(self.match_id, HUMAN))
        elif text == "/status":
            say(await self.status_text())
        elif text:
            result = await self.host.submit(self.match_id, HUMAN, text)
            say(("✔ " if result.accepted else "✖ ") + result.text)

    async def status_text(self) -> str:
        status = await self.host.status(self.match_id)
        text = f"{status.title}, {status.match.status}. {status.public_text}"
        window = status.window
        if window is not None and not window.paused and 0 in window.seats:
            answered = "you have answered" if 0 in window.answered else "waiting for your answer"
            text += f"\nWindow open: {round(window.seconds_left)} s left, {answered}."
        return text

    async def leave(self, why: str) -> None:
        if self.match_id not in self.host.active_match_ids():
            return
        self.leaving = True
        await self.host.abort(self.match_id, by=HUMAN)
        await self.host.wait_idle()
        self.terminal.say(f"You left ({why}): match {self.match_id} is aborted, with no result.")


def _read_lines(
    lines: TextIO, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]
) -> None:
    """A daemon thread: a pending readline must not keep the process alive. None: the end."""

    def put(item: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the match is over and the loop closed
            loop.call_soon_threadsafe(queue.put_nowait, item)

    while True:
        try:
            line = lines.readline()
        except (OSError, ValueError):  # closed under us, or undecodable bytes
            line = ""
        if not line:
            put(None)
            return
        put(line)


class Terminal(SimulatedPlayers):
    """Shows what the human's Discord client would show; the AI seat gets its own messages."""

    def show(self, delivery: Delivery) -> None:
        audience = delivery.audience
        if audience.kind == "public":
            where = "#channel"
        elif audience.kind == "seat" and audience.seat == 0:
            where = "DM"
        else:
            return  # the AI's DMs and the moderator log stay hidden
        lines = delivery.text.splitlines() or [""]
        self.say("\n".join(f"{where:>8} │ {line}" for line in lines))


async def _countdown(host: Host, terminal: Terminal) -> None:
    """Print the time left at a few marks while a prompt waits for the human."""
    shown: set[tuple[int, int]] = set()
    while True:
        await asyncio.sleep(0.25)
        for prompt in host.prompts_for(HUMAN):
            if prompt.answered:
                continue
            left = prompt.deadline - time.time()
            marks = [m for m in COUNTDOWN_MARKS if left <= m and (prompt.step, m) not in shown]
            if marks:
                shown.update((prompt.step, m) for m in marks)
                terminal.say(f"      ⏳ │ {max(0, round(left))} s left")


def main(args: argparse.Namespace) -> int:
    if hasattr(sys.stdin, "reconfigure"):  # bytes that are not UTF-8 become U+FFFD, not an error
        sys.stdin.reconfigure(errors="replace")
    try:
        return run_command(
            lambda stop: play(
                args.game,
                args.level,
                args.seed,
                args.window,
                args.players,
                on_closed=lambda: stop(EXIT_OUTPUT_CLOSED),
            )
        )
    except KeyError as error:
        print(f"floral-host play: {error.args[0]}", file=sys.stderr)
        return 2
