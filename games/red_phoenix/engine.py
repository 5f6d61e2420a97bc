"""Red Phoenix of the Alchemists: the game protocol over the state and the rules machine.

One window = one ``Request`` of the seat whose decision is open (``pending``): ``action``,
``keep``, ``ward``, ``trade_response`` or ``discard`` (rules page §12.1). Each window has its
own deadline (AMBIGUITY 5: no turn clock); the ward, trade answer and a trade's discard are
``reaction`` windows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.protocol import (
    JSON,
    MODERATORS,
    PUBLIC,
    ConfigError,
    Event,
    Move,
    Outcome,
    Request,
    Secret,
    Setup,
    Verdict,
    derive_rng,
    to_seat,
)

from . import render
from .actions import apply
from .answers import check
from .cards import LEVELS, CardSet, card_set_of
from .config import MAX_SEATS, MIN_SEATS, check_seats, match_seed, parse_config
from .machine import Run
from .prompts import requests
from .state import (
    Chance,
    Config,
    Game,
    Player,
    State,
    add,
    as_config,
    copy_game,
    hand_list,
)

NAME = "red-phoenix"
TITLE = "Red Phoenix of the Alchemists"


def setup_game(
    config: Config,
    seats: int,
    first: int,
    decks: Mapping[str, Sequence[str]],
    chance: Chance,
) -> Game:
    """The game dict before the first turn (§2)."""
    cs: CardSet = card_set_of(config["card_set"])
    players: list[Player] = [
        {
            "alive": True,
            "health": config["starting_health"],
            "coins": config["starting_coins"],
            "hand": {},
            "knows": [],
            "used": [],
            "lab": [],
            "turns": 0,
        }
        for _ in range(seats)
    ]
    market = {i.id: i.stack[seats] for i in cs.ingredients.values() if i.cost is not None}
    supply = {i.id: i.copies for i in cs.ingredients.values() if i.cost is None}
    return {
        "turn": 0,
        "active": first,
        "first": first,
        "ap": 0,
        "boost": 0,
        "players": players,
        "market": market,
        "supply": supply,
        "decks": {lv: list(decks[lv]) for lv in LEVELS},
        "discards": {lv: [] for lv in LEVELS},
        "formulas": [],
        "monsters": [],
        "nf": 1,
        "nm": 1,
        "nx": 1,
        "rec": {"repro": [], "lic": [], "offers": 0, "traded": False},
        "stack": [],
        "pending": None,
        "over": False,
        "winners": [],
        "end_reason": None,
        "chance": chance,
        "drawn": [],
        "private": [],
    }


def live_chance(seed: int) -> Chance:
    return {
        "seed": seed,
        "n": 0,
        "reshuffles": {lv: [] for lv in LEVELS},
        "picks": [],
        "ri": {lv: 0 for lv in LEVELS},
        "pi": 0,
    }


def seeded_setup(config: Config, seats: int, seed: int) -> tuple[int, dict[str, list[str]]]:
    """The first seat and the shuffled decks a seed gives."""
    cs = card_set_of(config["card_set"])
    first = derive_rng(seed, "first").randrange(seats)
    decks = {}
    for level in LEVELS:
        deck = cs.deck(level)
        derive_rng(seed, "deck", level).shuffle(deck)
        decks[level] = deck
    return first, decks


def apply_preset(state: State, seat: int, preset: Mapping[str, JSON]) -> None:
    """Script ``preset`` values for one seat (already checked)."""
    player = state.g["players"][seat]
    if "health" in preset:
        player["health"] = preset["health"]
    if "coins" in preset:
        player["coins"] = preset["coins"]
    for card in preset.get("hand", []):
        pile = state.pile(card)
        if pile[card] <= 0:
            raise ConfigError(
                f"preset.players.{state.names[seat]}.hand", f"no {card} is left at its origin"
            )
        pile[card] -= 1
        add(player["hand"], card)


def start(state: State) -> list[Event]:
    run = Run(state)
    run.run()
    return events_of(run, [])


def events_of(run: Run, before: Sequence[str]) -> list[Event]:
    state = run.state
    # the private results of this step (steals, trade details): secrets of their seats now
    state.g["private"] = [
        [seat, line] for seat, texts in sorted(run.private.items()) for line in texts
    ]
    lines = [*before, *run.log]
    # a turn that starts in this step: the table as it stands at its first action (§13)
    summary = render.summary(state) if run.turn_started and not state.g["over"] else ""
    events = []
    if lines or summary:  # a guided experiment's steps tell the channel nothing
        events.append(
            Event.lazy(PUBLIC, "step", render.public_event, lines, render.table(state), summary)
        )
    for seat, texts in sorted(run.private.items()):
        events.append(
            Event(to_seat(seat), "private", {"lines": texts}, render.cut("\n".join(texts)))
        )
    for seat in sorted(run.hands - prompted_with_hand(state)):
        hand = state.g["players"][seat]["hand"]
        text = render.hand_text(state.cards, hand)
        events.append(Event(to_seat(seat), "hand", {"hand": hand_list(hand)}, text))
    events.append(Event.lazy(MODERATORS, "hands", render.moderator_event, state))
    return events


def prompted_with_hand(state: State) -> set[int]:
    """The seat whose next prompt shows its hand (an action or discard window): its hand
    is said there, once, not in a message of its own too."""
    pending = state.g["pending"]
    if pending is None or pending["kind"] not in ("action", "discard"):
        return set()
    return {pending["seat"]}


class RedPhoenix:
    name = NAME
    title = TITLE
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        return parse_config(raw, seats)

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        check_seats(setup.seats)
        config = as_config(parse_config(setup.config, setup.seats))
        names = list(setup.names) or [f"P{i + 1}" for i in range(setup.seats)]
        if len(names) != setup.seats:
            raise ConfigError("names", f"expected {setup.seats} names")
        seed = match_seed(config, setup.seed)
        first, decks = seeded_setup(config, setup.seats, seed)
        state = State(
            config, names, setup_game(config, setup.seats, first, decks, live_chance(seed))
        )
        return state, start(state)

    def requests(self, state: State) -> list[Request]:
        return requests(state)

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        return check(state, seat, raw)

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        pending = state.g["pending"]
        if state.g["over"] or pending is None:
            raise ValueError("the match is over")
        if set(moves) != {pending["seat"]}:
            raise ValueError(
                f"moves for {sorted(moves)}, but the open window is seat {pending['seat']}'s"
            )
        new = state.clone()
        new.g["drawn"] = []
        run = Run(new)
        move = moves[pending["seat"]]
        apply(run, None if move is None else str(move))
        return new, events_of(run, [])

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        new = state.clone()
        if new.g["over"]:
            return new, []
        run = Run(new)
        run.finish(run.alive(), "round_limit")
        run.say(f"The match is ended ({reason}); every living alchemist shares the result.")
        return new, events_of(run, [])

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        g = state.g
        if g["over"]:
            raise ValueError("the match is over")
        if not 0 <= seat < len(g["players"]) or not g["players"][seat]["alive"]:
            raise ValueError(f"seat {seat} is not in the game")
        new = state.clone()
        new.g["drawn"] = []
        run = Run(new)
        g = new.g
        pending = g["pending"]
        if pending is not None and pending["seat"] == seat and pending["seat"] != g["active"]:
            g["pending"] = None
            frame = g["stack"][-1]
            if frame["f"] == "dmg":
                frame["i"] += 1
            else:  # a trade answer (declined) or a trade's discard: the window goes away
                g["stack"].pop()
        run.eliminate([seat], left=True)
        if not g["over"] and g["active"] == seat:
            g["stack"], g["pending"] = [], None
        run.run()
        return new, events_of(run, [])

    def outcome(self, state: State) -> Outcome | None:
        g = state.g
        if not g["over"]:
            return None
        return Outcome(tuple(g["winners"]), str(g["end_reason"]))

    def view(self, state: State, seat: int | None) -> JSON:
        return render.view(state, seat)

    def describe(self, state: State, seat: int | None) -> str:
        return render.describe(state, seat)

    def secrets(self, state: State, seat: int) -> list[Secret]:
        hand = state.g["players"][seat]["hand"]
        secrets = [
            Secret(texts=(str(line),)) for owner, line in state.g["private"] if owner == seat
        ]
        if hand:
            text = render.hand_text(state.cards, hand)
            secrets.append(Secret(texts=(text,), data=({"hand": hand_list(hand)},)))
        return secrets

    def dump(self, state: State) -> JSON:
        return state.dump()

    def load(self, data: JSON) -> State:
        if not isinstance(data, Mapping) or set(data) != {"config", "names", "game"}:
            raise ValueError("not a Red Phoenix state")
        return State(data["config"], data["names"], copy_game(data["game"]))
