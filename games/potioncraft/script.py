"""Match scripts and traces (``potioncraft-script.md``).

A script is the setup (seats, hands, decks, an optional preset position), every random outcome
and every attempt in arrival order; the trace is one checkpoint per step. ``export_script``
writes a live match (its seed, kept under ``seed``, so that the replayed states equal the live
ones) with every deal, deck order and random outcome it drew. A step ``{"leave": NAME}`` is a
player who left (``games/scripts.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from games.moves import SeatPlay, play_window
from games.protocol import JSON, ConfigError, Event
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
from games.text import excerpt, field_name

from .cards import (
    CARD_LOOKUP,
    CATEGORY_NAMES,
    COPIES,
    POTION_CATEGORIES,
    POTIONS,
    SPENT,
    is_ingredient,
    potions_of,
)
from .chance import OutcomeError
from .config import match_seed, parse_config
from .engine import Potioncraft, canonical_moves, deal, start_match
from .rules import categories, name, table_count
from .state import State

NAME = "potioncraft"
SCRIPT_FORMATS = formats(NAME)
SCRIPT_FORMAT = SCRIPT_FORMATS[-1]
TRACE_FORMAT = "potioncraft-trace/1"
WINDOWS = ("draw", "main", "astral", "foresight", "discard", "block", "pair")
_KEYS = (
    "format",
    "players",
    "start",
    "hands",
    "main_deck",
    "potion_decks",
    "config",
    "preset",
    "random",
    "steps",
    "seed",
    "id",
    "title",
    "expect",
    "about",
    "note",
)
_PRESET_KEYS = (
    "turns_done",
    "direction",
    "potions",
    "piles",
    "seal",
    "chained",
    "skips",
    "wards",
    "cauldron",
    "mimic_log",
)
_PLAYER = re.compile(r"[A-Za-z0-9_]{1,20}")
_GAME = Potioncraft()
SEED_BITS = 63


def run_script(script: JSON) -> JSON:
    """The trace of a script; ConfigError names the field of anything malformed."""
    return {
        "format": TRACE_FORMAT,
        "checkpoints": [step.checkpoint for step in replay_script(script)],
    }


def replay_script(script: JSON) -> Iterator[ScriptStep]:
    """The script window by window; ConfigError names a malformed field when it is reached."""
    state, version = start(script)
    steps = script.get("steps", [])
    if not isinstance(steps, list):
        raise ConfigError("steps", "must be a list")
    names = state.names
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if state.over:
            raise ConfigError(where, "the round has already ended")
        seat = read_leave(step, where, names)
        if seat is not None:
            state, events = leave_step(_GAME, state, seat, where)
            checkpoint = {"after": index + 1, "left": names[seat], **_table(state)}
            yield ScriptStep({}, events, state, checkpoint, seat)
            continue
        if not isinstance(step, Mapping):
            raise ConfigError(where, "must be an object with window and attempts")
        for key in step:
            if key not in ("window", "attempts", "random", "note"):
                raise ConfigError(f"{where}.{field_name(key)}", "unknown key")
        pending = state.pending
        assert pending is not None
        if step.get("window") != pending["window"]:
            raise ConfigError(
                f"{where}.window",
                f"the pending window is {pending['window']}, got {excerpt(step.get('window'))}",
            )
        attempts = _attempts(step.get("attempts", {}), f"{where}.attempts", names, version)
        outcomes = _outcomes(step.get("random", []), f"{where}.random")
        result = _play(state, attempts, outcomes, index, where)
        yield result
        state = result.state


def _play(
    state: State,
    attempts: Mapping[int, Sequence[Attempt]],
    outcomes: list[JSON],
    index: int,
    where: str,
) -> ScriptStep:
    window = play_window(_GAME.requests(state), attempts, partial(_GAME.submit, state))
    prepared = state.clone()
    prepared.outcomes = outcomes
    try:
        after, events = _GAME.resolve(prepared, window.moves)
    except OutcomeError as error:
        raise ConfigError(f"{where}.random", str(error)) from None
    assert after.outcomes is not None
    if after.outcomes:
        raise ConfigError(f"{where}.random", f"{len(after.outcomes)} unused random outcome(s)")
    after.outcomes = None
    moves, timeouts = canonical_moves(state, window.moves)
    names = state.names
    pending = state.pending
    assert pending is not None
    checkpoint = {
        "after": index + 1,
        "window": pending["window"],
        "moves": {names[s]: m for s, m in sorted(moves.items())},
        "timeouts": [names[s] for s in timeouts],
        "rejected": {names[s]: window.rejected(s) for s in range(state.seats)},
        **_table(after),
    }
    return ScriptStep(window.moves, events, after, checkpoint)


def _table(state: State) -> dict[str, JSON]:
    names, pending = state.names, state.pending
    by_seat = range(state.seats)
    shown = None
    if pending is not None:
        shown = {
            "window": pending["window"],
            "seats": [names[s] for s in pending["seats"]],
            "count": pending.get("count"),
            "cards": list(pending["cards"]) if "cards" in pending else None,
            "options": list(pending["options"]) if "options" in pending else None,
            "potion": pending.get("potion") if pending["window"] == "block" else None,
        }
    return {
        "turn": state.turn,
        "active": names[state.active],
        "direction": state.direction,
        "pending": shown,
        "hands": {names[s]: list(state.hands[s]) for s in by_seat},
        "potions": {names[s]: [o.label() for o in state.potions[s]] for s in by_seat},
        "table_count": {names[s]: table_count(state, s) for s in by_seat},
        "scores": {names[s]: categories(state, s) for s in by_seat},
        "piles": {names[s]: list(state.piles[s]) for s in by_seat},
        "deck": list(state.deck),
        "deck_size": len(state.deck),
        "revealed": dict(state.revealed),
        "potion_decks": {c: list(state.potion_decks[c]) for c in POTION_CATEGORIES},
        "potion_deck_sizes": {c: len(state.potion_decks[c]) for c in POTION_CATEGORIES},
        "chained": sorted(state.chained),
        "seal": state.seal,
        "skips": {names[s]: state.skips[s] for s in by_seat},
        "wards": {names[s]: state.wards[s] for s in by_seat},
        "cauldron": {names[s]: state.cauldron[s] for s in by_seat},
        "mimic_log": list(state.mimic_log),
        "game_over": state.over,
        "winners": [name(state, s) for s in sorted(state.winners)],
        "end_reason": state.end_reason,
    }


# --- setup --------------------------------------------------------------------------------------


def start(script: JSON) -> tuple[State, int]:
    if not isinstance(script, Mapping):
        raise ConfigError("script", "must be a JSON object")
    version = script_version(script, NAME)
    for key in script:
        if key not in _KEYS:
            raise ConfigError(field_name(key), "unknown key")
    players = _players(script.get("players"))
    raw_config = script.get("config", {})
    if not isinstance(raw_config, Mapping):
        raise ConfigError("config", "must be an object")
    try:
        config = parse_config(raw_config, len(players))
    except ConfigError as error:
        raise ConfigError(f"config.{error.field}", error.message) from None
    start_seat = 0
    if "start" in script:
        start_seat = _player(script["start"], "start", players)
    hands_raw = script.get("hands")
    if not isinstance(hands_raw, Mapping):
        raise ConfigError("hands", "must map each player to a list of cards")
    for key in hands_raw:
        _player(key, f"hands.{field_name(key)}", players)
    hands = [_cards(hands_raw.get(p, []), f"hands.{p}") for p in players]
    deck = _cards(script.get("main_deck", []), "main_deck")
    preset = _preset(script.get("preset", {}), players, config)
    used = Counter(c for hand in hands for c in hand) + Counter(deck)
    for pile in preset.get("piles", {}).values():
        used.update(pile)
    for card, count in used.items():
        if count > COPIES[card]:
            raise ConfigError("hands", f"{count} copies of {card}; the game has {COPIES[card]}")
    potion_decks = _potion_decks(script.get("potion_decks"), config, preset)
    seed = script.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed.bit_length() > SEED_BITS:
        raise ConfigError("seed", f"must be a whole number below 2**{SEED_BITS}")
    outcomes = _outcomes(script.get("random", []), "random")
    try:
        state, _ = start_match(
            config,
            players,
            hands,
            deck,
            potion_decks,
            start_seat,
            seed=seed,
            preset=preset,
            outcomes=outcomes,
        )
    except OutcomeError as error:
        raise ConfigError("random", str(error)) from None
    assert state.outcomes is not None
    if state.outcomes:
        raise ConfigError("random", f"{len(state.outcomes)} unused random outcome(s)")
    state.outcomes = None
    return state, version


def _players(value: JSON) -> list[str]:
    if not isinstance(value, list) or not 2 <= len(value) <= 6:
        raise ConfigError("players", "must list 2 to 6 seat names")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not _PLAYER.fullmatch(item):
            raise ConfigError(
                f"players[{index}]", f"must be 1-20 letters, digits or _, got {excerpt(item)}"
            )
    if len({p.casefold() for p in value}) != len(value):
        raise ConfigError("players", "names must differ ignoring case")
    return list(value)


def _player(value: JSON, field: str, players: Sequence[str]) -> int:
    if not isinstance(value, str) or value not in players:
        raise ConfigError(field, f"must name a player, got {excerpt(value)}")
    return list(players).index(value)


def _card(value: JSON, field: str) -> str:
    if not isinstance(value, str) or value.casefold() not in CARD_LOOKUP:
        raise ConfigError(field, f"unknown card {excerpt(value)}")
    return CARD_LOOKUP[value.casefold()]


def _cards(value: JSON, field: str) -> list[str]:
    if not isinstance(value, list):
        raise ConfigError(field, "must be a list of card names")
    return [_card(item, f"{field}[{i}]") for i, item in enumerate(value)]


def _potion(value: JSON, field: str, in_set: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in in_set:
        raise ConfigError(field, f"{excerpt(value)} is not a potion of this potion set")
    return value


def _potion_decks(
    value: JSON, config: Mapping[str, JSON], preset: Mapping[str, Any]
) -> dict[str, list[str]]:
    if not isinstance(value, Mapping) or set(value) != set(POTION_CATEGORIES):
        raise ConfigError("potion_decks", "must give the Maleficia, Benedicta and Fortuna decks")
    in_set = potions_of(str(config["potion_set"]))
    seen = Counter(
        p.removesuffix(SPENT) for owned in preset.get("potions", {}).values() for p in owned
    )
    decks = {}
    for category in POTION_CATEGORIES:
        cards = value[category]
        field = f"potion_decks.{category}"
        if not isinstance(cards, list):
            raise ConfigError(field, "must be a list of potions")
        decks[category] = [_potion(p, f"{field}[{i}]", in_set) for i, p in enumerate(cards)]
        for i, potion in enumerate(decks[category]):
            if POTIONS[potion].category != category:
                raise ConfigError(
                    f"{field}[{i}]", f"{potion} is a {POTIONS[potion].category} potion"
                )
        seen.update(decks[category])
    for potion, count in seen.items():
        if count > 1:
            raise ConfigError("potion_decks", f"{potion} appears {count} times")
    return decks


def _preset(value: JSON, players: Sequence[str], config: Mapping[str, JSON]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError("preset", "must be an object")
    for key in value:
        if key not in _PRESET_KEYS:
            raise ConfigError(f"preset.{field_name(key)}", "unknown key")
    preset: dict[str, Any] = {}
    turns = value.get("turns_done", 0)
    if isinstance(turns, bool) or not isinstance(turns, int) or not 0 <= turns <= 10**6:
        raise ConfigError(
            "preset.turns_done", f"must be a whole number 0 or more, got {excerpt(turns)}"
        )
    preset["turns_done"] = turns
    direction = value.get("direction", "cw")
    if direction not in ("cw", "ccw"):
        raise ConfigError("preset.direction", f"must be cw or ccw, got {excerpt(direction)}")
    preset["direction"] = direction
    in_set = potions_of(str(config["potion_set"]))
    preset["potions"] = {}
    for who, owned in _per_player(value.get("potions", {}), "preset.potions", players).items():
        field = f"preset.potions.{who}"
        if not isinstance(owned, list):
            raise ConfigError(field, "must be a list of potions")
        preset["potions"][who] = [
            _potion(p.removesuffix(SPENT) if isinstance(p, str) else p, f"{field}[{i}]", in_set)
            + (SPENT if isinstance(p, str) and p.endswith(SPENT) else "")
            for i, p in enumerate(owned)
        ]
    preset["piles"] = {
        who: _cards(pile, f"preset.piles.{who}")
        for who, pile in _per_player(value.get("piles", {}), "preset.piles", players).items()
    }
    seal = value.get("seal")
    if seal is not None and seal not in CATEGORY_NAMES:
        raise ConfigError(
            "preset.seal", f"must be an ingredient category or null, got {excerpt(seal)}"
        )
    preset["seal"] = seal
    chained = value.get("chained", [])
    if not isinstance(chained, list) or not all(
        isinstance(p, str) and p in in_set for p in chained
    ):
        raise ConfigError("preset.chained", "must be a list of potions")
    preset["chained"] = list(dict.fromkeys(chained))
    for key in ("skips", "wards"):
        counts = _per_player(value.get(key, {}), f"preset.{key}", players)
        for who, count in counts.items():
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 1000:
                raise ConfigError(f"preset.{key}.{who}", f"must be a count, got {excerpt(count)}")
        preset[key] = dict(counts)
    flags = _per_player(value.get("cauldron", {}), "preset.cauldron", players)
    for who, flag in flags.items():
        if not isinstance(flag, bool):
            raise ConfigError(f"preset.cauldron.{who}", "must be true or false")
    preset["cauldron"] = dict(flags)
    log = value.get("mimic_log", [])
    if not isinstance(log, list):
        raise ConfigError("preset.mimic_log", "must be a list of ingredients")
    names = [_card(item, f"preset.mimic_log[{i}]") for i, item in enumerate(log)]
    if not all(is_ingredient(n) for n in names):
        raise ConfigError("preset.mimic_log", "holds ingredient names only")
    preset["mimic_log"] = names
    return preset


def _per_player(value: JSON, field: str, players: Sequence[str]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(field, "must map players to values")
    for key in value:
        _player(key, f"{field}.{field_name(key)}", players)
    return dict(value)


def _attempts(
    value: JSON, field: str, players: Sequence[str], version: int
) -> dict[int, list[Attempt]]:
    if not isinstance(value, Mapping):
        raise ConfigError(field, "must map players to lists of attempts")
    attempts = {}
    for who, raws in value.items():
        seat = _player(who, f"{field}.{field_name(who)}", players)
        attempts[seat] = read_attempts(raws, f"{field}.{who}", version)
    return attempts


def _outcomes(value: JSON, field: str) -> list[JSON]:
    if not isinstance(value, list):
        raise ConfigError(field, "must be a list of random outcomes")
    return list(value)


# --- export -------------------------------------------------------------------------------------


def export_script(
    config: Mapping[str, JSON],
    seed: int,
    names: Sequence[str],
    windows: Sequence[Mapping[Any, Any] | Leave],
) -> JSON:
    """The script of a match played from ``seed``: its deal, every random outcome it drew, one
    step per resolved window, and ``{"leave": NAME}`` where a player left."""
    players = list(names)
    parsed = _GAME.parse_config(config, len(players))
    seed = match_seed(parsed, seed)
    hands, deck, potion_decks, first = deal(parsed, len(players), seed)
    state, _ = start_match(parsed, players, hands, deck, potion_decks, first, seed=seed)
    script: dict[str, JSON] = {
        "format": SCRIPT_FORMAT,
        "players": players,
        "start": players[first],
        "seed": seed,
        "config": dict(parsed),
        "hands": {p: list(hand) for p, hand in zip(players, hands, strict=True)},
        "main_deck": list(deck),
        "potion_decks": potion_decks,
        "random": list(state.drawn),
    }
    steps: list[JSON] = []
    for window in windows:
        if state.over:
            break
        if isinstance(window, Leave):
            steps.append({"leave": players[window.seat]})
            state, _ = _GAME.leave(state, window.seat)
            continue
        assert state.pending is not None
        attempts = {int(seat): list(raws) for seat, raws in window.items()}
        judged = play_window(_GAME.requests(state), attempts, partial(_GAME.submit, state))
        step: dict[str, JSON] = {
            "window": state.pending["window"],
            "attempts": {
                players[seat]: as_commands(raws, judged.seats[seat])
                for seat, raws in attempts.items()
            },
        }
        state, _ = _GAME.resolve(state, judged.moves)
        step["random"] = list(state.drawn)
        steps.append(step)
    script["steps"] = steps
    return script


def as_commands(raws: Sequence[Attempt], play: SeatPlay) -> list[Attempt]:
    """A seat's attempts as the export writes them: an accepted one as its move, the rules
    page's own command (a menu's bare discard list gets its keyword, a potion its page name),
    so the script replays on any implementation of the page (§13.3); the others as sent."""
    judged = iter(play.judged)
    written: list[Attempt] = []
    for raw in raws:
        if raw is None:
            written.append(raw)
            continue
        this = next(judged)
        written.append(str(this.move) if this.accepted else raw)
    return written


def events_of(steps: Sequence[ScriptStep]) -> list[Event]:
    return [event for step in steps for event in step.events]
