"""Flaky Flasks' setup options line (``games.options``): what ``/flasks setup``'s ``options``
and ``floral-host simulate|play --options`` read."""

from __future__ import annotations

from games import options
from games.options import OptionsSpec, set_by_command
from games.protocol import JSON

from .config import INT_OPTIONS, RANGES

CONTENT_FIELD = "content_set"
TIMER_OPTION = {"window_s": "window", "reaction_window_s": "reaction_window", "rounds": "rounds"}
BOOL_OPTIONS = ("bargain",)
CHOICE_OPTIONS = {"prompt_mode": ("eligible", "all")}
OPTION_KEYS = (
    *BOOL_OPTIONS,
    *CHOICE_OPTIONS,
    *(k for k in INT_OPTIONS if k not in TIMER_OPTION),
    "seed",
)


SPEC = OptionsSpec(
    bools=BOOL_OPTIONS,
    choices=CHOICE_OPTIONS,
    ints={key: RANGES[key] for key in (*INT_OPTIONS, "seed") if key not in TIMER_OPTION},
    elsewhere={
        **set_by_command(TIMER_OPTION),
        CONTENT_FIELD: "a content set is given as an attached JSON file",
    },
    order=OPTION_KEYS,
)


def parse_options(text: str) -> dict[str, JSON]:
    """The config an options line sets; ConfigError names the option (or ``options``). The
    engine's ``parse_config`` then checks each value's range."""
    return options.parse_options(text, SPEC)
