"""Potioncraft's setup options line (``games.options``): what ``/potion setup``'s ``options``
and ``floral-host simulate|play --options`` read."""

from __future__ import annotations

from games import options
from games.options import OptionsSpec, set_by_command
from games.protocol import JSON

from .config import BOOLEANS, CHOICES, DEFAULTS, INTEGERS, SECONDS

TIMER_OPTION = {"window_s": "window", "reaction_s": "reaction_window"}
OPTION_KEYS = tuple(k for k in DEFAULTS if k not in SECONDS)  # what the options line may set

SPEC = OptionsSpec(
    bools=tuple(BOOLEANS),
    choices={key: tuple(words) for key, words in CHOICES.items()},
    ints={
        **{key: INTEGERS.get(key) for key in OPTION_KEYS if key not in (*BOOLEANS, *CHOICES)},
        "seed": INTEGERS.get("seed", (0, 2**63 - 1)),
    },
    nullable=("max_turns",),
    bare_true=True,
    elsewhere=set_by_command(TIMER_OPTION),
    order=(*OPTION_KEYS, "seed"),
)


def parse_options(text: str) -> dict[str, JSON]:
    """The config an options line sets; ConfigError names the option (or ``options``)."""
    return options.parse_options(text, SPEC)
