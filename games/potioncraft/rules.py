"""Potioncraft rules (``potioncraft.md`` §2-§12): the turn, spells, perks, crafting, blocks and
the end, as steps on a mutable ``State`` (the engine hands them a clone). Each step appends the
events it causes and leaves ``state.pending`` at the next window (None once the round is over).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.protocol import MODERATORS, PUBLIC, Event, to_seat
from games.text import names_text

from . import chance
from .cards import (
    BLOCKED_BY,
    CATALOG,
    FOUL,
    POTION_CATEGORIES,
    POTIONS,
    SPELL_CATEGORY,
    SPELL_TYPE,
    WILD,
    is_ingredient,
    sort_cards,
)
from .cards import potion_label as label
from .crafting import matches, needs
from .grammar import Act
from .state import Owned, State

Events = list[Event]


# --- small helpers ------------------------------------------------------------------------------


def name(state: State, seat: int) -> str:
    return state.names[seat]


def add_to_hand(state: State, seat: int, card: str) -> None:
    hand = state.hands[seat]
    hand.append(card)
    hand.sort(key=CATALOG.__getitem__)


def next_seat(state: State, seat: int) -> int:
    """The seat after ``seat`` in the current direction, past seats that left."""
    step = 1 if state.direction == "cw" else -1
    for k in range(1, state.seats + 1):
        other = (seat + step * k) % state.seats
        if not state.out[other]:
            return other
    return seat


def order_from(state: State, seat: int) -> list[int]:
    """Turn order from ``seat``: the other seats in play, its next seat first (§0)."""
    found, current = [], seat
    for _ in range(state.seats):
        current = next_seat(state, current)
        if current == seat or current in found:
            break
        found.append(current)
    return found


def table_count(state: State, seat: int) -> int:
    return len(state.hands[seat]) + 3 * len(state.potions[seat])


def categories(state: State, seat: int) -> int:
    return len({owned.category for owned in state.potions[seat]})


def limit(state: State, seat: int) -> int:
    return int(state.config["table_limit"]) + (1 if state.cauldron[seat] else 0)


def offer(state: State) -> str:
    """The revealed row in words."""
    return ", ".join(f"{c}: {label(p) if p else 'none left'}" for c, p in state.revealed.items())


def public(events: Events, kind: str, text: str, **data: object) -> None:
    events.append(Event(PUBLIC, kind, dict(data), text))


def private(events: Events, seat: int, kind: str, text: str, **data: object) -> None:
    events.append(Event(to_seat(seat), kind, dict(data), text))


def to_pile(state: State, seat: int, cards: Sequence[str]) -> None:
    state.piles[seat].extend(cards)


def without(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    """A hand once ``cards`` (each in it) have left it, in its order."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return rest


def take_from_hand(state: State, seat: int, cards: Sequence[str]) -> None:
    state.hands[seat][:] = without(state.hands[seat], cards)


def eligible_blocks(state: State, seat: int, potion: str) -> list[str]:
    """The spells in ``seat``'s hand that may block a perk of ``potion`` (§10)."""
    beater = BLOCKED_BY[POTIONS[potion].category]
    return [
        card
        for card in state.hands[seat]
        if card in SPELL_CATEGORY and SPELL_CATEGORY[card] == beater and SPELL_TYPE[card] != FOUL
    ]


def pair_names(hand: Sequence[str]) -> list[str]:
    counts = Counter(card for card in hand if is_ingredient(card))
    return sorted((n for n, c in counts.items() if c >= 2), key=CATALOG.__getitem__)


def ready(state: State, owned: Owned) -> bool:
    return owned.up and owned.turn < state.turn


def owned_potion(state: State, seat: int, potion: str) -> Owned | None:
    return next((o for o in state.potions[seat] if o.name == potion), None)


# --- the main deck (§11) ------------------------------------------------------------------------


def rebuild(state: State, events: Events) -> None:
    """An empty main deck is rebuilt from every pile, if any card is on one."""
    cards = [card for pile in state.piles for card in pile]
    if not cards:
        return
    for pile in state.piles:
        pile.clear()
    state.deck = chance.shuffle(state, cards)
    public(
        events,
        "rebuild",
        f"The main deck is rebuilt from the piles ({len(cards)} cards).",
        size=len(cards),
    )


def take_top(state: State, events: Events) -> str | None:
    """The main deck's top card, rebuilding an empty deck first; None if no card can be had."""
    if not state.deck:
        rebuild(state, events)
    return state.deck.pop(0) if state.deck else None


def foul_elixir(state: State, seat: int, card: str, events: Events) -> None:
    """§8.5: the Foul Elixir onto the pile, then random cards of the hand after it."""
    state.piles[seat].append(card)
    lost = []
    for _ in range(min(int(state.config["foul_elixir_discards"]), len(state.hands[seat]))):
        victim = chance.pick(state, state.hands[seat])
        state.hands[seat].remove(victim)
        state.piles[seat].append(victim)
        lost.append(victim)
    public(
        events,
        "foul_elixir",
        f"{name(state, seat)} reveals {card}: it goes to their pile"
        + (f", and they discard {', '.join(lost)} at random." if lost else "."),
        seat=seat,
        card=card,
        lost=lost,
    )


def receive(state: State, seat: int, card: str | None, events: Events, how: str) -> None:
    """A card enters a hand by a draw-like effect: a Foul Elixir resolves instead."""
    if card is None:
        public(events, "no_card", f"{name(state, seat)} finds no card to take ({how}).", seat=seat)
        return
    if SPELL_TYPE.get(card) == FOUL:
        foul_elixir(state, seat, card, events)
        return
    add_to_hand(state, seat, card)
    if how in ("deck", "cauldron"):
        private(events, seat, "drew", f"You draw {card}.", card=card)


# --- turns (§4) ---------------------------------------------------------------------------------


def begin_turn(state: State, seat: int, events: Events) -> None:
    """The turn goes to ``seat``: skips first, then the start of the turn and the draw window."""
    guard = sum(state.skips) + state.seats + 1
    while state.skips[seat] > 0 and guard > 0:
        guard -= 1
        state.skips[seat] -= 1
        public(events, "skipped", f"{name(state, seat)} loses a turn.", seat=seat)
        seat = next_seat(state, seat)
    state.active, state.turn, state.actions = seat, state.turn + 1, 0
    public(
        events,
        "turn",
        f"Turn {state.turn}: {name(state, seat)} is active.",
        seat=seat,
        turn=state.turn,
    )
    for card in sort_cards(c for c in state.hands[seat] if SPELL_TYPE.get(c) == FOUL):
        if card in state.hands[seat]:
            state.hands[seat].remove(card)
            foul_elixir(state, seat, card, events)
    open_draw(state)


def draw_options(state: State) -> list[str]:
    options = ["deck"]
    for seat in range(state.seats):
        pile = state.piles[seat]
        if not pile or pile[-1] in SPELL_TYPE:
            continue
        if seat == state.active and not state.config["draw_own_pile"]:
            continue
        options.append(f"pile {name(state, seat)}")
    return options


def open_draw(state: State) -> None:
    state.pending = {"window": "draw", "seats": [state.active], "options": draw_options(state)}


def open_main(state: State, events: Events) -> None:
    """After an action: the next main window, or the end step once the cap is reached."""
    if state.over:
        state.pending = None
    elif state.actions >= int(state.config["max_actions"]):
        public(
            events,
            "action_cap",
            f"{name(state, state.active)} has taken {state.actions} actions: the main phase ends.",
            seat=state.active,
        )
        end_step(state, events)
    else:
        state.pending = {"window": "main", "seats": [state.active]}


def end_step(state: State, events: Events) -> None:
    seat = state.active
    excess = table_count(state, seat) - limit(state, seat)
    count = min(excess, len(state.hands[seat]))
    if count > 0:
        state.pending = {"window": "discard", "seats": [seat], "count": count}
    else:
        end_turn(state, events)


def end_turn(state: State, events: Events) -> None:
    seat = state.active
    if state.config["win_check"] == "end_of_turn" and win_check(state, seat, events):
        return
    max_turns = state.config["max_turns"]
    if max_turns is not None and state.turn >= int(max_turns):
        finish_by_ranking(state, "turn_limit", events)
        return
    begin_turn(state, next_seat(state, seat), events)


def win_check(state: State, seat: int, events: Events) -> bool:
    if categories(state, seat) < 3:
        return False
    state.over, state.winners, state.end_reason, state.pending = (
        True,
        [seat],
        "three_categories",
        None,
    )
    public(
        events,
        "win",
        f"{name(state, seat)} owns a potion of each category and wins!",
        winners=[seat],
        reason="three_categories",
    )
    return True


def finish_by_ranking(state: State, reason: str, events: Events) -> None:
    """§3.2: most distinct categories, then most potions; ties share the victory."""
    seats = state.in_play()
    best = max((categories(state, s), len(state.potions[s])) for s in seats)
    state.winners = [s for s in seats if (categories(state, s), len(state.potions[s])) == best]
    state.over, state.end_reason, state.pending = True, reason, None
    names = names_text([name(state, s) for s in state.winners])
    why = "The turn limit is reached" if reason == "turn_limit" else "The round is ended"
    public(
        events,
        "win",
        f"{why}: {names} {'wins' if len(state.winners) == 1 else 'share the victory'}.",
        winners=list(state.winners),
        reason=reason,
    )


# --- legality (§5, §6, §8, §9) ------------------------------------------------------------------


def check(state: State, seat: int, act: Act) -> str | None:
    """Why ``act`` is not a legal answer of ``seat`` to the open window, or None if it is."""
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    kinds = {
        "draw": ("deck", "pile"),
        "main": ("play", "craft", "perk", "end"),
        "astral": ("keep",),
        "foresight": ("order",),
        "discard": ("discard",),
        "block": ("block", "pass"),
        "pair": ("pair",),
    }[window]
    if act.kind not in kinds:
        return f"this is the {window} window: answer with {' or '.join(kinds)}"
    if window == "draw":
        if act.kind == "pile":
            assert act.seat is not None
            if f"pile {name(state, act.seat)}" not in pending["options"]:
                return _why_not_pile(state, act.seat)
        return None
    if window == "main":
        return _check_main(state, seat, act)
    if window in ("astral", "foresight"):
        if Counter(act.cards) != Counter(pending["cards"]):
            return f"list all the seen cards, each once: {', '.join(pending['cards'])}"
        return None
    if window == "discard":
        count = pending["count"]
        if len(act.cards) != count:
            return f"discard exactly {count} card{'s' if count != 1 else ''}"
        return _missing(state.hands[seat], act.cards)
    if window == "block":
        if act.kind == "block":
            assert act.card is not None
            if act.card not in eligible_blocks(state, seat, pending["potion"]):
                beater = BLOCKED_BY[POTIONS[pending["potion"]].category]
                return f"block with a {beater} spell from your hand (not Foul Elixir)"
        return None
    if act.card not in pending["options"]:
        return f"choose one of your pairs: {', '.join(pending['options'])}"
    return None


def _why_not_pile(state: State, seat: int) -> str:
    pile = state.piles[seat]
    if not pile:
        return f"{name(state, seat)}'s pile is empty"
    if pile[-1] in SPELL_TYPE:
        return f"the top of {name(state, seat)}'s pile is a spell ({pile[-1]})"
    return "you may not draw from your own pile in this match"


def _missing(hand: Sequence[str], cards: Sequence[str]) -> str | None:
    need, have = Counter(cards), Counter(hand)
    for card, count in need.items():
        if have[card] < count:
            return (
                f"you hold {have[card]} {card}, not {count}"
                if have[card]
                else f"{card} is not in your hand"
            )
    return None


def _check_main(state: State, seat: int, act: Act) -> str | None:
    if act.kind == "end":
        return None
    if act.kind == "play":
        return _check_play(state, seat, act)
    if act.kind == "craft":
        return _check_craft(state, seat, act)
    return _check_perk(state, seat, act)


def _other(state: State, seat: int, target: int | None) -> str | None:
    assert target is not None
    if target == seat:
        return "choose another player"
    if state.out[target]:
        return f"{name(state, target)} has left the match"
    return None


def _check_play(state: State, seat: int, act: Act) -> str | None:
    spell = act.card
    assert spell is not None
    if spell not in state.hands[seat]:
        return f"{spell} is not in your hand"
    kind = SPELL_TYPE[spell]
    if kind == FOUL:
        return "Foul Elixir can never be played"
    if kind == "Venom Brew":
        return _other(state, seat, act.seat)
    if kind == "Summon from Beyond":
        assert act.seat is not None
        if act.name not in state.piles[act.seat]:
            return f"{act.name} is not in {name(state, act.seat)}'s pile"
        return None
    if kind == "Thief's Gamble":
        why = _other(state, seat, act.seat)
        if why:
            return why
        assert act.seat is not None and act.potion is not None
        if owned_potion(state, act.seat, act.potion) is None:
            return f"{name(state, act.seat)} does not own {label(act.potion)}"
        rest = list(state.hands[seat])
        rest.remove(spell)
        why = _missing(rest, act.cards)
        return None if why is None else f"the wager: {why}"
    return None


def craft_error(state: State, seat: int, act: Act) -> str | None:
    potion = act.potion
    assert potion is not None
    category = POTIONS[potion].category
    if state.revealed[category] != potion:
        return f"{label(potion)} is not on offer (on offer: {offer(state)})"
    if any(not is_ingredient(c) and c != WILD for c in act.cards):
        return "spells can never be part of a craft"
    why = _missing(state.hands[seat], act.cards)
    if why:
        return why
    perk = None
    if act.using is not None:
        owned = owned_potion(state, seat, act.using)
        if owned is None:
            return f"you do not own {label(act.using)}"
        perk = POTIONS[act.using].perk
        if perk not in ("mimic", "pairs_wild"):
            return f"{label(act.using)}'s perk is not Mimic or Pairs-wild"
        if not owned.up:
            return f"{label(act.using)} is face down (its perk is spent)"
        if not ready(state, owned):
            return f"{label(act.using)} is not ready until your next turn"
        if perk == "mimic" and act.name is None:
            return f"name the ingredient it mimics: using {label(act.using)} as <ingredient>"
        if perk == "pairs_wild" and act.name is not None:
            return "a Pairs-wild potion takes no `as`"
        if perk == "mimic" and act.name not in state.mimic_log:
            return f"{act.name} has not been used in a craft yet (the Mimic log)"
    elif act.name is not None:
        return "`as` goes with `using <Mimic potion>`"
    listed = Counter(act.cards)
    for need in needs(
        potion,
        seal=state.seal,
        chained=potion in state.chained,
        chain_mode=str(state.config["chain_mode"]),
        perk=perk,
        mimic_as=act.name,
        mimic_log=state.mimic_log,
    ):
        if matches(listed, need, state.seal):
            return None
    return (
        f"those cards do not craft {label(potion)}: its recipe is"
        f" {', '.join(POTIONS[potion].recipe)}"
        + (
            f"; it is chained: list its {'4' if state.config['chain_mode'] == 'exact4' else '3'}"
            " exact cards"
            if potion in state.chained
            else "; list exactly the cards spent for 3 of them, each its card, or the other 2"
            " of its family, or the Secret Ingredient"
        )
        + (f" ({state.seal} is sealed)" if state.seal else "")
    )


_check_craft = craft_error


def _check_perk(state: State, seat: int, act: Act) -> str | None:
    potion = act.potion
    assert potion is not None
    owned = owned_potion(state, seat, potion)
    if owned is None:
        return f"you do not own {label(potion)}"
    if not owned.up:
        return f"{label(potion)} is face down: its perk is spent"
    if not ready(state, owned):
        return f"{label(potion)} is not ready until your next turn"
    perk = POTIONS[potion].perk
    if perk in ("mimic", "pairs_wild"):
        return f"{label(potion)}'s perk is used inside a craft: craft … using {label(potion)}"
    if perk == "chain":
        if act.using is None:
            return f"write perk {label(potion)} on <potion on offer>"
        if act.using not in state.revealed.values():
            return f"{label(act.using)} is not on offer (on offer: {offer(state)})"
        if act.using in state.chained:
            return f"{label(act.using)} is already chained"
        return None
    if act.using is not None:
        return f"{label(potion)}'s perk takes no `on`"
    if perk == "request":
        return f"write perk {label(potion)} ask <ingredient>" if act.name is None else None
    if act.name is not None:
        return f"{label(potion)}'s perk takes no `ask`"
    return None


# --- timeout defaults (§13.2) -------------------------------------------------------------------


def default_act(state: State, seat: int) -> Act:
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    if window == "draw":
        return Act("deck")
    if window == "main":
        return Act("end")
    if window == "astral":
        return Act("keep", cards=tuple(pending["cards"]))
    if window == "foresight":
        return Act("order", cards=tuple(pending["cards"]))
    if window == "discard":
        return Act("discard", cards=tuple(state.hands[seat][-pending["count"] :]))
    if window == "block":
        return Act("pass")
    return Act("pair", card=pending["options"][0])


# --- the windows' answers -----------------------------------------------------------------------


def resolve_window(state: State, acts: dict[int, Act], timeouts: list[int], events: Events) -> None:
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    if window == "block":
        if pending["perk"] == "hand_reset":
            hand_reset_blocks(state, acts, events)
        else:
            request_answer(state, acts[pending["seats"][0]], events)
        return
    (seat,) = pending["seats"]
    act = acts[seat]
    late = " (timed out)" if seat in timeouts else ""
    if window == "draw":
        draw(state, seat, act, late, events)
    elif window == "main":
        main_action(state, seat, act, late, events)
    elif window == "astral":
        astral_keep(state, seat, act, late, events)
    elif window == "foresight":
        state.deck[: len(act.cards)] = list(act.cards)
        state.pending = None
        public(
            events,
            "foresight",
            f"{name(state, seat)} has looked at and reordered the top"
            f" {len(act.cards)} cards{late}.",
            seat=seat,
            count=len(act.cards),
        )
        private(
            events,
            seat,
            "foresight_order",
            f"New top of the deck: {', '.join(act.cards)}.",
            order=list(act.cards),
        )
        open_main(state, events)
    elif window == "discard":
        take_from_hand(state, seat, act.cards)
        to_pile(state, seat, act.cards)
        public(
            events,
            "discard",
            f"{name(state, seat)} discards {', '.join(act.cards)}{late}.",
            seat=seat,
            cards=list(act.cards),
        )
        end_turn(state, events)
    else:
        assert act.card is not None
        finish_gamble(state, act.card, events, late)


def draw(state: State, seat: int, act: Act, late: str, events: Events) -> None:
    state.pending = None
    if act.kind == "deck":
        public(
            events,
            "draw",
            f"{name(state, seat)} draws from the deck{late}.",
            seat=seat,
            source="deck",
        )
        receive(state, seat, take_top(state, events), events, "deck")
    else:
        assert act.seat is not None
        card = state.piles[act.seat].pop()
        add_to_hand(state, seat, card)
        public(
            events,
            "draw",
            f"{name(state, seat)} takes {card} from {name(state, act.seat)}'s pile.",
            seat=seat,
            source=act.seat,
            card=card,
        )
    open_main(state, events)


def main_action(state: State, seat: int, act: Act, late: str, events: Events) -> None:
    state.pending = None
    if act.kind == "end":
        public(events, "end", f"{name(state, seat)} ends the turn{late}.", seat=seat)
        end_step(state, events)
        return
    state.actions += 1
    if act.kind == "craft":
        craft(state, seat, act, events)
    elif act.kind == "play":
        play(state, seat, act, events)
    else:
        perk(state, seat, act, events)
    if state.pending is None:
        open_main(state, events)


# --- crafting (§7.4) ----------------------------------------------------------------------------


def craft(state: State, seat: int, act: Act, events: Events) -> None:
    potion = act.potion
    assert potion is not None
    take_from_hand(state, seat, act.cards)
    to_pile(state, seat, act.cards)
    log = set(state.mimic_log) | {c for c in act.cards if is_ingredient(c)}
    state.mimic_log = sort_cards(log)
    state.potions[seat].append(Owned(potion, True, state.turn))
    if potion in state.chained:
        state.chained.remove(potion)
    category = POTIONS[potion].category
    deck = state.potion_decks[category]
    state.revealed[category] = deck.pop(0) if deck else None
    if act.using is not None:
        owned = owned_potion(state, seat, act.using)
        assert owned is not None
        owned.up = False
    state.cauldron[seat] = False
    new = state.revealed[category]
    using = (
        f" using {label(act.using)}" + (f" as {act.name}" if act.name else "") if act.using else ""
    )
    public(
        events,
        "craft",
        f"{name(state, seat)} crafts {label(potion)} ({', '.join(act.cards)}){using}."
        + (f" New {category} potion: {label(new)}." if new else f" The {category} deck is empty."),
        seat=seat,
        potion=potion,
        cards=list(act.cards),
        revealed=new,
    )
    if state.config["win_check"] == "immediate":
        win_check(state, seat, events)


# --- spells (§8) --------------------------------------------------------------------------------


def _ward(state: State, target: int, spell: str, events: Events) -> bool:
    if state.wards[target] <= 0:
        return False
    state.wards[target] -= 1
    public(
        events, "ward", f"{name(state, target)}'s ward cancels {spell}.", seat=target, spell=spell
    )
    return True


def play(state: State, seat: int, act: Act, events: Events) -> None:
    spell = act.card
    assert spell is not None
    state.hands[seat].remove(spell)  # set aside while it resolves
    kind = SPELL_TYPE[spell]
    who = name(state, seat)
    if (
        kind == "Twist of Fate"
        and len(state.in_play()) == 2
        and state.config["two_player_twist"] == "skip"
    ):
        kind = "Circle Breaker"
    if kind == "Circle Breaker":
        target = next_seat(state, seat)
        public(
            events,
            "play",
            f"{who} plays {spell} on {name(state, target)}.",
            seat=seat,
            spell=spell,
            target=target,
        )
        if not _ward(state, target, spell, events):
            state.skips[target] += 1
            public(events, "skip", f"{name(state, target)} will lose their next turn.", seat=target)
    elif kind == "Twist of Fate":
        state.direction = "ccw" if state.direction == "cw" else "cw"
        public(
            events,
            "play",
            f"{who} plays {spell}: play now goes {state.direction}.",
            seat=seat,
            spell=spell,
            direction=state.direction,
        )
    elif kind == "Venom Brew":
        assert act.seat is not None
        target = act.seat
        public(
            events,
            "play",
            f"{who} plays {spell} on {name(state, target)}.",
            seat=seat,
            spell=spell,
            target=target,
        )
        if not _ward(state, target, spell, events) and state.hands[target]:
            lost = chance.pick(state, state.hands[target])
            state.hands[target].remove(lost)
            state.piles[target].append(lost)
            public(
                events, "venom", f"{name(state, target)} discards {lost}.", seat=target, card=lost
            )
    elif kind == "Astral Projection":
        public(events, "play", f"{who} plays {spell}.", seat=seat, spell=spell)
        if not state.deck:
            rebuild(state, events)
        seen = state.deck[:3]
        if len(seen) >= 2:
            state.pending = {"window": "astral", "seats": [seat], "cards": seen, "spell": spell}
            private(
                events, seat, "astral_seen", f"Top of the deck: {', '.join(seen)}.", seen=list(seen)
            )
            return
        if seen:
            receive(state, seat, state.deck.pop(0), events, "astral")
            public(events, "astral", f"{who} keeps the only card left.", seat=seat)
    elif kind == "Crackling Cauldron":
        public(events, "play", f"{who} plays {spell} and draws a card.", seat=seat, spell=spell)
        receive(state, seat, take_top(state, events), events, "cauldron")
        state.cauldron[seat] = True
    elif kind == "Summon from Beyond":
        assert act.seat is not None and act.name is not None
        pile = state.piles[act.seat]
        index = len(pile) - 1 - pile[::-1].index(act.name)
        del pile[index]
        public(
            events,
            "play",
            f"{who} plays {spell} and takes {act.name} from {name(state, act.seat)}'s pile.",
            seat=seat,
            spell=spell,
            source=act.seat,
            card=act.name,
        )
        receive(state, seat, act.name, events, "summon")
    elif kind == "Hex Seal":
        state.seal = act.name
        public(
            events,
            "play",
            f"{who} plays {spell}: {act.name} is sealed.",
            seat=seat,
            spell=spell,
            seal=act.name,
        )
    else:
        gamble(state, seat, act, events)
        return
    state.piles[seat].append(spell)


def gamble(state: State, seat: int, act: Act, events: Events) -> None:
    """§8.9 Thief's Gamble, up to the pair check."""
    spell, target, potion = act.card, act.seat, act.potion
    assert spell is not None and target is not None and potion is not None
    who = name(state, seat)
    public(
        events,
        "play",
        f"{who} plays {spell} on {name(state, target)} to steal {label(potion)}.",
        seat=seat,
        spell=spell,
        target=target,
        potion=potion,
    )
    if _ward(state, target, spell, events):
        state.piles[seat].append(spell)
        return
    take_from_hand(state, seat, act.cards)
    pairs = pair_names(state.hands[target])
    pending = {
        "window": "pair",
        "seats": [target],
        "options": pairs,
        "spell": spell,
        "thief": seat,
        "wager": list(act.cards),
        "steal": potion,
    }
    if len(pairs) >= 2:
        state.pending = pending
        return
    state.pending = pending
    finish_gamble(state, pairs[0] if pairs else None, events)


def finish_gamble(state: State, pair: str | None, events: Events, late: str = "") -> None:
    pending = state.pending
    assert pending is not None
    state.pending = None
    thief, target, potion = pending["thief"], pending["seats"][0], pending["steal"]
    if pair is None:
        state.skips[thief] += 1
        public(
            events,
            "busted",
            f"{name(state, target)} holds no pair: {name(state, thief)} is"
            " busted and loses their next turn.",
            seat=thief,
            target=target,
        )
    else:
        take_from_hand(state, target, [pair, pair])
        to_pile(state, target, [pair, pair])
        owned = owned_potion(state, target, potion)
        assert owned is not None
        state.potions[target].remove(owned)
        state.potions[thief].append(Owned(owned.name, owned.up, state.turn))
        public(
            events,
            "steal",
            f"{name(state, target)} reveals and discards {pair}, {pair}{late}."
            f" {name(state, thief)} steals {label(owned.name)}{'' if owned.up else ' (spent)'}.",
            seat=thief,
            target=target,
            potion=potion,
            pair=pair,
        )
    to_pile(state, thief, pending["wager"])
    state.piles[thief].append(pending["spell"])
    public(
        events,
        "wager",
        f"{name(state, thief)}'s wager goes to their pile: {', '.join(pending['wager'])}.",
        seat=thief,
        cards=list(pending["wager"]),
    )
    if pair is not None and state.config["win_check"] == "immediate":
        win_check(state, thief, events)
    if state.pending is None:
        open_main(state, events)


def astral_keep(state: State, seat: int, act: Act, late: str, events: Events) -> None:
    pending = state.pending
    assert pending is not None
    seen = len(pending["cards"])
    del state.deck[:seen]
    state.deck[:0] = list(act.cards[1:])
    state.pending = None
    public(
        events,
        "astral",
        f"{name(state, seat)} keeps 1 card and returns {seen - 1}{late}.",
        seat=seat,
    )
    private(events, seat, "astral_keep", f"You keep {act.cards[0]}.", card=act.cards[0])
    receive(state, seat, act.cards[0], events, "astral")
    state.piles[seat].append(pending["spell"])
    open_main(state, events)


# --- perks (§9) ---------------------------------------------------------------------------------


def perk(state: State, seat: int, act: Act, events: Events) -> None:
    potion = act.potion
    assert potion is not None
    owned = owned_potion(state, seat, potion)
    assert owned is not None
    owned.up = False
    kind = POTIONS[potion].perk
    who = name(state, seat)
    if kind == "reshuffle":
        public(
            events,
            "perk",
            f"{who} uses {label(potion)}: Potion reshuffle.",
            seat=seat,
            potion=potion,
        )
        potion_reshuffle(state, events)
    elif kind == "chain":
        assert act.using is not None
        state.chained.append(act.using)
        public(
            events,
            "perk",
            f"{who} uses {label(potion)}: {label(act.using)} is chained.",
            seat=seat,
            potion=potion,
            chained=act.using,
        )
    elif kind == "ward":
        state.wards[seat] += 1
        public(events, "perk", f"{who} uses {label(potion)}: a ward.", seat=seat, potion=potion)
    elif kind == "recycle":
        public(
            events,
            "perk",
            f"{who} uses {label(potion)}: Recycle, every pile is shuffled into the deck.",
            seat=seat,
            potion=potion,
        )
        cards = [card for pile in state.piles for card in pile] + state.deck
        for pile in state.piles:
            pile.clear()
        state.deck = chance.shuffle(state, cards) if cards else []
    elif kind == "foresight":
        public(events, "perk", f"{who} uses {label(potion)}: Foresight.", seat=seat, potion=potion)
        if not state.deck:
            rebuild(state, events)
        seen = state.deck[: 2 * len(state.in_play())]
        if len(seen) >= 2:
            state.pending = {"window": "foresight", "seats": [seat], "cards": seen}
            private(
                events,
                seat,
                "foresight_seen",
                f"Top {len(seen)}: {', '.join(seen)}.",
                seen=list(seen),
            )
    elif kind == "hand_reset":
        hand_reset_start(state, seat, potion, events)
    else:
        assert act.name is not None
        public(
            events,
            "perk",
            f"{who} uses {label(potion)}: Request, asking for {act.name}.",
            seat=seat,
            potion=potion,
            ask=act.name,
        )
        holders = [s for s in order_from(state, seat) if act.name in state.hands[s]]
        request_next(state, seat, potion, act.name, holders, events)


def potion_reshuffle(state: State, events: Events) -> None:
    for category in POTION_CATEGORIES:
        shown = state.revealed[category]
        if shown is not None:
            state.potion_decks[category].append(shown)
            state.revealed[category] = None
    state.chained = []
    if any(state.potion_decks.values()):
        state.potion_decks.update(chance.potion_shuffle(state, state.potion_decks))
    for category in POTION_CATEGORIES:
        deck = state.potion_decks[category]
        state.revealed[category] = deck.pop(0) if deck else None
    row = offer(state)
    public(events, "reshuffle", f"The revealed row is now {row}.", revealed=dict(state.revealed))


def hand_reset_start(state: State, seat: int, potion: str, events: Events) -> None:
    """§9.3 step 1: one simultaneous block window for the other players who hold an eligible
    spell, and for them only (§13.2); the others are told they will be affected (§14). With
    nobody eligible no window opens, unless ``reaction_wait_full``: then the window runs its
    full time all the same, prompting nobody, so its length reveals nothing (§14)."""
    public(
        events,
        "perk",
        f"{name(state, seat)} uses {label(potion)}: Hand reset.",
        seat=seat,
        potion=potion,
    )
    targets = order_from(state, seat)
    eligible = [s for s in targets if eligible_blocks(state, s, potion)]
    beater = BLOCKED_BY[POTIONS[potion].category]
    for other in targets:
        if other not in eligible:
            private(
                events,
                other,
                "no_block",
                f"{name(state, seat)} uses {label(potion)}: you hold no {beater} spell to block"
                " it, so your hand goes into the deck and you are dealt as many new cards.",
                potion=potion,
            )
    state.pending = {
        "window": "block",
        "seats": eligible,
        "potion": potion,
        "perk": "hand_reset",
        "user": seat,
    }
    if eligible or state.config["reaction_wait_full"]:
        public(events, "reaction", "Reaction window open.", potion=potion)
    else:
        hand_reset_blocks(state, {}, events)


def hand_reset_text(names: Sequence[str], counts: Sequence[int]) -> str:
    """``Ann folds their hand and is dealt 3 cards.`` / ``Ann, Ben and Cy fold their hands and
    are dealt 3, 4 and 0 cards.``"""
    if len(names) == 1:
        return f"{names[0]} folds their hand and is dealt {counts[0]} card{'s' * (counts[0] != 1)}."
    dealt = names_text([str(count) for count in counts])
    return f"{names_text(names)} fold their hands and are dealt {dealt} cards."


def hand_reset_blocks(state: State, acts: dict[int, Act], events: Events) -> None:
    """§9.3 steps 2-7: blocks go to piles, the others fold, reshuffle and are dealt again."""
    pending = state.pending
    assert pending is not None
    user = pending["user"]
    state.pending = None
    blockers = []
    for seat in pending["seats"]:
        act = acts.get(seat)
        if act is not None and act.kind == "block" and act.card in state.hands[seat]:
            assert act.card is not None
            state.hands[seat].remove(act.card)
            state.piles[seat].append(act.card)
            blockers.append(seat)
            public(
                events,
                "block",
                f"{name(state, seat)} blocks with {act.card}.",
                seat=seat,
                card=act.card,
            )
    affected = [user] + [s for s in order_from(state, user) if s not in blockers]
    limit_ = int(state.config["table_limit"])
    counts = {
        s: len(state.hands[s])
        if state.config["hand_reset_deal"] == "same"
        else max(0, limit_ - 3 * len(state.potions[s]))
        for s in affected
    }
    folded = [card for s in affected for card in state.hands[s]]
    for s in affected:
        state.hands[s] = []
    cards = state.deck + folded
    state.deck = chance.shuffle(state, cards) if cards else []
    dealt: dict[int, list[str]] = {}
    for s in affected:
        dealt[s] = []
        for _ in range(counts[s]):
            card = take_top(state, events)
            if card is None:
                break
            dealt[s].append(card)
            add_to_hand(state, s, card)
    public(
        events,
        "hand_reset",
        hand_reset_text([name(state, s) for s in affected], [len(dealt[s]) for s in affected]),
        affected=affected,
        dealt={str(s): len(dealt[s]) for s in affected},
    )
    for s in affected:
        private(
            events,
            s,
            "hand_reset_deal",
            "Your new cards: " + (", ".join(sort_cards(dealt[s])) or "none") + ".",
            cards=sort_cards(dealt[s]),
        )
    for s in affected:
        for card in sort_cards(c for c in dealt[s] if SPELL_TYPE.get(c) == FOUL):
            if card in state.hands[s]:
                state.hands[s].remove(card)
                foul_elixir(state, s, card, events)
    open_main(state, events)


def request_next(
    state: State, user: int, potion: str, ask: str, holders: list[int], events: Events
) -> None:
    """§9.10: the next holder blocks (a window) or gives; nobody left: nothing happens."""
    state.pending = None
    while holders:
        holder = holders[0]
        if ask not in state.hands[holder]:
            holders = holders[1:]
            continue
        if eligible_blocks(state, holder, potion):
            state.pending = {
                "window": "block",
                "seats": [holder],
                "potion": potion,
                "perk": "request",
                "user": user,
                "ask": ask,
                "holders": holders[1:],
            }
            return
        give(state, user, holder, ask, events)
        return
    public(events, "request_none", f"Nobody gives {ask} to {name(state, user)}.", seat=user)


def give(state: State, user: int, holder: int, card: str, events: Events) -> None:
    state.hands[holder].remove(card)
    add_to_hand(state, user, card)
    public(
        events,
        "request",
        f"{name(state, holder)} gives {card} to {name(state, user)}.",
        seat=holder,
        user=user,
        card=card,
    )


def request_answer(state: State, act: Act, events: Events) -> None:
    pending = state.pending
    assert pending is not None
    holder, user, ask = pending["seats"][0], pending["user"], pending["ask"]
    if act.kind == "block":
        assert act.card is not None
        state.hands[holder].remove(act.card)
        state.piles[holder].append(act.card)
        public(
            events,
            "block",
            f"{name(state, holder)} blocks with {act.card}.",
            seat=holder,
            card=act.card,
        )
        if state.config["request_block_passes"]:
            request_next(state, user, pending["potion"], ask, list(pending["holders"]), events)
        else:
            state.pending = None
    else:
        state.pending = None
        give(state, user, holder, ask, events)
    if state.pending is None:
        open_main(state, events)


def moderator_state(state: State) -> Event:
    hands = "; ".join(
        f"{n}: {', '.join(h) or '-'}" for n, h in zip(state.names, state.hands, strict=True)
    )
    return Event(
        MODERATORS,
        "hidden",
        {"hands": [list(h) for h in state.hands], "deck": list(state.deck)},
        f"Hands: {hands}"[:1800],
    )
