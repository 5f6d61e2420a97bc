"""The registry: each game package declares itself once, and every place that names games
(the command line, replay, the client's cogs) reads it, so a new game changes nothing in bot/."""

from __future__ import annotations

import importlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import games
from bot import client
from bot.arguments import ai_levels_text
from bot.cli import build_parser
from bot.games import load_game_info
from bot.replay import game_of
from bot.simulate import simulate
from games import registry
from games.floral_extract import FloralExtract
from games.floral_extract.agents import EasyAgent, Gardener, NormalGardener
from games.protocol import RandomAgent
from games.warlocks_brew import WarlocksBrew
from games.warlocks_brew import agents as brew_agents

ROOT = Path(__file__).resolve().parents[2]
FAKE_GAMES = Path(__file__).parent / "fake_games"  # holds fake_game/, a package like games/x/


@pytest.fixture
def fake_game() -> Iterator[None]:
    """``fake_game`` sits in ``games/`` for the test's length: the registry scans again."""
    original = games.__path__
    games.__path__ = [*original, str(FAKE_GAMES)]
    try:
        registry.discover()
        yield
    finally:
        games.__path__ = original
        sys.modules.pop("games.fake_game", None)
        registry.discover()


def test_both_games_declare_their_fields() -> None:
    assert {"floral-extract", "warlocks-brew"} <= set(registry.names())
    floral, brew = registry.get("floral-extract"), registry.get("warlocks-brew")
    assert isinstance(floral.game, FloralExtract) and floral.title == "Floral Extract"
    assert floral.agents == {
        "random": RandomAgent,
        "easy": EasyAgent,
        "normal": NormalGardener,
        "hard": Gardener,
    }
    assert floral.default_agent == "normal"
    assert floral.script_formats == ("floral-extract-script/1", "floral-extract-script/2")
    assert (floral.cog, floral.timers) == ("cogs.floral_extract", {"turn": 60.0})
    assert isinstance(brew.game, WarlocksBrew) and brew.title == "Warlock's Brew"
    assert brew.agents == {
        "random": brew_agents.RandomAgent,
        "easy": brew_agents.EasyAgent,
        "normal": brew_agents.NormalBidder,
        "hard": brew_agents.BidderAgent,
    }
    assert brew.default_agent == "normal"
    assert (brew.cog, brew.timers) == ("cogs.warlocks_brew", {"turn": 45.0})
    cogs = [info.cog for info in map(registry.get, registry.names()) if info.cog is not None]
    assert registry.cogs() == cogs and {"cogs.floral_extract", "cogs.warlocks_brew"} <= set(cogs)


def test_a_game_is_named_by_what_it_declares() -> None:
    for name in registry.names():
        assert registry.get(name).name == name
        assert registry.get(name).game.parse_config({}, registry.get(name).game.min_seats)


def test_the_client_loads_the_shared_cogs_and_every_registered_games() -> None:
    assert client.extensions() == [*client.SHARED_EXTENSIONS, *registry.cogs(), *client.AFTER_GAMES]
    assert {"cogs.prompts", "cogs.matches", "cogs.help"} <= set(client.SHARED_EXTENSIONS)
    for extension in client.extensions():  # each one exists and is a discord.py extension
        assert callable(importlib.import_module(extension).setup)


def test_bot_names_no_game() -> None:
    """Every game reaches bot/ through the registry only: no name or package to branch on."""
    words = {word for name in registry.names() for word in (name, name.replace("-", "_"))}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not [word for word in words if word in text], path


def test_a_module_path_still_loads_an_unregistered_game() -> None:
    assert load_game_info("tests.bot.toy_game").title == "Toy Guess"
    assert "tests.bot.toy_game" not in registry.names()
    with pytest.raises(KeyError, match=r"unknown game 'chess'; known: .*floral-extract"):
        load_game_info("chess")
    with pytest.raises(KeyError, match="declares no GAME_INFO"):
        load_game_info("games.protocol")


@pytest.mark.usefixtures("fake_game")
async def test_a_third_game_package_is_found_everywhere_without_a_bot_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "fake-game" in registry.names()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["simulate", "--help"])
    assert "  fake-game: random (default)" in capsys.readouterr().out
    assert "fake-game: random (default)" in ai_levels_text()
    assert game_of({"format": "fake-game-script/1"}).title == "Fake Game"
    assert "cogs.fake_game" in client.extensions()
    summary = await simulate("fake-game", seed=3, window_s=0.05, quiet=True, out=io.StringIO())
    assert summary["finished"] == 1


def test_the_fake_game_is_gone_after_its_test() -> None:
    assert "fake-game" not in registry.names()
    assert "cogs.fake_game" not in client.extensions()
