"""What every game gives a player who decides, checked for each registered game alike (issue 17):
the AI levels of ``/practice`` and ``play``, a reference of the match's content within Discord's
limits, each decision's ``help`` within one message, and a rules page whose player's part a
newcomer can read (at most about 1,500 words, before ``# For moderators``)."""

from __future__ import annotations

import random
import re

import pytest

from cogs.help import parse_rules, rules_path
from games import registry
from games.play import play_match
from games.protocol import HELP_CHARS, TOPIC_CHARS, Agent, Event, Request, Setup, Topic
from games.registry import GameInfo

GAMES = registry.names()
LEVELS = ("easy", "normal", "hard")
PLAYERS_PART_WORDS = 1600  # "at most about 1,500 words"


class Watching:
    """A seat's agent that also records every request it is asked and its state's reference."""

    def __init__(self, agent: Agent, seen: list[Request]) -> None:
        self.agent, self.seen = agent, seen

    def observe(self, event: Event) -> None:
        self.agent.observe(event)

    def act(self, request: Request, view: object) -> str:
        self.seen.append(request)
        return self.agent.act(request, view)


def played(info: GameInfo, seed: int, seats: int) -> tuple[list[Request], object]:
    """Every request of one match between the game's normal AIs, and its final state."""
    game = info.game
    state, events = game.new_match(Setup(game.parse_config({}, seats), seats, seed))
    seen: list[Request] = []
    agents: list[Agent] = [
        Watching(info.agents["normal"](seat, random.Random(seed * 10 + seat)), seen)
        for seat in range(seats)
    ]
    return seen, play_match(game, state, events, agents, random.Random(seed))


@pytest.mark.parametrize("name", GAMES)
def test_every_game_offers_the_three_levels_and_plays_normal_by_default(name: str) -> None:
    info = registry.get(name)
    assert set(LEVELS) <= set(info.agents) and "random" in info.agents
    assert info.default_agent == "normal"


def check_topics(topics: list[Topic]) -> None:
    assert topics, "a reference with nothing in it"
    titles = [topic.title for topic in topics]
    assert all(title.strip() for title in titles) and len(set(titles)) == len(titles), titles
    for topic in topics:
        assert 0 < len(topic.text) <= TOPIC_CHARS, (topic.title, len(topic.text))


@pytest.mark.parametrize("name", GAMES)
def test_the_reference_and_every_help_fit_discord_through_a_match(name: str) -> None:
    info = registry.get(name)
    assert info.reference is not None, f"{name} has no reference (/cards)"
    game = info.game
    for seed, seats in ((1, game.min_seats), (2, game.max_seats)):
        state, _ = game.new_match(Setup(game.parse_config({}, seats), seats, seed))
        check_topics(list(info.reference(state)))
        requests, final = played(info, seed, seats)
        check_topics(list(info.reference(final)))
        assert requests
        for request in requests:
            assert len(request.help) <= HELP_CHARS, (request.kind, len(request.help))
            assert "Choices:" not in request.prompt  # the host lists the choices itself


def words(text: str) -> int:
    return len(re.findall(r"[\w’'-]+", text))


@pytest.mark.parametrize("name", GAMES)
def test_the_rules_page_opens_with_a_players_part_a_newcomer_can_read(name: str) -> None:
    page = rules_path(name).read_text(encoding="utf-8")
    assert re.search(r"^# For moderators\s*$", page, re.MULTILINE), "no moderators' part"
    players = [section for section in parse_rules(page) if section.part == ""]
    assert players and words(" ".join(s.text for s in players)) <= PLAYERS_PART_WORDS
