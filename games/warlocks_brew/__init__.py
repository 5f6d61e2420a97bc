"""Warlock's Brew: secret simultaneous bids for ingredients; three of a kind wins.

Rules as the bot plays them: ``docs/warlocks-brew.md``.
"""

from __future__ import annotations

from collections import Counter

from games.protocol import JSON, Game
from games.registry import GameInfo, PictureHooks

from .agents import AGENTS, DEFAULT_AGENT
from .config import DEFAULT_WINDOW_S, RANGES
from .engine import WarlocksBrew
from .options import parse_variants
from .render import reference
from .script import SCRIPT_FORMATS, export_script, replay_script, run_script
from .state import State

GAME: Game[State] = WarlocksBrew()  # the annotation makes mypy check the protocol


def _largest_set(state: State) -> list[int]:
    """Each seat's most copies of one ingredient (public: every auction shows every brew); three
    of a kind wins, so the end card charts the race to three."""
    return [max(Counter(seat.brew).values(), default=0) for seat in state.seats]


def _auction(state: State) -> int:
    return state.auction  # a rebid is the same auction


PICTURES = PictureHooks(
    scores=_largest_set, score_label="most of one ingredient", turn=_auction, turn_label="auction"
)


def public_lines(view: JSON) -> list[str]:
    """Each seat's line on a match card: coins in hand and ingredients brewed."""
    return [
        "out" if p.get("eliminated") else f"{p['hand_size']} coins · brew {p['brew_size']}"
        for p in view.get("players", [])
    ]


GAME_INFO = GameInfo(
    game=GAME,
    agents=AGENTS,
    default_agent=DEFAULT_AGENT,
    run_script=run_script,
    export_script=export_script,
    replay_script=replay_script,
    script_formats=SCRIPT_FORMATS,
    cog="cogs.warlocks_brew",
    timers={"turn": float(DEFAULT_WINDOW_S)},
    pictures=PICTURES,
    colour=0x8E44AD,
    public_lines=public_lines,
    parse_options=parse_variants,
    reference=reference,
    ranges=RANGES,
)

__all__ = [
    "AGENTS",
    "DEFAULT_AGENT",
    "GAME",
    "GAME_INFO",
    "SCRIPT_FORMATS",
    "WarlocksBrew",
    "export_script",
    "replay_script",
    "run_script",
]
