"""Nothing anyone sends crashes a game: every game's submit, config, options text and script
reader, fuzzed over all of Unicode and huge, deeply nested and wrongly typed JSON.

The contract: ``submit`` answers Accepted or Refused and changes nothing; config and script
readers return or raise ConfigError (never another exception); every message stays short.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from games import registry
from games.floral_extract import books
from games.floral_extract.config import parse_rules_text
from games.floral_extract.spellbook import parse_spellbook
from games.protocol import Accepted, ConfigError, Refused, Setup
from games.text import EXCERPT_CHARS
from games.warlocks_brew.options import parse_variants
from tests.games import cases

DATA = Path(__file__).parents[1] / "data"
FLORAL_EXAMPLES = json.loads((DATA / "floral-extract-examples.json").read_text())["examples"]
BREW_SCENARIOS = json.loads((DATA / "warlocks-brew" / "scenarios.json").read_text())
GAMES = registry.names()
SCRIPTS = {
    "floral-extract": FLORAL_EXAMPLES,
    "warlocks-brew": [scenario["script"] for scenario in BREW_SCENARIOS],
}
SCRIPTS |= {name: cases.example_scripts(name) for name in GAMES if name not in SCRIPTS}
# A refusal or error may explain at length, but never grows with the input.
MAX_MESSAGE = 400

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


class Deep(list[Any]):
    """A deeply nested list that hypothesis can still print when a test fails."""

    def __repr__(self) -> str:
        return "Deep()"


class Huge(int):
    """A 5,000-digit number that hypothesis can print; ``str`` still fails like any such int."""

    __str__ = int.__repr__

    def __repr__(self) -> str:
        return "Huge(10**5000)"


# far past any length a game accepts, and small enough that a few joined stay cheap
HUGE_TEXT = "x" * 200_000
ODD_DIGITS = ["³", "²", "①", "₅", "❸", "፫", "٣", "３", "༣", "𝟑"]
ODD_TEXTS = [
    *ODD_DIGITS,
    "TIMEOUT",
    "9" * 5000,
    HUGE_TEXT,
    "\ud800",
    "\x00",
    "ı",
    "ſ",
    "ß",
    "=",
    ":",
    "{",
]
# Any character at all, surrogates included.
# Drawn by index through a named function: hypothesis describes a bound method by its object's
# whole repr (hundreds of kB here, built once a process, with a warning).


def odd_text(index: int) -> str:
    return ODD_TEXTS[index]


ODD_TEXT = st.sampled_from(range(len(ODD_TEXTS))).map(odd_text)
TEXT = st.one_of(
    st.text(st.characters(exclude_categories=())),
    ODD_TEXT,
    st.lists(ODD_TEXT, max_size=3).map("".join),
)
ODD_VALUES = [
    Deep(nested(20_000)),  # twenty times Python's recursion limit
    {"a": Deep(nested(10_000))},
    Huge(10**5000),
    -(10**40),
    float("nan"),
    float("inf"),
    HUGE_TEXT,
    int("7" * 400),  # issue 18: quoted whole in a refusal
    [f"card_{k:02d}_{'q' * 40}" for k in range(12)],  # long ids, quoted whole in one
    list(range(20_000)),
    {str(i): i for i in range(10_000)},
]


def odd_value(index: int) -> Any:
    return ODD_VALUES[index]


# Drawn by index, so hypothesis never renders a megabyte in a strategy's description.
ODD = st.sampled_from(range(len(ODD_VALUES))).map(odd_value)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT, ODD)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def check_short(message: str) -> None:
    """A message is short and quotes at most ``EXCERPT_CHARS`` of any long input above."""
    assert message and len(message) <= MAX_MESSAGE, message[:200]
    for run in ("x", "7", "9", "q"):
        assert run * (EXCERPT_CHARS + 1) not in message, message[:200]


def survives(function: Any, *args: Any) -> Any:
    """Call ``function``: any failure must be a short ConfigError naming a field."""
    try:
        return function(*args)
    except ConfigError as error:
        assert error.field
        check_short(str(error))
        return None


# --- the script readers ---------------------------------------------------------------------


@st.composite
def mutated(draw: st.DrawFn, game: str) -> Any:
    """One of the game's scripts with one node, at any depth, replaced by junk or removed."""
    scripts = SCRIPTS[game]
    script = copy.deepcopy(scripts[draw(st.integers(0, len(scripts) - 1))])
    node = script
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, dict | list) and child and draw(st.booleans()):
            node = child
            continue
        if isinstance(node, dict) and draw(st.integers(0, 5)) == 0:
            del node[key]
        else:
            node[key] = draw(JSONISH)
        break
    return script


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.filterwarnings("ignore:Generating overly large repr")  # a drawn megabyte of junk
@FUZZ
@given(data=st.data())
def test_a_malformed_script_is_a_config_error(game: str, data: st.DataObject) -> None:
    run_script = registry.get(game).run_script
    survives(run_script, data.draw(mutated(game)))


# This test and the two config tests below draw each input once and give it to every game:
# drawing the junk was most of their cost, and each game still reads FUZZ's 150 inputs, as when
# each game drew its own. A failure's notes name the game.


@FUZZ
@given(script=JSONISH)
def test_any_json_at_all_is_a_config_error(script: Any) -> None:
    for game in GAMES:
        note(f"game: {game}")
        survives(registry.get(game).run_script, script)


KNOWN_SHAPES = [
    ("floral-extract", "format", []),
    ("floral-extract", "spellbook.water.type", {}),
    ("floral-extract", "spellbook.water.set", {"a": 1}),
    ("floral-extract", "preset.weather", []),
    ("floral-extract", "preset.players.P1.history", 5),
    ("floral-extract", "preset.players.P1.history", [[]]),
    ("floral-extract", "preset.players.P1.planted", [[]]),
    ("floral-extract", "preset.players.P1.correct_pairs", [[[], 1]]),
    ("floral-extract", "preset.players.P1.pots", [":3", None, None]),
    ("floral-extract", "preset.players.P1.pots", ["C:³", None, None]),
    ("floral-extract", "preset.players.P1.score_turns", [[]]),
    ("floral-extract", "maps.P1.A", 10**5000),
    ("floral-extract", "spellbook", "water: sum 3 " + "9" * 5000 + "-1"),
    ("floral-extract", "spellbook", "water: set " + "9" * 5000 + " {1,2,3}"),
    ("floral-extract", "config", {"max_turns": nested(100_000)}),
    ("warlocks-brew", "players", [[]]),
    ("warlocks-brew", "deck", [{}]),
    ("warlocks-brew", "config.window", 10**5000),
    ("warlocks-brew", "variants.small_selection", [[]]),
    ("warlocks-brew", "steps", [{"bids": {"A": [{}]}}]),
]


def replaced(script: Any, path: str, value: Any) -> Any:
    script = copy.deepcopy(script)
    *parents, last = path.split(".")
    node = script
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    return script


@pytest.mark.parametrize(
    ("game", "path", "value"), KNOWN_SHAPES, ids=[f"{g}:{p}" for g, p, _ in KNOWN_SHAPES]
)
def test_shapes_that_gave_tracebacks_name_their_field(game: str, path: str, value: Any) -> None:
    base = FLORAL_EXAMPLES[4] if game == "floral-extract" else SCRIPTS[game][0]
    with pytest.raises(ConfigError) as caught:
        registry.get(game).run_script(replaced(base, path, value))
    check_short(str(caught.value))
    assert re.split(r"[.\[]", caught.value.field)[0] in (path.split(".")[0], "script")


# --- config and options text ----------------------------------------------------------------


@FUZZ
@given(raw=st.dictionaries(TEXT | st.sampled_from(["window", "types", "max_turns"]), JSONISH))
def test_any_config_is_accepted_or_refused_naming_the_field(raw: Any) -> None:
    for game in GAMES:
        note(f"game: {game}")
        info = registry.get(game)
        seats = info.game.min_seats
        config = survives(info.game.parse_config, raw, seats)
        if config is not None:  # a fixed book unless the raw one gives one: random books are slow
            setup = Setup({**QUICK_SETUP.get(game, {}), **raw}, seats, 1)
            survives(info.game.new_match, setup)


@FUZZ
@given(raw=JSONISH)
def test_a_config_of_the_wrong_type_is_refused(raw: Any) -> None:
    for game in GAMES:
        note(f"game: {game}")
        info = registry.get(game)
        survives(info.game.parse_config, raw, info.game.min_seats)


QUICK_SETUP = {"floral-extract": {"spellbook": "classic"}}
FLORAL_OPTIONS = st.sampled_from(
    ["max_turns", "initial_weather", "allow_resubmit_after_valid", "colour"]
)


@FUZZ
@given(
    pairs=st.lists(st.tuples(FLORAL_OPTIONS | TEXT, TEXT), max_size=4),
    text=TEXT,
)
def test_floral_rules_text_is_read_or_refused(pairs: list[tuple[str, str]], text: str) -> None:
    for line in (text, ", ".join(f"{key}={value}" for key, value in pairs)):
        rules = survives(parse_rules_text, line)
        if rules is not None:
            survives(registry.get("floral-extract").game.parse_config, rules, 2)


BREW_OPTIONS = st.sampled_from(
    ["limited_supply", "small_selection", "broke_buyers", "no_unique", "window", "deals", "x"]
)


@FUZZ
@given(
    pairs=st.lists(st.tuples(BREW_OPTIONS | TEXT, st.none() | TEXT), max_size=4),
    text=TEXT,
    seats=st.integers(2, 6),
)
def test_brew_options_text_is_read_or_refused(
    pairs: list[tuple[str, str | None]], text: str, seats: int
) -> None:
    items = [key if value is None else f"{key}={value}" for key, value in pairs]
    for line in (text, ", ".join(items)):
        raw = survives(parse_variants, line)
        if raw is not None:
            survives(registry.get("warlocks-brew").game.parse_config, raw, seats)


CONDITION_TEXT = st.sampled_from(
    ["set 3 {1,2,3}", "sum 3 19-21", "chain 3 < <", "water:", "P1:", "|", "{", "-", "9" * 5000]
)


@FUZZ
@given(pieces=st.lists(CONDITION_TEXT | TEXT, max_size=6))
def test_spellbook_text_is_read_or_refused(pieces: list[str]) -> None:
    text = " ".join(pieces)
    survives(books.resolve_text, text, random.Random(1))
    survives(books.parse_text, "water: " + text)


@FUZZ
@given(raw=JSONISH, spell=st.sampled_from(["water", "fertilize", "weather"]))
def test_spellbook_json_is_read_or_refused(raw: Any, spell: str) -> None:
    survives(parse_spellbook, raw)
    survives(books.from_json, raw)
    valid = {"type": "set", "n": 3, "set": [1, 2, 3]}
    book = {"water": valid, "fertilize": valid, "weather": valid, spell: raw}
    survives(parse_spellbook, book)
    survives(registry.get("floral-extract").game.new_match, Setup({"spellbook": book}, 2, 1))


# --- submit in every request a match reaches --------------------------------------------------

# Configs that open every kind of request: declarations and duds, revisable answers, rebids,
# Utter Darkness's declarations and last call.
MATCH_CONFIGS: dict[str, list[dict[str, Any]]] = {
    "floral-extract": [
        {"spellbook": "classic"},
        {
            "spellbook": {
                "water": {"type": "sum", "n": 3, "lo": 6, "hi": 14},
                "fertilize": {"type": "set", "n": 3, "set": [3, 4, 5, 6]},
                "weather": {"type": "chain", "n": 3, "ops": ["<", ">"]},
            },
            "declaration_without_charge": "dud",
            "allow_resubmit_after_valid": True,
        },
    ],
    "warlocks-brew": [
        {},
        {"no_unique": "rebid", "utter_darkness": True, "two_players": False},
        {"magic_infused": 6, "deal_window": 30},  # Cursed choices, deals
        {"magic_infused": 6, "deal_window": 30, "vision_of_blindness": True},
    ],
}
MATCH_CONFIGS |= {name: cases.match_configs(name) for name in GAMES if name not in MATCH_CONFIGS}


@pytest.mark.parametrize("game", GAMES)
@settings(FUZZ, max_examples=30)
@given(
    data=st.data(),
    seed=st.integers(0, 2**32),
    junk=st.lists(TEXT, min_size=1, max_size=5),
)
def test_submit_answers_any_text_and_changes_nothing(
    game: str, data: st.DataObject, seed: int, junk: list[str]
) -> None:
    """Random matches, with the junk sent for every seat (asked or not) in every window."""
    info = registry.get(game)
    engine = info.game
    config = data.draw(st.sampled_from(MATCH_CONFIGS[game]))
    seats = data.draw(st.integers(engine.min_seats, min(engine.max_seats, engine.min_seats + 1)))
    state, _ = engine.new_match(Setup(config, seats, seed))
    rng = random.Random(seed)
    agents = [info.agents["random"](seat, random.Random(seed + seat)) for seat in range(seats)]
    for _ in range(80):
        requests = engine.requests(state)
        if not requests:
            break
        before = json.dumps(engine.dump(state))
        for seat in (-1, *range(seats), seats):
            for raw in junk:
                verdict = engine.submit(state, seat, raw)
                assert isinstance(verdict, Accepted | Refused)
                check_short(verdict.summary if isinstance(verdict, Accepted) else verdict.reason)
        moves: dict[int, Any] = {}
        for request in requests:
            if rng.random() < 0.9:
                answer = agents[request.seat].act(request, engine.view(state, request.seat))
                verdict = engine.submit(state, request.seat, answer)
                assert isinstance(verdict, Accepted)
                moves[request.seat] = verdict.move
        assert json.dumps(engine.dump(state)) == before
        state, _ = engine.resolve(state, {r.seat: moves.get(r.seat) for r in requests})
    for raw in junk:  # and once the match is over
        assert isinstance(engine.submit(state, 0, raw), Accepted | Refused)
