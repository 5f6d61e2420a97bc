"""Potioncraft (Game Mode 2): hidden hands, crafting potions of three categories, spells, perks and
out-of-turn blocks. Rules as the bot plays them: ``docs/potioncraft.md``."""

from __future__ import annotations

from games.protocol import JSON, Game
from games.registry import GameInfo

from .agents import AGENTS, DEFAULT_AGENT
from .config import DEFAULTS, RANGES
from .engine import Potioncraft
from .options import parse_options
from .reference import topics
from .script import SCRIPT_FORMATS, export_script, replay_script, run_script
from .state import State

GAME: Game[State] = Potioncraft()  # the annotation makes mypy check the protocol


def public_lines(view: JSON) -> list[str]:
    """Each seat's line on a match card: its hand's size, potions and categories."""
    return [
        "out"
        if s.get("out")
        else f"hand {s['hand_size']} · {len(s['potions'])} potions · {s['categories']}/3"
        for s in view.get("seats", [])
    ]


GAME_INFO = GameInfo(
    game=GAME,
    agents=AGENTS,
    default_agent=DEFAULT_AGENT,
    run_script=run_script,
    export_script=export_script,
    replay_script=replay_script,
    script_formats=SCRIPT_FORMATS,
    cog="cogs.potioncraft",
    # §16: window_s (draw, main, astral, foresight, discard) and reaction_s (block, pair)
    timers={"turn": float(DEFAULTS["window_s"]), "reaction": float(DEFAULTS["reaction_s"])},
    colour=0x2471A3,
    public_lines=public_lines,
    parse_options=parse_options,
    reference=topics,
    ranges=RANGES,
)

__all__ = [
    "AGENTS",
    "DEFAULT_AGENT",
    "GAME",
    "GAME_INFO",
    "SCRIPT_FORMATS",
    "Potioncraft",
    "export_script",
    "replay_script",
    "run_script",
]
