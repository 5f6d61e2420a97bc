"""Floral Extract's garden picture: the parts that must differ do (a pot's flower and growth,
the points), the rest stays, and the text alternative says what the picture shows."""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from games import registry
from pictures import Picture, hooks
from pictures.floral_extract import HEIGHT, WIDTH, garden, seat_picture

from .helpers import play_recorded


def image(picture: Picture) -> Image.Image:
    opened = Image.open(io.BytesIO(picture.png))
    opened.load()
    assert opened.format == "PNG"
    return opened.convert("RGB")


def differs(a: Image.Image, b: Image.Image, box: tuple[float, float, float, float]) -> bool:
    whole = tuple(round(v) for v in box)
    return ImageChops.difference(a.crop(whole), b.crop(whole)).getbbox() is not None


POT_W = (WIDTH - 48) / 3


def pot_box(index: int) -> tuple[float, float, float, float]:
    x = 24 + index * POT_W
    return (x, 84, x + POT_W - 12, 84 + 232)


def view(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "turn": 6,
        "phase": "cast",
        "seat": "P1",
        "points": {"P1": 1, "P2": 2},
        "map": {"A": 3, "B": 0, "C": 6, "D": 1, "E": 2, "F": 4, "G": 5, "H": 7},
        "symbols": "ABCDEFGH",
        "pots": [
            {"flower": "H", "stage": 4, "bloom_at": 15},
            None,
            {"flower": "W", "stage": 2, "bloom_at": 7},
        ],
        "blooms": 1,
        "charge": 0,
        "guess_cost": 6,
    }
    base.update(changes)
    return base


def test_the_garden_is_a_png_of_its_size_with_a_description() -> None:
    picture = garden(view(), "Ada")
    assert image(picture).size == (WIDTH, HEIGHT)
    assert picture.filename == "garden.png"
    assert picture.description == (
        "Ada's garden after turn 6: pot 1 Hyacinth at stage 4 of 15, pot 2 empty,"
        " pot 3 Wisteria at stage 2 of 7. 1 of 4 points, 1 bloomed, no guess charge."
        " Your runes: A=3 B=0 C=6 D=1 E=2 F=4 G=5 H=7."
    )


def test_growth_changes_that_pot_alone() -> None:
    pots = view()["pots"]
    grown = [{**pots[0], "stage": 12}, None, pots[2]]
    one, other = image(garden(view())), image(garden(view(pots=grown)))
    assert differs(one, other, pot_box(0))
    assert not differs(one, other, pot_box(1)) and not differs(one, other, pot_box(2))
    assert not differs(one, other, (0, 0, WIDTH, 80))  # the header and points


def test_a_planted_pot_differs_from_an_empty_one_and_each_flower_from_another() -> None:
    pots = view()["pots"]
    planted = [pots[0], {"flower": "A", "stage": 3, "bloom_at": 8}, pots[2]]
    other_kind = [pots[0], {"flower": "X", "stage": 3, "bloom_at": 6}, pots[2]]
    empty, azalea, xanthium = (image(garden(view(pots=p))) for p in (pots, planted, other_kind))
    assert differs(empty, azalea, pot_box(1)) and differs(azalea, xanthium, pot_box(1))
    assert not differs(empty, azalea, pot_box(0))


def test_points_and_the_charge_show() -> None:
    base = image(garden(view()))
    more = image(garden(view(points={"P1": 3, "P2": 2})))
    assert differs(base, more, (WIDTH - 180, 0, WIDTH, 70))
    assert not differs(base, more, pot_box(0))
    charged = garden(view(charge=1))
    assert "a guess charge held" in charged.description
    assert differs(base, image(charged), (0, 320, WIDTH, HEIGHT))


def test_no_garden_once_the_match_is_over() -> None:
    assert seat_picture(view(phase="over"), ("Ada", "Basil")) is None
    assert seat_picture(view(seat="P2"), ("Ada", "Basil")) is not None


def test_a_seats_garden_comes_from_its_own_view_of_a_real_match() -> None:
    """Each seat sees its own map and pots, never the other's."""
    info = registry.get("floral-extract")
    recorded = play_recorded(info, 2, seed=9)
    step = len(recorded.snapshots) // 2
    state = recorded.states[step]
    for seat in (0, 1):
        picture = hooks.seat_picture(info, recorded.snapshots[step], seat, recorded.names)
        assert picture is not None
        mine, theirs = state.players[seat], state.players[1 - seat]
        assert picture.description.startswith(f"{recorded.names[seat]}'s garden")
        for symbol, number in mine.identity.items():
            assert f"{symbol}={number}" in picture.description
        assert not any(f" {s}=" in picture.description for s in theirs.identity)
    first = hooks.seat_picture(info, recorded.snapshots[step], 0, recorded.names)
    second = hooks.seat_picture(info, recorded.snapshots[step], 1, recorded.names)
    assert first is not None and second is not None and first.png != second.png


def test_the_footer_says_what_opens_the_guessing_spell_and_empty_pots_what_is_left() -> None:
    """§ The guessing spell: more blooms than points, then K different runes in a row."""
    base = image(garden(view()))  # 1 bloom, 1 point: a new bloom first
    ready = image(garden(view(blooms=2)))  # 2 blooms, 1 point: K runes
    assert differs(base, ready, (0, 320, WIDTH, 345))
    used = image(garden(view(planted="ACHWX")))
    assert differs(base, used, pot_box(1))  # the empty pot says every type is used
    assert not differs(base, used, pot_box(0))


@settings(max_examples=30, deadline=None)
@given(name=st.text(max_size=200))
def test_any_name_renders_and_the_description_fits(name: str) -> None:
    picture = seat_picture(view(), (name, "Basil"))
    assert picture is not None
    assert image(picture).size == (WIDTH, HEIGHT)
    assert len(picture.description) <= 1024
