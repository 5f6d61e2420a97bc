"""``floral-host play GAME``: you against the AI, with real timers, in a terminal front end of
its own (``bot.terminal``'s package docstring says what it shows and reads)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from prompt_toolkit.formatted_text import StyleAndTextTuples
from rich.console import Console, RenderableType
from rich.text import Text

from bot.database import open_store
from bot.games import load_game_info
from bot.host import Host, OpenPrompt
from bot.process import is_closed_output
from bot.simulate import (
    AgentPlayer,
    SimulatedPlayers,
    check_level,
    check_players,
    match_config,
)
from bot.terminal import render
from bot.terminal.answers import AnswerError, by_number, completions, read_answer
from bot.terminal.keyboard import LineKeyboard, TerminalKeyboard
from bot.transport import Delivery, request_from_json
from games.protocol import Agent, Request, Topic, derive_rng
from games.registry import GameInfo
from games.text import names_text

HUMAN, COMPUTER = 1, 2  # user ids: you, then the AI seats
DEFAULT_WINDOW_S = 60.0
AI_PAUSE_S = (0.2, 1.5)  # how long an AI seat thinks: a pause a person can follow, no longer
AI_PAUSE_WINDOW_S = 15.0  # in a shorter window it thinks proportionally faster
PLAIN_WIDTH = 100  # the width of what is printed to a pipe or a file
COUNTDOWN_MARKS = (30, 10, 3)  # seconds left at which a pipe is told (a terminal has a toolbar)
RULES = Path(__file__).resolve().parents[2] / "docs"
COMMAND_NAMES = {
    "help": "help",
    "?": "help",
    "cards": "cards",
    "view": "view",
    "look": "view",
    "status": "status",
    "quit": "quit",
    "exit": "quit",
}
# the window-opening kinds and the re-prompts after a retiming or downtime show the question
QUESTION_KINDS = ("start", "turn", "notice", "reopened")
NOT_SHOWN_YET = "⌛ The question you read has closed: answer the next one once it shows."


class Keyboard(Protocol):
    interactive: bool

    def attached(self) -> contextlib.AbstractContextManager[None]: ...

    async def read_line(self) -> str | None: ...


class Screen:
    """Prints rich renderables: in colour to a terminal (above the line being typed), plain to
    anything else. A closed output stops the command (``on_closed``)."""

    def __init__(
        self, out: TextIO, interactive: bool, on_closed: Callable[[], None] | None
    ) -> None:
        if interactive:  # the file is looked up at each print: stdout is patched meanwhile
            self.console = Console(force_terminal=True, highlight=False, emoji=False)
        else:
            self.console = Console(
                file=out, color_system=None, width=PLAIN_WIDTH, highlight=False, emoji=False
            )
        self.on_closed = on_closed
        self.closed = False

    def show(self, *renderables: RenderableType) -> None:
        if self.closed:
            return
        try:
            self.console.print(*renderables)
        except OSError as error:
            if not is_closed_output(error):
                raise
            self.closed = True
            if self.on_closed is not None:
                self.on_closed()


class Terminal(SimulatedPlayers):
    """The transport: the AI seats get their messages; yours and the channel's are shown,
    those one delivery pass sends together in the order of the match (results before the
    question they lead to)."""

    def __init__(self, screen: Screen) -> None:
        super().__init__(sys.stdout, quiet=True)
        self.screen = screen
        self.session: Session | None = None
        self._batch: list[Delivery] = []

    def show(self, delivery: Delivery) -> None:
        audience = delivery.audience
        if audience.kind == "moderators" or (audience.kind == "seat" and audience.seat != 0):
            return
        if not self._batch:
            asyncio.get_running_loop().call_soon(self._flush)
        self._batch.append(delivery)

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        batch.sort(key=lambda d: (d.payload.get("step", 0), d.audience.kind != "public"))
        for delivery in batch:
            if self.session is not None:
                self.session.show_delivery(delivery)


@dataclass
class Session:
    """Your side of the match: what arrives, shown; what you type, answered."""

    host: Host
    info: GameInfo
    match_id: int
    seats: render.Seats
    screen: Screen
    keyboard: Keyboard | None = None
    question: Request | None = None  # the last question shown to you
    question_step: int | None = None
    leaving: bool = False
    told: set[tuple[int, int]] = field(default_factory=set)  # (step, mark) said on a pipe
    answered: set[int] = field(default_factory=set)  # the steps you answered
    sending: int | None = None  # the step of the answer on its way to the host
    question_deadline: float = 0.0  # of the question shown

    @property
    def game(self) -> str:
        return self.info.name

    # --- what arrives ---------------------------------------------------------------------

    def show_delivery(self, delivery: Delivery) -> None:
        payload = delivery.payload
        kind = str(payload.get("kind", ""))
        if kind == "setup" or self.leaving:
            return  # the hello (the intro says it) and the abort notice (quit says it)
        self._closed_unanswered(int(payload.get("step", 0)), kind)
        events = render.events_view(payload.get("events", []), self.game)
        if events is not None:
            self.screen.show(events)
        elif kind == "reopened":
            self.screen.show(Text(delivery.text))
        elif kind == "late_prompt":
            self.screen.show(Text("⏳ Your question reached you late; its deadline moved."))
        request = payload.get("request")
        if isinstance(request, dict) and delivery.audience.kind == "seat":
            self._ask(request, kind)

    def _closed_unanswered(self, step: int, kind: str) -> None:
        """Say so when the question you were shown closed without your answer (its time ran
        out, or another player's answer closed it): its default is played for you."""
        asked = self.question_step
        if kind != "turn" or asked is None or step < asked or self.question is None:
            return
        if self.question.close == "each" and time.time() < self.question_deadline:
            return  # another player's answer resolved alone: yours is still asked
        if asked not in self.answered and asked != self.sending:
            default = self.question.default
            self.screen.show(Text(f"⌛ Closed without your answer: {default}.", "yellow"))
        self.question_step = None

    def _ask(self, payload: dict[str, Any], kind: str) -> None:
        self.question = request_from_json(payload)
        self.question_step = int(payload["step"])
        self.question_deadline = float(payload["deadline"])
        if kind in QUESTION_KINDS:
            left = float(payload["deadline"]) - time.time()
            self.screen.show(render.question(self.question, self.game, left))

    # --- what you type --------------------------------------------------------------------

    async def read_answers(self) -> None:
        """Until ``quit`` or the end of the input; then the match is aborted."""
        assert self.keyboard is not None
        while (line := await self.keyboard.read_line()) is not None:
            text = line.strip()
            if COMMAND_NAMES.get(text.removeprefix("/").split(" ")[0].casefold()) == "quit":
                await self.leave("you typed quit")
                return
            try:
                await self.handle(text)
            except Exception as error:  # nothing typed may end the session
                self.screen.show(
                    render.acknowledgement(
                        False, f"That could not be handled ({type(error).__name__}).", self.game
                    )
                )
        await self.leave("the input ended")

    async def handle(self, text: str) -> None:
        if not text:
            return
        word, _, rest = text.removeprefix("/").partition(" ")
        command = COMMAND_NAMES.get(word.casefold())
        if command is None or self._is_a_choice(text):
            await self.answer(text)
        elif command == "help":
            prompt = self.open_prompt()
            request = prompt.request if prompt is not None else None
            answered = prompt is not None and prompt.answered
            interactive = self.keyboard is not None and self.keyboard.interactive
            self.screen.show(render.help_view(request, answered, self.game, interactive))
        elif command == "cards":
            self.screen.show(await self.cards(rest.strip()))
        elif command == "view":
            text = await self.host.describe(self.match_id, HUMAN)
            view = await self.host.view(self.match_id, HUMAN)
            self.screen.show(render.view_view(text, self.game, view, await self.topics()))
        elif command == "status":
            self.screen.show(await self.status())

    def _is_a_choice(self, text: str) -> bool:
        prompt = self.open_prompt()
        choices = prompt.request.choices if prompt is not None else ()
        return any(text.casefold() == choice.value.casefold() for choice in choices)

    async def answer(self, text: str) -> None:
        prompt = self.open_prompt()
        if prompt is None:
            self.screen.show(Text("Nothing is asked of you right now: wait for your turn.", "dim"))
            return
        request, step = prompt.request, prompt.step
        shown, shown_step = self.question, self.question_step
        if shown_step is None and by_number(request, text):
            # the question you read has closed (or none is shown yet) and the open one is
            # still on its way to the screen: a number would pick from a list you have not seen
            self.screen.show(Text(NOT_SHOWN_YET, "yellow"))
            return
        if shown is not None and shown_step is not None and by_number(shown, text):
            # a number picks from the list you read: if a newer question has opened since,
            # the host refuses it rather than picking from a list you have not seen
            request, step = shown, shown_step
        try:
            raw = read_answer(request, text)
        except AnswerError as error:
            self.screen.show(render.acknowledgement(False, str(error), self.game))
            return
        self.sending = step  # an answer that closes its window is no "closed without" it
        try:
            result = await self.host.submit(self.match_id, HUMAN, raw, step=step)
        finally:
            self.sending = None
        if result.accepted and result.step is not None:
            self.answered.add(result.step)
        self.screen.show(render.acknowledgement(result.accepted, result.text, self.game))

    def open_prompt(self) -> OpenPrompt | None:
        """The question open for you now, if any (answered or not)."""
        for prompt in self.host.prompts_for(HUMAN):
            if prompt.match_id == self.match_id:
                return prompt
        return None

    async def cards(self, word: str) -> RenderableType:
        return render.cards_view(self.info.title, self.game, await self.topics(), word)

    async def topics(self) -> list[Topic]:
        """The match's content reference (none when the game gives none)."""
        reference = self.info.reference
        return list(reference(await self.state())) if reference is not None else []

    async def state(self) -> Any:
        """The match's state now (its latest stored step), for what the game derives from it."""
        step = await self.host.store.latest_step(self.match_id)
        return self.info.game.load(step.snapshot)

    async def status(self) -> RenderableType:
        status = await self.host.status(self.match_id)
        lines = self.info.public_lines
        return render.status_view(
            self.info.title,
            status.match.status,
            self.seats,
            lines(status.public_view) if lines is not None else None,
            status.public_text,
            self.waiting_text(),
            self.game,
        )

    def waiting_text(self) -> str:
        """What the match waits for, in a few words (status and the toolbar)."""
        prompt = self.open_prompt()
        if prompt is None:
            return f"Waiting for {names_text(self.seats.others)}."
        left = render.left_text(prompt.deadline - time.time())
        if prompt.answered and not prompt.request.revisable:
            return f"You have answered; waiting for the others ({left} left)."
        if prompt.answered:
            return f"You have answered and may change it: {left} left."
        return f"{left} left to answer."

    async def leave(self, why: str) -> None:
        if self.match_id not in self.host.active_match_ids():
            return
        self.leaving = True
        await self.host.abort(self.match_id, by=HUMAN)
        await self.host.wait_idle()
        self.screen.show(Text(f"You left ({why}): the match is aborted, with no result."))

    # --- the clock ------------------------------------------------------------------------

    def toolbar(self) -> StyleAndTextTuples:
        prompt = self.open_prompt()
        keys = ("class:toolbar.keys", "   help · cards · view · status · quit")
        if prompt is None:
            return [("", f" {self.info.title}: {self.waiting_text()}"), keys]
        left = prompt.deadline - time.time()
        what = prompt.request.occasion or prompt.request.kind
        if prompt.answered:
            return [("", f" {what}: {self.waiting_text()}"), keys]
        style = "class:toolbar.urgent" if left <= 10 else "class:toolbar.open"
        return [
            (style, f" ⏳ {render.left_text(left)} to answer "),
            ("", f" {what} · if you don't: {prompt.request.default}"),
            keys,
        ]

    async def count_down(self) -> None:
        """On a pipe, a line at a few marks while a question waits for you."""
        while True:
            await asyncio.sleep(0.25)
            prompt = self.open_prompt()
            if prompt is None or prompt.answered:
                continue
            left = prompt.deadline - time.time()
            if (prompt.step, 0) not in self.told:  # a mark already passed when it opened: none
                self.told.update((prompt.step, m) for m in (0, *COUNTDOWN_MARKS) if left <= m)
            marks = [m for m in COUNTDOWN_MARKS if left <= m and (prompt.step, m) not in self.told]
            if marks:
                self.told.update((prompt.step, m) for m in marks)
                self.screen.show(Text(f"⏳ {render.left_text(left)} left to answer.", "dim"))

    def candidates(self, typed: str) -> Iterable[tuple[str, str]]:
        prompt = self.open_prompt()
        request = prompt.request if prompt is not None else None
        names = [*self.seats.names, *COMMAND_NAMES]
        return completions(request, names, typed)

    def waiting_for_you(self) -> bool:
        prompt = self.open_prompt()
        return prompt is not None and not prompt.answered

    # --- the end --------------------------------------------------------------------------

    async def ending(self) -> str:
        status = await self.host.status(self.match_id)
        hooks = self.info.pictures
        scores = None
        if hooks is not None and hooks.scores is not None:
            scores = list(hooks.scores(await self.state()))
        label = hooks.score_label if hooks is not None else "points"
        return render.ending_text(status.match.outcome, self.seats, scores, label)


async def play(
    key: str,
    level: str | None = None,
    seed: int | None = None,
    window_s: float | None = None,
    players: int | None = None,
    lines: TextIO = sys.stdin,
    options: str | None = None,
    out: TextIO = sys.stdout,
    on_closed: Callable[[], None] | None = None,
    interactive: bool | None = None,
) -> int:
    """Play one match; 0 when it ends or you leave. KeyError for an unknown game or level, a
    number of players the game does not seat, or an ``options`` line (the game's setup
    options) it refuses. ``interactive`` (default: both ``lines`` and ``out`` are terminals)
    draws the terminal front end; otherwise lines in, plain text out."""
    info = load_game_info(key)
    check_level(info, level)
    seats = check_players(info, players)
    config = match_config(info, options, seats)
    level = level or info.default_agent
    seed = seed if seed is not None else random.SystemRandom().getrandbits(48)
    if interactive is None:
        interactive = lines.isatty() and out.isatty()
    screen = Screen(out, interactive, on_closed)
    names = ["Human", *(f"AI {seat} ({level})" for seat in range(1, seats))]
    if seats == 2:
        names[1] = f"AI ({level})"
    with tempfile.TemporaryDirectory() as scratch:
        terminal = Terminal(screen)
        host = Host(await open_store(Path(scratch) / "play.db"), terminal)
        try:
            await host.start()
            record = await host.create_match(
                key,
                guild_id=0,
                channel_id=0,
                players=[HUMAN, *(COMPUTER + seat for seat in range(seats - 1))],
                names=names,
                config=config,
                seed=seed,
                window_s=window_s,
                timers=_scaled_timers(info, window_s),
            )
            terminal.players[record.id] = [
                _computer(host, record.id, seat, info, level, seed, window_s)
                for seat in range(1, seats)
            ]
            session = Session(host, info, record.id, render.Seats(tuple(names)), screen)
            terminal.session = session
            rules = RULES / f"{info.name}.md"
            reactions = any(kind != "turn" for kind in info.timers)
            intro = render.intro(info.title, session.seats, window_s, reactions, _shown_path(rules))
            screen.show(intro)
            await _run(session, host, record.id, lines, interactive)
        finally:
            await terminal.stop()
            await host.close()
    return 0


async def _run(
    session: Session, host: Host, match_id: int, lines: TextIO, interactive: bool
) -> None:
    keyboard: Keyboard = (
        TerminalKeyboard(session.toolbar, session.candidates, session.waiting_for_you)
        if interactive
        else LineKeyboard(lines)
    )
    session.keyboard = keyboard
    with keyboard.attached():
        await host.start_match(match_id)
        reader = asyncio.create_task(session.read_answers())
        over = asyncio.create_task(host.wait_over(match_id))
        tasks = [reader, over]
        if not interactive:  # a terminal has the toolbar
            tasks.append(asyncio.create_task(session.count_down()))
        try:
            await asyncio.wait([over, reader], return_when=asyncio.FIRST_COMPLETED)
            if session.leaving or reader.done():
                await reader  # it says why
            else:  # the match ended by itself: its last results are shown before the end
                await host.wait_idle()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    if not session.leaving:
        session.screen.show(Text(await session.ending(), "bold"))


def _scaled_timers(info: GameInfo, window_s: float | None) -> dict[str, float] | None:
    """``--window`` sets the turn's window; the game's other windows (a reaction's) keep their
    proportion to it."""
    turn = info.timers.get("turn")
    if window_s is None or not turn:
        return None
    return {
        kind: length * window_s / turn for kind, length in info.timers.items() if kind != "turn"
    }


def _shown_path(path: Path) -> str | None:
    if not path.exists():
        return None
    with contextlib.suppress(ValueError):
        return str(path.relative_to(Path.cwd()))
    return str(path)


def _computer(
    host: Host,
    match_id: int,
    seat: int,
    info: GameInfo,
    level: str,
    seed: int,
    window_s: float | None,
) -> AgentPlayer:
    """An AI seat: it answers after a human-like pause, never with junk, and reports nothing."""
    window = window_s or DEFAULT_WINDOW_S
    agent: Agent = info.agents[level](seat, derive_rng(seed, "ai", seat))
    return AgentPlayer(
        host,
        match_id,
        seat,
        COMPUTER + seat - 1,
        agent,
        derive_rng(seed, "ai-timing") if seat == 1 else derive_rng(seed, "ai-timing", seat),
        lambda rng: rng.uniform(*AI_PAUSE_S) * min(1.0, window / AI_PAUSE_WINDOW_S),
        0.0,
        lambda _: None,
    )
