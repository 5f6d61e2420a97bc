"""Match scripts and traces (``shared/rules/warlocks-brew-script.md``).

A script is setup plus every bid attempt in arrival order; the trace is one checkpoint per window.
Extensions beyond the written format, used only when their option is on: with
``no_unique = "rebid"`` a rebid is a window of its own (a step and a checkpoint with the same
``auction``, plus ``round`` and ``rebid`` keys); with ``utter_darkness`` the attempt ``declare``
declares a win, the last call after the deck runs out is a ``{"declare": {...}}`` step, and
checkpoints carry ``declared`` and ``eliminated``. With ``magic_infused`` the deck names each
card's effect as the game does (``"Toadstool (Potent)"``), a Cursed choice is a ``{"curse":
{...}}`` step, and checkpoints carry ``effect``, ``infused``, ``free_samples`` and (a curse step)
``cursed``. With ``deal_window`` every answer in a Deal Window is a ``{"deals": {...}}`` step of
its own (the deal commands, e.g. ``"offer B give Toadstool for coin 2"``, ``"accept 1"``,
``"ready"``; a step with no accepted answer is the window's deadline) and its checkpoint says
what it did (``deals``, ``offers``, ``ready``, ``closed``). A step ``{"leave": NAME}`` is a
player who left (``games/scripts.py``); its checkpoint names them under ``left``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from games.moves import play_window as judge_window
from games.protocol import JSON, ConfigError, Event, Move, Setup
from games.scripts import (
    Attempt,
    Leave,
    ScriptStep,
    formats,
    leave_step,
    read_attempts,
    read_leave,
    script_version,
)
from games.text import checked_seat_name, excerpt, field_name

from .config import RULE_KEYS, VARIANT_KEYS, canonical_type, type_counts, types_in_play
from .effects import EFFECTS, label, split_label
from .engine import WarlocksBrew, setup_deck, start_match
from .state import State

NAME = "warlocks-brew"
SCRIPT_FORMATS = formats(NAME)
SCRIPT_FORMAT = SCRIPT_FORMATS[-1]  # what export writes; games/scripts.py tells the versions apart
TRACE_FORMAT = "warlocks-brew-trace/1"
_SCRIPT_KEYS = ("format", "players", "deck", "seed", "variants", "config", "steps")
STEP_KEYS = {"bid": "bids", "last_call": "declare", "curse": "curse", "deals": "deals"}
_STEP_HINTS = {
    "bids": "an auction",
    "declare": "the last call after the deck ran out",
    "curse": "the Cursed card's choice",
    "deals": "an answer in the deal window",
}
_GAME = WarlocksBrew()
SEED_BITS = 63  # the store keeps seeds as SQLite integers


def run_script(script: JSON) -> JSON:
    """The trace of a script; ConfigError names the field of anything malformed."""
    checkpoints = [step.checkpoint for step in replay_script(script)]
    return {"format": TRACE_FORMAT, "checkpoints": checkpoints}


def replay_script(script: JSON) -> Iterator[ScriptStep]:
    """The script window by window; ConfigError names a malformed field when it is reached."""
    if not isinstance(script, Mapping):
        raise ConfigError("script", "must be a JSON object")
    version = script_version(script, NAME)
    for key in script:
        if key not in _SCRIPT_KEYS:
            raise ConfigError(field_name(key), "unknown key")
    players = _players(script.get("players"))
    config = _config(script, len(players))
    state = _start(script, config, players)
    steps = script.get("steps", [])
    if not isinstance(steps, list):
        raise ConfigError("steps", "must be a list")
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if state.phase == "over":
            raise ConfigError(where, "the match is already over")
        seat = read_leave(step, where, players)
        if seat is not None:
            state, events = leave_step(_GAME, state, seat, where)
            yield ScriptStep({}, events, state, _leave_checkpoint(state, seat), seat)
            continue
        attempts = _step_attempts(state, step, where, players, version)
        moves, rejected = collect(state, attempts)
        before = state
        state, events = _GAME.resolve(state, moves)
        yield ScriptStep(moves, events, state, _checkpoint(before, state, moves, rejected, events))


def export_script(
    config: Mapping[str, JSON],
    seed: int,
    names: Sequence[str],
    windows: Sequence[Mapping[Any, Any] | Leave],
) -> JSON:
    """The script of a match played from ``seed``: one step per resolved window, and
    ``{"leave": NAME}`` where a player left."""
    players = list(names)
    parsed = _GAME.parse_config(config, len(players))
    state, _ = _GAME.new_match(Setup(parsed, len(players), seed, players))
    cards, _, _, effects = setup_deck(parsed, seed)
    deck = [label(card, effect) for card, effect in zip(cards, effects, strict=True)]
    steps: list[JSON] = []
    for window in windows:
        if isinstance(window, Leave):
            steps.append({"leave": players[window.seat]})
            state, _ = _GAME.leave(state, window.seat)
            continue
        attempts = {int(seat): [str(raw) for raw in raws] for seat, raws in window.items()}
        key = STEP_KEYS[state.phase]
        # deal answers resolve in the order they arrived (the window's order); bids at once
        ordered = attempts.items() if key == "deals" else sorted(attempts.items())
        steps.append({key: {players[seat]: raws for seat, raws in ordered}})
        state, _, _ = play_window(state, attempts)
    defaults = _GAME.parse_config({}, len(players))
    return {
        "format": SCRIPT_FORMAT,
        "players": players,
        "seed": seed,
        "deck": deck,
        "variants": {k: parsed[k] for k in VARIANT_KEYS if parsed[k] != defaults[k]},
        "config": {k: parsed[k] for k in RULE_KEYS},
        "steps": steps,
    }


def play_window(
    state: State, attempts: Mapping[int, Sequence[Attempt]]
) -> tuple[State, dict[int, list[str]], list[Event]]:
    """Submit each seat's attempts in order, close the window and resolve it."""
    moves, rejected = collect(state, attempts)
    new, events = _GAME.resolve(state, moves)
    return new, rejected, events


def collect(
    state: State, attempts: Mapping[int, Sequence[Attempt]]
) -> tuple[dict[int, Move | None], dict[int, list[str]]]:
    """Each open seat's move (None: the timeout default) and each seat's refused attempts, by
    ``games.moves``'s rule (a bid is final: the first accepted attempt is the move)."""
    window = judge_window(_GAME.requests(state), attempts, partial(_GAME.submit, state))
    return window.moves, {seat: window.rejected(seat) for seat in range(len(state.seats))}


def _players(value: JSON) -> list[str]:
    if not isinstance(value, list):
        raise ConfigError("players", "must be a list of seat names")
    if not 2 <= len(value) <= 6:
        raise ConfigError("players", "must name 2 to 6 players")
    for i, name in enumerate(value):
        checked_seat_name(name, f"players[{i}]")
    if len(set(value)) != len(value):
        raise ConfigError("players", "names must be different")
    return list(value)


def _config(script: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    variants, rules = script.get("variants", {}), script.get("config", {})
    for section, allowed in (("variants", VARIANT_KEYS), ("config", RULE_KEYS)):
        value = script.get(section, {})
        if not isinstance(value, Mapping):
            raise ConfigError(section, "must be an object")
        for key in value:
            if key not in allowed:
                raise ConfigError(f"{section}.{field_name(key)}", f"unknown {section} key")
    try:
        return _GAME.parse_config({**variants, **rules}, seats)
    except ConfigError as error:
        section = "variants" if error.field in VARIANT_KEYS else "config"
        raise ConfigError(f"{section}.{error.field}", error.message) from error


def _start(script: Mapping[str, JSON], config: dict[str, JSON], players: list[str]) -> State:
    if "deck" in script:
        deck, effects = _deck(script["deck"], config)
        seeded = _seeded(script.get("seed"), config, players, deck, effects)
        if seeded is not None:
            return seeded  # an export: the seed's setup, with the cards it set aside
        state, _ = start_match(config, players, deck, effects=effects)
        return state
    seed = script.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed.bit_length() > SEED_BITS:
        raise ConfigError(
            "seed", f"must be a whole number below 2**{SEED_BITS} when there is no deck"
        )
    state, _ = _GAME.new_match(Setup(config, len(players), seed, players))
    return state


def _seeded(
    seed: JSON, config: dict[str, JSON], players: list[str], deck: list[str], effects: list[str]
) -> State | None:
    """The state a valid seed sets up when it sets up this deck, or None."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed.bit_length() > SEED_BITS:
        return None
    cards, _, _, marks = setup_deck(config, seed)
    if (cards, marks) != (deck, effects):
        return None
    state, _ = _GAME.new_match(Setup(config, len(players), seed, players))
    return state


def _deck(value: JSON, config: dict[str, JSON]) -> tuple[list[str], list[str]]:
    """The deck's cards and each one's effect ("" for none): ``"Toadstool (Potent)"``."""
    if not isinstance(value, list) or not value:
        raise ConfigError("deck", "must be a non-empty list of ingredient types")
    in_play = types_in_play(config)
    deck, effects = [], []
    for index, item in enumerate(value):
        card, effect = split_label(item) if isinstance(item, str) else ("", "")
        name = canonical_type(card, in_play) if isinstance(item, str) else None
        if name is None:
            raise ConfigError(f"deck[{index}]", f"{excerpt(item)} is not a type in play")
        deck.append(name)
        effects.append(effect)
    allowed = type_counts(config)
    for name, count in Counter(deck).items():
        if count > allowed[name]:
            raise ConfigError("deck", f"{count} {name} but this setup has {allowed[name]}")
    _check_effects(effects, int(config["magic_infused"]))
    return deck, effects


def _check_effects(effects: list[str], wanted: int) -> None:
    """G2: as many effects as ``magic_infused`` says, each at most once."""
    named = [effect for effect in effects if effect]
    if len(named) != wanted:
        raise ConfigError(
            "deck",
            f"names {len(named)} effects but magic_infused is {wanted} ({', '.join(EFFECTS)})",
        )
    twice = next((effect for effect in named if named.count(effect) > 1), None)
    if twice is not None:
        raise ConfigError("deck", f"names {twice} twice: each effect is on one card")


def _step_attempts(
    state: State, step: JSON, where: str, players: list[str], version: int
) -> dict[int, list[Attempt]]:
    key = STEP_KEYS[state.phase]
    if not isinstance(step, Mapping) or set(step) != {key}:
        hint = _STEP_HINTS[key]
        raise ConfigError(where, f"must be {{{key!r}: {{player: [attempts]}}}} ({hint})")
    by_name = step[key]
    if not isinstance(by_name, Mapping):
        raise ConfigError(f"{where}.{key}", "must map player names to lists of attempts")
    attempts = {}
    for name, raws in by_name.items():
        field = f"{where}.{key}.{field_name(name)}"
        if name not in players:
            raise ConfigError(field, "unknown player")
        attempts[players.index(name)] = read_attempts(raws, field, version)
    return attempts


def _leave_checkpoint(state: State, seat: int) -> JSON:
    seats = state.seats
    return {
        "left": seats[seat].name,
        "auction": state.auction,
        "card": state.card,
        "hands": {s.name: sorted(s.hand) for s in seats},
        "fronts": {s.name: sorted(s.front) for s in seats},
        "brews": {s.name: s.brew_counts() for s in seats},
        "game_over": state.phase == "over",
        "winners": [seats[i].name for i in state.winners],
    }


def _checkpoint(
    before: State,
    state: State,
    moves: Mapping[int, Move | None],
    rejected: dict[int, list[str]],
    events: list[Event],
) -> JSON:
    if before.phase == "curse":
        checkpoint = _curse_checkpoint(before, state, events)
    elif before.phase == "deals":
        checkpoint = _deals_checkpoint(before, state, moves, events)
    else:
        checkpoint = _bids_checkpoint(state, events)
    seats = state.seats
    checkpoint |= {
        "rejected": {seat.name: rejected[i] for i, seat in enumerate(seats)},
        "hands": {seat.name: sorted(seat.hand) for seat in seats},
        "fronts": {seat.name: sorted(seat.front) for seat in seats},
        "brews": {seat.name: seat.brew_counts() for seat in seats},
        "deck_left": len(state.deck) if before.phase != "bid" else checkpoint["deck_left"],
        "game_over": state.phase == "over",
        "winners": [seats[i].name for i in state.winners],
    }
    if state.config["magic_infused"]:
        checkpoint["infused"] = {seat.name: seat.infused() for seat in seats}
        checkpoint["free_samples"] = [
            {"card": e.data["card"], "to": _name(state, e.data["winner"])}
            for e in events
            if e.kind == "free_sample"
        ]
    return checkpoint


def _name(state: State, seat: int | None) -> str | None:
    return None if seat is None else state.seats[seat].name


def _bids_checkpoint(state: State, events: list[Event]) -> dict[str, JSON]:
    result = next(event.data for event in events if event.kind == "reveal")
    seats = state.seats
    checkpoint: dict[str, JSON] = {
        "auction": result["auction"],
        "card": result["card"],
        "bids": {seat.name: result["bids"][i] for i, seat in enumerate(seats)},
        "timeouts": [_name(state, i) for i in result["timeouts"]],
        "winner": _name(state, result["winner"]),
        "removed": result["removed"],
        "returned": [_name(state, i) for i in result["returned"]],
        "deck_left": result["deck_left"],
    }
    if state.config["magic_infused"]:
        checkpoint["effect"] = result["effect"] or None
    if state.config["no_unique"] == "rebid":
        checkpoint |= {"round": result["round"], "rebid": result["rebid"]}
    if state.config["utter_darkness"]:
        checkpoint["declared"] = {
            seats[d["seat"]].name: "correct" if d["correct"] else "wrong"
            for d in result["declared"]
        }
        checkpoint["eliminated"] = [seat.name for seat in seats if seat.eliminated]
    return checkpoint


def _curse_checkpoint(before: State, state: State, events: list[Event]) -> dict[str, JSON]:
    """E4: who sent which card back (a trace shows what a face-down brew hides)."""
    event = next(e.data for e in events if e.kind == "cursed")
    seat = event["seat"]
    gone = Counter(before.seats[seat].labels()) - Counter(state.seats[seat].labels())
    returned = next(iter(gone), None)
    returns: list[int] = next((e.data["returned"] for e in events if e.kind == "returned"), [])
    return {
        "auction": before.auction,
        "card": before.card,
        "cursed": {"by": _name(state, seat), "returned": returned, "timeout": event["timeout"]},
        "returned": [_name(state, i) for i in returns],
    }


def _deals_checkpoint(
    before: State, state: State, moves: Mapping[int, Move | None], events: list[Event]
) -> dict[str, JSON]:
    """A7: the answer (or the deadline) and what it did."""
    return {
        "deal_window": before.auction,  # the auction it follows
        "moves": {_name(state, seat): move for seat, move in moves.items() if move is not None},
        "deals": [
            {"offer": e.data["offer"], "by": e.data["by"], "to": e.data["to"]}
            for e in events
            if e.kind == "deal"
        ],
        "offers": [offer.id for offer in state.offers],
        "ready": [seat.name for seat in state.seats if seat.ready],
        "closed": any(e.kind == "deals_closed" for e in events),
    }
