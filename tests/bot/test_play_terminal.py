"""``floral-host play`` in a real pseudo-terminal, for every registered game: the intro, the
first question with its choices listed by number, answers by text and by number, the
acknowledgements, ``help``, ``cards``, ``view``, ``status``, the countdown toolbar, a line
being typed that survives what arrives meanwhile, ``quit``, Ctrl-D, Ctrl-C, and a whole match
to its end in words.

The terminal is the standard library's ``pty`` (no test dependency): the test reads what the
command draws (escape sequences removed) and answers the cursor-position queries a terminal
answers. Each wait is on expected text with a timeout, never a fixed sleep."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bot.terminal.answers import numbered
from bot.terminal.markdown import rich_text
from bot.terminal.render import choice_entry
from games import registry
from games.protocol import Request, Setup
from tests.bot.test_simulate import ROOT

ROWS, COLUMNS = 45, 160
WAIT_S = 8.0
WINDOW_S = "60"  # long enough that no question times out while a test types
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: the window title
    r"|\x1b[()][0-9A-Za-z]|\x1b[=>78NOMc]"
)
CURSOR_QUERY = b"\x1b[6n"


class Terminal:
    """A command in a pseudo-terminal: what it drew so far, and a keyboard."""

    def __init__(self, *args: str) -> None:
        main, side = pty.openpty()
        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "play", *args],
            cwd=ROOT,
            stdin=side,
            stdout=side,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        os.close(side)
        self.fd = main
        self.raw = b""
        self.text = ""  # everything drawn, escape sequences removed
        self.seen = 0  # where the next expect starts looking

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the command ended and closed the terminal
            chunk = b""
        if not chunk:
            return False
        if CURSOR_QUERY in chunk:  # as a terminal does: the cursor is on the last row
            os.write(self.fd, f"\x1b[{ROWS};1R".encode() * chunk.count(CURSOR_QUERY))
        self.raw += chunk
        self.text = _ESCAPES.sub("", self.raw.decode(errors="replace")).replace("\r", "")
        return True

    def expect(self, pattern: str, timeout: float = WAIT_S, regex: bool = False) -> str:
        """Wait until ``pattern`` is drawn after the last thing expected; what it matched."""
        wanted = re.compile(pattern if regex else re.escape(pattern))
        deadline = time.monotonic() + timeout
        while True:
            found = wanted.search(self.text, self.seen)
            if found:
                self.seen = found.end()
                return found.group(0)
            left = deadline - time.monotonic()
            ended = left > 0 and not self._read(min(left, 0.2)) and self.process.poll() is not None
            if left <= 0 or (ended and not self._read(0)):
                tail = self.text[self.seen :][-3000:]
                raise AssertionError(f"{pattern!r} was not drawn; after the last match:\n{tail}")

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def enter(self, line: str) -> None:
        self.type(line + "\r")

    def wait(self, timeout: float = WAIT_S) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        return self.process.wait(timeout=max(0.1, deadline - time.monotonic()))

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.fd)
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read().decode(errors="replace")
        self.process.stderr.close()


@contextmanager
def terminal(*args: str) -> Iterator[Terminal]:
    term = Terminal(*args)
    try:
        yield term
    finally:
        term.close()
    assert "Traceback" not in term.stderr, term.stderr


def first_question(game: str) -> tuple[int, Any, Request]:
    """A seed whose first window asks you (seat 0), its starting state and your request: what
    the command, started with that seed, asks first."""
    info = registry.get(game)
    engine = info.game
    for seed in range(100):
        names = ("Human", f"AI ({info.default_agent})")
        setup = Setup(engine.parse_config({}, 2), 2, seed, names)
        state, _ = engine.new_match(setup)
        mine = [r for r in engine.requests(state) if r.seat == 0 and r.choices]
        if mine:
            return seed, state, mine[0]
    raise AssertionError(f"{game}: no seed below 100 asks seat 0 first")


def opening(text: str) -> str:
    """The start of a text as the terminal draws it: its first 60 characters (never wrapped)."""
    return next(line for line in rich_text(text).plain.splitlines() if line.strip())[:60]


def typed_answer(request: Request) -> str:
    """An answer to type in words: the first choices the question needs."""
    values = [choice.value for choice in request.choices[: max(1, request.min_choices)]]
    return request.join_answer(values)


def listed(request: Request) -> str:
    """How the question lists its first choice: its number (or its answer) and its label."""
    return choice_entry(request, 0, 1 if numbered(request) else 0).plain.strip()


@pytest.mark.parametrize("game", registry.names())
def test_play_a_game_in_a_terminal(game: str) -> None:
    info = registry.get(game)
    seed, state, request = first_question(game)
    with terminal(game, "--seed", str(seed), "--window", WINDOW_S) as term:
        term.expect(info.title)
        term.expect("You are Human (P1), against AI")
        term.expect("Your move")
        term.expect(listed(request))  # its choices, by number
        term.expect("answer › ")  # the input line
        term.expect(r"⏳ [0-9:.]+( s)? to answer", regex=True)  # the toolbar counts down

        term.enter("help")
        term.expect("Help")
        term.expect(opening(request.help) if request.help else "If you don't answer")
        term.expect("What you can type besides an answer:")

        term.enter("cards")
        topics = info.reference(state) if info.reference is not None else []
        term.expect(topics[0].title if topics else "has no card reference yet")

        term.enter("view")
        term.expect("What you see")
        term.expect(opening(info.game.describe(state, 0)))

        term.enter("status")
        term.expect(f"{info.title}, running")

        term.enter("no such answer 4242")
        term.expect("✖ ")  # refused, in the game's words

        term.enter(typed_answer(request))  # by its text
        term.expect("✔ ")
        term.type("hel")  # typing, while the next question arrives above the line
        term.expect("Your move", timeout=15)
        term.enter("p")
        term.expect("What you can type besides an answer:")  # the line survived: "help"

        term.enter("1")  # by its number
        term.expect(r"[✔✖] ", regex=True)

        term.enter("quit")
        term.expect("You left (you typed quit): the match is aborted, with no result.")
        assert term.wait() == 0


def test_the_end_of_a_match_in_words() -> None:
    """A whole Warlock's Brew match in a terminal, your defaults played by the clock."""
    with terminal("warlocks-brew", "--seed", "4", "--window", "0.2") as term:
        term.expect("Your move")
        term.expect("How it ended: ", timeout=30)
        assert term.wait() == 0
    ending = term.text.split("How it ended: ")[-2].strip().splitlines()[-1]
    winners = r"(You won|AI \(\w+\) wins|You share the win with .+)"
    assert re.fullmatch(winners + r": .*\b\d+ to \d+\b.*\.", ending), ending  # the score
    assert "{" not in term.text and "winners" not in term.text  # never JSON


def test_ctrl_d_leaves_and_ctrl_c_stops() -> None:
    with terminal("tests.bot.toy_game", "--seed", "3") as term:
        term.expect("Your move")
        term.expect("answer › ")  # the input line reads keys now (before, the tty ate them)
        term.type("\x04")
        term.expect("You left (the input ended): the match is aborted, with no result.")
        assert term.wait() == 0
    with terminal("tests.bot.toy_game", "--seed", "3") as term:
        term.expect("Your move")
        term.expect("answer › ")
        term.type("4")  # half a line: Ctrl-C stops anyway
        term.type("\x03")
        assert term.wait() == 130
