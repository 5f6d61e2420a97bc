"""Floral Extract: the flagship two-player death match (rules: docs/floral-extract.md)."""

from games.floral_extract.engine import FloralExtract
from games.floral_extract.script import export_script, run_script

GAME = FloralExtract()
AGENTS: dict[str, object] = {}
DEFAULT_AGENT = "random"

__all__ = ["AGENTS", "DEFAULT_AGENT", "GAME", "FloralExtract", "export_script", "run_script"]
