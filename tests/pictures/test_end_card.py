"""The end card every game gets: a PNG of a fixed width, its text alternative, and the parts
that must differ (the winner, the chart, the revealed tables) differ between two matches."""

from __future__ import annotations

import dataclasses
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from games import registry
from pictures import DESCRIPTION_LIMIT, Picture, fit_description, hooks
from pictures.card import WIDTH, EndCard, Reveal, description, render

from .helpers import play_recorded

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def image(picture: Picture) -> Image.Image:
    assert picture.png.startswith(PNG_SIGNATURE)
    opened = Image.open(io.BytesIO(picture.png))
    opened.load()
    assert opened.format == "PNG"
    return opened.convert("RGB")


def differs(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int]) -> bool:
    return ImageChops.difference(a.crop(box), b.crop(box)).getbbox() is not None


CARD = EndCard(
    game="floral-extract",
    title="Floral Extract",
    names=("Ada", "Basil"),
    winners=(1,),
    reason="4 points",
    subtitle="Match 7",
    turns=(0, 1, 2, 3, 4),
    scores=((0, 0), (1, 0), (1, 1), (1, 2), (1, 4)),
    reveals=(
        Reveal("Ada's rune map", (("A", "3"), ("B", "0")), frozenset({"B"}), "found", 0),
        Reveal("Basil's rune map", (("S", "1"), ("T", "2")), frozenset(), "found", 1),
    ),
)


def test_the_card_is_a_png_as_wide_as_the_card_with_its_description() -> None:
    picture = render(CARD)
    card = image(picture)
    assert card.width == WIDTH and 400 < card.height < 1000
    assert picture.description == description(CARD)
    assert picture.description.startswith("Floral Extract, Match 7: Basil wins (4 points).")
    assert "at the end: Ada 1, Basil 4" in picture.description
    assert "Ada led from turn 1; Basil led from turn 3." in picture.description
    assert "Ada's rune map: A=3 B=0 (found: B)." in picture.description


def test_another_winner_changes_the_winner_line_and_not_the_header() -> None:
    one, other = image(render(CARD)), image(render(dataclasses.replace(CARD, winners=(0,))))
    assert differs(one, other, (0, 64, WIDTH, 160))  # the winner line
    assert not differs(one, other, (0, 0, WIDTH, 64))  # the header
    assert "Ada wins" in description(dataclasses.replace(CARD, winners=(0,)))


def test_other_scores_change_the_chart_alone() -> None:
    scores = ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4))
    one, other = image(render(CARD)), image(render(dataclasses.replace(CARD, scores=scores)))
    assert differs(one, other, (0, 170, WIDTH, 440))  # the chart panel
    assert not differs(one, other, (0, 0, WIDTH, 160))  # title and winner
    assert not differs(one, other, (0, one.height - 100, WIDTH, one.height))  # the reveals


def test_a_found_symbol_is_highlighted_in_its_map() -> None:
    found = (
        dataclasses.replace(CARD.reveals[0], marked=frozenset({"A", "B"})),
        CARD.reveals[1],
    )
    one, other = image(render(CARD)), image(render(dataclasses.replace(CARD, reveals=found)))
    assert differs(one, other, (0, one.height - 130, WIDTH // 2, one.height))
    assert not differs(one, other, (WIDTH // 2 + 8, one.height - 130, WIDTH, one.height))


def test_without_scores_the_card_names_every_seat_and_the_winners() -> None:
    card = EndCard("toy", "Toy Game", ("Ada", "Basil", "Clover"), (0, 2), "last standing")
    picture = render(card)
    assert image(picture).height < image(render(CARD)).height
    assert picture.description == "Toy Game: Ada and Clover win (last standing)."
    nobody = render(dataclasses.replace(card, winners=()))
    assert nobody.description.startswith("Toy Game: No winner")
    assert differs(image(picture), image(nobody), (0, 64, WIDTH, image(picture).height))


def test_the_description_fits_discord_with_many_seats_and_long_names() -> None:
    names = tuple(f"Player with a rather long name number {n}" for n in range(8))
    card = EndCard(
        "many",
        "A" * 300,
        names,
        tuple(range(8)),
        "everyone" * 50,
        turns=tuple(range(200)),
        scores=tuple(tuple(float((t * (s + 1)) % 17) for s in range(8)) for t in range(200)),
        reveals=tuple(Reveal(n, tuple((str(k), "v" * 9) for k in range(24))) for n in names),
    )
    picture = render(card)
    assert len(picture.description) <= DESCRIPTION_LIMIT
    assert picture.description.endswith("…")
    assert image(picture).width == WIDTH


def test_fit_description_cuts_at_a_word() -> None:
    assert fit_description("a  b\n c") == "a b c"
    cut = fit_description("word " * 400)
    assert len(cut) <= DESCRIPTION_LIMIT and cut.endswith("word…")


@pytest.mark.parametrize("name", registry.names())
def test_every_registered_game_gets_an_end_card(name: str) -> None:
    """Games with a scores hook get a chart; games without one the winners (their names)."""
    info = registry.get(name)
    recorded = play_recorded(info, info.game.min_seats, seed=5)
    picture = hooks.end_card(info, recorded.names, recorded.outcome, recorded.snapshots, "Match 1")
    assert image(picture).width == WIDTH
    assert picture.description.startswith(f"{info.title}, Match 1: ")
    winners = (recorded.outcome or {}).get("winners") or []  # type: ignore[union-attr]
    for seat in winners:
        assert recorded.names[seat] in picture.description.split(":")[1]
    has_chart = info.pictures is not None and info.pictures.scores is not None
    assert ("Chart of" in picture.description) == has_chart


def test_the_chart_counts_a_turn_once_however_many_steps_it_took() -> None:
    """Floral Extract's planting phases are steps without a turn: the chart's x is the turn."""
    info = registry.get("floral-extract")
    recorded = play_recorded(info, 2, seed=3)
    card = hooks.end_card_data(info, recorded.names, recorded.outcome, recorded.snapshots)
    final = recorded.states[-1]
    assert card.turns == tuple(range(final.turns_completed + 1))
    assert card.scores[-1] == tuple(float(p.points) for p in final.players)
    assert len(recorded.snapshots) > len(card.turns)  # planting steps were folded in
    assert [r.title for r in card.reveals] == ["Ada's rune map", "Basil's rune map"]
    for seat, reveal in enumerate(card.reveals):
        assert dict(reveal.cells) == {s: str(n) for s, n in final.players[seat].identity.items()}
        found_by_other = {s for s, _ in final.players[1 - seat].correct_pairs}
        assert reveal.marked == found_by_other


def test_the_reason_is_the_outcome_detail_when_it_names_a_player() -> None:
    """A detail written for people ("Ada brewed three …") beats a reason code; a detail that
    names seats by code (Floral Extract's "P2 wins") does not."""
    info = registry.get("warlocks-brew")
    recorded = play_recorded(info, 3, seed=2)
    outcome = {"winners": [0], "reason": "triple", "detail": "Ada brewed three Mandrake Root."}
    card = hooks.end_card_data(info, recorded.names, outcome, recorded.snapshots)
    assert card.reason == "Ada brewed three Mandrake Root"
    coded = {"winners": [1], "reason": "4 points", "detail": "P2 wins (4 points)."}
    assert hooks.end_card_data(info, recorded.names, coded, recorded.snapshots).reason == (
        "4 points"
    )


def test_a_match_ended_within_its_first_turn_lists_the_scores_without_a_chart() -> None:
    one_turn = dataclasses.replace(CARD, turns=(1,), scores=((2.0, 0.0),), reveals=())
    picture = render(one_turn)
    assert "Chart of" not in picture.description
    assert "Points at the end: Ada 2, Basil 0." in picture.description
    assert image(picture).height < image(render(dataclasses.replace(CARD, reveals=()))).height
    other = render(dataclasses.replace(one_turn, scores=((0.0, 3.0),)))
    assert differs(image(picture), image(other), (0, 170, WIDTH, image(picture).height))


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(st.text(max_size=120), min_size=1, max_size=8),
    reason=st.text(max_size=300),
    title=st.text(max_size=100),
)
def test_any_names_render_and_describe_within_the_limit(
    names: list[str], reason: str, title: str
) -> None:
    """Display names are anyone's text (emoji, other scripts, control characters)."""
    seats = len(names)
    card = EndCard(
        "fuzz",
        title,
        tuple(names),
        (0,),
        reason,
        turns=(0, 1),
        scores=(tuple(0.0 for _ in names), tuple(float(s) for s in range(seats))),
        reveals=(Reveal(names[0], ((names[-1][:3], reason[:3]),), frozenset({names[-1][:3]})),),
    )
    picture = render(card)
    assert image(picture).width == WIDTH
    assert len(picture.description) <= DESCRIPTION_LIMIT
