"""Flaky Flasks: a deck-building brewing game for 2-4 players (the fifth game of the seeds).

Rules as the bot plays them: ``docs/flaky-flasks.md``.
"""

from __future__ import annotations

from games.protocol import Game
from games.registry import GameInfo

from .agents import AGENTS, DEFAULT_AGENT
from .config import DEFAULTS, RANGES
from .engine import FlakyFlasks
from .options import parse_options
from .reference import reference
from .script import SCRIPT_FORMATS, export_script, replay_script, run_script
from .state import PublicView, State

GAME: Game[State] = FlakyFlasks()  # the annotation makes mypy check the protocol
# "turn": every window but counter; each request carries its own length from the config
# (window_s, or work_window_s for work) unless the match sets the turn length for all of them.
TIMERS = {
    "turn": float(DEFAULTS["window_s"]),
    "reaction": float(DEFAULTS["reaction_window_s"]),  # counter
}


def public_lines(view: PublicView) -> list[str]:
    """Each seat's line on a match card: fame, coins and hand size."""
    return [
        f"fame {p['fame']} · {p['coins']} coins · hand {p['hand_size']}"
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
    cog="cogs.flaky_flasks",
    timers=TIMERS,
    colour=0xD68910,
    public_lines=public_lines,
    parse_options=parse_options,
    reference=reference,
    ranges=RANGES,
)

__all__ = [
    "AGENTS",
    "DEFAULT_AGENT",
    "GAME",
    "GAME_INFO",
    "SCRIPT_FORMATS",
    "TIMERS",
    "FlakyFlasks",
    "export_script",
    "replay_script",
    "run_script",
]
