"""The seats' card beside turn and phase posts (``bot/embeds.py``): a colour per game, a field
per player with its public line, the deadline as a live timestamp, the game and match in the
footer; always within Discord's limits."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from bot.embeds import MatchFacts, card, game_colour
from games import registry
from games.protocol import Setup
from tests.e2e.fake_discord.limits import embed_errors

FACTS = MatchFacts(7, "warlocks-brew", "Warlock's Brew")


def seats(names: list[str], lines: list[str] | None = None, won: tuple[int, ...] = ()) -> list:
    lines = lines or [""] * len(names)
    return [
        {"name": name, "line": line, "won": seat in won}
        for seat, (name, line) in enumerate(zip(names, lines, strict=True))
    ]


NAMES3 = ["Alice", "Bob", "Carol"]


def test_every_game_has_its_own_colour_and_keeps_it() -> None:
    colours = [game_colour(name) for name in registry.names()]
    assert len(set(colours)) == len(colours)
    assert game_colour("a-game-not-registered") == game_colour("a-game-not-registered")


def test_a_post_has_a_field_per_player_the_deadline_and_the_footer() -> None:
    embed = card(FACTS, seats(NAMES3), deadline=1_900_000_000.5)
    fields = [(f.name, f.value) for f in embed.fields]
    assert fields == [
        ("Alice", "P1"),
        ("Bob", "P2"),
        ("Carol", "P3"),
        ("⏳ Closes", "<t:1900000000:R>"),
    ]
    assert embed.footer.text == "Warlock's Brew · match m7"
    assert embed.colour is not None and embed.colour.value == game_colour("warlocks-brew")


def test_each_game_gives_a_short_public_line_per_seat() -> None:
    for name in registry.names():
        info = registry.get(name)
        assert info.public_lines is not None, name
        seats = info.game.min_seats + 1 if info.game.max_seats > 2 else 2
        state, _ = info.game.new_match(Setup(info.game.parse_config({}, seats), seats, 3))
        lines = info.public_lines(info.game.view(state, None))
        assert len(lines) == seats and all(0 < len(line) <= 100 for line in lines), (name, lines)


def test_a_seats_field_shows_its_public_line() -> None:
    lines = ["5 coins · brew 0", "4 coins · brew 1", "out"]
    embed = card(FACTS, seats(NAMES3, lines, won=(1,)))
    assert [f.value for f in embed.fields] == [
        "P1 · 5 coins · brew 0",
        "P2 · 4 coins · brew 1 · 🏆 wins",
        "P3 · out",
    ]


def test_the_end_post_marks_the_winners() -> None:
    end = card(FACTS, seats(NAMES3, won=(0, 2)))
    assert [f.value for f in end.fields] == ["P1 · 🏆 wins", "P2", "P3 · 🏆 wins"]


NAMES = st.lists(st.text(max_size=5000), min_size=1, max_size=40)


@example(["n" * 300] * 30, "t" * 3000)  # every part at its longest
@given(NAMES, st.text(max_size=3000))
def test_any_names_and_title_fit_discords_limits(names: list[str], title: str) -> None:
    facts = MatchFacts(10**18, "x", title)
    lines = ["l" * 200] * len(names)
    embed = card(facts, seats(names, lines, tuple(range(len(names)))), deadline=1.0)
    assert embed_errors([embed.to_dict()]) == [], embed_errors([embed.to_dict()])
