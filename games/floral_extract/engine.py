"""The Floral Extract engine: the rules of ``rules/floral-extract.md`` behind the game protocol.

A match alternates planting phases (one request per eligible seat) and five-turn casting phases
(one request per seat). Every turn resolves in the normative order of rules §7: fix casts,
spells, weather, garden flags, growth, blooming, win check, notifications.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from games.protocol import (
    JSON,
    Accepted,
    ConfigError,
    Event,
    Move,
    Outcome,
    Refused,
    Request,
    Secret,
    Setup,
    Verdict,
    derive_rng,
)
from games.text import OTHER_NUMERALS, excerpt, has_other_numerals, read_number

from . import books, render
from .config import PRESET_KEY, parse_config
from .effects import FERTILIZE, SABOTAGE_SHIFT, WATER, WEATHER
from .rules import (
    BLOOM_AT,
    FLOWER_NAMES,
    FLOWERS,
    GROWTH,
    PHASE_TURNS,
    RAINY,
    SEAT_NAMES,
    WEATHER_BY_NAME,
    WIN_POINTS,
    Flower,
    spell_x,
)
from .spellbook import parse_spellbook
from .state import Player, State, alphabets, check_map


def guess_cost(player: Player, mode: str) -> int:
    """Length of the next guessing window (the amendment; AMBIGUITY 15)."""
    if mode == "formula":
        return max(1, 6 - player.points - player.wrong_since_correct)
    return max(1, (6 if player.points == 0 else 5) - player.wrong_since_correct)


def timeout_symbol(player: Player) -> str:
    """Cast 0 if you are able to, otherwise 1 (V1 forbids a second stall in a row)."""
    return player.symbol_of[1 if player.stalled_last else 0]


def points_after(player: Player, turn: int) -> int:
    return sum(1 for t in player.score_turns if t <= turn)


Flags = tuple[bool, bool, bool]
"""A pot's final (watered, fertilized, sabotaged) of one turn."""


class TurnRecord:
    """What happened to one seat on one turn: the full, moderator-level truth."""

    __slots__ = (
        "bloomed",
        "cast",
        "declaration",
        "dud",
        "fertilize",
        "growth",
        "identity",
        "sabotage",
        "spells",
        "timeout",
        "water",
        "weather",
    )

    def __init__(self, cast: str, identity: int | None, timeout: bool) -> None:
        self.cast = cast
        self.identity = identity  # None for a declaration
        self.timeout = timeout
        self.spells: list[str] = []  # in trace order: STALL, WATER, ..., DECLARE
        self.water = self.fertilize = self.weather = False
        self.sabotage = 0  # the opponent pot hit, 0 for none
        self.declaration: dict[str, JSON] | None = None  # {"symbol", "correct"}, as in traces
        self.dud = False  # a chargeless declaration (declaration_without_charge = dud)
        self.bloomed: list[int] = []  # own pots whose flower bloomed at the end of the turn
        self.growth: dict[int, int] = {}  # own pot -> its flower's change of stage this turn


def garden_flags(own: TurnRecord, other: TurnRecord, x: int, rainy: bool) -> tuple[Flags, ...]:
    """Step 4 of §7: each pot's final flags; the opponent's sabotage cancels water and feed."""
    return _garden_flags(own.water, own.fertilize, other.sabotage, x, rainy)


@cache  # 96 combinations in all
def _garden_flags(
    water: bool, fertilize: bool, sabotage: int, x: int, rainy: bool
) -> tuple[Flags, ...]:
    return tuple(
        (False, False, True)
        if pot == sabotage
        else (rainy or (water and pot <= x), fertilize and pot == x, False)
        for pot in (1, 2, 3)
    )


class FloralExtract:
    """Floral Extract for two seats (seat 0 is P1, seat 1 is P2)."""

    name = "floral-extract"
    title = "Floral Extract"
    min_seats = 2
    max_seats = 2

    # --- setup -----------------------------------------------------------------------------

    def parse_config(self, raw: Mapping[str, JSON], seats: int = 2) -> dict[str, JSON]:
        if seats != 2:
            raise ConfigError("players", f"Floral Extract is for exactly 2 players, got {seats}")
        return parse_config(raw)

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        config = self.parse_config(setup.config, setup.seats)
        config.pop(PRESET_KEY, None)  # for display only: the state is as it was before the note
        config["spellbook"] = resolve_spellbook(config["spellbook"], setup.seed)
        advantage = SEAT_NAMES.index(config["advantage"])
        symbols = alphabets(advantage)
        config["maps"] = resolve_maps(config.get("maps"), symbols, setup.seed)
        weather = config["initial_weather"]
        if weather == "random":
            weather = derive_rng(setup.seed, "weather").choice(["sunny", "chilly", "rainy"])
        players = [
            Player(symbols[seat], dict(config["maps"][SEAT_NAMES[seat]])) for seat in range(2)
        ]
        state = State(config=config, players=players, weather=WEATHER_BY_NAME[weather])
        return state, render.start_events(state) + render.planting_open_events(state)

    # --- requests and submissions ----------------------------------------------------------

    def requests(self, state: State) -> list[Request]:
        timeout = float(state.config["submission_timeout_s"])
        revisable = bool(state.config["allow_resubmit_after_valid"])
        if state.phase == "plant":
            return [
                render.plant_request(state, seat, timeout, revisable)
                for seat, player in enumerate(state.players)
                if player.can_plant
            ]
        if state.phase == "cast":
            return [render.cast_request(state, seat, timeout, revisable) for seat in range(2)]
        return []

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        if state.phase == "over":
            return Refused("The match is over.")
        if not 0 <= seat < 2:
            return Refused("You are not a player in this match.")
        text = raw.strip() if isinstance(raw, str) else ""
        if text.isascii():  # one reading: "ſ" and "ı" upper-case to S and I but are not runes
            text = text.upper()
        if state.phase == "plant":
            return self._check_plant(state.players[seat], text, state.turns_completed + 1)
        return self._check_cast(state, seat, text)

    def _check_plant(self, player: Player, code: str, before_turn: int) -> Verdict:
        if not player.can_plant:
            return Refused("You have nothing to plant in this planting phase.")
        if len(code) != 1 or code not in FLOWERS:
            hint = f" ({OTHER_NUMERALS})" if has_other_numerals(code) else ""
            return Refused(f"Send one flower letter: A, C, H, W or X{hint}.")
        if code in player.planted:
            return Refused(
                f"You have already planted {FLOWER_NAMES[code]}; each type only once. "
                f"Still available: {', '.join(c for c in FLOWERS if c not in player.planted)}."
            )
        pot = player.pots.index(None) + 1
        return Accepted(code, f"Plant {FLOWER_NAMES[code]} in pot {pot}")

    def _check_cast(self, state: State, seat: int, text: str) -> Verdict:
        player = state.players[seat]
        opponent = state.players[1 - seat]
        if len(text) != 1 or not text.isascii():  # one reading: ASCII runes and digits only
            return Refused(render.cast_help(player, opponent, text))
        number = read_number(text)
        if number is not None and number <= 7:
            text = player.symbol_of[number]
        if text in player.identity:
            ident = player.identity[text]
            if ident == 0 and player.stalled_last:
                return Refused(
                    f"You can't stall twice in a row: your last cast was {text} (0). "
                    "Cast another rune."
                )
            return Accepted(text, f"Cast {text} ({ident})")
        if text in opponent.identity:
            if player.charge == 0:
                if state.config["declaration_without_charge"] == "reject":
                    return Refused(
                        f"You hold no guess charge, so you can't declare {text} yet. "
                        "Cast one of your own runes."
                    )
                return Accepted(text, f"Declare {text} (no charge: a dud)")
            return Accepted(text, f"Declare {text}")
        return Refused(render.cast_help(player, opponent, text))

    # --- resolution ------------------------------------------------------------------------

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        if state.phase == "over":
            raise ValueError("the match is over")
        state = clone(state)
        if state.phase == "plant":
            return state, self._plant(state, moves)
        return state, self._turn(state, moves)

    def _plant(self, state: State, moves: Mapping[int, Move | None]) -> list[Event]:
        results: list[dict[str, JSON]] = []
        for seat, player in enumerate(state.players):
            result: dict[str, JSON] = {"prompted": player.can_plant, "planted": None}
            code = moves.get(seat)
            if code is not None:
                if not (player.can_plant and isinstance(code, str) and len(code) == 1):
                    raise ValueError(f"seat {seat}: {excerpt(code)} is not a planting move now")
                if code not in FLOWERS or code in player.planted:
                    raise ValueError(f"seat {seat} cannot plant {excerpt(code)}")
                pot = player.pots.index(None)
                player.pots[pot] = Flower(code)
                player.planted += code
                result.update(planted=code, planted_pot=pot + 1)
            results.append(result)
        state.phase = "cast"
        return render.planting_events(state, results)

    def _turn(self, state: State, moves: Mapping[int, Move | None]) -> list[Event]:
        turn = state.turns_completed + 1
        x = spell_x(turn)
        records = [self._fix_cast(state, 0, moves.get(0)), self._fix_cast(state, 1, moves.get(1))]
        self._cast(state, 0, records[0], turn, x)
        self._cast(state, 1, records[1], turn, x)
        if records[0].weather or records[1].weather:
            state.weather = x
        self._garden(state, 0, records, x)
        self._garden(state, 1, records, x)
        state.turns_completed = turn
        self._check_end(state, turn)
        if state.phase != "over" and turn % PHASE_TURNS == 0:
            state.phase = "plant" if any(p.can_plant for p in state.players) else "cast"
        return render.turn_events(state, turn, records)

    def _fix_cast(self, state: State, seat: int, move: Move | None) -> TurnRecord:
        """Step 1 of §7: the seat's valid move, or the timeout default."""
        player = state.players[seat]
        if move is None:
            symbol = timeout_symbol(player)
            return TurnRecord(symbol, player.identity[symbol], timeout=True)
        identity = player.identity.get(move)
        if identity is not None:
            if not (identity == 0 and player.stalled_last):
                return TurnRecord(move, identity, timeout=False)
        elif move in state.players[1 - seat].identity and (
            player.charge or state.config["declaration_without_charge"] == "dud"
        ):
            return TurnRecord(move, None, timeout=False)
        raise ValueError(f"seat {seat}: {excerpt(move)} is not a legal cast now")

    def _cast(self, state: State, seat: int, record: TurnRecord, turn: int, x: int) -> None:
        """Step 2 of §7 for one seat: append the cast and evaluate its spells."""
        player = state.players[seat]
        r = record.identity
        if r is None:
            self._declare(state, seat, record, turn)
            return
        if r == 0:
            record.spells.append("STALL")
        else:
            self._basic_spells(state, seat, record, r, x)
        player.push_history(r)
        if not player.charge and player.blooms > player.points:
            self._guessing_spell(state, player, record)

    def _basic_spells(self, state: State, seat: int, record: TurnRecord, r: int, x: int) -> None:
        """§6.1 and §6.3: one lookup of the new window gives every spell the rune completes."""
        player = state.players[seat]
        player.push_rune(r)
        effects = state.effects[seat][player.window]
        if not effects:
            return
        spells = record.spells
        if effects & WATER:
            record.water = True
            spells.append(f"WATER:{x}")
        if effects & FERTILIZE:
            record.fertilize = True
            spells.append(f"FERTILIZE:{x}")
        if effects & WEATHER:
            record.weather = True
            spells.append(f"WEATHER:{x}")
        pot = effects >> SABOTAGE_SHIFT
        if pot:
            record.sabotage = pot
            spells.append(f"SABOTAGE:{pot}")

    def _guessing_spell(self, state: State, player: Player, record: TurnRecord) -> None:
        """§6.4: the last ``cost`` casts, stalls included, are own runes, pairwise distinct."""
        cost = guess_cost(player, state.config["guess_cost_mode"])
        window = player.history[-cost:]
        # distinct entries first (cheap); then none of them may be a declaration
        if (
            len(window) == cost
            and len(set(window)) == cost
            and not any(isinstance(e, str) for e in window)
        ):
            player.charge = 1
            record.spells.append("GUESS")

    def _declare(self, state: State, seat: int, record: TurnRecord, turn: int) -> None:
        """§6.5: a guess that the previous cast's identity is that of the declared symbol."""
        player = state.players[seat]
        symbol = record.cast
        previous = player.history[-1] if player.history else None
        player.push_history(symbol)
        player.window = 0  # a declaration breaks every window (AMBIGUITY 13)
        if player.charge == 0:  # only reachable with declaration_without_charge = dud
            record.spells.append(f"DECLARE:{symbol}:dud")
            record.declaration = {"symbol": symbol, "correct": False}
            record.dud = True
            return
        player.charge = 0
        secret = state.players[1 - seat].identity[symbol]
        if (
            isinstance(previous, int)
            and secret == previous
            and (symbol, previous) not in player.correct_pairs
        ):
            player.points += 1
            player.wrong_since_correct = 0
            player.correct_pairs += ((symbol, previous),)
            player.score_turns += (turn,)
            record.spells.append(f"DECLARE:{symbol}:correct")
            record.declaration = {"symbol": symbol, "correct": True}
        else:
            player.wrong_since_correct += 1
            record.spells.append(f"DECLARE:{symbol}:incorrect")
            record.declaration = {"symbol": symbol, "correct": False}

    def _garden(self, state: State, seat: int, records: list[TurnRecord], x: int) -> None:
        """Steps 4-6 of §7 for one seat: the pots' final flags, growth, then blooms."""
        own, other = records[seat], records[1 - seat]
        player = state.players[seat]
        weather = state.weather
        rainy = weather == RAINY
        sliding = state.config["azalea_shrink_mode"] == "sliding"
        flags = garden_flags(own, other, x, rainy)
        for index, flower in enumerate(player.pots):
            if flower is None:
                continue
            watered, fertilized, _ = flags[index]
            before = flower.stage
            GROWTH[flower.code](flower, weather, watered, fertilized, sliding)
            own.growth[index + 1] = flower.stage - before
            if flower.stage >= BLOOM_AT[flower.code]:
                player.pots[index] = None
                player.blooms += 1
                own.bloomed.append(index + 1)

    # --- the end ---------------------------------------------------------------------------

    def _check_end(self, state: State, turn: int) -> None:
        """Step 7 of §7, then the host's ``max_turns`` limit (§11.4)."""
        first, second = state.players
        limit = state.config["max_turns"]
        if first.points >= WIN_POINTS and second.points >= WIN_POINTS:
            winner, how = back_in_time(state, turn - 1)
            _finish(state, winner, f"4 points, {how}")
        elif first.points >= WIN_POINTS or second.points >= WIN_POINTS:
            _finish(state, 0 if first.points >= WIN_POINTS else 1, "4 points")
        elif limit is not None and turn >= limit:
            winner, how = host_end_winner(state, turn)
            _finish(state, winner, f"turn limit, {how}")

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        if state.phase == "over":
            return state, []
        state = clone(state)
        winner, how = host_end_winner(state, state.turns_completed)
        _finish(state, winner, f"{reason}, {how}")
        return state, render.game_over_events(state)

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """Two seats: whoever leaves forfeits, and the other wins at once."""
        if state.phase == "over":
            raise ValueError("the match is over")
        if seat not in (0, 1):
            raise ValueError(f"there is no seat {seat}")
        state = clone(state)
        _finish(state, 1 - seat, f"{SEAT_NAMES[seat]} left")
        return state, render.game_over_events(state)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over" or state.winner is None:
            return None
        return Outcome((state.winner,), state.end_reason or "", render.outcome_detail(state))

    # --- views and storage -----------------------------------------------------------------

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


def _finish(state: State, winner: int, reason: str) -> None:
    state.phase = "over"
    state.winner = winner
    state.end_reason = reason


def back_in_time(state: State, turn: int) -> tuple[int, str]:
    """§11.2: the first earlier snapshot where one seat had more points, else the advantage."""
    first, second = state.players
    for t in range(turn, -1, -1):
        a, b = points_after(first, t), points_after(second, t)
        if a != b:
            return (0 if a > b else 1), f"tie-break (ahead after turn {t})"
    return state.advantage, "tie-break (advantage)"


def host_end_winner(state: State, turn: int) -> tuple[int, str]:
    """§11.4: more points, then back in time from the current turn, then the advantage."""
    a, b = (p.points for p in state.players)
    if a != b:
        return (0 if a > b else 1), "more points"
    return back_in_time(state, turn)


def clone(state: State) -> State:
    """A deep copy: the engine never changes a state it has returned."""
    return state.copy()


def resolve_spellbook(raw: JSON, seed: int) -> JSON:
    """The concrete spellbook JSON for a config value: a book, per-seat books, text, a preset
    name, or ``random``."""
    if isinstance(raw, str):
        return books.resolve_text(raw, derive_rng(seed, "spellbook")).to_json()
    if books.is_per_seat(raw):
        return {name: _seat_book(raw[name], seed, seat) for seat, name in enumerate(SEAT_NAMES)}
    parse_spellbook(raw, "spellbook")
    return raw


def _seat_book(raw: JSON, seed: int, seat: int) -> JSON:
    """One seat's concrete book: its value takes what a shared one does, but per-player text
    (AMBIGUITY 20; a seat's ``random`` book is its own draw from the match seed)."""
    field = f"spellbook.{SEAT_NAMES[seat]}"
    if not isinstance(raw, str):
        parse_spellbook(raw, field)
        return raw
    book = books.resolve_text(raw, derive_rng(seed, "spellbook", seat), field)
    if isinstance(book, books.SeatBooks):
        raise ConfigError(field, "is one player's book: write it without P1: and P2:")
    return book.to_json()


def resolve_maps(raw: JSON, symbols: list[str], seed: int) -> dict[str, dict[str, int]]:
    """Given maps are checked; otherwise each seat gets a uniformly random bijection."""
    if raw is not None:
        if not isinstance(raw, dict):
            raise ConfigError("maps", "must give a map for P1 and P2")
        return {
            name: check_map(raw.get(name), symbols[seat], f"maps.{name}")
            for seat, name in enumerate(SEAT_NAMES)
        }
    maps = {}
    for seat, name in enumerate(SEAT_NAMES):
        identities = list(range(8))
        derive_rng(seed, "maps", seat).shuffle(identities)
        maps[name] = dict(zip(symbols[seat], identities, strict=True))
    return maps
