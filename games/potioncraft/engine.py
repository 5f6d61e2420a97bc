"""The Potioncraft engine: the game protocol over the state of ``state.py`` and the rules of
``rules.py``. One window at a time is pending; ``resolve`` answers it (a timeout default for a
seat without a move) and runs the rules on to the next window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.protocol import (
    JSON,
    PUBLIC,
    Accepted,
    ConfigError,
    Event,
    Move,
    Outcome,
    Presentation,
    Refused,
    Request,
    Secret,
    Setup,
    Verdict,
    derive_rng,
)
from games.text import names_text

from . import render, rules
from .cards import CARDS, COPIES, POTION_CATEGORIES, POTIONS, potions_of, sort_cards
from .choices import window_choices
from .config import HAND_SIZE, check_seats, match_seed, parse_config
from .grammar import Act, BadAnswer, canonical, parse
from .state import Owned, State

MENUS: dict[str, Presentation] = {"craft": "steps", "spell": "menu", "perk": "menu"}
REACTION_WINDOWS = ("block", "pair")


class Potioncraft:
    name = "potioncraft"
    title = "Potioncraft"
    min_seats = 2
    max_seats = 6

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        check_seats(seats)
        return parse_config(raw, seats)

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        check_seats(setup.seats)
        config = parse_config(setup.config, setup.seats)
        names = seat_names(setup)
        seed = match_seed(config, setup.seed)
        hands, deck, potion_decks, start = deal(config, setup.seats, seed)
        return start_match(config, names, hands, deck, potion_decks, start, seed=seed)

    def requests(self, state: State) -> list[Request]:
        pending = state.pending
        if state.over or pending is None:
            return []
        window = pending["window"]
        reaction = window in REACTION_WINDOWS
        seconds = float(state.config["reaction_s" if reaction else "window_s"])
        wait_full = bool(state.config["reaction_wait_full"])
        # a Hand reset's window never says who may block (§14); with nobody to, it is a pause
        anonymous = pending.get("perk") == "hand_reset"
        if window == "block" and not pending["seats"]:
            return [pause(pending["user"], seconds)]
        result = []
        for seat in pending["seats"]:
            choices = tuple(window_choices(state, seat))
            count = int(pending["count"]) if window == "discard" else 1
            result.append(
                Request(
                    seat,
                    window,
                    render.prompt(state, seat),
                    choices,
                    render.DEFAULTS_TEXT[window],
                    seconds,
                    occasion=f"turn {state.turn}",
                    min_choices=count,
                    max_choices=count,
                    presentation=MENUS if window == "main" else {},
                    timer="reaction" if reaction else "turn",
                    close="deadline" if window == "block" and wait_full else "all",
                    help=render.help_text(state, seat),
                    anonymous=anonymous,
                )
            )
        return result

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        try:
            act = read(state, seat, raw)
        except BadAnswer as error:
            return Refused(str(error))
        return Accepted(canonical(act, state.names), render.summary(state, seat, act))

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        if state.over or state.pending is None:
            raise ValueError("the match is over")
        new = state.clone()
        new.drawn = []
        acts, timeouts = window_acts(new, moves)
        events: list[Event] = []
        rules.resolve_window(new, acts, timeouts, events)
        told = own_discards(state, acts)
        hand_notices(state, new, events, told)
        keep_news(state, new, told, timeouts)
        table_event(new, events)
        events.append(rules.moderator_state(new))
        return new, events

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        new = state.clone()
        new.drawn = []
        if new.over:
            return new, []
        events: list[Event] = []
        rules.finish_by_ranking(new, "ended", events)
        return new, events

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if state.over:
            raise ValueError("the match is over")
        if not 0 <= seat < state.seats or state.out[seat]:
            raise ValueError(f"seat {seat} is not in the match")
        new = state.clone()
        new.drawn = []
        events: list[Event] = []
        leave(new, seat, events)
        hand_notices(state, new, events)
        table_event(new, events)
        events.append(rules.moderator_state(new))
        return new, events

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        return Outcome(tuple(state.winners), state.end_reason or "", "")

    def view(self, state: State, seat: int | None) -> JSON:
        return render.view(state, seat)

    def describe(self, state: State, seat: int | None) -> str:
        return render.describe(state, seat)

    def secrets(self, state: State, seat: int) -> list[Secret]:
        return render.secrets(state, seat)

    def dump(self, state: State) -> JSON:
        return state.dump()

    def load(self, data: JSON) -> State:
        return State.load(data)


HAND_PROMPTS = (
    "draw",
    "main",
    "discard",
    "astral",
    "foresight",
    "block",
)  # prompts that show the hand


def hand_notices(
    old: State, new: State, events: list[Event], told: Mapping[int, Sequence[str]] | None = None
) -> None:
    """§14 (a player's own hand, always current): a seat whose hand changed in this step, and
    whose next prompt will not show it, is told its hand (a Venom Brew, a Request given, a Foul
    Elixir, a Hand reset). Not when the change is exactly the cards of its own discard in this
    window (``told``: its answer, or the default its prompt named; its next prompt shows the
    hand), nor once the match is over."""
    told = told or {}
    for seat in range(new.seats):
        hand = new.hands[seat]
        if new.over or new.out[seat] or hand == old.hands[seat] or shows_hand(new, seat):
            continue
        if seat in told and hand == rules.without(old.hands[seat], told[seat]):
            continue
        rules.private(events, seat, "hand", render.hand_text(hand), hand=list(hand))


def own_discards(state: State, acts: Mapping[int, Act]) -> dict[int, tuple[str, ...]]:
    """The cards each seat's own answer to this window takes from its hand: an end-step
    discard (§4 step 5) or the pair a Thief's Gamble found (§8.9). The seat knows them: it
    chose them, or its prompt named them as the default."""
    pending = state.pending
    assert pending is not None
    if pending["window"] == "discard":
        return {seat: act.cards for seat, act in acts.items()}
    if pending["window"] == "pair":
        return {seat: (str(act.card),) * 2 for seat, act in acts.items()}
    return {}


def keep_news(
    old: State, new: State, told: Mapping[int, Sequence[str]], timeouts: Sequence[int]
) -> None:
    """The line a seat's next prompt tells first: what the default of its own discard or pair
    took, when that window timed out (no hand message follows it, and the seat was away). A
    seat prompted in this window has read its line."""
    pending = old.pending
    assert pending is not None
    for seat in pending["seats"]:
        new.news[seat] = ""
    for seat in timeouts:
        if seat in told and not new.over:
            new.news[seat] = render.timeout_news(old, seat, told[seat])


def shows_hand(state: State, seat: int) -> bool:
    """Whether ``seat``'s next prompt, open now, shows its hand."""
    pending = state.pending
    return pending is not None and pending["window"] in HAND_PROMPTS and seat in pending["seats"]


def table_event(state: State, events: list[Event]) -> None:
    """A turn began in these events: the table as it stands at its draw, for everybody (whose
    turn, the revealed row, each player's potions, cards in hand and pile top, the deck's size;
    never a card of a hand), after the turn's other public events."""
    if state.over or not any(e.audience == PUBLIC and e.kind == "turn" for e in events):
        return
    data: dict[str, JSON] = {"turn": state.turn, "active": state.active}
    events.append(Event(PUBLIC, "table", data, render.table_text(state)))


def seat_names(setup: Setup) -> list[str]:
    if setup.names:
        if len(setup.names) != setup.seats:
            raise ConfigError("names", f"expected {setup.seats} names")
        return list(setup.names)
    return [f"P{i + 1}" for i in range(setup.seats)]


def deal(
    config: Mapping[str, JSON], seats: int, seed: int
) -> tuple[list[list[str]], list[str], dict[str, list[str]], int]:
    """§2: the shuffled main deck dealt 9 each, one at a time clockwise from the start player;
    each potion deck shuffled; the start player drawn at random."""
    start = derive_rng(seed, "start").randrange(seats)
    deck = [card for card in CARDS for _ in range(COPIES[card])]
    derive_rng(seed, "deal").shuffle(deck)
    hands: list[list[str]] = [[] for _ in range(seats)]
    for k in range(HAND_SIZE * seats):
        hands[(start + k) % seats].append(deck[k])
    rng = derive_rng(seed, "potions")
    in_set = potions_of(str(config["potion_set"]))
    potion_decks = {}
    for category in POTION_CATEGORIES:
        cards = [p for p in in_set if POTIONS[p].category == category]
        rng.shuffle(cards)
        potion_decks[category] = cards
    return hands, deck[HAND_SIZE * seats :], potion_decks, start


def start_match(
    config: Mapping[str, JSON],
    names: Sequence[str],
    hands: Sequence[Sequence[str]],
    deck: Sequence[str],
    potion_decks: Mapping[str, Sequence[str]],
    start: int,
    *,
    seed: int = 0,
    preset: Mapping[str, JSON] | None = None,
    outcomes: list[JSON] | None = None,
) -> tuple[State, list[Event]]:
    """The state once setup is done and the first turn's draw window is open (a script's preset
    position applied first)."""
    seats = len(names)
    state = State(
        config=dict(config),
        names=list(names),
        hands=[sort_cards(hand) for hand in hands],
        piles=[[] for _ in range(seats)],
        potions=[[] for _ in range(seats)],
        deck=list(deck),
        potion_decks={c: list(potion_decks[c]) for c in POTION_CATEGORIES},
        revealed=dict.fromkeys(POTION_CATEGORIES),
        seed=seed,
        skips=[0] * seats,
        wards=[0] * seats,
        cauldron=[False] * seats,
        out=[False] * seats,
        news=[""] * seats,
        outcomes=outcomes,
    )
    if preset:
        apply_preset(state, preset)
    for category in POTION_CATEGORIES:
        potions = state.potion_decks[category]
        state.revealed[category] = potions.pop(0) if potions else None
    if preset:
        state.chained = list(preset.get("chained", []))
    events: list[Event] = [
        Event(
            PUBLIC, "start", {"players": list(names)}, f"Potioncraft begins: {names_text(names)}."
        )
    ]
    rules.begin_turn(state, start, events)
    for seat in range(seats):  # the first prompt shows its seat's hand: no notice before it
        if not shows_hand(state, seat):
            hand = state.hands[seat]
            rules.private(events, seat, "hand", render.hand_text(hand), hand=list(hand))
    table_event(state, events)
    events.append(rules.moderator_state(state))
    return state, events


def apply_preset(state: State, preset: Mapping[str, JSON]) -> None:
    """A script's preset position (already checked by the script reader)."""
    index = {n: i for i, n in enumerate(state.names)}
    state.turn = int(preset.get("turns_done", 0))
    state.direction = str(preset.get("direction", "cw"))
    for who, owned in dict(preset.get("potions", {})).items():
        for label in owned:
            spent = label.endswith(" (spent)")
            state.potions[index[who]].append(
                Owned(label.removesuffix(" (spent)"), not spent, state.turn)
            )
    for who, pile in dict(preset.get("piles", {})).items():
        state.piles[index[who]] = list(pile)
    state.seal = preset.get("seal")
    for who, count in dict(preset.get("skips", {})).items():
        state.skips[index[who]] = int(count)
    for who, count in dict(preset.get("wards", {})).items():
        state.wards[index[who]] = int(count)
    for who, flag in dict(preset.get("cauldron", {})).items():
        state.cauldron[index[who]] = bool(flag)
    state.mimic_log = sort_cards(set(preset.get("mimic_log", [])))


def read(state: State, seat: int, raw: str) -> Act:
    """The act a seat's raw answer spells, checked against the open window; BadAnswer if none."""
    pending = state.pending
    if state.over or pending is None:
        raise BadAnswer("the round is over")
    if seat not in pending["seats"]:
        raise BadAnswer("nothing is asked of you right now")
    if not isinstance(raw, str):
        raise BadAnswer("send text")
    if pending["window"] == "discard" and not raw.strip().casefold().startswith("discard"):
        raw = "discard " + raw  # the menu's picks, joined by commas
    act = parse(raw, state.names)
    why = rules.check(state, seat, act)
    if why is not None:
        raise BadAnswer(why)
    return act


def pause(user: int, seconds: float) -> Request:
    """A Hand reset's block window under ``reaction_wait_full`` with nobody able to block: it
    runs its full time (§14), and nobody is prompted (a silent request held by the user)."""
    return Request(
        user,
        "block",
        "",
        (),
        "nobody blocks",
        seconds,
        timer="reaction",
        close="deadline",
        silent=True,
        anonymous=True,
    )


def window_acts(state: State, moves: Mapping[int, Move | None]) -> tuple[dict[int, Act], list[int]]:
    """Each prompted seat's act (its timeout default when it has no move), and the timed out."""
    pending = state.pending
    assert pending is not None
    acts, timeouts = {}, []
    for seat in pending["seats"]:
        move = moves.get(seat)
        if move is None:
            acts[seat] = rules.default_act(state, seat)
            timeouts.append(seat)
        else:
            acts[seat] = parse(str(move), state.names)
    return acts, sorted(timeouts)


def canonical_moves(
    state: State, moves: Mapping[int, Move | None]
) -> tuple[dict[int, str], list[int]]:
    """The canonical move of every prompted seat (defaults included) and the timed-out seats."""
    acts, timeouts = window_acts(state, moves)
    return {seat: canonical(act, state.names) for seat, act in acts.items()}, timeouts


def leave(state: State, seat: int, events: list[Event]) -> None:
    """A seat leaves between windows [house]: an open pair window of its is answered by its
    default first; it is out, its hand goes onto its pile (catalog order), it is never asked or
    targeted again. With one seat left, that seat wins. The active seat leaving ends its turn
    (a set-aside spell and wager go to its pile)."""
    pending = state.pending
    assert pending is not None
    if pending["window"] == "pair" and pending["seats"] == [seat]:
        rules.finish_gamble(state, pending["options"][0], events)
        pending = state.pending
    state.out[seat] = True
    hand = state.hands[seat]
    state.hands[seat] = []
    state.piles[seat].extend(hand)
    rules.public(
        events,
        "leave",
        f"{rules.name(state, seat)} leaves the match."
        + (f" Their hand goes to their pile: {', '.join(hand)}." if hand else ""),
        seat=seat,
        cards=hand,
    )
    left = state.in_play()
    if len(left) == 1:
        state.over, state.winners, state.end_reason, state.pending = True, left, "left", None
        rules.public(
            events,
            "win",
            f"{rules.name(state, left[0])} is the last player in and wins.",
            winners=left,
            reason="left",
        )
        return
    if state.over or pending is None:
        return
    if seat == state.active:
        for key in ("spell",):
            if key in pending:
                state.piles[seat].append(pending[key])
        if "wager" in pending:
            state.piles[seat][-1:-1] = pending["wager"]
        state.pending = None
        max_turns = state.config["max_turns"]
        if max_turns is not None and state.turn >= int(max_turns):
            rules.finish_by_ranking(state, "turn_limit", events)
            return
        rules.begin_turn(state, rules.next_seat(state, seat), events)
        return
    if seat not in pending["seats"]:
        return
    if pending["perk"] == "hand_reset":
        pending["seats"] = [s for s in pending["seats"] if s != seat]
        if not pending["seats"]:
            rules.hand_reset_blocks(state, {}, events)
        return
    state.pending = None
    rules.request_next(
        state, pending["user"], pending["potion"], pending["ask"], list(pending["holders"]), events
    )
    if state.pending is None:
        rules.open_main(state, events)
