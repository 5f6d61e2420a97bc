"""The games this host knows: every subpackage of ``games`` that declares a ``GAME_INFO``.

A game registers by declaring itself once, in its package's ``__init__.py``::

    GAME_INFO = GameInfo(game=GAME, agents=AGENTS, default_agent="gardener", ...,
                         cog="cogs.floral_extract", timers={"turn": 60.0})

The command line (simulate, play, replay, audit, the help), the client's extension list and the
tests read this registry, so adding a game changes no file in ``bot/``. A module path
(``tests.bot.toy_game``) also loads a game that is not registered, for tests and experiments.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import games
from games.protocol import Agent, Game, Topic
from games.scripts import ScriptStep
from games.text import excerpt

AgentFactory = Callable[[int, random.Random], Agent]
"""Builds the agent for a seat, with its own RNG."""

DEFAULT_TIMERS: Mapping[str, float] = {"turn": 60.0}


@dataclass(frozen=True, slots=True, kw_only=True)
class PictureHooks:
    """What a game gives the pictures (``pictures/``) beyond the generic end card, which shows
    the title and the winners for every game. All optional, all pure: no Pillow in ``games/``.

    ``scores(state)``: one number per seat, public at the end of the match (points, the lead):
    the end card charts it over the match's stored steps. ``turn(state)``: the turn a state
    follows, so steps within one turn (a planting phase) count once; None: every step counts.
    ``module``: a module outside ``games/`` (it may draw with Pillow) with the game's own
    pictures, see ``pictures.hooks``."""

    scores: Callable[[Any], Sequence[float]] | None = None
    score_label: str = "points"
    turn: Callable[[Any], int] | None = None
    turn_label: str = "turn"  # what the chart's x counts ("auction")
    module: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GameInfo:
    game: Game[Any]
    agents: Mapping[str, AgentFactory]
    default_agent: str
    # run_script(script) -> trace; raises ConfigError naming the field of a malformed script
    run_script: Callable[[Any], Any]
    # export_script(config, seed, names, windows) -> script; windows: one mapping per resolved
    # window, seat -> that seat's raw attempts in arrival order
    export_script: Callable[[Any, int, Any, Any], Any]
    # replay_script(script) -> the script step by step (moves, events, state, checkpoint), for
    # the audit's export check and replay's summary; None for a game without one
    replay_script: Callable[[Any], Iterator[ScriptStep]] | None = None
    # the "format" values its run_script reads (games/scripts.py)
    script_formats: tuple[str, ...] = ()
    # the discord.py extension with the game's commands (``cogs.floral_extract``); None: none
    cog: str | None = None
    # the colour of the game's cards on Discord (0xRRGGBB); None: one chosen by its name
    colour: int | None = None
    # public_lines(public view) -> one short line per seat for the players' fields of a card
    # (bot/embeds.py): what everyone may see (points, health, hand sizes); None: names only
    public_lines: Callable[[Any], Sequence[str]] | None = None
    # timer kind -> default window length in seconds; protocol v2 adds kinds beyond "turn"
    timers: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_TIMERS))
    # what the pictures may draw of this game (PictureHooks); None: the generic end card only
    pictures: PictureHooks | None = None
    # reference(state) -> the match's content by name, with what each piece does (every card,
    # potion, tile or panel in play), in reading order: ``/cards`` on Discord, ``cards`` in
    # ``play``. Public (no seat's secret); each Topic's text at most TOPIC_CHARS characters
    reference: Callable[[Any], Sequence[Topic]] | None = None
    # parse_options(text) -> the raw config a setup options line asks for (what the game's
    # setup command reads, and ``floral-host simulate|play --options``; ``games.options``);
    # raises ConfigError naming the option. None: the game takes no options line
    parse_options: Callable[[str], dict[str, Any]] | None = None
    # whether the game hides anything from some seat (hands, maps): True for every real game;
    # a game with nothing hidden (rock-paper-scissors) says False, and the conformance suite
    # then checks it never declares a secret instead of looking for leaks
    secrets: bool = True
    # every whole-number option of the config -> its inclusive range (low, high): parse_config
    # refuses a value outside it naming the option, and the game's page says it under
    # ``# For moderators``; the maximums keep every prompt, state and step bounded
    # (tests/games/test_options.py checks each)
    ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.game.name

    @property
    def title(self) -> str:
        return self.game.title


_found: dict[str, str] | None = None  # game name -> package, filled by discover()


def discover() -> dict[str, str]:
    """Scan ``games`` for packages that declare a GAME_INFO (again: a test that adds a package
    calls this); each game's name -> its package."""
    global _found
    found: dict[str, str] = {}
    for module in pkgutil.iter_modules(games.__path__, prefix="games."):
        if not module.ispkg:
            continue
        info = getattr(importlib.import_module(module.name), "GAME_INFO", None)
        if isinstance(info, GameInfo):
            if info.name in found:
                raise ValueError(f"{module.name} and {found[info.name]} both declare {info.name}")
            found[info.name] = module.name
    _found = found
    return found


def _packages() -> dict[str, str]:
    return _found if _found is not None else discover()


def add(module: str) -> GameInfo:
    """Register the game a module outside ``games`` declares (a plugin, the tests' toy game)
    under its name, as if it were found there; KeyError if it declares none."""
    info = from_module(importlib.import_module(module))
    _packages()[info.name] = module
    return info


def names() -> list[str]:
    return sorted(_packages())


def get(name: str) -> GameInfo:
    """The game called ``name``; KeyError with the known names if there is none."""
    packages = _packages()
    if name not in packages:
        raise KeyError(f"unknown game {excerpt(name)}; known: {', '.join(names())}")
    return from_module(importlib.import_module(packages[name]))


def load(key: str) -> GameInfo:
    """The game a match is stored under: a registered name, or the path of a module that
    declares a GAME_INFO (``tests.bot.toy_game``); KeyError saying which is missing."""
    if key in _packages() or "." not in key:
        return get(key)
    try:
        module = importlib.import_module(key)
    except ImportError as error:
        raise KeyError(f"unknown game {excerpt(key)}: {error}") from None
    return from_module(module)


def from_module(module: ModuleType) -> GameInfo:
    """The GameInfo a game module declares."""
    info = getattr(module, "GAME_INFO", None)
    if not isinstance(info, GameInfo):
        raise KeyError(f"{module.__name__} declares no GAME_INFO")
    return info


def cogs() -> list[str]:
    """The extension of every registered game that has one, in name order."""
    return [cog for name in names() if (cog := get(name).cog) is not None]


def by_script_format() -> dict[str, str]:
    """Each script format a registered game reads -> that game's name."""
    return {fmt: name for name in names() for fmt in get(name).script_formats}
