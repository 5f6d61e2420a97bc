"""Floral Extract: the flagship two-player death match (rules: docs/floral-extract.md)."""

from games.floral_extract.agents import Gardener
from games.floral_extract.engine import FloralExtract
from games.floral_extract.script import SCRIPT_FORMATS, export_script, replay_script, run_script
from games.protocol import RandomAgent
from games.registry import AgentFactory

GAME = FloralExtract()
AGENTS: dict[str, AgentFactory] = {"random": RandomAgent, "gardener": Gardener}
DEFAULT_AGENT = "gardener"

__all__ = [
    "AGENTS",
    "DEFAULT_AGENT",
    "GAME",
    "SCRIPT_FORMATS",
    "FloralExtract",
    "export_script",
    "replay_script",
    "run_script",
]
