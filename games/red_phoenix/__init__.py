"""Red Phoenix of the Alchemists: experiments towards Gold for 2-5 alchemists.

Rules as the bot plays them: ``docs/red-phoenix.md``.
"""

from __future__ import annotations

from games.protocol import JSON, Game
from games.registry import GameInfo

from .agents import AGENTS, DEFAULT_AGENT
from .config import DEFAULT_REACTION_S, DEFAULT_WINDOW_S, RANGES
from .engine import RedPhoenix
from .options import parse_options
from .reference import reference
from .script import SCRIPT_FORMATS, export_script, replay_script, run_script
from .state import State

GAME: Game[State] = RedPhoenix()  # the annotation makes mypy check the protocol
TIMERS = {"turn": float(DEFAULT_WINDOW_S), "reaction": float(DEFAULT_REACTION_S)}


def public_lines(view: JSON) -> list[str]:
    """Each seat's line on a match card: Health, coins and hand size (or out)."""
    return [
        f"❤ {p['health']} · {p['coins']} coins · hand {p['hand_size']}" if p["alive"] else "out"
        for p in view.get("players", {}).values()
    ]


GAME_INFO = GameInfo(
    game=GAME,
    agents=AGENTS,
    default_agent=DEFAULT_AGENT,
    run_script=run_script,
    export_script=export_script,
    replay_script=replay_script,
    script_formats=SCRIPT_FORMATS,
    cog="cogs.red_phoenix",
    timers=TIMERS,
    colour=0xC0392B,
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
    "RedPhoenix",
    "export_script",
    "replay_script",
    "run_script",
]
