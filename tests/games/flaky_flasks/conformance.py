"""Flaky Flasks' case for the conformance suite (``tests/games/test_conformance.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import strategies as st

from games.flaky_flasks.config import content_for, content_key
from games.protocol import JSON

OPTIONS = {
    "bargain": st.booleans(),
    "prompt_mode": st.sampled_from(["eligible", "all"]),
    "fume_decay": st.integers(0, 5),
    "hand_size": st.integers(1, 10),
    "slots": st.integers(1, 8),
    "channel_length": st.integers(1, 6),
    "river_size": st.integers(1, 8),
    "tableau_size": st.integers(1, 8),
}


def window_bound(config: Mapping[str, JSON], seats: int) -> int:
    """The most windows a match can take, from the rules: per round a setup window; per turn
    a hex window per activation or pass, a counter window per Counter paid (a card, or a
    Charge), and a work window per command (plays, charms, props, boosts, then brew or done);
    per round a market window per sale, buy or pass, and an offer and a reply per player."""
    content = content_for(config, content_key(config))
    cards = len(content.starter_cards) + sum(c.copies for c in content.cards.values())
    tiles = len(content.starter_tiles) + sum(t.copies for t in content.tiles.values())
    symbols = cards * max((len(c.symbols) for c in content.cards.values()), default=1) * 4**6
    charge = cards * 99 + symbols * 99 * tiles  # every Charge a turn can gain bounds boosts
    turn = (
        seats * (cards + 1)
        + seats * cards
        + charge
        + seats * (int(config["slots"]) + cards + symbols + 2)
    )
    round_ = 1 + 2 * turn + seats * 3 + cards + tiles + 2 * seats
    return int(config["rounds"]) * round_


@st.composite
def configs(draw: st.DrawFn, host: bool = False) -> dict[str, JSON]:
    config: dict[str, JSON] = {"rounds": draw(st.sampled_from([6, 6, 9, 12]))}
    if host:
        config["rounds"] = 6
        config["hand_size"] = draw(st.integers(1, 5))
        return config
    chosen = draw(st.dictionaries(st.sampled_from(sorted(OPTIONS)), st.just(0), max_size=4))
    for key in chosen:
        config[key] = draw(OPTIONS[key])
    return config


CONFORMANCE_CASE = (configs(), window_bound, configs(host=True))
