"""The spellbook text form, presets, checks, trigger rates and the random generator."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.floral_extract import books
from games.floral_extract.books import (
    BAND,
    MAX_OVERLAP,
    TARGET,
    SeatBooks,
    check,
    expected_rates,
    format_text,
    load_preset,
    parse_condition_text,
    parse_text,
    preset_description,
    preset_names,
    random_spellbook,
    resolve_text,
    trigger_rates,
    window_share,
)
from games.floral_extract.render import spellbook_text
from games.floral_extract.spellbook import (
    SPELLS,
    ChainCondition,
    Condition,
    SetCondition,
    Spellbook,
    SumCondition,
    parse_spellbook,
    trigger_share,
)
from games.protocol import ConfigError

CLASSIC_TEXT = "water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <"
CLASSIC = Spellbook(
    water=(SetCondition(3, (1, 2, 3)),),
    fertilize=(SumCondition(3, 19, 21),),
    weather=(ChainCondition(3, ("<", "<")),),
)
# The worked examples' book, in its JSON form (tests/data/floral-extract-examples.json).
CLASSIC_JSON = {
    "water": {"type": "set", "n": 3, "set": [1, 2, 3]},
    "fertilize": {"type": "sum", "n": 3, "lo": 19, "hi": 21},
    "weather": {"type": "chain", "n": 3, "ops": ["<", "<"]},
}


# --- the text form: good inputs -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        CLASSIC_TEXT,
        CLASSIC_TEXT + ";",
        "water: set 3 {1,2,3}\nfertilize: sum 3 19-21\nweather: chain 3 < <\n",
        "water: set 3 {1,2,3} fertilize: sum 3 19-21 weather: chain 3 < <",
        "WATER: SET 3 {1, 2, 3}; Fertilize: Sum 3 19 - 21; Weather: Chain 3 <<",
        "weather: chain 3 < <; water: set 3 {3 2 1}; fertilise: sum 3 19..21",
        "  water :set3{1,2,3} ;; fertilize:sum 3 19–21;weather:chain 3 <  <  ",
    ],
)
def test_text_forms_of_the_classic_book(text: str) -> None:
    assert parse_text(text) == CLASSIC


@pytest.mark.parametrize(
    ("text", "ops"),
    [
        ("chain 3 <= >=", ("<=", ">=")),
        ("chain 3 ≤ ≥", ("<=", ">=")),
        ("chain 3 <=>=", ("<=", ">=")),
        ("chain 4 = == >", ("=", "=", ">")),
        ("chain 5 > >= < <=", (">", ">=", "<", "<=")),
    ],
)
def test_chain_operators(text: str, ops: tuple[str, ...]) -> None:
    assert parse_condition_text(text) == ChainCondition(len(ops) + 1, ops)


def test_several_conditions_per_spell() -> None:
    book = parse_text(
        spell_text(water="set 3 {1,2,3} | set 4 {5,6,7}", weather="chain 3 < < | sum 5 5-6")
    )
    assert isinstance(book, Spellbook)
    assert book.water == (SetCondition(3, (1, 2, 3)), SetCondition(4, (5, 6, 7)))
    assert book.weather == (ChainCondition(3, ("<", "<")), SumCondition(5, 5, 6))


def test_per_player_books() -> None:
    book = parse_text(
        "P1: water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <\n"
        "p2: water: set 3 {4,5,6}; fertilize: sum 3 3-5; weather: chain 3 > >"
    )
    assert isinstance(book, SeatBooks)
    assert book.books[0] == CLASSIC
    assert book.books[1].water == (SetCondition(3, (4, 5, 6)),)
    assert set(book.to_json()) == {"P1", "P2"}


# --- the text form: errors name the field ---------------------------------------------------


def error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_text(text)
    return caught.value


def spell_text(**conditions: str) -> str:
    """The classic book's text with some spells' conditions replaced."""
    parts = {"water": "set 3 {1,2,3}", "fertilize": "sum 3 19-21", "weather": "chain 3 < <"}
    return "; ".join(f"{spell}: {conditions.get(spell, c)}" for spell, c in parts.items())


@pytest.mark.parametrize(
    ("text", "field", "fragment"),
    [
        ("", "spellbook", "is empty"),
        ("set 3 {1,2,3}", "spellbook", "expected a spell name"),
        ("sprinkle: set 3 {1,2,3}", "spellbook", "'sprinkle' is not a spell"),
        ("water: set 3 {1,2,3}; fertilize: sum 3 19-21", "spellbook.weather", "is missing"),
        (CLASSIC_TEXT + "; water: set 3 {4,5,6}", "spellbook.water", "given twice"),
        (spell_text(water=""), "spellbook.water", "no condition"),
        (spell_text(water="seq 3 {1,2,3}"), "spellbook.water", "set, sum or chain"),
        (spell_text(water="set {1,2,3}"), "spellbook.water", "window length first"),
        (spell_text(water="set 6 {1,2,3}"), "spellbook.water", "3, 4 or 5, got 6"),
        (spell_text(water="set 3 1,2,3"), "spellbook.water", "in braces"),
        (spell_text(water="set 3 {1,2,8}"), "spellbook.water", "0-7, got '8'"),
        (spell_text(water="set 3 {1,2,2}"), "spellbook.water", "identity 2 twice"),
        (spell_text(water="set 3 {1,2}"), "spellbook.water", "3 to 5 identities, got 2"),
        (spell_text(fertilize="sum 3 19"), "spellbook.fertilize", "needs a range like 19-21"),
        (spell_text(fertilize="sum 3 21-19"), "spellbook.fertilize", "inverted"),
        (spell_text(fertilize="sum 3 19-25"), "spellbook.fertilize", "at most 21"),
        (spell_text(weather="chain 3 <"), "spellbook.weather", "needs 2 operators"),
        (spell_text(weather="chain 3 < ! <"), "spellbook.weather", "chain operators are"),
        (spell_text(water="set 3 {1,2,3} | "), "spellbook.water[1]", "empty condition"),
        (spell_text(water="set 3 {1,2,3} | sum 3 5"), "spellbook.water[1]", "needs a range"),
        ("P1: " + CLASSIC_TEXT, "spellbook.P2", "is missing"),
        ("water: set 3 {1,2,3}; P1: " + CLASSIC_TEXT, "spellbook", "under P1: or P2:"),
        ("P1: " + CLASSIC_TEXT + " P1: " + CLASSIC_TEXT, "spellbook.P1", "given twice"),
        ("P1: x " + CLASSIC_TEXT + " P2: " + CLASSIC_TEXT, "spellbook.P1", "expected 'water:'"),
        ("P1: " + CLASSIC_TEXT + " P2: water: set 3 {1}", "spellbook.P2.water", "3 to 5"),
    ],
)
def test_errors_name_the_field(text: str, field: str, fragment: str) -> None:
    caught = error(text)
    assert caught.field == field
    assert fragment in caught.message
    assert str(caught).startswith(f"{field}: ")


def test_the_brief_example_error_verbatim() -> None:
    text = "water: set 3 {1,2,3}; fertilize: sum 3 19; weather: chain 3 < <"
    assert str(error(text)) == "spellbook.fertilize: sum needs a range like 19-21, got '19'"


# --- round trips ----------------------------------------------------------------------------

identities = st.integers(0, 7)
lengths = st.integers(3, 5)


@st.composite
def conditions(draw: st.DrawFn) -> Condition:
    n = draw(lengths)
    kind = draw(st.sampled_from(["set", "sum", "chain"]))
    if kind == "set":
        members = draw(st.sets(identities, min_size=3, max_size=5))
        return SetCondition(n, tuple(sorted(members)))
    if kind == "sum":
        lo, hi = sorted(draw(st.lists(st.integers(0, 7 * n), min_size=2, max_size=2)))
        return SumCondition(n, lo, hi)
    return ChainCondition(
        n,
        tuple(
            draw(
                st.lists(
                    st.sampled_from(["<", "<=", "=", ">=", ">"]), min_size=n - 1, max_size=n - 1
                )
            )
        ),
    )


spells = st.lists(conditions(), min_size=1, max_size=3).map(tuple)
spellbooks = st.builds(Spellbook, spells, spells, spells)


@settings(max_examples=100, deadline=None)
@given(spellbooks)
def test_format_and_render_round_trip(book: Spellbook) -> None:
    assert parse_text(format_text(book)) == book
    assert parse_text(spellbook_text(book.to_json())) == book
    assert parse_spellbook(book.to_json()) == book


@settings(max_examples=40, deadline=None)
@given(spellbooks, spellbooks)
def test_per_player_round_trip(first: Spellbook, second: Spellbook) -> None:
    seats = SeatBooks((first, second))
    assert parse_text(spellbook_text(seats.to_json())) == seats
    assert parse_text(format_text(seats)) == seats


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_raises_config_error(text: str) -> None:
    try:
        parse_text(text)
    except ConfigError as caught:
        assert caught.field.startswith("spellbook")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 80), st.sampled_from(list(" ;:|{},-<>=0123456789aPw"))), max_size=4
    )
)
def test_mutated_text_parses_or_names_a_spellbook_field(edits: list[tuple[int, str]]) -> None:
    text = CLASSIC_TEXT
    for at, char in edits:
        text = text[:at] + char + text[at + 1 :]  # replace (or append) one character
    try:
        book = parse_text(text)
    except ConfigError as caught:
        assert caught.field.startswith("spellbook")
    else:
        assert parse_text(format_text(book)) == book


# --- resolving a config value ------------------------------------------------------------


def test_resolve_random_is_deterministic_for_the_rng() -> None:
    first = resolve_text("random", random.Random(5))
    assert first == resolve_text(" Random ", random.Random(5))
    assert isinstance(first, Spellbook)


def test_resolve_preset_and_text() -> None:
    assert resolve_text("classic", random.Random(0)) == CLASSIC
    assert resolve_text("CLASSIC", random.Random(0)) == CLASSIC
    assert resolve_text(CLASSIC_TEXT, random.Random(0)) == CLASSIC


def test_resolve_unknown_word_lists_the_choices() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_text("classical", random.Random(0))
    assert caught.value.field == "spellbook"
    assert "random" in caught.value.message and "classic" in caught.value.message


def test_engine_resolves_string_spellbooks() -> None:
    from games.floral_extract import GAME
    from games.protocol import Setup

    state, _ = GAME.new_match(Setup(config={"spellbook": "classic"}, seats=2, seed=1))
    assert state.config["spellbook"] == CLASSIC_JSON
    state, _ = GAME.new_match(Setup(config={"spellbook": "random"}, seats=2, seed=1))
    assert state.config["spellbook"] == random_spellbook(_engine_rng(1)).to_json()


def test_engine_takes_per_player_text_and_refuses_bad_text() -> None:
    from games.floral_extract import GAME
    from games.protocol import Setup

    text = "P1: " + CLASSIC_TEXT + "\nP2: " + spell_text(water="set 3 {4,5,6}")
    state, _ = GAME.new_match(Setup(config={"spellbook": text}, seats=2, seed=1))
    assert state.config["spellbook"]["P1"] == CLASSIC_JSON
    with pytest.raises(ConfigError) as caught:
        GAME.new_match(Setup(config={"spellbook": spell_text(water="set 3")}, seats=2, seed=1))
    assert caught.value.field == "spellbook.water"


def _engine_rng(seed: int) -> random.Random:
    from games.protocol import derive_rng

    return derive_rng(seed, "spellbook")


# --- checks -----------------------------------------------------------------------------


def with_spell(spell: str, text: str) -> Spellbook:
    book = parse_text(spell_text(**{spell: text}))
    assert isinstance(book, Spellbook)
    return book


def test_classic_has_no_warnings() -> None:
    assert check(CLASSIC) == []


@pytest.mark.parametrize(
    ("spell", "text", "fragment"),
    [
        ("water", "sum 3 0-2", "can never trigger"),
        ("water", "sum 4 0-3", "can never trigger"),
        ("water", "set 3 {0,1,2} | sum 3 0-2", "can never trigger"),
        ("water", "sum 3 3-21", "holds on 100% of windows"),
        ("water", "set 3 {1,2,3,4,5}", "above 25%"),
        ("fertilize", "chain 5 < < < <", "below 2%"),
        ("weather", "set 3 {0,4,5,6}", "the 0 in the set does nothing"),
        ("weather", "sum 3 0-5", "totals below 3 cannot happen"),
        ("weather", "set 3 {1,2,3}", "water and weather always fire together"),
    ],
)
def test_check_warnings(spell: str, text: str, fragment: str) -> None:
    found = check(with_spell(spell, text))
    assert any(fragment in w for w in found), found


def test_check_names_the_seat() -> None:
    found = check(SeatBooks((CLASSIC, with_spell("water", "sum 3 0-2"))))
    assert found and all(w.startswith("P2: water") for w in found)


# --- trigger rates ----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(conditions())
def test_window_share_matches_the_engine_tables(condition: Condition) -> None:
    assert window_share([condition]) == pytest.approx(trigger_share(condition), abs=1e-12)


def test_classic_rates() -> None:
    rates = expected_rates(CLASSIC)
    # 8 turns in 9 are not stalls; then (3/7)^3, 10/343 and 35/343 of the windows.
    assert rates["water"] == pytest.approx(8 / 9 * 27 / 343)
    assert rates["fertilize"] == pytest.approx(8 / 9 * 10 / 343)
    assert rates["weather"] == pytest.approx(8 / 9 * 35 / 343)


@pytest.mark.parametrize("seed", range(4))
def test_simulation_agrees_with_the_exact_rates(seed: int) -> None:
    book = random_spellbook(random.Random(seed))
    simulated = trigger_rates(book, random.Random(seed), turns=20_000)
    for spell, rate in expected_rates(book).items():
        assert simulated[spell] == pytest.approx(rate, abs=0.015)


def test_simulation_is_deterministic() -> None:
    assert trigger_rates(CLASSIC, random.Random(3), 2000) == trigger_rates(
        CLASSIC, random.Random(3), 2000
    )


# --- the generator ----------------------------------------------------------------------

SEEDS = range(300)


@pytest.fixture(scope="module")
def generated() -> list[Spellbook]:
    return [random_spellbook(random.Random(seed)) for seed in SEEDS]


def test_generated_books_are_valid_and_checked_clean(generated: list[Spellbook]) -> None:
    for book in generated:
        assert parse_spellbook(book.to_json()) == book
        assert parse_text(format_text(book)) == book
        assert check(book) == [], format_text(book)


def test_generated_rates_are_in_the_target_band(generated: list[Spellbook]) -> None:
    for book in generated:
        for spell, rate in expected_rates(book).items():
            assert TARGET[0] <= rate <= TARGET[1], (spell, format_text(book))
            assert books.reachable(book.conditions(spell))


def test_generated_spells_rarely_fire_together(generated: list[Spellbook]) -> None:
    for book in generated:
        for a, b in itertools.combinations(SPELLS, 2):
            hits_a = books._spell_hits(book.conditions(a))
            hits_b = books._spell_hits(book.conditions(b))
            assert books._overlap(hits_a, hits_b) <= MAX_OVERLAP


def test_generated_books_use_each_type_once_and_vary(generated: list[Spellbook]) -> None:
    for book in generated:
        assert sorted(book.conditions(s)[0].type for s in SPELLS) == ["chain", "set", "sum"]
    assert len({format_text(b) for b in generated}) > 0.9 * len(generated)


def test_generator_is_deterministic_for_a_seed() -> None:
    assert [random_spellbook(random.Random(s)) for s in range(20)] == [
        random_spellbook(random.Random(s)) for s in range(20)
    ]


# --- presets ------------------------------------------------------------------------------


def test_presets_exist() -> None:
    assert {"classic", "gentle", "odds-and-evens", "long-fuse", "either-or"} <= set(preset_names())


def test_classic_preset_is_the_worked_examples_book() -> None:
    assert load_preset("classic") == CLASSIC
    assert load_preset("classic").to_json() == CLASSIC_JSON


@pytest.mark.parametrize("name", preset_names())
def test_preset_is_playable(name: str) -> None:
    book = load_preset(name)
    assert preset_description(name)
    assert books._preset_data(name)["name"] == name
    assert check(book) == []
    for spell, rate in expected_rates(book).items():
        assert BAND[0] <= rate <= BAND[1], spell
        assert books.reachable(book.conditions(spell))
    for a, b in itertools.combinations(SPELLS, 2):
        hits_a, hits_b = (books._spell_hits(book.conditions(s)) for s in (a, b))
        assert books._overlap(hits_a, hits_b) <= MAX_OVERLAP
    assert parse_text(format_text(book)) == book


def test_unknown_preset() -> None:
    with pytest.raises(ConfigError) as caught:
        load_preset("../classic")
    assert "is not a preset" in caught.value.message


def test_books_from_json_shared_or_per_seat() -> None:
    from games.floral_extract.books import SeatBooks, from_json

    from .helpers import CLASSIC, QUIET

    assert from_json(CLASSIC).to_json() == CLASSIC
    split = from_json({"P1": CLASSIC, "P2": QUIET})
    assert isinstance(split, SeatBooks)
    assert split.books == (parse_spellbook(CLASSIC), parse_spellbook(QUIET))
