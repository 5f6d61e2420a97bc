"""The Flaky Flasks engine: protocol v2 on top of the flow (``flow.py``) and the answers
(``answers.py``). The state is plain JSON: ``{"config": ..., "ckey": ..., "g": {...}}``."""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar

from games.plain import copy_json
from games.protocol import (
    JSON,
    MODERATORS,
    PUBLIC,
    Accepted,
    Event,
    Move,
    Outcome,
    Refused,
    Request,
    Secret,
    Setup,
    Verdict,
    derive_rng,
    to_seat,
)
from games.text import names_text

from . import config as options
from .answers import Bad, check
from .content import Content
from .flow import Flow, fresh
from .prompts import ask, occasion, summary
from .render import (
    board,
    cards_count,
    fumes_text,
    hand_text,
    panel_text,
    public_board,
    public_player,
    rows_text,
    table,
)
from .rules import collection, window
from .state import (
    Bargain,
    Chance,
    Config,
    Decks,
    G,
    Market,
    Me,
    Player,
    Potion,
    PublicView,
    Ritual,
    Rows,
    SeatView,
    Slot,
    State,
    Window,
)

DEFAULTS_TEXT = {
    "setup": "keep your layout",
    "hex": "pass",
    "counter": "pass",
    "work": "done (what you did stands)",
    "market": "sell every sellable potion at its best panel, then pass",
    "offer": "pass",
    "reply": "refuse",
}
PHASES = {
    "setup": "Setup Phase",
    "hex": "Ritual",
    "counter": "Ritual",
    "work": "work",
    "market": "Market Phase",
    "offer": "Bargain Phase",
    "reply": "Bargain Phase",
}
TIMER = {"counter": "reaction"}  # every other window: "turn" (its own length, below)
T = TypeVar("T")


def copy_g(g: G) -> G:
    """A deep copy of the game data, written for its shape (``state.py``): nothing is shared
    with ``g`` (a step never changes its input), at a fraction of a JSON round trip's cost (the
    engine's largest cost per step). Every dict keeps its keys' order: the stored state is the
    same text."""
    copied = g.copy()
    copied["names"] = list(g["names"])
    copied["chance"] = copy_json(g["chance"])
    copied["fumes"] = list(g["fumes"])
    copied["panels"] = list(g["panels"])
    copied["piles"] = _lists(g["piles"])
    copied["rows"] = _rows(g["rows"])
    copied["decks"] = _decks(g["decks"])
    copied["players"] = [_player(p) for p in g["players"]]
    copied["out"] = list(g["out"])
    copied["win"] = None if g["win"] is None else _window(g["win"])
    copied["counts"] = g["counts"].copy()
    copied["ritual"] = _ritual(g["ritual"])
    copied["market"] = _market(g["market"])
    copied["bargain"] = _bargain(g["bargain"])
    copied["winners"] = list(g["winners"])
    copied["standings"] = list(g["standings"])
    copied["shuffled"] = _lists(g["shuffled"])
    if "dealt" in g:
        copied["dealt"] = {pile: _lists(orders) for pile, orders in g["dealt"].items()}
    return copied


def _lists(lists: dict[str, list[T]]) -> dict[str, list[T]]:
    return {key: list(items) for key, items in lists.items()}


def _rows(rows: Rows) -> Rows:
    copied = rows.copy()
    copied["river"] = _lists(rows["river"])
    copied["tableau"] = _lists(rows["tableau"])
    return copied


def _decks(decks: Decks) -> Decks:
    copied = decks.copy()
    copied["river"] = _lists(decks["river"])
    copied["tableau"] = _lists(decks["tableau"])
    return copied


def _player(p: Player) -> Player:
    copied = p.copy()
    copied["hand"] = list(p["hand"])
    copied["deck"] = list(p["deck"])
    copied["discard"] = list(p["discard"])
    copied["slots"] = [None if s is None else _slot(s) for s in p["slots"]]
    copied["channels"] = [list(channel) for channel in p["channels"]]
    copied["spare"] = list(p["spare"])
    copied["cauldron"] = list(p["cauldron"])
    copied["potions"] = [_potion(potion) for potion in p["potions"]]
    copied["sales"] = [sale.copy() for sale in p["sales"]]
    return copied


def _slot(slot: Slot) -> Slot:
    copied = slot.copy()
    copied["left"] = list(slot["left"])
    return copied


def _potion(potion: Potion) -> Potion:
    copied = potion.copy()
    copied["symbols"] = list(potion["symbols"])
    return copied


def _window(win: Window) -> Window:
    copied = win.copy()
    copied["prompted"] = list(win["prompted"])
    copied["finished"] = list(win["finished"])
    copied["log"] = list(win["log"])
    copied["counters"] = [list(counter) for counter in win["counters"]]
    return copied


def _ritual(ritual: Ritual) -> Ritual:
    copied = ritual.copy()
    copied["order"] = list(ritual["order"])
    copied["chain"] = [entry.copy() for entry in ritual["chain"]]
    return copied


def _market(market: Market) -> Market:
    copied = market.copy()
    copied["order"] = list(market["order"])
    return copied


def _bargain(bargain: Bargain) -> Bargain:
    copied = bargain.copy()
    copied["order"] = list(bargain["order"])
    offer = bargain["offer"]
    copied["offer"] = None if offer is None else offer.copy()
    return copied


def content_of(state: State) -> Content:
    return options.content_for(state["config"], state["ckey"])


class FlakyFlasks:
    name = "flaky-flasks"
    title = "Flaky Flasks"
    min_seats = 2
    max_seats = 4

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        return options.parse_config(raw, seats)

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        names = list(setup.names) or [f"P{s + 1}" for s in range(setup.seats)]
        config = options.typed(options.parse_config(setup.config, setup.seats))
        seed = options.match_seed(config, setup.seed)  # the ``seed`` option, else the host's
        first = derive_rng(seed, "first").randrange(setup.seats)
        return start(config, names, {"seed": seed}, first, None)

    # --- requests and answers ------------------------------------------------------------------

    def requests(self, state: State) -> list[Request]:
        g = state["g"]
        if g["over"] or g["win"] is None:
            return []
        flow = Flow(content_of(state), state["config"], g)
        return [self._request(state, seat) for seat in flow.pending()]

    def _request(self, state: State, seat: int) -> Request:
        g, config = state["g"], state["config"]
        win = window(g)
        kind = win["kind"]
        built = ask(content_of(state), config, g, seat)
        timeout = {
            "counter": config["reaction_window_s"],
            "work": config["work_window_s"],
        }.get(kind, config["window_s"])
        return Request(
            seat,
            kind,
            built.prompt,
            tuple(built.choices),
            DEFAULTS_TEXT[kind],
            float(timeout),
            occasion=occasion(g),
            timer=TIMER.get(kind, "turn"),
            # §6.3: each seat works at its own pace on the window's one deadline
            close="each" if kind == "work" else "all",
            clock=win["label"] if kind in ("work", "market") else None,
            presentation=built.presentation,
            help=built.help_text,
        )

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        g = state["g"]
        if g["over"] or g["win"] is None:
            return Refused("The match is over.")
        flow = Flow(content_of(state), state["config"], g)
        if seat not in flow.pending():
            return Refused("Nothing is asked of you now.")
        if not isinstance(raw, str):
            return Refused("Send a text answer.")
        try:
            move = check(content_of(state), state["config"], g, seat, window(g)["kind"], raw)
        except Bad as bad:
            return Refused(str(bad))
        return Accepted(move, summary(content_of(state), g, seat, move))

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        g = copy_g(state["g"])
        before = {s: list(p["hand"]) for s, p in enumerate(g["players"])}
        phase = phase_of(g)
        flow = Flow(content_of(state), state["config"], g)
        flow.resolve({seat: (m if isinstance(m, str) else None) for seat, m in moves.items()})
        g["steps"] += 1
        new: State = {"config": state["config"], "ckey": state["ckey"], "g": g}
        return new, self._events(new, flow, before, phase)

    def _events(
        self,
        state: State,
        flow: Flow,
        before: Mapping[int, list[str]],
        phase: tuple[int, int, str] | None = None,
    ) -> list[Event]:
        g, content = state["g"], content_of(state)
        events = []
        if flow.lines:
            text = "\n".join(flow.lines)
            if len(text) > 1700:
                text = text[:1699] + "…"
            data: dict[str, JSON] = {"lines": list(flow.lines), "round": g["round"]}
            aside = flow.asides == len(flow.lines)  # e.g. only "makes no offer": nothing to act on
            events.append(Event(PUBLIC, "report", data, text, aside=aside))
        now = phase_of(g)
        if now != phase and not g["over"]:  # a new phase: the table, once, in public
            summary = table_summary(content, g, state["config"]["rounds"])
            events.append(
                Event(
                    PUBLIC,
                    "table",
                    {"summary": summary, "round": now[0], "phase": now[2]},
                    summary,
                )
            )
        shown = hand_shown(g)
        for seat, p in enumerate(g["players"]):
            changed = p["hand"] != before.get(seat) and p["hand"]  # an empty hand: the turn ended
            if changed and seat not in g["out"] and seat not in shown:
                events.append(
                    Event(
                        to_seat(seat),
                        "hand",
                        {"hand": list(p["hand"])},
                        hand_text(content, p["hand"]),
                    )
                )
        hands = {g["names"][s]: list(p["hand"]) for s, p in enumerate(g["players"])}
        decks = {g["names"][s]: list(p["deck"]) for s, p in enumerate(g["players"])}
        said = "; ".join(f"{name}: {', '.join(map(content.named, hand)) or 'no cards'}"
                         for name, hand in hands.items())  # fmt: skip
        events.append(
            Event(MODERATORS, "hidden", {"hands": hands, "decks": decks}, f"Hands: {said}"[:1800])
        )
        if g["over"]:
            winners = [g["names"][s] for s in g["winners"]]
            verb = "wins" if len(winners) == 1 else "win"
            text = f"Game over: {names_text(winners)} {verb}."
            events.append(Event(PUBLIC, "over", {"winners": winners}, text))
        return events

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        g = copy_g(state["g"])
        flow = Flow(content_of(state), state["config"], g)
        if not g["over"]:
            flow.game_over(f"ended by {reason}")
        new: State = {"config": state["config"], "ckey": state["ckey"], "g": g}
        return new, self._events(new, flow, {})

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        g = state["g"]
        if g["over"] or not 0 <= seat < len(g["players"]) or seat in g["out"]:
            raise ValueError(f"seat {seat} cannot leave now")
        g = copy_g(g)
        before = {s: list(p["hand"]) for s, p in enumerate(g["players"])}
        phase = phase_of(g)
        flow = Flow(content_of(state), state["config"], g)
        flow.leave(seat)
        g["steps"] += 1
        new: State = {"config": state["config"], "ckey": state["ckey"], "g": g}
        return new, self._events(new, flow, before, phase)

    def outcome(self, state: State) -> Outcome | None:
        g = state["g"]
        if not g["over"]:
            return None
        return Outcome(tuple(g["winners"]), g["reason"])

    # --- what people see ------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> PublicView | SeatView:
        public = public_view(state)
        if seat is None:
            return public
        p = state["g"]["players"][seat]
        me: Me = {"hand": list(p["hand"]), "deck": content_of(state).cat(list(p["deck"]))}
        return {**public, "seat": seat, "me": me}

    def describe(self, state: State, seat: int | None) -> str:
        return look(content_of(state), state["g"], seat)

    def secrets(self, state: State, seat: int) -> Collection[Secret]:
        hand = state["g"]["players"][seat]["hand"]
        if not hand:
            return []
        content = content_of(state)
        return [Secret((hand_text(content, hand),), ({"hand": list(hand)},))]

    def dump(self, state: State) -> JSON:
        return state

    def load(self, data: JSON) -> State:
        loaded: State = copy.deepcopy(data)
        return loaded


def public_view(state: State) -> PublicView:
    """The view of the public (``FlakyFlasks.view`` with no seat)."""
    g, content = state["g"], content_of(state)
    win = g["win"]
    return {
        "turn": turn_of(g),
        "steps": g["steps"],
        "round": g["round"],
        "rounds": state["config"]["rounds"],
        "phase_turn": g["turn"],
        "first_player": g["names"][g["first"]],
        "window": None if win is None else {"kind": win["kind"], "label": win["label"]},
        "fumes": {"light": g["fumes"][0], "dark": g["fumes"][1]},
        "panels": list(g["panels"]),
        "river": g["rows"]["river"],
        "tableau": g["rows"]["tableau"],
        "players": [public_player(content, g, s) for s in range(len(g["players"]))],
        "chain": g["ritual"]["chain"],
        "over": g["over"],
        "winners": [g["names"][s] for s in g["winners"]],
        "config": state["config"],
        "content_key": state["ckey"],
    }


def hand_shown(g: G) -> set[int]:
    """The seats whose open prompt shows their hand (a Hex, or work before propagating), so
    a change to it needs no message of its own."""
    win = g["win"]
    if win is None or win["kind"] not in ("hex", "work"):
        return set()
    return {
        s
        for s in win["prompted"]
        if s not in win["finished"] and (win["kind"] == "hex" or g["players"][s]["stage"] == "play")
    }


LOOK_CHARS = 1900  # /look answers in one Discord message


def look(content: Content, g: G, seat: int | None) -> str:
    """The whole board for ``/look`` (``describe``): the table, the seat's own board, hand and
    deck, the panels with what they buy, the market rows, then every other board (each on two
    lines when the whole is too long for one message)."""
    sections = [[f"Round {g['round']} · first player {g['names'][g['first']]} · {fumes_text(g)}"]]
    if seat is not None:
        p = g["players"][seat]
        deck = f"Your cards (deck, hand, discard, slots): {cards_count(content, collection(p))}."
        sections.append([*board(content, g, seat), hand_text(content, p["hand"]), deck])
    sections.append(["Panels:", *(panel_text(content.panels[x]) for x in g["panels"])])
    sections.append(rows_text(content, g))
    others = [s for s in range(len(g["players"])) if s != seat]
    full = [line for s in others for line in board(content, g, s)]
    short = [line for s in others for line in board(content, g, s)[:1]]
    for tail in (full, short):
        text = "\n".join(line for section in [*sections, tail] for line in section)
        if len(text) <= LOOK_CHARS:
            return text
    return text[: LOOK_CHARS - 1] + "…"


def phase_of(g: G) -> tuple[int, int, str]:
    """(round, turn, phase name) of the open window: a new one opens a phase's table post."""
    win = g["win"]
    kind = "over" if win is None else PHASES[win["kind"]]
    turn = g["turn"] if kind in ("Ritual", "work") else 0
    return g["round"], turn, kind


# the phases of a round (§4), in order: its place in the round is a phase's number's remainder
PLACES = {"Setup Phase": 0, "Ritual": 1, "work": 2, "Market Phase": 5, "Bargain Phase": 6}
PHASES_A_ROUND = 7  # the Setup, Turn 1's and Turn 2's Ritual and work, the Market, the Bargain


def turn_of(g: G) -> int:
    """The view's ``turn``: the phase of §4 the open window belongs to (the Setup, each Turn's
    Ritual and work, the Market, the Bargain; a Turn is long, so each of its two phases is
    one), counted from the first round's Setup, and the end after the last. A window in the
    middle of a phase (a Hex, a work command, a sale) leaves it: the host posts once a phase
    where nobody else decides meanwhile, and logs once. Derived from the round, its turn (1 or
    2) and the window's kind, so the stored states are as before."""
    r, turn, kind = phase_of(g)
    if kind == "over":
        return (r + 1) * PHASES_A_ROUND
    second_turn = 2 if kind in ("Ritual", "work") and turn == 2 else 0
    return r * PHASES_A_ROUND + PLACES[kind] + second_turn


def table_summary(content: Content, g: G, rounds: int) -> str:
    """The public table at a phase's start: round and phase, fumes, panels, market rows and
    every board (one line per channel), fame and coins; hand sizes, never a hand."""
    r, turn, phase = phase_of(g)
    name = f"Turn {turn}: {phase}" if turn else phase
    head = [f"**Table, round {r}/{rounds}: {name}**", table(content, g)]
    for potions in (True, False):
        lines = list(head)
        for seat in range(len(g["players"])):
            lines += public_board(content, g, seat, potions=potions)
        text = "\n".join(lines)
        if len(text) <= 1800:
            return text
    return text[:1799] + "…"


def start(
    config: Config,
    names: Sequence[str],
    chance: Chance,
    first: int,
    preset: Callable[[G, Content], None] | None,
) -> tuple[State, list[Event]]:
    """A match from its config: round 1 (or a script's start preset, ``preset(g)``)."""
    ckey = options.content_key(config)
    content = options.content_for(config, ckey)
    g = fresh(content, config, names, chance, first)
    if preset is not None:
        preset(g, content)
    flow = Flow(content, config, g)
    flow.start_round()
    state: State = {"config": config, "ckey": ckey, "g": g}
    events = [
        Event(
            PUBLIC,
            "start",
            {"players": list(names)},
            f"Flaky Flasks: {names_text(list(names))}; {config['rounds']} rounds.",
        )
    ]
    events += FlakyFlasks()._events(state, flow, {})
    return state, events
