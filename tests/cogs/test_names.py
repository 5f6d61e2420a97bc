"""Every cog template that lists names lists them as a sentence does ("Alice, Bob and Carol"),
proof-read with 1 to 6 names: the status's waiting seats and winners, the history's winners,
a setup's players, a full table's players, the bots refused a seat, the log channel's readers."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot.host import HostError, MatchStatusView, WindowStatus
from bot.store import MatchRecord
from cogs.common import log_readers_text, people_only
from cogs.matches import history_line, status_text
from cogs.setup import players_text
from cogs.tables import set_up_text
from games.text import names_text

NAMES = ("Alice", "Bob", "Carol", "Dan", "Eve", "Fay")


def record(count: int, **changes: Any) -> MatchRecord:
    fields: dict[str, Any] = {
        "id": 12,
        "game": "warlocks-brew",
        "guild_id": 1,
        "channel_id": 2,
        "players": tuple(range(101, 101 + count)),
        "names": NAMES[:count],
        "moderators": (9,),
        "config": {},
        "seed": 1,
        "window_s": 30.0,
        "status": "running",
        "step": 3,
        "outcome": None,
        "created_at": 0.0,
    }
    return MatchRecord(**{**fields, **changes})


def listed(text: str, names: list[str]) -> None:
    """``names`` appear in ``text`` as one sentence list, never joined by "and" twice."""
    assert names_text(names) in text, text
    assert text.count(" and ") <= 1 and ", and " not in text, text


@pytest.mark.parametrize("count", range(1, 7))
def test_the_status_lists_who_it_waits_for_and_the_winners(count: int) -> None:
    seats = tuple(range(count))
    window = WindowStatus(4, seats, (), 1.9e9, 20.0, False)
    waiting = status_text(MatchStatusView(record(count), "Warlock's Brew", {}, "", window))
    listed(waiting.splitlines()[-1], list(NAMES[:count]))
    over = record(count, status="finished", outcome={"winners": list(seats), "reason": "r"})
    line = status_text(MatchStatusView(over, "Warlock's Brew", {}, "", None)).splitlines()[-1]
    listed(line, list(NAMES[:count]))
    assert line.startswith("Winners: " if count > 1 else "Winner: ")


@pytest.mark.parametrize("count", range(1, 7))
def test_the_history_names_the_winners(count: int) -> None:
    outcome = {"winners": list(range(count)), "reason": "r"}
    line = history_line(record(count, status="finished", outcome=outcome), "Warlock's Brew")
    listed(line.split(" · won by ")[1], list(NAMES[:count]))


@pytest.mark.parametrize("count", range(1, 7))
def test_a_setup_and_a_full_table_list_their_players(count: int) -> None:
    mentions = [f"<@{101 + n}>" for n in range(count)]
    listed(players_text(mentions), [f"{m} (P{n})" for n, m in enumerate(mentions, start=1)])
    listed(set_up_text(record(count), "/brew start"), mentions)


@pytest.mark.parametrize("count", range(1, 7))
def test_bots_refused_and_log_channel_readers_are_listed(count: int) -> None:
    names = list(NAMES[:count])
    bots = [cast(discord.Member, SimpleNamespace(display_name=n, bot=True)) for n in names]
    with pytest.raises(HostError) as refused:
        people_only(bots)
    listed(str(refused.value), names)
    listed(log_readers_text(names), names)
