"""What each audience is told (rules §12), as events with data and plain text, plus requests
and views. Nothing here decides a rule; it only reports what the engine decided."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from games.protocol import (
    JSON,
    MODERATORS,
    PUBLIC,
    TOPIC_CHARS,
    Choice,
    Event,
    Request,
    Secret,
    Topic,
    to_seat,
)
from games.text import OTHER_NUMERALS, has_other_numerals

from . import spellbook
from .books import is_per_seat
from .rules import (
    BLOOM_AT,
    FLOWER_NAMES,
    FLOWERS,
    PHASE_TURNS,
    RAINY,
    SEAT_NAMES,
    WEATHER_NAMES,
    spell_x,
)
from .spellbook import SPELLS, parse_spellbook
from .state import Player, State, per_seat_books

if TYPE_CHECKING:
    from .engine import TurnRecord

Rendered = tuple[dict[str, Any], str]
SEATS = (to_seat(0), to_seat(1))


def spellbook_text(raw: JSON) -> str:
    """The spellbook in the moderators' text form, one spell per line."""
    if is_per_seat(raw):
        return "\n".join(
            f"{SEAT_NAMES[seat]}: {spellbook_text(book)}"
            for seat, book in enumerate(per_seat_books(raw))
        )
    book = parse_spellbook(raw)
    return "\n".join(
        f"{spell}: {' | '.join(spellbook.describe(c) for c in book.conditions(spell))}"
        for spell in SPELLS
    )


SPELL_EFFECTS = {
    "water": "Water (waters your pots 1 to X)",
    "fertilize": "Fertilize (fertilizes your pot X)",
    "weather": "Weather (sets the weather to X: 1 sunny, 2 chilly, 3 rainy)",
}
OP_WORDS = {"<": "<", "<=": "≤", "=": "=", ">=": "≥", ">": ">"}
RUN_LETTERS = "abcde"


def condition_words(condition: spellbook.Condition) -> str:
    """A condition in plain words, after its text form: ``set 3 {1,2,3}: your last 3 runes
    are each 1, 2 or 3``."""
    n = condition.n
    if isinstance(condition, spellbook.SetCondition):
        members = [str(m) for m in condition.members]
        says = f"your last {n} runes are each {', '.join(members[:-1])} or {members[-1]}"
    elif isinstance(condition, spellbook.SumCondition):
        total = (
            str(condition.lo)
            if condition.lo == condition.hi
            else (f"{condition.lo} to {condition.hi}")
        )
        says = f"your last {n} runes add up to {total}"
    else:
        chain = RUN_LETTERS[0] + "".join(
            f" {OP_WORDS[op]} {RUN_LETTERS[i + 1]}" for i, op in enumerate(condition.ops)
        )
        says = f"your last {n} runes, oldest first, go {chain}"
    return f"{spellbook.describe(condition)}: {says}"


def spell_lines(raw: JSON) -> list[str]:
    """One book's three spells, each with what it does and its conditions in words (a spell
    with several conditions gets a line for each: any one of them triggers it)."""
    book = parse_spellbook(raw)
    lines = []
    for spell in SPELLS:
        conditions = book.conditions(spell)
        if len(conditions) == 1:
            lines.append(f"• {SPELL_EFFECTS[spell]} when {condition_words(conditions[0])}.")
            continue
        lines.append(f"• {SPELL_EFFECTS[spell]} when any of these holds:")
        lines += [f"  – {condition_words(c)}" for c in conditions]
    return lines


WHOLE_BOOK = "… (the match's reference, `/cards`, has the whole book)"


def clip_lines(lines: list[str], limit: int) -> list[str]:
    """Whole lines while they fit in ``limit`` characters, then a pointer to the rest."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > limit - len(WHOLE_BOOK):
            return [*kept, WHOLE_BOOK]
        kept.append(line)
        used += len(line) + 1
    return kept


def book_lines(raw: JSON, seat: int | None = None) -> list[str]:
    """The spellbook in words: one seat's book, or (seat None) the shared book or both."""
    books = per_seat_books(raw)
    if seat is not None:
        return spell_lines(books[seat])
    if not is_per_seat(raw):
        return spell_lines(raw)
    return [
        line
        for n, book in enumerate(books)
        for line in (f"{SEAT_NAMES[n]}'s spells:", *spell_lines(book))
    ]


BOOK_CHARS = 900  # the most a post, a prompt's help or a view gives the spellbook
RUNS_NOTE = (
    "Runes count by their numbers; your 0 (the stall) is skipped, and a declaration starts "
    "the count again."
)
SABOTAGE_NOTE = (
    "Sabotage (every book): two non-zero runes in a row adding up to 8, 10 or 12 stop your "
    "opponent's pot 1, 2 or 3 from being watered or fertilized this turn."
)


def map_text(player: Player) -> str:
    return " ".join(f"{s}={player.identity[s]}" for s in player.symbols)


def garden_text(player: Player, growth: dict[int, int] | None = None) -> str:
    """Each pot's flower and stage; with ``growth``, what each grew this turn."""
    return " · ".join(
        f"pot {i}: empty"
        if f is None
        else f"pot {i}: {FLOWER_NAMES[f.code]} {f.stage}/{BLOOM_AT[f.code]}"
        + ("" if growth is None or i not in growth else f" ({growth[i]:+d})")
        for i, f in enumerate(player.pots, start=1)
    )


def pots_json(player: Player) -> list[str | None]:
    return [None if f is None else f"{f.code}:{f.stage}" for f in player.pots]


# --- the start ---------------------------------------------------------------------------------


RULE_OPTIONS = (
    "initial_weather",
    "azalea_shrink_mode",
    "guess_cost_mode",
    "declaration_without_charge",
    "allow_resubmit_after_valid",
    "opponent_report_shows_empty_pots",
    "max_turns",
)


def rules_text(config: dict[str, JSON]) -> str:
    """The rule options in force, which both players are entitled to know, in plain
    sentences (``/rules floral-extract`` explains each)."""
    limit, weather = config["max_turns"], config["initial_weather"]
    sentences = [
        "The first turn's weather is drawn at random."
        if weather == "random"
        else f"The first turn is {weather}.",
        "An Azalea shrinks every turn it does not grow, from the second."
        if config["azalea_shrink_mode"] == "sliding"
        else "An Azalea shrinks every second turn it does not grow.",
        "After a correct guess, the next one needs 6 minus your points different runes in a row."
        if config["guess_cost_mode"] == "formula"
        else "After a correct guess, the next one needs 5 different runes in a row again.",
        "A declaration without a guess charge is refused."
        if config["declaration_without_charge"] == "reject"
        else "A declaration without a guess charge is a wasted turn.",
        "You may change your answer until the window closes."
        if config["allow_resubmit_after_valid"]
        else "Your first valid answer is final.",
        "Reports of the opponent's garden show empty pots."
        if config["opponent_report_shows_empty_pots"]
        else "Reports of the opponent's garden list the flowers' stages only.",
        "There is no turn limit." if limit is None else f"The match ends after turn {limit}.",
    ]
    return " ".join(sentences)


def start_events(state: State) -> list[Event]:
    adv = SEAT_NAMES[state.advantage]
    alphabets = {SEAT_NAMES[s]: p.symbols for s, p in enumerate(state.players)}
    book = state.config["spellbook"]
    rules = {key: state.config[key] for key in RULE_OPTIONS}
    public = Event(
        PUBLIC,
        "match_start",
        {"advantage": adv, "alphabets": alphabets, "spellbook": book, "rules": rules},
        f"Floral Extract begins. {adv} has the advantage (wins a perfect tie). "
        f"P1 casts {alphabets['P1'][0]}–{alphabets['P1'][-1]}, "
        f"P2 casts {alphabets['P2'][0]}–{alphabets['P2'][-1]}.\n"
        "Spellbook: X is each turn's place in 1, 2, 3, 1, 2, 3… (turn 4: X is 1 again).\n"
        + "\n".join(clip_lines(book_lines(book), BOOK_CHARS))
        + f"\n{RUNS_NOTE}\n"
        f"Rules: {rules_text(state.config)} (`/rules floral-extract` explains them.)",
    )
    events = [public]
    for seat, player in enumerate(state.players):
        events.append(
            Event(
                to_seat(seat),
                "rune_map",
                {"symbols": player.symbols, "map": dict(player.identity)},
                f"Your secret rune map, {SEAT_NAMES[seat]}: {map_text(player)}. "
                "Keep it to yourself: your opponent wins by guessing it.",
            )
        )
    events.append(
        Event(
            MODERATORS,
            "setup",
            {"maps": state.config["maps"], "weather": WEATHER_NAMES[state.weather]},
            f"Maps: P1 {map_text(state.players[0])} | P2 {map_text(state.players[1])}. "
            f"Weather: {WEATHER_NAMES[state.weather]}.",
        )
    )
    return events


def planting_open_events(state: State) -> list[Event]:
    """The public notice of a planting phase; who is prompted stays private (AMBIGUITY 24)."""
    before = state.turns_completed + 1
    phase = before // PHASE_TURNS + 1
    if state.phase == "plant":
        text = f"Planting phase {phase} is open (before turn {before})."
        return [Event(PUBLIC, "planting_open", {"before_turn": before, "skipped": False}, text)]
    text = f"Planting phase {phase} is skipped: nobody can plant. Turn {before} follows."
    return [Event(PUBLIC, "planting_open", {"before_turn": before, "skipped": True}, text)]


# --- planting ----------------------------------------------------------------------------------


FLOWER_NEEDS = {
    "A": "blooms at 8: +1 a turn, except when chilly or watered two turns running; −1 after "
    "two turns without growth",
    "C": "blooms at 30: +1 a turn, +2 more when watered, +3 more when fertilized",
    "H": "blooms at 15: +2 a sunny turn, −1 a chilly one, nothing when rainy",
    "W": "blooms at 7: +1 a turn, not when chilly; stages 2 and 4 need water, 3 fertilizer, 6 both",
    "X": "blooms at 6: +1 for each mix of weather, watered and fertilized it has not had yet",
}


def pot_reach(pot: int) -> str:
    """Which turns' spells reach a pot: Water reaches pots 1 to X, Fertilize pot X."""
    turns = "every turn" if pot == 1 else f"turns where X is {pot} or more"
    return f"Water reaches pot {pot} on {turns}, Fertilize on turns where X is {pot}"


def plant_request(state: State, seat: int, timeout: float, revisable: bool) -> Request:
    player = state.players[seat]
    pot = player.pots.index(None) + 1
    choices = tuple(
        Choice(code, FLOWER_NAMES[code], "flower") for code in FLOWERS if code not in player.planted
    )
    options = "\n".join(f"{c.value} {c.label}: {FLOWER_NEEDS[c.value]}" for c in choices)
    before = state.turns_completed + 1
    return Request(
        seat=seat,
        kind="plant",
        prompt=f"Planting before turn {before}: choose a flower for pot {pot} "
        f"({pot_reach(pot)}).\n{options}",
        choices=choices,
        default="plant nothing",
        timeout_s=timeout,
        revisable=revisable,
        occasion=f"the planting before turn {before}",
        help=plant_help(player, pot),
    )


def plant_help(player: Player, pot: int) -> str:
    left = ", ".join(f"{c} ({FLOWER_NAMES[c]})" for c in FLOWERS if c not in player.planted)
    return (
        f"Send one flower letter: {left}. Each type can be planted once a match, even after "
        f"it has bloomed. It goes into pot {pot}, your leftmost empty pot, at stage 0, and "
        "grows at the end of every turn from the next one.\n"
        f"Garden: {garden_text(player)}.\n"
        "Watered means by your Water spell or by rain; the weather is never told, only what "
        "your flowers do shows it. A bloom leaves the pot and gives you one access to the "
        "guessing spell. If the window closes, nothing is planted and the pot waits for the "
        "next planting."
    )


def planting_events(state: State, results: list[dict[str, JSON]]) -> list[Event]:
    before = state.turns_completed + 1
    events = [
        Event(
            PUBLIC,
            "planting_done",
            {"before_turn": before},
            f"Planting is over. Casting phase {before // PHASE_TURNS + 1}: "
            f"turns {before}–{before + PHASE_TURNS - 1}.",
        )
    ]
    for seat, result in enumerate(results):
        if not result["prompted"]:
            continue
        player = state.players[seat]
        code = result["planted"]
        if isinstance(code, str):
            text = f"You planted {FLOWER_NAMES[code]} in pot {result['planted_pot']}."
        else:
            text = "Time ran out: nothing planted."
        data = dict(result, pots=pots_json(player))
        events.append(
            Event(to_seat(seat), "planted", data, f"{text} Garden: {garden_text(player)}.")
        )
    events.append(
        Event(
            MODERATORS,
            "planting_full",
            {"before_turn": before, "players": {SEAT_NAMES[s]: r for s, r in enumerate(results)}},
            "Planting: "
            + "; ".join(f"{SEAT_NAMES[s]} {r['planted'] or '-'}" for s, r in enumerate(results)),
        )
    )
    return events


# --- casting -----------------------------------------------------------------------------------


def cast_help(player: Player, opponent: Player, sent: str = "") -> str:
    text = f"Send one of your runes {player.symbols[0]}–{player.symbols[-1]} or a digit 0–7"
    if player.charge:
        text += f", or an opponent rune {opponent.symbols[0]}–{opponent.symbols[-1]} to declare"
    if has_other_numerals(sent):
        text += f" ({OTHER_NUMERALS})"
    return text + "."


@lru_cache(maxsize=1024)
def cast_choices(
    symbol_of: tuple[str, ...], opponent: str, stalled_last: bool, declare: bool
) -> tuple[Choice, ...]:
    """The buttons of a cast: own runes by identity (no second stall), then declarations."""
    runes = [
        Choice(symbol, f"{symbol} {i}", "rune")
        for i, symbol in enumerate(symbol_of)
        if not (i == 0 and stalled_last)
    ]
    declarations = [Choice(s, f"Declare {s}", "declare") for s in opponent] if declare else []
    return (*runes, *declarations)


X_EFFECTS = {1: "sunny", 2: "chilly", 3: "rainy"}


def x_text(turn: int) -> str:
    """What X means on ``turn``."""
    x = spell_x(turn)
    pots = "pot 1" if x == 1 else f"pots 1–{x}"
    return f"X is {x}: Water reaches {pots}, Fertilize pot {x}, Weather makes it {X_EFFECTS[x]}"


def completes(state: State, seat: int, identity: int) -> list[str]:
    """What casting own ``identity`` now would complete (basic spells and sabotage)."""
    from .effects import FERTILIZE, SABOTAGE_SHIFT, WATER, WEATHER, WINDOW_MODULUS

    if identity == 0:
        return []
    player = state.players[seat]
    effects = state.effects[seat][(player.window * 8 + identity) % WINDOW_MODULUS]
    done = [
        name
        for bit, name in ((WATER, "Water"), (FERTILIZE, "Fertilize"), (WEATHER, "Weather"))
        if effects & bit
    ]
    if effects >> SABOTAGE_SHIFT:
        done.append(f"sabotage of their pot {effects >> SABOTAGE_SHIFT}")
    return done


def charging_runes(state: State, seat: int, cost: int) -> list[int]:
    """The own identities whose cast now would earn the guess charge: the last ``cost - 1``
    casts are own runes all different, and this one differs from them."""
    player = state.players[seat]
    before = list(player.history[len(player.history) - (cost - 1) :]) if cost > 1 else []
    if len(before) < cost - 1 or any(isinstance(e, str) for e in before):
        return []
    if len(set(before)) < len(before):
        return []
    return [i for i in range(8) if i not in before and not (i == 0 and player.stalled_last)]


def cast_request(state: State, seat: int, timeout: float, revisable: bool) -> Request:
    from .engine import guess_cost, timeout_symbol

    player = state.players[seat]
    opponent = state.players[1 - seat]
    turn = state.turns_completed + 1
    dud = state.config["declaration_without_charge"] == "dud"
    choices = cast_choices(
        tuple(player.symbol_of), opponent.symbols, player.stalled_last, bool(player.charge) or dud
    )
    lines = [f"Turn {turn} ({x_text(turn)}): cast a rune."]
    spells = [
        f"{player.symbol_of[i]} ({i}): {', '.join(done)}"
        for i in range(1, 8)
        if (done := completes(state, seat, i))
    ]
    lines.append("Completes now: " + ("; ".join(spells) if spells else "nothing") + ".")
    lines.append(guessing_line(state, seat, guess_cost(player, state.config["guess_cost_mode"])))
    default = timeout_symbol(player)
    return Request(
        seat=seat,
        kind="cast",
        prompt="\n".join(lines),
        choices=choices,
        default=f"cast {default} ({player.identity[default]})",
        timeout_s=timeout,
        revisable=revisable,
        occasion=f"turn {turn}",
        presentation={"declare": "menu"},  # up to eight declarations: a menu beside the runes
        help=cast_help_text(state, seat),
    )


def guessing_line(state: State, seat: int, cost: int) -> str:
    """Where the seat stands with the guessing spell, in one line."""
    player, opponent = state.players[seat], state.players[1 - seat]
    if player.charge:
        previous = player.history[-1] if player.history else None
        return (
            f"You hold a guess charge: send an opponent rune {opponent.symbols[0]}–"
            f"{opponent.symbols[-1]} to claim its number is your last rune's "
            f"({_entry_text(player, previous)}); a point if right."
        )
    if player.blooms <= player.points:
        return "Guessing spell: no access yet (each bloom gives one)."
    earn = charging_runes(state, seat, cost)
    runes = ", ".join(f"{player.symbol_of[i]} ({i})" for i in earn)
    if earn:
        return f"Guessing spell: {runes} now earns the guess charge ({cost} different in a row)."
    return f"Guessing spell: cast {cost} different runes in a row for a guess charge."


def cast_help_text(state: State, seat: int) -> str:
    from .engine import guess_cost

    player, opponent = state.players[seat], state.players[1 - seat]
    turn = state.turns_completed + 1
    declare = (
        f", or one of your opponent's runes {opponent.symbols[0]}–{opponent.symbols[-1]} to "
        "declare (with a guess charge: you claim its number is your last rune's)"
    )
    history = " ".join(_entry_text(player, e) for e in player.history) or "none yet"
    lines = [
        f"Send one of your runes {player.symbols[0]}–{player.symbols[-1]} or its number "
        f"0–7{declare}. Your 0 is the stall: it does nothing and not twice in a row.",
        f"Your map: {map_text(player)}. Your last casts: {history}.",
        f"Garden: {garden_text(player)}.",
        f"Spellbook, turn {turn} ({x_text(turn)}):",
        *clip_lines(book_lines(state.config["spellbook"], seat), BOOK_CHARS),
        RUNS_NOTE,
        SABOTAGE_NOTE,
        f"Guessing spell: with more blooms ({player.blooms}) than points ({player.points}) and "
        f"no charge, {guess_cost(player, state.config['guess_cost_mode'])} different runes in "
        "a row (0 counts) give a charge. A wrong guess lowers that by 1; a right one is a point.",
    ]
    return "\n".join(lines)


def _entry_text(player: Player, entry: int | str | None) -> str:
    if entry is None:
        return "none"
    if isinstance(entry, str):
        return f"declared {entry}"
    return f"{player.symbol_of[entry]} = {entry}"


SPELL_TEXT: dict[str, Callable[[list[str]], str]] = {
    "STALL": lambda a: "Stall",
    "WATER": lambda a: f"Water pots 1–{a[0]}",
    "FERTILIZE": lambda a: f"Fertilize pot {a[0]}",
    "WEATHER": lambda a: f"Weather → {WEATHER_NAMES[int(a[0])].capitalize()}",
    "SABOTAGE": lambda a: f"Sabotage opponent pot {a[0]}",
    "GUESS": lambda a: "Guessing spell: you now hold a guess charge",
    "DECLARE": lambda a: f"Guess declaration {a[0]}: {a[1]}",
}


def spell_text(code: str) -> str:
    name, *args = code.split(":")
    return SPELL_TEXT[name](args)


def turn_events(
    state: State,
    turn: int,
    records: list[TurnRecord],
) -> list[Event]:
    report = turn % PHASE_TURNS == 0
    events = [
        Event.lazy(PUBLIC, "turn", _public_turn, state, turn, records),
        Event.lazy(SEATS[0], "turn_private", _private_turn, state, turn, 0, records[0], report),
        Event.lazy(SEATS[1], "turn_private", _private_turn, state, turn, 1, records[1], report),
        Event.lazy(MODERATORS, "turn_full", _moderator_turn, state, turn, records, report),
    ]
    if state.phase == "over":
        events += game_over_events(state)
    elif report:
        events += planting_open_events(state)
    return events


def _public_turn(state: State, turn: int, records: list[TurnRecord]) -> Rendered:
    casts = {SEAT_NAMES[s]: r.cast for s, r in enumerate(records)}
    lines = [f"Turn {turn}: P1 cast {records[0].cast}, P2 cast {records[1].cast}."]
    declarations = []
    for seat, record in enumerate(records):
        decl = record.declaration
        if decl is None:
            continue
        name, symbol = SEAT_NAMES[seat], decl["symbol"]
        if record.dud:
            declarations.append({"seat": name, "symbol": symbol, "correct": False, "dud": True})
            lines.append(f"{name} declared {symbol} without a charge: no effect.")
        elif decl["correct"]:
            # the translation is public (AMBIGUITY 25): the guessed symbol's identity
            identity = state.players[1 - seat].identity[symbol]
            declarations.append(
                {"seat": name, "symbol": symbol, "correct": True, "identity": identity}
            )
            lines.append(f"{name} declared {symbol}: correct, {symbol} = {identity}.")
        else:
            declarations.append({"seat": name, "symbol": symbol, "correct": False})
            lines.append(f"{name} declared {symbol}: incorrect.")
    points = [p.points for p in state.players]
    lines.append(f"Points: P1 {points[0]} – P2 {points[1]}.")
    data = {"turn": turn, "casts": casts, "declarations": declarations, "points": points}
    return data, " ".join(lines)


def _private_turn(state: State, turn: int, seat: int, record: TurnRecord, report: bool) -> Rendered:
    bloomed = record.bloomed
    player = state.players[seat]
    how = "Time ran out: you cast" if record.timeout else "You cast"
    shown = record.cast if record.identity is None else f"{record.cast} ({record.identity})"
    lines = [f"Turn {turn}: {how} {shown}."]
    if record.spells:
        lines.append("Spells: " + "; ".join(spell_text(s) for s in record.spells) + ".")
    lines.append(f"Garden: {garden_text(player, record.growth)}.")
    lines += [f"Pot {pot} bloomed, +1 access." for pot in bloomed]
    data: dict[str, Any] = {
        "turn": turn,
        "cast": record.cast,
        "identity": record.identity,
        "timeout": record.timeout,
        "spells": list(record.spells),
        "pots": pots_json(player),
        "bloomed_pots": bloomed,
        "blooms": player.blooms,
        "points": player.points,
        "charge": player.charge,
        "opponent_report": None,
    }
    if report:
        stages = opponent_report(state.players[1 - seat])
        per_pot = bool(state.config["opponent_report_shows_empty_pots"])
        if not per_pot:  # AMBIGUITY 23 (b): the flowers' stages in pot order, no pot labels
            stages = [stage for stage in stages if stage is not None]
        data["opponent_report"] = stages
        lines.append(f"Opponent's garden: {_report_text(stages, per_pot)}.")
    return data, " ".join(lines)


def opponent_report(player: Player) -> list[int | None]:
    return [None if f is None else f.stage for f in player.pots]


def _report_text(stages: list[int | None], per_pot: bool) -> str:
    if per_pot:
        return ", ".join(
            f"pot {i}: {'empty' if s is None else s}" for i, s in enumerate(stages, start=1)
        )
    return ", ".join(map(str, stages)) if stages else "no flowers"


def _moderator_turn(
    state: State,
    turn: int,
    records: list[TurnRecord],
    report: bool,
) -> Rendered:
    from .engine import garden_flags, guess_cost

    x, rainy = spell_x(turn), state.weather == RAINY

    data: dict[str, Any] = {"turn": turn, "weather": WEATHER_NAMES[state.weather]}
    for seat, record in enumerate(records):
        player = state.players[seat]
        flags = [
            None if flower is None and pot not in record.bloomed else pot_flags
            for pot, flower, pot_flags in zip(
                (1, 2, 3),
                player.pots,
                garden_flags(record, records[1 - seat], x, rainy),
                strict=True,
            )
        ]
        data[SEAT_NAMES[seat]] = {
            "cast": record.cast,
            "identity": record.identity,
            "timeout": record.timeout,
            "spells": list(record.spells),
            "pots": pots_json(player),
            "watered": [None if f is None else f[0] for f in flags],
            "fertilized": [None if f is None else f[1] for f in flags],
            "sabotaged": [None if f is None else f[2] for f in flags],
            "bloomed_pots": record.bloomed,
            "blooms": player.blooms,
            "points": player.points,
            "charge": player.charge,
            "wrong_since_correct": player.wrong_since_correct,
            "guess_cost": guess_cost(player, state.config["guess_cost_mode"]),
            "declaration": record.declaration,
            "opponent_report": opponent_report(state.players[1 - seat]) if report else None,
        }
    text = f"Turn {turn} (weather {data['weather']}): " + " | ".join(
        f"{name} {d['cast']}{'' if d['identity'] is None else '=' + str(d['identity'])} "
        f"[{', '.join(d['spells']) or '-'}] pots {d['pots']}"
        for name, d in ((n, data[n]) for n in SEAT_NAMES)
    )
    return data, text


# --- the end -----------------------------------------------------------------------------------


def outcome_detail(state: State) -> str:
    winner = state.winner
    name = SEAT_NAMES[winner] if winner is not None else "nobody"
    return f"{name} wins ({state.end_reason})."


def game_over_events(state: State) -> list[Event]:
    points = [p.points for p in state.players]
    maps = {SEAT_NAMES[s]: dict(p.identity) for s, p in enumerate(state.players)}
    text = (
        f"Game over after turn {state.turns_completed}: {outcome_detail(state)} "
        f"Points: P1 {points[0]} – P2 {points[1]}. "
        f"Maps: P1 {map_text(state.players[0])} | P2 {map_text(state.players[1])}."
    )
    data = {
        "winner": SEAT_NAMES[state.winner] if state.winner is not None else None,
        "reason": state.end_reason,
        "turn": state.turns_completed,
        "points": points,
        "maps": maps,
    }
    return [Event(PUBLIC, "game_over", data, text)]


# --- views -------------------------------------------------------------------------------------


def view(state: State, seat: int | None) -> JSON:
    """The public view, or a seat's: its own map and garden, never the opponent's secrets."""
    from .engine import guess_cost

    public: dict[str, Any] = {
        "turn": state.turns_completed,
        "phase": state.phase,
        "advantage": SEAT_NAMES[state.advantage],
        "alphabets": {SEAT_NAMES[s]: p.symbols for s, p in enumerate(state.players)},
        "points": {SEAT_NAMES[s]: p.points for s, p in enumerate(state.players)},
        "found": {
            SEAT_NAMES[s]: [list(pair) for pair in p.correct_pairs]
            for s, p in enumerate(state.players)
        },
        "spellbook": state.config["spellbook"],
        "winner": None if state.winner is None else SEAT_NAMES[state.winner],
        "end_reason": state.end_reason,
    }
    if seat is None:
        return public
    player = state.players[seat]
    public.update(
        seat=SEAT_NAMES[seat],
        symbols=player.symbols,
        map=dict(player.identity),
        pots=[
            None
            if f is None
            else {"flower": f.code, "stage": f.stage, "bloom_at": BLOOM_AT[f.code]}
            for f in player.pots
        ],
        planted=player.planted,
        blooms=player.blooms,
        charge=player.charge,
        wrong_since_correct=player.wrong_since_correct,
        guess_cost=guess_cost(player, state.config["guess_cost_mode"]),
        history=[e if isinstance(e, str) else player.symbol_of[e] for e in player.history],
        garden=garden_text(player),
    )
    return public


def describe(state: State, seat: int | None) -> str:
    """The view as plain text: the public side, plus the seat's own secrets."""
    from .engine import guess_cost

    if state.phase == "over":
        lines = [f"Over after turn {state.turns_completed}: {outcome_detail(state)}"]
    elif state.phase == "plant":
        lines = [f"Planting before turn {state.turns_completed + 1}."]
    else:
        lines = [f"Turn {state.turns_completed + 1} ({x_text(state.turns_completed + 1)})."]
    points = [p.points for p in state.players]
    lines.append(f"Points: P1 {points[0]} – P2 {points[1]}.")
    for s, p in enumerate(state.players):
        if p.correct_pairs:
            found = " ".join(f"{sym}={ident}" for sym, ident in p.correct_pairs)
            lines.append(f"{SEAT_NAMES[s]} has found {found}.")
    if seat is None:
        book = clip_lines(book_lines(state.config["spellbook"]), BOOK_CHARS)
        return "\n".join([*lines, "Spellbook:", *book])
    player = state.players[seat]
    lines += [
        f"You are {SEAT_NAMES[seat]}. Your rune map: {map_text(player)}.",
        f"Garden: {garden_text(player)}.",
        f"Blooms {player.blooms} · guess charge: {'yes' if player.charge else 'no'} · "
        f"guessing spell: {guess_cost(player, state.config['guess_cost_mode'])} different runes.",
    ]
    if player.history:
        lines.append("Your last casts: " + " ".join(_entry_text(player, e) for e in player.history))
    book = clip_lines(book_lines(state.config["spellbook"], seat), BOOK_CHARS)
    lines += ["Your spellbook:", *book, SABOTAGE_NOTE]
    return "\n".join(lines)


# --- secrets -----------------------------------------------------------------------------------


def secrets(state: State, seat: int) -> list[Secret]:
    """The seat's rune map (each pair its opponent has not found, until the end shows the
    maps) and its garden (which flower grows where), in every form this module renders them."""
    player, opponent = state.players[seat], state.players[1 - seat]
    found = {symbol for symbol, _ in opponent.correct_pairs}
    pairs = [] if state.phase == "over" else [s for s in player.symbols if s not in found]
    found_secrets = [_rune_secret(symbol, player.identity[symbol]) for symbol in pairs]
    garden = [
        Secret((f"pot {pot}: {FLOWER_NAMES[f.code]}",), ({"flower": f.code, "stage": f.stage},))
        for pot, f in enumerate(player.pots, start=1)
        if f is not None
    ]
    return found_secrets + garden


def _rune_secret(symbol: str, identity: int) -> Secret:
    # map_text, the private turn report, a rune button, a history entry
    texts = (f"{symbol}={identity}", f"{symbol} ({identity})", f"{symbol} {identity}")
    return Secret(
        (*texts, f"{symbol} = {identity}"),
        ({symbol: identity}, {"cast": symbol, "identity": identity}),
    )


# --- the match's reference (``/cards``) ----------------------------------------------------------


def fixed_spells(config: dict[str, JSON]) -> str:
    """The spells every book has: the stall, sabotage, the guessing spell, declarations."""
    cost = (
        "K is 6 minus your points minus your wrong guesses since your last right one, at least 1."
        if config["guess_cost_mode"] == "formula"
        else "K is 6 before your first point, 5 after, minus your wrong guesses since your "
        "last right one, at least 1."
    )
    return (
        "Stall: your 0. It does nothing, is skipped by the spells above and by sabotage, and "
        "cannot be cast twice in a row.\n"
        f"{SABOTAGE_NOTE} The pairs: 1+7, 2+6, 3+5, 4+4 (pot 1); 3+7, 4+6, 5+5 (pot 2); 5+7, "
        "6+6 (pot 3). Your opponent is never told.\n"
        "Guessing spell: while you have more blooms than points and hold no charge, K "
        "different runes in a row (your 0 counts, a declaration breaks the run) give a guess "
        f"charge. {cost}\n"
        "Declaration: with the charge, cast one of your opponent's runes: you claim its "
        "number is that of the rune you cast just before. Right: a point, and everyone sees "
        "the pair. Wrong (a pair already found counts as wrong): K drops by 1. Four points win."
    )


WEATHER_TEXT = (
    "The weather is shared by both gardens and never told: only what your flowers do shows "
    "it. Only a Weather spell changes it, to the turn's X, and it holds until the next one.\n"
    "Sunny (X is 1): nothing special; a Hyacinth grows +2.\n"
    "Chilly (X is 2): Azalea and Wisteria do not grow, a Hyacinth loses 1.\n"
    "Rainy (X is 3): every flower of both players is watered (not a sabotaged one); a Hyacinth "
    "stays, and an Azalea watered two turns running stops growing."
)


def reference(state: State) -> list[Topic]:
    """The match's content by name: its spellbook (each spell with its condition and effect),
    the spells every book has, the flowers, the weather and the rules in force. Public."""
    books = per_seat_books(state.config["spellbook"])
    shared = not is_per_seat(state.config["spellbook"])
    topics = []
    for seat, book in enumerate(books[:1] if shared else books):
        title = "Spellbook" if shared else f"{SEAT_NAMES[seat]}'s spellbook"
        lines = [
            "X is each turn's place in 1, 2, 3, 1, 2, 3… (turn 4: X is 1 again).",
            *spell_lines(book),
            RUNS_NOTE,
        ]
        topics += topics_of(title, lines)
    start = state.config["initial_weather"]
    weather = WEATHER_TEXT + (
        "\nThis match started with a random weather."
        if start == "random"
        else f"\nThis match started {start}."
    )
    flowers = [f"{FLOWER_NAMES[code]} ({code}): {FLOWER_NEEDS[code]}." for code in FLOWERS]
    flowers.append("A bloom leaves its pot and gives one access to the guessing spell.")
    return [
        *topics,
        Topic("Stall, sabotage and guessing", fixed_spells(state.config)),
        Topic("Flowers", "\n".join(flowers)),
        Topic("Weather", weather),
        Topic("Rules in force", rules_text(state.config)),
    ]


def topics_of(title: str, lines: list[str]) -> list[Topic]:
    """``lines`` as topics of at most TOPIC_CHARS characters, cut between lines."""
    topics: list[Topic] = []
    page: list[str] = []
    for line in lines:
        line = line[:TOPIC_CHARS]
        if page and len("\n".join([*page, line])) > TOPIC_CHARS:
            topics.append(Topic(title if not topics else f"{title} (more)", "\n".join(page)))
            page = []
        page.append(line)
    topics.append(Topic(title if not topics else f"{title} (more)", "\n".join(page)))
    return topics
