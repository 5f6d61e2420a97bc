"""Building small scripts for the rules tests."""

from __future__ import annotations

from typing import Any

from games.flaky_flasks import run_script

STARTER = ["ember", "viper", "frost", "brick", "moss", "ice", "opal", "jade", "glass"]
STARTER += ["copper"] * 3


def script(
    steps: list[Any], players: tuple[str, ...] = ("P1", "P2"), **extra: Any
) -> dict[str, Any]:
    return {"format": "flaky-flasks-script/1", "players": list(players), "steps": steps, **extra}


def trace(steps: list[Any], players: tuple[str, ...] = ("P1", "P2"), **extra: Any) -> list[Any]:
    return list(run_script(script(steps, players, **extra))["checkpoints"])


def work(**attempts: list[str]) -> dict[str, Any]:
    return {"window": "work", "attempts": attempts}


def step(window: str, **attempts: list[str]) -> dict[str, Any]:
    return {"window": window, "attempts": attempts}
