"""Red Phoenix's setup options line (``games.options``): what ``/phoenix setup``'s ``options``
and ``floral-host simulate|play --options`` read."""

from __future__ import annotations

from games import options
from games.options import OptionsSpec, set_by_command
from games.protocol import JSON

from .config import CHOICE_OPTIONS, INT_OPTIONS, RANGES

CARD_SET_FIELD = "card_set"
TIMER_OPTION = {"window_s": "window", "reaction_window_s": "reaction_window"}
OPTION_KEYS = (
    *(k for k in INT_OPTIONS if k not in TIMER_OPTION),
    *CHOICE_OPTIONS,
    "seed",
)


SPEC = OptionsSpec(
    choices={key: tuple(words) for key, words in CHOICE_OPTIONS.items()},
    ints={key: RANGES[key] for key in (*INT_OPTIONS, "seed") if key not in TIMER_OPTION},
    elsewhere={
        **set_by_command(TIMER_OPTION),
        CARD_SET_FIELD: "a card set is given as an attached JSON file",
    },
    order=OPTION_KEYS,
)


def parse_options(text: str) -> dict[str, JSON]:
    """The config an options line sets; ConfigError names the option (or ``options``). The
    engine's ``parse_config`` then checks each value's range."""
    return options.parse_options(text, SPEC)
