"""``floral-host play GAME``: you against the AI in the terminal, with real timers.

You are seat 1. You see what a Discord player sees: the match channel's posts and your own direct
messages, with the same texts, and a countdown while a prompt waits for you. Type an answer as you
would in a DM; ``/view`` shows your private view, ``/status`` the match, ``/quit`` gives up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

from bot.games import load_game_info
from bot.host import Host
from bot.simulate import AgentPlayer, SimulatedPlayers
from bot.store.sqlite import SqliteStore
from bot.transport import Delivery
from games.protocol import derive_rng

HUMAN, COMPUTER = 1, 2
COUNTDOWN_MARKS = (45, 30, 20, 10, 5, 3, 2, 1)
HELP = "Type your answer; /view your private view, /status the match, /quit to give up."


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


async def play(
    key: str,
    level: str | None = None,
    seed: int | None = None,
    window_s: float | None = None,
    lines: TextIO = sys.stdin,
    out: TextIO = sys.stdout,
) -> int:
    info = load_game_info(key)
    level = level or info.default_agent
    if level not in info.agents:
        raise KeyError(f"unknown level {level!r}; known: {', '.join(info.agents)}")
    seed = seed if seed is not None else random.SystemRandom().getrandbits(48)
    with tempfile.TemporaryDirectory() as scratch:
        terminal = Terminal(out, quiet=False)
        host = Host(await SqliteStore.open(Path(scratch) / "play.db"), terminal)
        await host.start()
        record = await host.create_match(
            key,
            guild_id=0,
            channel_id=0,
            players=(HUMAN, COMPUTER),
            names=("Human", f"AI ({level})"),
            seed=seed,
            window_s=window_s,
        )
        window = window_s or 60.0
        terminal.players[record.id] = [
            AgentPlayer(
                host,
                record.id,
                1,
                COMPUTER,
                info.agents[level](1, derive_rng(seed, "ai", 1)),
                derive_rng(seed, "ai-timing"),
                lambda rng: rng.uniform(0.3, min(5, window / 3)),
                0.0,
                lambda _: None,
            )
        ]
        terminal.say(HELP)
        await host.start_match(record.id)
        tasks = [
            asyncio.create_task(job)
            for job in (_read_answers(host, record.id, lines, terminal), _countdown(host, terminal))
        ]
        await host.wait_over(record.id)
        await host.wait_idle()
        status = await host.status(record.id)
        terminal.say(f"Match over ({status.match.status}): {json.dumps(status.match.outcome)}")
        for task in tasks:
            task.cancel()
        await terminal.stop()
        await host.close()
    return 0


async def _read_answers(host: Host, match_id: int, lines: TextIO, terminal: Terminal) -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def read() -> None:  # a daemon thread: a pending readline must not keep the process alive
        for line in iter(lines.readline, ""):
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the match is over and the loop closed
                return

    threading.Thread(target=read, name="stdin", daemon=True).start()
    while True:
        text = (await queue.get()).strip()
        if text == "/quit":
            await host.abort(match_id, by=HUMAN)
        elif text == "/view":
            terminal.say(json.dumps(await host.view(match_id, HUMAN), indent=1))
        elif text == "/status":
            status = await host.status(match_id)
            terminal.say(json.dumps(status.public_view, indent=1))
        elif text:
            result = await host.submit(match_id, HUMAN, text)
            terminal.say(("✔ " if result.accepted else "✖ ") + result.text)


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
    try:
        return asyncio.run(play(args.game, args.level, args.seed, args.window))
    except KeyError as error:
        print(f"floral-host play: {error.args[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
