"""Match scripts and traces (``flaky-flasks-script.md``).

A step is one window of the rules page. Its ``work`` and ``market`` windows take several
commands per seat; the host asks them one at a time (one host window each, on one turn clock),
so a step of those kinds replays as several host windows: each round takes every waiting seat's
attempts up to its first accepted one (``games.moves.play_window`` judges them). An export writes
one step per host window: each ``work`` and ``market`` step says whether the window goes on
after it (``"continues": true``, its seats are not given their defaults when their lists run
out) or ends with it (``false``); a step with the key is exactly one host window. An export
also carries the match's ``seed``: the orders it writes (``river``, ``tableau``, ``panels``,
``decks``) are the ones the seed draws, and a replay checks that they still are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from games.moves import play_window
from games.protocol import JSON, Accepted, ConfigError, Move, Request
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

from . import config as options
from .content import Content, canonical
from .engine import FlakyFlasks, content_of, start
from .flow import unlock_to
from .rules import window as window_of
from .state import Chance, Config, G, State

NAME = "flaky-flasks"
SCRIPT_FORMATS = formats(NAME)
SCRIPT_FORMAT = SCRIPT_FORMATS[-1]
TRACE_FORMAT = "flaky-flasks-trace/1"
_KEYS = (
    "format",
    "players",
    "first_player",
    "config",
    "content",
    "river",
    "tableau",
    "panels",
    "decks",
    "start",
    "steps",
    "seed",
)
_IGNORED = ("id", "title", "about", "comment", "expect")
_STEP_KEYS = ("window", "attempts", "seats", "comment", "continues")
KINDS = ("setup", "hex", "counter", "work", "market", "offer", "reply")
_GAME = FlakyFlasks()
SEED_BITS = 63


def run_script(script: JSON) -> JSON:
    """The trace: one checkpoint per step."""
    checkpoints = [s.checkpoint for s in replay_script(script) if s.checkpoint is not None]
    return {"format": TRACE_FORMAT, "checkpoints": checkpoints}


def replay_script(script: JSON) -> Iterator[ScriptStep]:
    """One ScriptStep per host window; the last one of each script step carries its
    checkpoint. ConfigError names a malformed field when it is reached."""
    if not isinstance(script, Mapping):
        raise ConfigError("script", "must be a JSON object")
    version = script_version(script, NAME)
    for key in script:
        if key not in _KEYS and key not in _IGNORED:
            raise ConfigError(field_name(key), "unknown key")
    players = _players(script.get("players"))
    config = _config(script, len(players))
    state = _start(script, config, players)
    steps = script.get("steps")
    if not isinstance(steps, list):
        raise ConfigError("steps", "must be a list")
    seeded = "seed" in script
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        g = state["g"]
        if g["over"]:
            raise ConfigError(where, "the match is already over")
        seat = read_leave(step, where, players)
        if seat is not None:
            prompted = g["win"]["prompted"] if g["win"] else []
            label = g["win"]["label"] if g["win"] else None
            state, events = leave_step(_GAME, state, seat, where)
            checkpoint = checkpoint_of(state, index, label, "leave", prompted, {}, {}, [])
            checkpoint["left"] = players[seat]
            yield ScriptStep({}, events, state, checkpoint, seat)
            continue
        for part in _window(state, step, where, index, players, version):
            state = part.state
            yield part
        if seeded:
            _check_orders(script, state)


def _window(
    state: State, step: JSON, where: str, index: int, players: list[str], version: int
) -> Iterator[ScriptStep]:
    if not isinstance(step, Mapping):
        raise ConfigError(where, "must be an object with window and attempts")
    for key in step:
        if key not in _STEP_KEYS:
            raise ConfigError(f"{where}.{field_name(key)}", "unknown key")
    g = state["g"]
    win = window_of(g)
    if step.get("window") not in KINDS:
        raise ConfigError(
            f"{where}.window",
            f"must be one of {', '.join(KINDS)}, got {excerpt(step.get('window'))}",
        )
    if step["window"] != win["kind"]:
        raise ConfigError(
            f"{where}.window",
            f"the next window is {win['kind']} ({win['label']}), not {step['window']}",
        )
    prompted = [s for s in win["prompted"] if s not in g["out"]]
    if "seats" in step:
        seats = step["seats"]
        if not isinstance(seats, list) or sorted(map(str, seats)) != sorted(
            players[s] for s in prompted
        ):
            raise ConfigError(
                f"{where}.seats",
                f"the prompted seats are {', '.join(players[s] for s in prompted)}",
            )
    continues = step.get("continues", False)
    if not isinstance(continues, bool):
        raise ConfigError(f"{where}.continues", "must be true or false")
    one_host_window = "continues" in step  # an export's step: exactly one host window
    raw = step.get("attempts", {})
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}.attempts", "must map player names to lists of attempts")
    queues: dict[int, list[Attempt]] = {}
    for name, attempts in raw.items():
        field = f"{where}.attempts.{field_name(name)}"
        if name not in players:
            raise ConfigError(field, "unknown player")
        queues[players.index(name)] = read_attempts(attempts, field, version)
    accepted: dict[int, list[str]] = {s: [] for s in range(len(players))}
    rejected: dict[int, list[str]] = {s: [] for s in range(len(players))}
    timeouts: set[int] = set()
    serial = win["serial"]
    for seat in list(queues):
        if seat not in prompted:
            rejected[seat] += [a for a in queues.pop(seat) if a is not CLOSED]
    while True:
        requests = _GAME.requests(state)
        going: list[Request] = []
        if not one_host_window and win["kind"] == "work":
            # the seats with commands left go on; a seat whose list ran out (or reached the
            # window's end) waits for the others: the window's one deadline comes last
            going = [r for r in requests if queues.get(r.seat, [CLOSED])[:1] not in ([], [CLOSED])]
            requests = going or requests
        pending = [r.seat for r in requests]
        window: dict[int, list[Attempt]] = {}
        for seat in pending:
            queue = queues.get(seat, [])
            if one_host_window:
                window[seat], queue[:] = list(queue), []
                continue
            taken: list[Attempt] = []
            while queue:
                attempt = queue.pop(0)
                taken.append(attempt)
                if attempt is CLOSED:
                    taken += queue
                    queue.clear()
                    break
                if isinstance(_GAME.submit(state, seat, attempt), Accepted):
                    break
            window[seat] = taken
        played = play_window(requests, window, partial(_GAME.submit, state))
        for seat, play in played.seats.items():
            for judged in play.judged:
                (accepted if judged.accepted else rejected)[seat].append(judged.raw)
        moves = played.moves
        if going:
            # each seat's list is its own (§6.3, script page): a seat whose commands were all
            # refused has no move yet and waits for the deadline; the others go on
            moves = {seat: move for seat, move in moves.items() if move is not None}
            if not moves:
                continue
        timeouts |= {seat for seat, move in moves.items() if move is None}
        state, events = _GAME.resolve(state, moves)
        g = state["g"]
        same = not g["over"] and g["win"] is not None and g["win"]["serial"] == serial
        if same and not one_host_window:
            yield ScriptStep(moves, events, state, None)  # a host window inside the step
            continue
        for seat, queue in queues.items():
            rejected[seat] += [a for a in queue if a is not CLOSED]
        checkpoint = checkpoint_of(
            state, index, win["label"], win["kind"], prompted, accepted, rejected, sorted(timeouts)
        )
        yield ScriptStep(moves, events, state, checkpoint)
        return


def checkpoint_of(
    state: State,
    index: int,
    label: str | None,
    kind: str,
    prompted: Sequence[int],
    accepted: Mapping[int, list[str]],
    rejected: Mapping[int, list[str]],
    timeouts: Sequence[int],
) -> JSON:
    g, content = state["g"], content_of(state)
    names = g["names"]
    win = g["win"]
    light, dark = g["fumes"]
    return {
        "after": label,
        "step": index + 1,
        "window": kind,
        "prompted": [names[s] for s in sorted(prompted)],
        "accepted": {names[s]: list(accepted.get(s, [])) for s in range(len(names))},
        "rejected": {names[s]: list(rejected.get(s, [])) for s in range(len(names))},
        "timeouts": [names[s] for s in sorted(timeouts)],
        "next": None if g["over"] or win is None else win["label"],
        "next_prompted": []
        if g["over"] or win is None
        else [names[s] for s in win["prompted"] if s not in g["out"]],
        "round": g["round"],
        "first_player": names[g["first"]],
        "fumes": {"light": light, "dark": dark},
        "dominant": "light" if light > dark else "dark" if dark > light else "balanced",
        "panels": list(g["panels"]),
        "river": {t: list(r) for t, r in sorted(g["rows"]["river"].items())},
        "tableau": {t: list(r) for t, r in sorted(g["rows"]["tableau"].items())},
        "players": {names[s]: _player(content, g, s) for s in range(len(names))},
        "game_over": g["over"],
        "winners": [names[s] for s in g["winners"]],
        "standings": [names[s] for s in g["standings"]],
    }


def _player(content: Content, g: G, seat: int) -> JSON:
    p = g["players"][seat]
    in_turn = g["turn"] in (1, 2) and not g["over"]
    slots: list[str | None] = []
    for slot in p["slots"]:
        if slot is None:
            slots.append(None)
            continue
        card = content.cards[slot["id"]]
        if card.coin is None and sorted(slot["left"]) != sorted(card.symbols):
            slots.append(f"{slot['id']}:{','.join(canonical(slot['left']))}")
        else:
            slots.append(slot["id"])
    return {
        "fame": p["fame"],
        "coins": p["coins"],
        "temp_coins": p["temp"],
        "charge": p["charge"],
        "hand": list(p["hand"]),
        "deck": list(p["deck"]) if in_turn else content.cat(list(p["deck"])),
        "discard": content.cat(list(p["discard"])),
        "slots": slots,
        "channels": [list(ch) for ch in p["channels"]],
        "spare": content.tcat(list(p["spare"])),
        "cauldron": canonical(p["cauldron"]),
        "potions": [{"n": x["n"], "symbols": list(x["symbols"])} for x in p["potions"]],
        "sales": [dict(x) for x in p["sales"]],
        "jammed": p["jammed"],
        "market_passed": p["market_passed"],
    }


# --- reading a script --------------------------------------------------------------------------


def _players(value: JSON) -> list[str]:
    if not isinstance(value, list):
        raise ConfigError("players", "must be a list of seat names")
    if not 2 <= len(value) <= 4:
        raise ConfigError("players", "must name 2 to 4 players")
    for i, name in enumerate(value):
        if " " in checked_seat_name(name, f"players[{i}]", 40):
            raise ConfigError(f"players[{i}]", f"must be one word, got {excerpt(name)}")
    if len(set(value)) != len(value):
        raise ConfigError("players", "names must be different")
    return list(value)


def _config(script: Mapping[str, JSON], seats: int) -> Config:
    raw = script.get("config", {})
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    if "content_set" in raw:
        raise ConfigError("config.content_set", "give the content set as the script's content")
    if "seed" in raw:
        raise ConfigError("config.seed", "give the seed as the script's seed")
    content = script.get("content", "house")
    try:
        return options.typed(options.parse_config({**raw, "content_set": content}, seats))
    except ConfigError as error:
        if error.field.startswith("content_set"):
            raise ConfigError(
                "content" + error.field[len("content_set") :], error.message
            ) from None
        raise ConfigError(f"config.{error.field}", error.message) from None


def _orders(script: Mapping[str, JSON]) -> Chance:
    chance: Chance = {}
    orders = {"river": ("1", "2", "3"), "tableau": ("1", "2", "3"), "panels": ("2", "3")}
    for key in ("river", "tableau", "panels"):
        tiers = orders[key]
        value = script.get(key, {})
        if not isinstance(value, Mapping):
            raise ConfigError(key, "must be an object of tier -> list of ids")
        for tier, ids in value.items():
            if tier not in tiers:
                raise ConfigError(
                    f"{key}.{field_name(tier)}", f"must be one of the tiers {', '.join(tiers)}"
                )
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ConfigError(f"{key}.{tier}", "must be a list of ids")
        if key == "river":
            chance["river"] = dict(value)
        elif key == "tableau":
            chance["tableau"] = dict(value)
        else:
            chance["panels"] = dict(value)
    decks = script.get("decks", {})
    if not isinstance(decks, Mapping):
        raise ConfigError("decks", "must be an object of round -> seat -> list of card ids")
    for r, seats in decks.items():
        if not isinstance(seats, Mapping):
            raise ConfigError(f"decks.{field_name(r)}", "must map seat names to lists of card ids")
        for seat, ids in seats.items():
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ConfigError(
                    f"decks.{field_name(r)}.{field_name(seat)}", "must be a list of card ids"
                )
    chance["decks"] = dict(decks)
    return chance


def _start(script: Mapping[str, JSON], config: Config, players: list[str]) -> State:
    chance = _orders(script)
    if "seed" in script:
        seed = script["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
            raise ConfigError("seed", f"must be a whole number 0..2**{SEED_BITS}-1")
        chance = {"seed": seed}
    first_name = script.get("first_player", players[0])
    if first_name not in players:
        raise ConfigError("first_player", f"must be one of the players, got {excerpt(first_name)}")
    preset = None
    if "start" in script:
        preset = _preset(script["start"], config, players)
    state, _ = start(config, players, chance, players.index(str(first_name)), preset)
    return state


def _preset(raw: JSON, config: Config, players: list[str]) -> Callable[[G, Content], None]:
    if not isinstance(raw, Mapping):
        raise ConfigError("start", "must be an object")
    for key in raw:
        if key not in ("round", "fumes", "players"):
            raise ConfigError(f"start.{field_name(key)}", "unknown key")
    r = raw.get("round", 1)
    if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= config["rounds"]:
        raise ConfigError("start.round", f"must be a round 1..{config['rounds']}")
    fumes = raw.get("fumes", {})
    if not isinstance(fumes, Mapping) or set(fumes) - {"light", "dark"}:
        raise ConfigError("start.fumes", 'must be {"light": n, "dark": n}')
    levels = []
    for kind in ("light", "dark"):
        value = fumes.get(kind, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 999:
            raise ConfigError(f"start.fumes.{kind}", "must be a whole number 0..999")
        levels.append(value)
    seats = raw.get("players", {})
    if not isinstance(seats, Mapping):
        raise ConfigError("start.players", "must map seat names to presets")
    for name in seats:
        if name not in players:
            raise ConfigError(f"start.players.{field_name(name)}", "unknown player")

    def apply(g: G, content: Content) -> None:
        g["round"] = r
        g["fumes"] = levels
        unlock_to(g, content, config, r)
        for name, entry in seats.items():
            at = f"start.players.{name}"
            if not isinstance(entry, Mapping):
                raise ConfigError(at, "must be an object")
            p = g["players"][players.index(name)]
            for key in entry:
                if key not in ("fame", "coins", "collection", "channels", "spare"):
                    raise ConfigError(f"{at}.{field_name(key)}", "unknown key")
            p["fame"] = _amount(entry, "fame", at)
            p["coins"] = _amount(entry, "coins", at)
            if "collection" in entry:
                cards = entry["collection"]
                if not isinstance(cards, list) or not all(
                    isinstance(c, str) and c in content.cards for c in cards
                ):
                    raise ConfigError(f"{at}.collection", "must be a list of card ids")
                p["deck"] = content.cat(list(cards))
            if "channels" in entry:
                p["channels"] = [[] for _ in range(config["slots"])]
                chans = entry["channels"]
                if not isinstance(chans, list) or len(chans) > config["slots"]:
                    raise ConfigError(
                        f"{at}.channels", f"must be at most {config['slots']} lists of tile specs"
                    )
                for k, ch in enumerate(chans):
                    if not isinstance(ch, list) or len(ch) > config["channel_length"]:
                        raise ConfigError(
                            f"{at}.channels[{k}]",
                            f"must be a list of at most {config['channel_length']} tile specs",
                        )
                    for spec in ch:
                        tile, at_sign, setting = (
                            spec.partition("@") if isinstance(spec, str) else ("", "", "")
                        )
                        settings = content.tiles[tile].settings if tile in content.tiles else ""
                        if tile not in content.tiles or (
                            (len(setting) != 1 or setting not in settings)
                            if settings
                            else bool(at_sign)
                        ):
                            raise ConfigError(
                                f"{at}.channels[{k}]", f"{excerpt(spec)} is not a tile spec"
                            )
                    p["channels"][k] = list(ch)
            if "spare" in entry:
                spare = entry["spare"]
                if not isinstance(spare, list) or not all(
                    isinstance(t, str) and t in content.tiles for t in spare
                ):
                    raise ConfigError(f"{at}.spare", "must be a list of tile ids")
                p["spare"] = content.tcat(list(spare))

    return apply


def _amount(entry: Mapping[str, JSON], key: str, at: str) -> int:
    """A preset's fame or coins (0 when left out)."""
    value = entry.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**6:
        raise ConfigError(f"{at}.{key}", "must be a whole number 0..1000000")
    return value


def _check_orders(script: Mapping[str, JSON], state: State) -> None:
    """An export's written orders are the ones its seed draws."""
    g = state["g"]
    decks: Mapping[str, Any] = script.get("decks", {})
    for name, order in g["shuffled"].items():
        written = decks.get(str(g["round"]), {}).get(name)
        if written is not None and written != order:
            raise ConfigError(f"decks.{g['round']}.{name}", "is not the order the seed draws")
    for kind, tiers in g.get("dealt", {}).items():
        listed: Mapping[str, Any] = script.get(kind, {})
        for tier, order in tiers.items():
            if tier in listed and listed[tier] != order:
                raise ConfigError(f"{kind}.{tier}", "is not the order the seed draws")


# --- export ------------------------------------------------------------------------------------


def export_script(
    config: Mapping[str, JSON],
    seed: int,
    names: Sequence[str],
    windows: Sequence[Mapping[Any, Any] | Leave],
) -> JSON:
    """The script of a match played from ``seed``: one step per host window (``continues``
    when the rules' window goes on), ``{"leave": NAME}`` where a player left, and every order
    the seed drew."""
    players = list(names) or [f"P{s + 1}" for s in range(len(windows))]
    parsed = _GAME.parse_config(config, len(players))
    from games.protocol import Setup

    from .config import match_seed

    seed = match_seed(parsed, seed)  # a chosen deal: the seed the orders were drawn from
    parsed.pop("seed", None)

    state, _ = _GAME.new_match(Setup(parsed, len(players), seed, players))
    first = state["g"]["first"]
    decks: dict[str, dict[str, list[str]]] = {}

    def note(state: State) -> None:
        g = state["g"]
        for name, order in g["shuffled"].items():
            decks.setdefault(str(g["round"]), {})[name] = list(order)

    note(state)
    steps: list[JSON] = []
    for window in windows:
        if isinstance(window, Leave):
            steps.append({"leave": players[window.seat]})
            state, _ = _GAME.leave(state, window.seat)
            note(state)
            continue
        attempts = {int(seat): [str(raw) for raw in raws] for seat, raws in window.items()}
        win = window_of(state["g"])
        step: dict[str, JSON] = {
            "window": win["kind"],
            "attempts": {players[s]: raws for s, raws in attempts.items()},
        }
        requests = _GAME.requests(state)
        played = play_window(requests, attempts, partial(_GAME.submit, state))
        serial = win["serial"]
        state, _ = _GAME.resolve(state, played.moves)
        g = state["g"]
        if win["kind"] in ("work", "market"):  # several host windows may make up this window
            same = not g["over"] and g["win"] is not None and g["win"]["serial"] == serial
            step["continues"] = same
        steps.append(step)
        note(state)
    g = state["g"]
    dealt = g.get("dealt", {})
    defaults = _GAME.parse_config({}, len(players))
    script: dict[str, JSON] = {
        "format": SCRIPT_FORMAT,
        "players": players,
        "first_player": players[first],
        "seed": seed,
        "config": {k: v for k, v in parsed.items() if k != "content_set" and v != defaults[k]},
        "river": dealt.get("river", {}),
        "tableau": dealt.get("tableau", {}),
        "panels": dealt.get("panels", {}),
        "decks": decks,
        "steps": steps,
    }
    if parsed["content_set"] != "house":
        script["content"] = parsed["content_set"]
    return script


def _moves(moves: Mapping[int, Move | None]) -> dict[int, Move | None]:
    return dict(moves)
