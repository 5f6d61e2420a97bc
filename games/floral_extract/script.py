"""Match scripts in, traces out (``rules/floral-extract-script.md``), and scripts from logs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from games.moves import WindowPlay, play_window
from games.protocol import JSON, ConfigError, Event, Move, Setup
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
    sent,
)
from games.text import excerpt, read_number

from .config import SCRIPT_KEYS, parse_config
from .engine import FloralExtract
from .rules import (
    BLOOM_AT,
    FLOWERS,
    PHASE_TURNS,
    SEAT_NAMES,
    WEATHER_BY_NAME,
    WEATHER_NAMES,
    Flower,
)
from .state import HISTORY_KEEP, State

NAME = "floral-extract"
SCRIPT_FORMATS = formats(NAME)
SCRIPT_FORMAT = SCRIPT_FORMATS[-1]  # what export writes; games/scripts.py tells the versions apart
TRACE_FORMAT = "floral-extract-trace/1"
GAME = FloralExtract()


def run_script(script: JSON) -> JSON:
    """The trace of a script: one checkpoint per step. ConfigError names a malformed field."""
    checkpoints = [step.checkpoint for step in replay_script(script)]
    return {"format": TRACE_FORMAT, "checkpoints": checkpoints}


def replay_script(script: JSON) -> Iterator[ScriptStep]:
    """The script step by step; ConfigError names a malformed field when it is reached."""
    state = start_state(script)
    version = script_version(script, NAME)
    steps = script.get("steps")
    if not isinstance(steps, list):
        raise ConfigError("steps", "must be a list of steps")
    for i, raw in enumerate(steps):
        step = _run_step(state, raw, f"steps[{i}]", version)
        state = step.state
        yield step


def start_state(script: JSON) -> State:
    """The position a script starts from: setup, then its preset if it has one."""
    if not isinstance(script, Mapping):
        raise ConfigError("script", "must be a JSON object")
    script_version(script, NAME)
    raw_config = script.get("config", {})
    if not isinstance(raw_config, Mapping):
        raise ConfigError("config", "must be an object")
    parse_config(raw_config, SCRIPT_KEYS)  # refuse keys that are not rules options
    for key in ("advantage", "maps", "spellbook"):
        if key not in script:
            raise ConfigError(key, "is missing")
    if script["advantage"] not in SEAT_NAMES:
        raise ConfigError("advantage", f"must be P1 or P2, got {excerpt(script['advantage'])}")
    config = dict(raw_config)
    config.update(advantage=script["advantage"], maps=script["maps"], spellbook=script["spellbook"])
    state, _ = GAME.new_match(Setup(config, 2, seed=0))
    if "preset" in script:
        apply_preset(state, script["preset"])
    return state


def _run_step(state: State, step: JSON, field: str, version: int) -> ScriptStep:
    if not isinstance(step, Mapping):
        raise ConfigError(field, "must be an object")
    if state.phase == "over":
        raise ConfigError(field, "comes after the end of the match")
    seat = read_leave(step, field, SEAT_NAMES)
    if seat is not None:
        state, events = leave_step(GAME, state, seat, field)
        checkpoint = _common(state, f"leave {SEAT_NAMES[seat]}", None)
        return ScriptStep({}, events, state, checkpoint | {"left": SEAT_NAMES[seat]}, seat)
    submit = step.get("submit", {})
    if not isinstance(submit, Mapping) or set(submit) - set(SEAT_NAMES):
        raise ConfigError(f"{field}.submit", "must map P1 and/or P2 to lists of attempts")
    attempts = [
        read_attempts(submit.get(name, []), f"{field}.submit.{name}", version)
        for name in SEAT_NAMES
    ]
    phase = step.get("phase")
    if phase == "plant":
        return _plant_step(state, step, attempts, field)
    if phase == "cast":
        return _cast_step(state, step, attempts, field)
    raise ConfigError(f"{field}.phase", f"must be plant or cast, got {excerpt(phase)}")


def collect(state: State, attempts: Sequence[Sequence[Attempt]]) -> WindowPlay:
    """Both seats' attempts played against the open window by ``games.moves``'s rule."""
    return play_window(GAME.requests(state), dict(enumerate(attempts)), partial(GAME.submit, state))


def _moves(window: WindowPlay) -> dict[int, Move | None]:
    """What resolve gets: both seats, None for a seat without a move (or not asked)."""
    return {seat: window.moves.get(seat) for seat in range(2)}


def _common(state: State, after: str, skipped: bool | None) -> dict[str, Any]:
    return {
        "after": after,
        "weather": WEATHER_NAMES[state.weather],
        "game_over": state.phase == "over",
        "winner": None if state.winner is None else SEAT_NAMES[state.winner],
        "skipped": skipped,
    }


def _plant_step(
    state: State, step: Mapping[str, JSON], attempts: list[list[Attempt]], field: str
) -> ScriptStep:
    before = _number(step.get("before_turn"), f"{field}.before_turn")
    due = state.turns_completed + 1
    if before != due or state.turns_completed % PHASE_TURNS:
        raise ConfigError(
            f"{field}.before_turn", f"no planting phase comes before turn {excerpt(before)} here"
        )
    if state.phase == "cast":  # the phase was skipped: everything sent is refused
        checkpoint = _common(state, f"plant@{before}", True)
        for seat, name in enumerate(SEAT_NAMES):
            checkpoint[name] = {
                "prompted": False,
                "rejected": sent(attempts[seat]),
                "planted": None,
                "planted_pot": None,
                "pots": _pots(state, seat),
            }
        return ScriptStep({}, [], state, checkpoint)
    collected = collect(state, attempts)
    moves = _moves(collected)
    state, events = GAME.resolve(state, moves)
    results = _moderator(events, "planting_full")["players"]
    checkpoint = _common(state, f"plant@{before}", False)
    for seat, name in enumerate(SEAT_NAMES):
        result = results[name]
        checkpoint[name] = {
            "prompted": result["prompted"],
            "rejected": collected.rejected(seat),
            "planted": result["planted"],
            "planted_pot": result.get("planted_pot"),
            "pots": _pots(state, seat),
        }
    return ScriptStep(moves, events, state, checkpoint)


def _cast_step(
    state: State, step: Mapping[str, JSON], attempts: list[list[Attempt]], field: str
) -> ScriptStep:
    turn = _number(step.get("turn"), f"{field}.turn")
    due = state.turns_completed + 1
    if state.phase == "plant":
        raise ConfigError(f"{field}.phase", f"a planting step must come before turn {due}")
    if turn != due:
        raise ConfigError(f"{field}.turn", f"expected turn {due}, got {excerpt(turn)}")
    collected = collect(state, attempts)
    moves = _moves(collected)
    state, events = GAME.resolve(state, moves)
    full = _moderator(events, "turn_full")
    checkpoint = _common(state, f"T{turn}", None)
    for seat, name in enumerate(SEAT_NAMES):
        record = dict(full[name])
        record["rejected"] = collected.rejected(seat)
        checkpoint[name] = record
    return ScriptStep(moves, events, state, checkpoint)


def _moderator(events: list[Event], kind: str) -> Any:
    return next(e.data for e in events if e.kind == kind)


def _pots(state: State, seat: int) -> list[str | None]:
    return [None if f is None else f"{f.code}:{f.stage}" for f in state.players[seat].pots]


def _number(value: JSON, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(field, f"must be a turn number, got {excerpt(value)}")
    return value


# --- presets -----------------------------------------------------------------------------------


def apply_preset(state: State, preset: JSON) -> None:
    """Put the match in the position a preset describes (validated field by field)."""
    if not isinstance(preset, Mapping):
        raise ConfigError("preset", "must be an object")
    turns = preset.get("turns_completed")
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
        raise ConfigError("preset.turns_completed", f"must be a whole number, got {excerpt(turns)}")
    weather = preset.get("weather", "sunny")
    if not isinstance(weather, str) or weather not in WEATHER_BY_NAME:
        raise ConfigError(
            "preset.weather", f"must be sunny, chilly or rainy, got {excerpt(weather)}"
        )
    players = preset.get("players")
    if not isinstance(players, Mapping) or set(players) != set(SEAT_NAMES):
        raise ConfigError("preset.players", "must describe P1 and P2")
    state.turns_completed = turns
    state.weather = WEATHER_BY_NAME[weather]
    for seat, name in enumerate(SEAT_NAMES):
        _preset_player(state, seat, players[name], f"preset.players.{name}")
    due_planting = turns % PHASE_TURNS == 0 and any(p.can_plant for p in state.players)
    state.phase = "plant" if due_planting else "cast"


def _preset_player(state: State, seat: int, raw: JSON, field: str) -> None:
    if not isinstance(raw, Mapping):
        raise ConfigError(field, "must be an object")
    player = state.players[seat]
    pots = raw.get("pots", [None, None, None])
    if not isinstance(pots, list) or len(pots) != 3:
        raise ConfigError(f"{field}.pots", "must have three entries")
    player.pots = [_preset_flower(p, f"{field}.pots[{i}]") for i, p in enumerate(pots)]
    planted = raw.get("planted", [])
    if not isinstance(planted, list) or not all(_is_flower(c) for c in planted):
        raise ConfigError(f"{field}.planted", "must list flower codes A C H W X")
    if len(set(planted)) != len(planted):
        raise ConfigError(f"{field}.planted", "lists a flower twice")
    for flower in player.pots:
        if flower is not None and flower.code not in planted:
            raise ConfigError(f"{field}.planted", f"must include {flower.code}, which is in a pot")
    player.planted = "".join(planted)
    for key in ("blooms", "points", "wrong_since_correct", "charge"):
        value = raw.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{field}.{key}", f"must be a whole number, got {excerpt(value)}")
        setattr(player, key, value)
    if player.charge > 1:
        raise ConfigError(f"{field}.charge", "a player holds at most one charge")
    player.correct_pairs = _pairs(
        raw.get("correct_pairs", []), state, seat, f"{field}.correct_pairs"
    )
    score_turns = raw.get("score_turns", [])
    if (
        not isinstance(score_turns, list)
        or len(score_turns) != player.points
        or not all(_is_turn(t, state.turns_completed) for t in score_turns)
    ):
        raise ConfigError(f"{field}.score_turns", "must give the turn of each point")
    player.score_turns = tuple(sorted(score_turns))
    raw_history = raw.get("history", [])
    if not isinstance(raw_history, list):
        raise ConfigError(f"{field}.history", "must be a list of identities and declarations")
    history = [_entry(e, state, seat, f"{field}.history[{i}]") for i, e in enumerate(raw_history)]
    player.history = tuple(history[-HISTORY_KEEP:])
    player.window = 0
    for entry in history:
        if isinstance(entry, str):  # a declaration breaks the window
            player.window = 0
        elif entry:
            player.push_rune(entry)


def _preset_flower(raw: JSON, field: str) -> Flower | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or ":" not in raw:
        raise ConfigError(field, f'must be like "C:12" or null, got {excerpt(raw)}')
    code, _, digits = raw.partition(":")
    if code in ("A", "X"):
        raise ConfigError(
            field, "a preset cannot hold Azalea or Xanthium (they keep hidden memory)"
        )
    stage = read_number(digits)
    if not _is_flower(code) or stage is None or stage >= BLOOM_AT[code]:
        raise ConfigError(
            field, f"must be C, H or W with a stage below its bloom, got {excerpt(raw)}"
        )
    return Flower(code, stage)


def _is_flower(code: JSON) -> bool:
    return isinstance(code, str) and len(code) == 1 and code in FLOWERS


def _is_turn(value: JSON, turns_completed: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= turns_completed


def _pairs(raw: JSON, state: State, seat: int, field: str) -> tuple[tuple[str, int], ...]:
    opponent = state.players[1 - seat]
    if not isinstance(raw, list):
        raise ConfigError(field, "must be a list of [symbol, identity] pairs")
    pairs: list[tuple[str, int]] = []
    for i, pair in enumerate(raw):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not isinstance(pair[0], str)
            or pair[0] not in opponent.identity
            or opponent.identity[pair[0]] != pair[1]
        ):
            raise ConfigError(
                f"{field}[{i}]", f"{excerpt(pair)} is not a correct guess of the opponent's map"
            )
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def _entry(raw: JSON, state: State, seat: int, field: str) -> int | str:
    identity = read_number(raw) if isinstance(raw, str) else None
    if identity is not None and identity <= 7:
        return identity
    if (
        isinstance(raw, str)
        and raw.startswith("decl:")
        and raw[5:] in state.players[1 - seat].identity
    ):
        return raw[5:]
    raise ConfigError(
        field,
        f'must be an identity like "5" or a declaration like "decl:S", got {excerpt(raw)}',
    )


# --- export ------------------------------------------------------------------------------------


def export_script(
    config: Mapping[str, JSON],
    seed: int,
    names: Sequence[str],
    windows: Sequence[Mapping[int, Sequence[str]] | Leave],
) -> JSON:
    """A stored match as a script: its concrete setup and every attempt of every window, with
    the window's end (null) after the attempts of a seat that got the timeout default, and
    ``{"leave": "P1"}`` where a seat left."""
    state, _ = GAME.new_match(Setup(config, 2, seed))
    steps: list[JSON] = []
    for window in windows:
        if isinstance(window, Leave):
            steps.append({"leave": SEAT_NAMES[window.seat]})
            state, _ = GAME.leave(state, window.seat)
            continue
        attempts: dict[int, list[Attempt]] = {s: list(window.get(s, [])) for s in range(2)}
        moves = _moves(collect(state, [attempts[seat] for seat in range(2)]))
        submit = {}
        for seat, name in enumerate(SEAT_NAMES):
            texts = attempts[seat]
            submit[name] = texts if moves[seat] is not None else [*texts, CLOSED]
        due = state.turns_completed + 1
        if state.phase == "plant":
            steps.append({"phase": "plant", "before_turn": due, "submit": submit})
        else:
            steps.append({"phase": "cast", "turn": due, "submit": submit})
        state, _ = GAME.resolve(state, moves)
    options = {key: state.config[key] for key in sorted(SCRIPT_KEYS)}
    return {
        "format": SCRIPT_FORMAT,
        "advantage": state.config["advantage"],
        "maps": state.config["maps"],
        "spellbook": state.config["spellbook"],
        "config": options,
        "steps": steps,
    }
