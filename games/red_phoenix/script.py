"""Match scripts and traces (``red-phoenix-script.md``).

A script is the setup (players, first seat, card set, options, every deck order), every random
outcome (``reshuffles``, ``picks``) and one step per window. Extensions beyond the written
format: version 2 (``red-phoenix-script/2``, what ``export`` writes) marks a closed window with
``null``; a step ``{"leave": NAME}`` is a player who left (``games/scripts.py``); an exported
script also carries the match's ``seed``: when the seed's setup is the script's, the replay
draws from the seed exactly as the live match did (and checks that every outcome it draws is
the script's), so its states are the live match's, snapshot for snapshot. An export writes
each accepted attempt as the page's own command (``page_commands``), whatever was typed or
clicked, so it replays on any implementation of the page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from games.moves import SeatPlay, play_window
from games.protocol import JSON, Accepted, ConfigError, Setup
from games.scripts import (
    CLOSED,
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

from .cards import LEVELS, card_set_of
from .config import CHOICE_OPTIONS, INT_OPTIONS, SEED_BITS, match_seed, parse_config
from .engine import RedPhoenix, apply_preset, live_chance, seeded_setup, setup_game, start
from .machine import ScriptShort
from .render import table
from .state import Chance, Pending, State, as_config, hand_list

NAME = "red-phoenix"
SCRIPT_FORMATS = formats(NAME)
SCRIPT_FORMAT = SCRIPT_FORMATS[-1]
TRACE_FORMAT = "red-phoenix-trace/1"
_KEYS = (
    "format",
    "players",
    "first",
    "card_set",
    "config",
    "decks",
    "reshuffles",
    "picks",
    "preset",
    "steps",
    "comment",
    "seed",
)
_GAME = RedPhoenix()


def run_script(script: JSON) -> JSON:
    """The trace of a script; ConfigError names the field of anything malformed."""
    return {"format": TRACE_FORMAT, "checkpoints": [s.checkpoint for s in replay_script(script)]}


def replay_script(script: JSON) -> Iterator[ScriptStep]:
    if not isinstance(script, Mapping):
        raise ConfigError("script", "must be a JSON object")
    version = script_version(script, NAME)
    for key in script:
        if key not in _KEYS:
            raise ConfigError(field_name(key), "unknown key")
    players = _players(script.get("players"))
    config = _config(script, len(players))
    state = _start(script, config, players)
    steps = script.get("steps", [])
    if not isinstance(steps, list):
        raise ConfigError("steps", "must be a list")
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if state.g["over"]:
            raise ConfigError(where, "the game has already ended")
        seat = read_leave(step, where, players)
        if seat is not None:
            state, events = leave_step(_GAME, state, seat, where)
            yield ScriptStep(
                {}, events, state, _checkpoint(state, index, seat, None, None, [], False), seat
            )
            continue
        attempts = _attempts(state, step, where, players, version)
        pending = open_window(state)
        requests = _GAME.requests(state)
        window = play_window(requests, {pending["seat"]: attempts}, partial(_GAME.submit, state))
        move = window.moves[pending["seat"]]
        judged = window.seats[pending["seat"]].judged
        accepted = [j for j in judged if j.accepted]
        raw_move = accepted[0].raw if accepted else None
        kind = pending["kind"]
        try:
            new, events = _GAME.resolve(state, {pending["seat"]: move})
        except ScriptShort as error:
            raise ConfigError(error.field, f"{error.message} (at {where})") from None
        _check_outcomes(script, new)
        rejected = [j.raw for j in judged if not j.accepted]
        yield ScriptStep(
            {pending["seat"]: move},
            events,
            new,
            _checkpoint(new, index, pending["seat"], kind, raw_move, rejected, move is None),
        )
        state = new


def _attempts(
    state: State, step: JSON, where: str, players: list[str], version: int
) -> list[Attempt]:
    if not isinstance(step, Mapping):
        raise ConfigError(where, 'must be {"seat": NAME, "attempts": [...]} or {"leave": NAME}')
    for key in step:
        if key not in ("seat", "attempts", "comment"):
            raise ConfigError(f"{where}.{field_name(key)}", "unknown key")
    pending = open_window(state)
    seat = step.get("seat")
    if seat not in players:
        raise ConfigError(f"{where}.seat", f"must name a player, got {excerpt(seat)}")
    if players.index(str(seat)) != pending["seat"]:
        raise ConfigError(
            f"{where}.seat", f"the open window is {pending['kind']} for {players[pending['seat']]}"
        )
    attempts = read_attempts(step.get("attempts", []), f"{where}.attempts", version)
    closed = False
    accepted = False
    for i, attempt in enumerate(attempts):
        if attempt is CLOSED:
            closed = True
            continue
        if closed:
            raise ConfigError(f"{where}.attempts[{i}]", "nothing may follow the window's end")
        if accepted and version == 1:  # a host's log (v2) may hold late texts: refused
            raise ConfigError(
                f"{where}.attempts[{i}]", "the window closed at the accepted attempt before it"
            )
        verdict = _GAME.submit(state, pending["seat"], attempt)
        accepted = isinstance(verdict, Accepted)
    return attempts


def open_window(state: State) -> Pending:
    """The window a step answers (one is open while the game runs)."""
    pending = state.g["pending"]
    assert pending is not None, "the game is over"
    return pending


def _players(value: JSON) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("players", "must be a list of seat names")
    if not 2 <= len(value) <= 5:
        raise ConfigError("players", "must name 2 to 5 players")
    for i, name in enumerate(value):
        # §12.2's one-word names are what answers use; a host match's display names (an
        # export) are kept as they are and answered by P1, P2, ... (``seat_handles``)
        checked_seat_name(name, f"players[{i}]")
    if len({v.lower() for v in value}) != len(value):
        raise ConfigError("players", "names must be different")
    return list(value)


def _config(script: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    raw = script.get("config", {})
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    for key in raw:
        if key not in INT_OPTIONS and key not in CHOICE_OPTIONS:
            raise ConfigError(f"config.{field_name(key)}", "unknown option")
    merged = dict(raw)
    if "card_set" in script:
        merged["card_set"] = script["card_set"]
    try:
        return parse_config(merged, seats)
    except ConfigError as error:
        prefix = "" if error.field.startswith("card_set") else "config."
        raise ConfigError(prefix + error.field, error.message) from None


def _decks(script: Mapping[str, JSON], config: Mapping[str, JSON]) -> dict[str, list[str]]:
    cs = card_set_of(config["card_set"])
    raw = script.get("decks")
    if not isinstance(raw, Mapping):
        raise ConfigError("decks", 'must be {"I": [...], "II": [...], "III": [...]}')
    for key in raw:
        if key not in LEVELS:
            raise ConfigError(f"decks.{field_name(key)}", "unknown level")
    decks = {}
    for level in LEVELS:
        deck = raw.get(level)
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise ConfigError(f"decks.{level}", "must be a list of result card ids")
        want = Counter(cs.deck(level))
        have = Counter(deck)
        if have != want:
            extra = sorted((have - want).elements())
            missing = sorted((want - have).elements())
            detail = f"extra {extra[:3]}" if extra else f"missing {missing[:3]}"
            raise ConfigError(
                f"decks.{level}", f"must hold exactly the level {level} cards: {excerpt(detail)}"
            )
        decks[level] = list(deck)
    return decks


def _chance(script: Mapping[str, JSON]) -> Chance:
    reshuffles = script.get("reshuffles", {})
    if not isinstance(reshuffles, Mapping):
        raise ConfigError("reshuffles", 'must be {"I": [ORDER, ...], ...}')
    orders: dict[str, list[list[str]]] = {}
    for key in reshuffles:
        if key not in LEVELS:
            raise ConfigError(f"reshuffles.{field_name(key)}", "unknown level")
    for level in LEVELS:
        value = reshuffles.get(level, [])
        if not isinstance(value, list) or not all(
            isinstance(o, list) and all(isinstance(c, str) for c in o) for o in value
        ):
            raise ConfigError(f"reshuffles.{level}", "must be a list of card id lists")
        orders[level] = [list(o) for o in value]
    picks = script.get("picks", [])
    if not isinstance(picks, list) or not all(isinstance(c, str) for c in picks):
        raise ConfigError("picks", "must be a list of card ids")
    return {
        "seed": None,
        "n": 0,
        "reshuffles": orders,
        "picks": list(picks),
        "ri": {lv: 0 for lv in LEVELS},
        "pi": 0,
    }


def _seed(script: Mapping[str, JSON]) -> int | None:
    seed = script.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
        raise ConfigError("seed", f"must be a whole number from 0 below 2**{SEED_BITS}")
    return seed


def _start(script: Mapping[str, JSON], config: dict[str, JSON], players: list[str]) -> State:
    decks = _decks(script, config)
    first_name = script.get("first", players[0])
    if first_name not in players:
        raise ConfigError("first", f"must name a player, got {excerpt(first_name)}")
    first = players.index(str(first_name))
    seed = _seed(script)
    preset = script.get("preset")
    chance = _chance(script)
    if (
        seed is not None
        and preset is None
        and seeded_setup(as_config(config), len(players), seed) == (first, decks)
    ):
        chance = live_chance(seed)
    game = setup_game(as_config(config), len(players), first, decks, chance)
    state = State(config, players, game)
    if preset is not None:
        _preset(state, preset)
    try:
        start(state)
    except ScriptShort as error:
        raise ConfigError(error.field, error.message) from None
    return state


def _preset(state: State, preset: JSON) -> None:
    if not isinstance(preset, Mapping) or set(preset) - {"players"}:
        raise ConfigError("preset", 'must be {"players": {SEAT: {...}}}')
    seats = preset.get("players", {})
    if not isinstance(seats, Mapping):
        raise ConfigError("preset.players", "must map seat names to starting values")
    for name, values in seats.items():
        where = f"preset.players.{field_name(name)}"
        if name not in state.names:
            raise ConfigError(where, "unknown player")
        if not isinstance(values, Mapping):
            raise ConfigError(where, "must be an object")
        for key, value in values.items():
            if key in ("health", "coins"):
                low = 1 if key == "health" else 0
                if (
                    isinstance(value, bool)
                    or not isinstance(value, int)
                    or not low <= value <= 10**6
                ):
                    raise ConfigError(f"{where}.{key}", f"must be a whole number from {low}")
            elif key == "hand":
                if not isinstance(value, list) or not all(
                    isinstance(c, str) and c in state.cards.ingredients for c in value
                ):
                    raise ConfigError(f"{where}.hand", "must be a list of card ids")
            else:
                raise ConfigError(f"{where}.{field_name(key)}", "unknown key")
        apply_preset(state, state.names.index(str(name)), values)


def _check_outcomes(script: Mapping[str, JSON], state: State) -> None:
    """A replay drawing from the seed must draw the script's outcomes where it gives them."""
    chance = state.g["chance"]
    if chance["seed"] is None:
        return
    picks = script.get("picks", [])
    if isinstance(picks, list):
        for i, card in enumerate(chance["picks"][: len(picks)]):
            if picks[i] != card:
                raise ConfigError(
                    f"picks[{i}]", f"the seed draws {card}, the script says {excerpt(picks[i])}"
                )
    reshuffles = script.get("reshuffles", {})
    if isinstance(reshuffles, Mapping):
        for level in LEVELS:
            given = reshuffles.get(level, [])
            if not isinstance(given, list):
                continue
            for i, order in enumerate(chance["reshuffles"][level][: len(given)]):
                if given[i] != order:
                    raise ConfigError(f"reshuffles.{level}[{i}]", "differs from the seed's order")


def _checkpoint(
    state: State,
    index: int,
    seat: int,
    kind: str | None,
    move: str | None,
    rejected: Sequence[str],
    timeout: bool,
) -> JSON:
    data = table(state)
    del data["card_set"]
    for name, entry in zip(state.names, data["players"].values(), strict=True):
        entry["hand"] = hand_list(state.g["players"][state.names.index(name)]["hand"])
    checkpoint: dict[str, JSON] = {
        "after": index + 1,
        "seat": state.names[seat],
        "kind": kind,
        "move": move,
        "rejected": list(rejected),
        "timeout": timeout,
        "drawn": [list(d) for d in state.g["drawn"]],
    }
    if kind is None:
        checkpoint["left"] = state.names[seat]
    checkpoint.update(data)
    return checkpoint


def page_commands(raws: Sequence[Attempt], played: SeatPlay) -> list[Attempt]:
    """A window's attempts as the export writes them: each accepted one as its move, the
    page's own command with ids (``keep 1``, ``discard salt``), so the script replays on any
    implementation of the page, whatever the buttons or the player sent (``1``, ``Salt``,
    ``fast Blood Distillation ...``); refused ones as sent; the window's end where it was."""
    judged = iter(played.judged)
    out: list[Attempt] = []
    for raw in raws:
        if raw is CLOSED:
            out.append(raw)
            continue
        this = next(judged)
        out.append(str(this.move) if this.accepted else raw)
    return out


def export_script(
    config: Mapping[str, JSON],
    seed: int,
    names: Sequence[str],
    windows: Sequence[Mapping[Any, Any] | Leave],
) -> JSON:
    """The script of a live match: its setup from ``seed``, one step per window, and every
    random outcome the match drew."""
    players = list(names)
    parsed = _GAME.parse_config(config, len(players))
    seed = match_seed(parsed, seed)  # a moderator's chosen deal is the match's seed
    state, _ = _GAME.new_match(Setup(parsed, len(players), seed, players))
    first, decks = seeded_setup(as_config(parsed), len(players), seed)
    steps: list[JSON] = []
    for window in windows:
        if isinstance(window, Leave):
            steps.append({"leave": players[window.seat]})
            state, _ = _GAME.leave(state, window.seat)
            continue
        seat = open_window(state)["seat"]
        raws: list[Attempt] = []
        for key, values in window.items():
            if int(key) == seat:
                raws = [None if v is None else str(v) for v in values]
        played = play_window(_GAME.requests(state), {seat: raws}, partial(_GAME.submit, state))
        steps.append({"seat": players[seat], "attempts": page_commands(raws, played.seats[seat])})
        state, _ = _GAME.resolve(state, played.moves)
    defaults = parse_config({}, len(players))
    chance = state.g["chance"]
    script: dict[str, JSON] = {
        "format": SCRIPT_FORMAT,
        "players": players,
        "first": players[first],
        "seed": seed,
        "config": {
            k: parsed[k] for k in (*INT_OPTIONS, *CHOICE_OPTIONS) if parsed[k] != defaults[k]
        },
        "decks": decks,
        "reshuffles": chance["reshuffles"],
        "picks": chance["picks"],
        "steps": steps,
    }
    if parsed["card_set"] != "house":
        script["card_set"] = parsed["card_set"]
    return script
