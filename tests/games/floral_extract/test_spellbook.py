"""The condition model: JSON parsing, the compiled lookup tables, warnings and describe()."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.floral_extract.spellbook import (
    OPS,
    ChainCondition,
    Condition,
    SetCondition,
    SumCondition,
    compile_spell,
    describe,
    parse_condition,
    parse_spellbook,
    table,
    trigger_share,
    warnings,
    window_code,
)
from games.protocol import JSON, ConfigError


@st.composite
def conditions(draw: st.DrawFn) -> Condition:
    n = draw(st.integers(3, 5))
    kind = draw(st.sampled_from(["set", "sum", "chain"]))
    if kind == "set":
        return SetCondition(
            n, tuple(sorted(draw(st.sets(st.integers(0, 7), min_size=3, max_size=5))))
        )
    if kind == "sum":
        lo, hi = sorted(draw(st.lists(st.integers(0, 7 * n), min_size=2, max_size=2)))
        return SumCondition(n, lo, hi)
    ops = draw(st.lists(st.sampled_from(sorted(OPS)), min_size=n - 1, max_size=n - 1))
    return ChainCondition(n, tuple(ops))


@settings(max_examples=60, deadline=None)
@given(conditions())
def test_table_matches_holds_on_every_window(condition: Condition) -> None:
    lookup = table(condition)
    for window in itertools.product(range(8), repeat=condition.n):
        assert lookup[window_code(window)] == condition.holds(window)


@settings(max_examples=100, deadline=None)
@given(conditions(), st.lists(st.integers(1, 7), min_size=5, max_size=5), st.integers(0, 5))
def test_compiled_spell_needs_enough_clean_runes(
    condition: Condition, runes: list[int], clean: int
) -> None:
    spell = compile_spell([condition])
    expected = clean >= condition.n and condition.holds(runes[-condition.n :])
    assert spell.fires(window_code(runes), clean) == expected


def test_condition_semantics() -> None:
    assert SetCondition(3, (1, 2, 3)).holds([3, 3, 1])  # repeats allowed
    assert not SetCondition(3, (1, 2, 3)).holds([3, 4, 1])
    assert SumCondition(3, 19, 21).holds([7, 7, 5]) and SumCondition(3, 19, 21).holds([7, 7, 7])
    assert not SumCondition(3, 19, 21).holds([7, 6, 5])
    assert ChainCondition(3, ("<", "<=")).holds([1, 2, 2])  # read oldest to newest
    assert not ChainCondition(3, ("<", "<=")).holds([2, 2, 1])


def test_shares() -> None:
    assert trigger_share(SetCondition(3, (1, 2, 3))) == pytest.approx(27 / 343)
    assert trigger_share(SumCondition(3, 19, 21)) == pytest.approx(10 / 343)
    assert trigger_share(ChainCondition(3, ("<", "<"))) == pytest.approx(35 / 343)
    assert trigger_share(SetCondition(3, (0, 1, 2))) == pytest.approx(8 / 343)


@pytest.mark.parametrize(
    ("condition", "text"),
    [
        (SetCondition(4, (1, 5, 7)), "set 4 {1,5,7}"),
        (SumCondition(3, 19, 21), "sum 3 19-21"),
        (ChainCondition(3, ("<", ">=")), "chain 3 < >="),
    ],
)
def test_describe(condition: Condition, text: str) -> None:
    assert describe(condition) == text


def test_json_book_with_lists_and_aliases() -> None:
    book = parse_spellbook(
        {
            "water": [
                {"type": "set", "n": 3, "set": [3, 1, 2]},
                {"type": "sum", "n": 4, "lo": 4, "hi": 6},
            ],
            "fertilize": {"type": "sum", "n": 3, "lo": 19, "hi": 21},
            "weather": {"type": "chain", "n": 3, "ops": ["≤", "=="]},
        }
    )
    assert book.water == (SetCondition(3, (1, 2, 3)), SumCondition(4, 4, 6))
    assert book.weather == (ChainCondition(3, ("<=", "=")),)
    assert parse_spellbook(book.to_json()) == book


GOOD: dict[str, JSON] = {
    "water": {"type": "set", "n": 3, "set": [1, 2, 3]},
    "fertilize": {"type": "sum", "n": 3, "lo": 19, "hi": 21},
    "weather": {"type": "chain", "n": 3, "ops": ["<", "<"]},
}


@pytest.mark.parametrize(
    ("water", "field"),
    [
        ({"type": "set", "n": 6, "set": [1, 2, 3]}, "spellbook.water.n"),
        ({"type": "set", "n": 2, "set": [1, 2, 3]}, "spellbook.water.n"),
        ({"type": "sum", "n": 3, "lo": 9, "hi": 4}, "spellbook.water.lo"),
        ({"type": "chain", "n": 4, "ops": ["<", "<"]}, "spellbook.water.ops"),
        ({"type": "chain", "n": 3, "ops": ["<", "!"]}, "spellbook.water.ops[1]"),
        ({"type": "set", "n": 3, "set": [1, 1, 2]}, "spellbook.water.set"),
        ({"type": "set", "n": 3, "set": [1, 2, 9]}, "spellbook.water.set[2]"),
        ({"type": "seq", "n": 3}, "spellbook.water.type"),
        ({"type": "sum", "n": 3, "lo": 1}, "spellbook.water.hi"),
        ({"type": "sum", "n": 3, "lo": 1, "hi": 2, "x": 1}, "spellbook.water.x"),
        ([], "spellbook.water"),
    ],
)
def test_malformed_json_is_refused(water: JSON, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_spellbook({**GOOD, "water": water})
    assert caught.value.field == field


def test_missing_and_unknown_spells() -> None:
    with pytest.raises(ConfigError, match=r"spellbook\.weather: is missing"):
        parse_spellbook({"water": GOOD["water"], "fertilize": GOOD["fertilize"]})
    with pytest.raises(ConfigError, match=r"spellbook\.rain: is not a basic spell"):
        parse_spellbook({**GOOD, "rain": GOOD["water"]})
    with pytest.raises(ConfigError):
        parse_condition("set 3 {1,2,3}", "c")


def test_warnings() -> None:
    assert warnings(parse_spellbook(GOOD)) == []
    never = parse_spellbook({**GOOD, "water": {"type": "sum", "n": 3, "lo": 0, "hi": 2}})
    assert any("can never trigger" in w for w in warnings(never))
    always = parse_spellbook({**GOOD, "water": {"type": "sum", "n": 3, "lo": 3, "hi": 21}})
    assert any("almost every turn" in w for w in warnings(always))


def test_a_spell_holds_at_most_12_conditions_as_json_or_text() -> None:
    """A house bound (issue 18): 2,000 conditions stalled a match's setup for seconds."""
    from games.floral_extract import books
    from games.floral_extract.spellbook import MAX_CONDITIONS

    one = {"type": "set", "n": 3, "set": [1, 2, 3]}
    book = {"water": [one] * MAX_CONDITIONS, "fertilize": one, "weather": one}
    parse_spellbook(book)
    with pytest.raises(ConfigError) as caught:
        parse_spellbook({**book, "water": [one] * (MAX_CONDITIONS + 1)})
    assert str(caught.value) == "spellbook.water: has 13 conditions; at most 12"
    text = (
        "water: "
        + " | ".join(["set 3 {1,2,3}"] * 13)
        + "; fertilize: sum 3 19-21; weather: chain 3 < <"
    )
    with pytest.raises(ConfigError) as caught:
        books.parse_text(text)
    assert str(caught.value) == "spellbook.water: has 13 conditions; at most 12"
