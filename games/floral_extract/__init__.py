"""Floral Extract: the flagship two-player death match (rules: docs/floral-extract.md)."""

from games.floral_extract.agents import EasyAgent, Gardener, NormalGardener
from games.floral_extract.config import DEFAULT_TIMEOUT_S, RANGES, parse_rules_text
from games.floral_extract.engine import FloralExtract
from games.floral_extract.render import reference
from games.floral_extract.script import SCRIPT_FORMATS, export_script, replay_script, run_script
from games.floral_extract.state import State
from games.protocol import JSON, RandomAgent
from games.registry import AgentFactory, GameInfo, PictureHooks

GAME = FloralExtract()
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "easy": EasyAgent,
    "normal": NormalGardener,
    "hard": Gardener,
}
DEFAULT_AGENT = "normal"


def _points(state: State) -> list[int]:
    """Each seat's points (public every turn): the end card's chart."""
    return [player.points for player in state.players]


def _turn(state: State) -> int:
    return state.turns_completed


# the garden and the rune maps are drawn by pictures/floral_extract.py (Pillow stays out of games/)
PICTURES = PictureHooks(
    scores=_points, score_label="points", turn=_turn, module="pictures.floral_extract"
)


def public_lines(view: JSON) -> list[str]:
    """Each seat's line on a match card: its points (public in every report)."""
    points = view.get("points", {})
    return [f"{points.get(seat, 0)} points" for seat in ("P1", "P2")]


GAME_INFO = GameInfo(
    game=GAME,
    agents=AGENTS,
    default_agent=DEFAULT_AGENT,
    run_script=run_script,
    export_script=export_script,
    replay_script=replay_script,
    script_formats=SCRIPT_FORMATS,
    cog="cogs.floral_extract",
    timers={"turn": DEFAULT_TIMEOUT_S},
    pictures=PICTURES,
    colour=0x2E7D6B,
    public_lines=public_lines,
    parse_options=parse_rules_text,
    reference=reference,
    ranges=RANGES,
)

__all__ = [
    "AGENTS",
    "DEFAULT_AGENT",
    "GAME",
    "GAME_INFO",
    "SCRIPT_FORMATS",
    "FloralExtract",
    "export_script",
    "replay_script",
    "run_script",
]
