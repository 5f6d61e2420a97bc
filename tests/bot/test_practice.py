"""Practice matches (``bot/practice.py``): a player alone against AI players, whose seats the
bot answers itself; Discord never gets an AI seat's messages; one practice at a time; a restart
resumes it with its AI players answering."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.host import ClaimTaken, Host, HostError
from bot.practice import (
    Practice,
    ai_level,
    ai_name,
    is_ai,
    practice_again,
    practice_levels,
    practice_setup,
)
from bot.store.sqlite import SqliteStore
from games import registry
from tests.bot.conftest import RecordingTransport, eventually

TOY = "tests.bot.toy_game"
HUMAN, DM_CHANNEL = 123_456_789_012_345_678, 5


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy game is registered for the test's length; AI players think for milliseconds."""
    monkeypatch.setattr("bot.practice.THINK_S", (0.005, 0.01))
    registry.add(TOY)
    yield
    registry.discover()


class Bot:
    """What the client builds: the practice's transport around the Discord one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.discord = RecordingTransport()
        self.practice = Practice()
        self.host: Host | None = None

    async def start(self) -> Host:
        store = await SqliteStore.open(self.path)
        self.practice = Practice()
        self.host = Host(store, self.practice.transport(self.discord), retry_base_s=0.01)
        self.practice.host = self.host
        await self.practice.resume(store)
        await self.host.start()
        self.practice.answer_open_windows()
        return self.host

    async def stop(self) -> None:
        assert self.host is not None
        await self.practice.stop()
        await self.host.close()


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Bot]:
    running = Bot(tmp_path / "host.db")
    await running.start()
    yield running
    await running.stop()


async def answer_rounds(host: Host, match_id: int, rounds: int) -> None:
    """The human guesses 4 each round, once their prompt is open."""

    def answered(step: int) -> bool:
        return all(p.step != step for p in host.prompts_for(HUMAN))

    for _ in range(rounds):
        await eventually(lambda: bool(host.prompts_for(HUMAN)))
        prompt = host.prompts_for(HUMAN)[0]
        assert (await host.submit(match_id, HUMAN, "4", step=prompt.step)).accepted
        await eventually(lambda: answered(prompt.step))  # noqa: B023 (awaited at once)


def test_ai_seats_are_told_apart_by_id_and_keep_their_level_in_their_name() -> None:
    assert is_ai(3) and not is_ai(HUMAN) and not is_ai(0) and not is_ai(None)
    assert ai_level(ai_name(2, "normal")) == "normal" and ai_level("Alice") is None


def test_every_game_s_practice_offers_easy_normal_and_hard_normal_by_default() -> None:
    info = registry.get(TOY)
    assert practice_levels(info) == ["easy", "normal", "hard"]
    assert practice_setup(TOY, None, None).level == "normal"  # not the game's own default
    assert practice_setup(TOY, "hard", None).level == "hard"
    with pytest.raises(HostError, match=r"has no AI level 'genius'; choose easy, normal or hard\."):
        practice_setup(TOY, "genius", None)
    older = dataclasses.replace(info, agents={"random": info.agents["random"]})
    assert practice_levels(older) == ["random"]  # a game without them offers its own


@pytest.mark.parametrize(
    ("game", "level", "opponents", "message"),
    [
        ("chess", None, None, "unknown game 'chess'"),
        ("games.protocol", None, None, "unknown game 'games.protocol'"),  # never an import
        ("floral-extract", "genius", None, "Floral Extract has no AI level 'genius'"),
        ("floral-extract", None, 2, "Floral Extract takes 1 AI opponents, not 2"),
        ("warlocks-brew", None, 6, "Warlock's Brew takes 1 to 5 AI opponents, not 6"),
    ],
)
def test_a_bad_practice_is_refused_in_one_line(
    game: str, level: str | None, opponents: int | None, message: str
) -> None:
    with pytest.raises(HostError, match=message):
        practice_setup(game, level, opponents)


async def test_a_practice_runs_to_its_end_with_the_ai_answering(bot: Bot) -> None:
    assert bot.host is not None
    asked = practice_setup(TOY, None, 2)
    record = await bot.practice.start(asked, HUMAN, "Alice", DM_CHANNEL)
    assert record.practice and record.players == (HUMAN, 1, 2)
    assert record.names == ("Alice", "AI 1 (normal)", "AI 2 (normal)")
    assert (record.guild_id, record.channel_id, record.moderators) == (0, DM_CHANNEL, (HUMAN,))
    await answer_rounds(bot.host, record.id, 3)
    await bot.host.wait_over(record.id)
    status = await bot.host.status(record.id)
    assert status.match.status == "finished"
    sent_to = {d.user_id for d in bot.discord.sent if d.audience.kind == "seat"}
    assert sent_to == {HUMAN}  # Discord never got an AI seat's message
    public = [d for d in bot.discord.sent if d.audience.kind == "public"]
    assert public and all(d.channel_id == DM_CHANNEL for d in public)  # the channel: their DMs


async def test_one_practice_at_a_time(bot: Bot) -> None:
    asked = practice_setup(TOY, None, None)
    first = await bot.practice.start(asked, HUMAN, "Alice", DM_CHANNEL)
    with pytest.raises(HostError, match=f"already have a practice match, m{first.id}"):
        await bot.practice.start(asked, HUMAN, "Alice", DM_CHANNEL)
    other = await bot.practice.start(asked, HUMAN + 1, "Bob", DM_CHANNEL + 1)
    assert other.id != first.id


async def test_three_practices_started_at_once_make_one(bot: Bot) -> None:
    """One at a time is checked and made in one go: starts racing each other make one."""
    assert bot.host is not None
    asked = practice_setup(TOY, None, None)
    starts = [bot.practice.start(asked, HUMAN, "Alice", DM_CHANNEL) for _ in range(3)]
    results = await asyncio.gather(*starts, return_exceptions=True)
    made = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, HostError)]
    assert len(made) == 1 and len(refused) == 2, results
    assert all(f"already have a practice match, m{made[0].id}" in str(r) for r in refused)
    assert [r.id for r in await bot.host.list_matches(active_only=True)] == [made[0].id]


async def test_a_finished_practice_is_played_again_once(bot: Bot) -> None:
    """Practice again: the same game, level and opponents; a second time is refused."""
    assert bot.host is not None
    first = await bot.practice.start(practice_setup(TOY, "easy", 2), HUMAN, "Alice", DM_CHANNEL)
    with pytest.raises(HostError, match=f"Your practice m{first.id} is not over yet"):
        practice_again(first, HUMAN)
    await answer_rounds(bot.host, first.id, 3)
    await bot.host.wait_over(first.id)
    over = (await bot.host.status(first.id)).match
    with pytest.raises(HostError, match=f"Match m{first.id} is not your practice"):
        practice_again(over, HUMAN + 1)
    asked = practice_again(over, HUMAN)
    assert (asked.info.name, asked.level, asked.opponents) == (TOY, "easy", 2)
    again = await bot.practice.start(asked, HUMAN, "Alice", DM_CHANNEL, again=first.id)
    assert again.names == ("Alice", "AI 1 (easy)", "AI 2 (easy)")
    await bot.host.abort(again.id)
    with pytest.raises(ClaimTaken, match=f"m{first.id} already has its rematch, m{again.id}"):
        await bot.practice.start(asked, HUMAN, "Alice", DM_CHANNEL, again=first.id)


async def test_a_restart_resumes_a_practice_with_its_ai_players(bot: Bot) -> None:
    assert bot.host is not None
    record = await bot.practice.start(practice_setup(TOY, None, 1), HUMAN, "Alice", DM_CHANNEL)
    await answer_rounds(bot.host, record.id, 1)
    await bot.stop()
    host = await bot.start()  # a new host and new AI players on the same file
    assert [p.seat for p in bot.practice.players[record.id]] == [1]
    await answer_rounds(host, record.id, 2)
    await host.wait_over(record.id)
    assert (await host.status(record.id)).match.status == "finished"
