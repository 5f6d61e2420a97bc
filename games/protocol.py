"""The game protocol: what every engine offers the host.

An engine is pure. Given a state and the moves it asked for, it changes nothing but the state
object it returns, reads no clock, does no I/O and draws randomness only from seeded RNGs kept in
(or derived from) the state, so a match is fully determined by (config, seed, move log).

Seats are numbered 0..n-1. Moves are plain JSON values (normally short strings) so the host can
log them and replay them; ``submit`` turns a player's raw text into such a move or refuses it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeVar

JSON = Any
"""A value made of dicts, lists, str, int, float, bool and None only."""

Move = JSON


class ConfigError(ValueError):
    """A setup or config value is wrong; ``field`` names it (dotted for nested values)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Audience:
    """Who may see an event: everyone in the match channel, one seat, or the moderators."""

    kind: Literal["public", "seat", "moderators"]
    seat: int | None = None

    def __str__(self) -> str:
        return f"seat{self.seat}" if self.kind == "seat" else self.kind

    def reaches(self, seat: int) -> bool:
        """Whether a player in ``seat`` is told events for this audience (moderators' are not)."""
        return self.kind == "public" or (self.kind == "seat" and self.seat == seat)


PUBLIC = Audience("public")
MODERATORS = Audience("moderators")


def to_seat(seat: int) -> Audience:
    return Audience("seat", seat)


class Event:
    """Something that happened, addressed to one audience.

    ``data`` is structured (for embeds, traces, AI players); ``text`` is a plain rendering a
    console or a DM can show as it is. An engine may build both lazily (``Event.lazy``): a hot
    loop that never looks at an event then never pays for rendering it. Engines never mutate a
    state after returning it, so a lazy event renders what was true when it happened.

    ``aside``: news no seat's next decision turns on (Flaky Flasks's "makes no offer"). A host
    may then tell it with the turn's next post instead of a post of its own; it is a hint on
    how to tell the event, not part of what happened, so equality leaves it out.
    """

    __slots__ = ("_args", "_data", "_render", "_text", "aside", "audience", "kind")

    def __init__(
        self,
        audience: Audience,
        kind: str,
        data: Mapping[str, JSON],
        text: str,
        *,
        aside: bool = False,
    ) -> None:
        self.audience = audience
        self.kind = kind
        self.aside = aside
        self._data: Mapping[str, JSON] | None = data
        self._text: str | None = text
        self._render: Callable[..., tuple[Mapping[str, JSON], str]] | None = None
        self._args: tuple[Any, ...] = ()

    @classmethod
    def lazy(
        cls,
        audience: Audience,
        kind: str,
        render: Callable[..., tuple[Mapping[str, JSON], str]],
        *args: Any,
    ) -> Event:
        """An event whose (data, text) = ``render(*args)`` are built on first access."""
        event = cls.__new__(cls)
        event.audience, event.kind, event.aside = audience, kind, False
        event._data = event._text = None
        event._render, event._args = render, args
        return event

    def _build(self) -> None:
        assert self._render is not None
        self._data, self._text = self._render(*self._args)
        self._render, self._args = None, ()

    @property
    def data(self) -> Mapping[str, JSON]:
        if self._data is None:
            self._build()
        assert self._data is not None
        return self._data

    @property
    def text(self) -> str:
        if self._text is None:
            self._build()
        assert self._text is not None
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.audience, self.kind, self.data, self.text) == (
            other.audience,
            other.kind,
            other.data,
            other.text,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Event({self.audience}, {self.kind!r}, {self.data!r}, {self.text!r})"


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal answer to a request, for buttons and menus. ``stage`` names the first pick of
    a two-step choice (a group shown as ``"steps"``): the potion, then the cards to pay it."""

    value: str
    label: str
    group: str = ""
    stage: str = ""


Presentation = Literal["buttons", "menu", "steps"]
"""How a group of choices shows on Discord: ``"buttons"`` (the default) while they fit;
``"menu"``: a select menu once the group has three choices or more (fewer show as quiet grey
buttons, as a minor option beside the main ones); ``"steps"``: a menu of the group's stages
(``Choice.stage``) first, then the choices of the stage picked (with a way back); a typed
answer is the choice's value as always."""

CloseRule = Literal["all", "first", "ready", "each", "deadline"]
"""When a window closes before its deadline (``Request.close``): ``"all"`` (the default) once
every asked seat has a move none may revise; ``"first"`` at the first accepted answer (the first
blocker wins; a later answer is refused as the window closed); ``"ready"`` once the game's
optional ``ready(state, moves)`` says so after an accepted answer (a game without ``ready``
closes as ``"all"``); ``"each"``: every seat goes at its own pace (simultaneous work that
involves no other seat). An accepted answer resolves at once, alone: ``resolve`` gets the moves
of the seats that answered and nothing for the others, whose prompts stay open; the engine's
next requests ask those seats what they were asked (so their prompts and buttons stay valid)
and may ask the seats that answered again. All of them share the window's one deadline (a
turn clock, without the floor below); when it passes with nobody's answer in, every seat still
asked gets ``None`` in one ``resolve``; ``"deadline"``: only the deadline closes it (its
length must tell nothing, e.g. who could answer), answers stay final. Every window still
closes at its deadline."""


HELP_CHARS = 1800
"""The longest ``Request.help``: it is sent alone as one Discord message."""


@dataclass(frozen=True, slots=True)
class Topic:
    """One section of a match's content reference (``GameInfo.reference``: the cards, potions,
    tiles or panels in play, by name, with what each does): public, so every seat and the
    audience may read it. ``text`` is at most ``TOPIC_CHARS`` characters."""

    title: str
    text: str


TOPIC_CHARS = 1000
"""The longest ``Topic.text``: an embed field holds 1,024."""


@dataclass(frozen=True, slots=True)
class Request:
    """A decision one seat must make now.

    ``timeout_s`` is the window length the config sets for a ``turn`` window (the match's
    ``window`` overrides it); a window of another ``timer`` kind (``"reaction"``: a short block
    window) lasts the match's length for that kind, from the game's declared default; a kind the
    game does not declare lasts ``timeout_s`` (a length the game's own config sets, such as
    Warlock's Brew's ``deal_window``: one source for it).
    ``default`` says in words what happens when the window closes without a valid move. With
    ``revisable`` a later valid submission replaces the earlier one, so the host keeps the
    window open until its deadline.

    ``close`` is the request's close rule (``CloseRule``): the window closes early when the
    rule of the request just answered says so. ``resolve`` gets the moves in arrival order: the
    seats that answered in the order their first accepted answers arrived, then the seats that
    did not (``None``; an ``"each"`` window gives those nothing, see ``CloseRule``). Only
    the order reaches the engine; the arrival times stay in the host's
    move log (an engine that needs time must make it part of a move).

    An answer is ``min_choices`` to ``max_choices`` of the ``choices`` (default: exactly one).
    Several choices reach ``submit`` as one raw text, their values joined by ``separator``
    (``join_answer``; ``split_answer`` is the inverse), so a player can type the same answer
    and a script can store it: with ``max_choices=3`` and the default separator, ``"A,C"``.
    The values of such a request must not contain the separator. Any number of choices with
    values of any length can be offered: the Discord cog maps them to short ids.

    ``presentation`` hints per choice group (``Choice.group``) how it shows (see
    ``Presentation``), e.g. ``{"declare": "menu"}``; a group without a hint gets buttons while
    they fit and menus past that. A multi-choice request always shows as one menu.

    ``prompt`` says what a player needs to decide now, once, by name; ``help`` holds the
    reference a player asks for by typing ``help`` (the whole typed grammar of this decision,
    the full board): at most ``HELP_CHARS`` characters, never repeated in the prompt.

    ``clock`` names a turn clock (any key the engine chooses, e.g. ``"turn:2"``) for a turn of
    several actions: when every request of the next window carries the same key as every request
    of the window just closed, the new window keeps that window's deadline (the time left on the
    turn clock; a pause's frozen time while paused) instead of a fresh length, so ``/match
    extend`` adds to the turn clock too. When the clock has run out (an action closed by its
    deadline), each further action of that turn still gets a short floor (5 s, at most the fresh
    length) so its prompt can be answered; engines that want a timeout to end the turn say so in
    ``resolve``. A new key, or None (the default), starts a fresh window.
    """

    seat: int
    kind: str
    prompt: str
    choices: tuple[Choice, ...]
    default: str
    timeout_s: float
    revisable: bool = False
    close: CloseRule = "all"  # when the window closes before its deadline (see above)
    occasion: str = ""  # what an answer is for, e.g. "turn 7", for acknowledgements
    min_choices: int = 1
    max_choices: int = 1
    separator: str = ","
    presentation: Mapping[str, Presentation] = field(default_factory=dict)
    timer: str = "turn"  # the timer kind of the window (one the game declares: GameInfo.timers)
    clock: str | None = None  # a turn clock the window shares with the one before (see above)
    help: str = ""  # the reference behind ``help``: the grammar, the full board (see above)
    # nobody is prompted: the seat only holds a pause the window waits out (answers refused;
    # resolve gets None), e.g. a block window that runs its full time with nobody to block
    silent: bool = False
    # who is asked is nobody else's business: posts and /match status name no seat
    anonymous: bool = False

    def join_answer(self, values: Sequence[str]) -> str:
        """The raw answer that picks ``values`` (one value stays itself)."""
        return self.separator.join(values)

    def split_answer(self, raw: str) -> list[str]:
        """The values a raw answer picks: one for a single-choice request, else split on the
        separator, each stripped (a typed ``"A, C"`` picks A and C)."""
        if self.max_choices <= 1:
            return [raw]
        return [part.strip() for part in raw.split(self.separator)]


@dataclass(frozen=True, slots=True)
class Accepted:
    move: Move
    summary: str


@dataclass(frozen=True, slots=True)
class Refused:
    reason: str


Verdict = Accepted | Refused


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished match ended. Several winners mean a shared victory."""

    winners: tuple[int, ...]
    reason: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Secret:
    """One fact that only one seat (and the moderators) may know now, in each form the game
    shows it, so that a test can look for it wherever it must not be.

    ``texts`` are phrases as the game renders them (Floral Extract's ``A=3`` and ``A (3)``).
    Each must be specific enough that finding it in another audience's text is a leak: never a
    bare number or a card name alone, which every turn report is full of. ``data`` are the
    shapes it takes in structured data (views, event data): a mapping, at any depth, holding
    every item of one shape carries the secret. Short values are checked by their shape, not
    as substrings: a hand of coins is a ``hand`` field equal to that hand, never any digit.
    """

    texts: tuple[str, ...] = ()
    data: tuple[Mapping[str, JSON], ...] = ()


StateT = TypeVar("StateT")


@dataclass(frozen=True, slots=True)
class Setup:
    """What the host knows when it creates a match."""

    config: Mapping[str, JSON]
    seats: int
    seed: int
    names: Sequence[str] = field(default_factory=tuple)


class Game(Protocol[StateT]):
    """The interface the host drives. One instance per game, stateless itself.

    Optional, not part of the protocol's required methods: ``ready(state, moves) -> bool``,
    asked after each accepted answer to a request whose ``close`` is ``"ready"``, with the
    window's accepted moves so far in arrival order: True closes the window now. Pure like
    ``resolve``; a game without it closes such a window as ``"all"``.
    """

    name: str  # command-line and storage id, e.g. "floral-extract"
    title: str  # "Floral Extract"
    min_seats: int
    max_seats: int

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """Defaults filled in and every value checked; raise ConfigError naming the field."""

    def new_match(self, setup: Setup) -> tuple[StateT, list[Event]]:
        """The initial state and the events of the start (secret information to each seat)."""

    def requests(self, state: StateT) -> list[Request]:
        """The decisions open now; empty when the match is over."""

    def submit(self, state: StateT, seat: int, raw: str) -> Verdict:
        """Check one raw answer against the seat's open request. Never changes the state."""

    def resolve(
        self, state: StateT, moves: Mapping[int, Move | None]
    ) -> tuple[StateT, list[Event]]:
        """Apply a move for every open request; ``None`` means the window closed without a
        valid move and the rules' timeout default applies."""

    def end(self, state: StateT, reason: str) -> tuple[StateT, list[Event]]:
        """End the match early by the host's end rule (a moderator's ``end``)."""

    def leave(self, state: StateT, seat: int) -> tuple[StateT, list[Event]]:
        """``seat`` leaves the match now (it quit or a moderator removed it), between windows:
        the open window's moves are not applied. The rules decide what follows; with two
        seats in play the other wins, with more the seat is out and never asked again. Raises
        ValueError when the seat cannot leave (the match is over, or the seat is already out)."""

    def outcome(self, state: StateT) -> Outcome | None:
        """None while the match runs."""

    def view(self, state: StateT, seat: int | None) -> JSON:
        """What ``seat`` may know (None: the public). Never another seat's secrets. Every view
        holds ``"turn"``: the turns played so far, as the game counts them."""

    def describe(self, state: StateT, seat: int | None) -> str:
        """The same as ``view``, as plain text for a status command or a player's own look."""

    def secrets(self, state: StateT, seat: int) -> Collection[Secret]:
        """What only ``seat`` (and the moderators) may know in ``state``: never in a view, a
        description or an event for the public or another seat (the conformance suite looks).

        A fact the rules have revealed (a rune found by the opponent, a brew shown at the end)
        is no longer a secret. A fact another seat knows as its own (two equal hands) does not
        count against that seat: seeing it tells it nothing it did not know.
        """

    def dump(self, state: StateT) -> JSON:
        """The state as plain JSON."""

    def load(self, data: JSON) -> StateT:
        """The inverse of ``dump``."""


def derive_rng(seed: int, *path: object) -> random.Random:
    """A private RNG for one purpose of one match, stable across Python versions.

    Deriving by purpose (``derive_rng(seed, "maps", seat)``) keeps draws independent, so adding
    a new random draw never shifts the others.
    """
    key = ":".join([str(seed), *map(str, path)]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


class RandomAgent:
    """Any legal answer, uniformly among the request's choices (a random number of them
    within the request's minimum and maximum): every game's baseline."""

    # it answers from the request alone (no view, no events), so a host need fetch no view and
    # decode no event for it; a subclass that reads them says False
    request_only: ClassVar[bool] = True

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: JSON) -> str:
        if request.max_choices <= 1:
            return self.rng.choice(request.choices).value
        low = min(request.min_choices, len(request.choices))
        count = self.rng.randint(low, min(request.max_choices, len(request.choices)))
        return request.join_answer([c.value for c in self.rng.sample(request.choices, count)])


class Agent(Protocol):
    """A computer player. It learns only what its seat is told: the events addressed to it or to
    the public, and its own view. It answers as a person would type."""

    def observe(self, event: Event) -> None: ...

    def act(self, request: Request, view: JSON) -> str: ...
