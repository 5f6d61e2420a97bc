"""Warlock's Brew views as text."""

from __future__ import annotations

from games.protocol import Setup
from games.warlocks_brew import GAME


def test_describe_shows_the_table_and_only_the_askers_hand() -> None:
    state, _ = GAME.new_match(Setup({}, 3, 4))
    public = GAME.describe(state, None)
    assert public.startswith("Auction 1: ") and "Your hand" not in public
    assert public.count("5 coins in hand") == 3
    assert "Your hand: 1, 2, 3, 4, 5." in GAME.describe(state, 1)
