import pytest

from bot.ids import parse_match_id


@pytest.mark.parametrize("text", ["1", "m1", "M1", " m1 ", "#1", "m#1"])
def test_match_ids_are_accepted_as_shown(text: str) -> None:
    assert parse_match_id(text) == 1


@pytest.mark.parametrize(
    "text", ["", "m", "0", "m0", "-1", "1.5", "³", "m³", "x1", "1" * 19, "mm1"]
)
def test_anything_else_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ValueError, match="not a match id") as error:
        parse_match_id(text)
    assert "\n" not in str(error.value)


def test_a_long_input_is_quoted_as_an_excerpt() -> None:
    with pytest.raises(ValueError) as error:
        parse_match_id("x" * 10_000)
    assert len(str(error.value)) < 80
