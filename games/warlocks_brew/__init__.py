"""Warlock's Brew: secret simultaneous bids for ingredients; three of a kind wins.

Rules as the bot plays them: ``docs/warlocks-brew.md``.
"""

from __future__ import annotations

from games.protocol import Game

from .agents import AGENTS, DEFAULT_AGENT
from .engine import WarlocksBrew
from .script import SCRIPT_FORMATS, export_script, replay_script, run_script
from .state import State

GAME: Game[State] = WarlocksBrew()  # the annotation makes mypy check the protocol

__all__ = [
    "AGENTS",
    "DEFAULT_AGENT",
    "GAME",
    "SCRIPT_FORMATS",
    "WarlocksBrew",
    "export_script",
    "replay_script",
    "run_script",
]
