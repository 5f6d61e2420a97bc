"""End to end: ``/stats``, ``/leaderboard`` and ``/match history`` through the real
``floral-host run`` and the fake Discord, after three finished matches.

The matches are played on the bot's database before the bot starts, by the built-in AI players
through a real host (``bot.simulate``'s lockstep players, so a seed gives the same results),
with the world's people in the seats. Beside them the database holds what must never count or
show here: an aborted match, a practice match, and a match of another server.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from bot.host import Host
from bot.simulate import Lockstep, SimulatedPlayers, Simulation
from bot.store import Change, MatchRecord, NewMatch
from bot.store.sqlite import SqliteStore
from games.text import names_text

from .fake_discord import FakeDiscord, Message, World
from .test_floral_host import LaunchBot

GAME = "floral-extract"
OTHER_GUILD = 4242
STRANGER = 777  # plays only in the other server


async def play_matches(db: Path, world: World) -> list[MatchRecord]:
    """Three finished Floral Extract matches in the world's server (alice v bob, bob v carol,
    carol v alice), and the matches that must not count; every record, as stored."""
    players = SimulatedPlayers(io.StringIO(), quiet=True)
    host = Host(await SqliteStore.open(db), players, retry_base_s=0.05)
    sim = Simulation(host, players, 60.0, junk_rate=0.0, lockstep=Lockstep(host))
    await host.start()
    alice, bob, carol = world.alice, world.bob, world.carol
    try:
        seats = [
            (world.guild.id, (alice, bob), False),
            (world.guild.id, (bob, carol), False),
            (world.guild.id, (carol, alice), False),
            (world.guild.id, (alice, bob), True),  # practice
            (OTHER_GUILD, (alice, None), False),  # another server, with a stranger
        ]
        ids = []
        for seed, (guild, users, practice) in enumerate(seats, start=11):
            record = await host.create_match(
                GAME,
                guild_id=guild,
                channel_id=world.channel.id if guild == world.guild.id else 1,
                players=[u.id if u else STRANGER for u in users],
                names=[u.name if u else "stranger" for u in users],
                seed=seed,
                window_s=60.0,
                practice=practice,
            )
            players.players[record.id] = sim.seat_players(record)
            await host.start_match(record.id)
            ids.append(record.id)
        assert sim.lockstep is not None
        await sim.lockstep.run(ids)
        aborted = await host.create_match(
            GAME,
            guild_id=world.guild.id,
            channel_id=world.channel.id,
            players=[alice.id, carol.id],
            names=["alice", "carol"],
            seed=3,
        )
        await host.abort(aborted.id)
        await host.wait_idle()
        return await host.list_matches()
    finally:
        await host.close()


def field_of(message: Message, game_title: str) -> dict[str, Any]:
    fields = message.embeds[0]["fields"]
    return next(f for f in fields if f["name"] == game_title)


def record_of(records: list[MatchRecord], user_id: int) -> tuple[int, int]:
    """(wins, losses) of ``user_id`` in the world's server's three rated matches."""
    wins = losses = 0
    for record in records:
        if record.guild_id == OTHER_GUILD or record.practice or record.status != "finished":
            continue
        if user_id in record.players:
            won = record.players.index(user_id) in record.outcome["winners"]  # type: ignore[index]
            shared = len(record.outcome["winners"]) > 0  # type: ignore[index]
            wins += won
            losses += shared and not won
    return wins, losses


async def test_stats_and_leaderboard_after_three_matches_show_this_server_only(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    db = tmp_path / "floral-host.db"
    records = await play_matches(db, world)
    assert [r.status for r in records] == ["finished"] * 5 + ["aborted"]
    bot = await launch_bot(env={"FLORAL_DB": str(db), "FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")

    mine = await (await fake.slash(world.alice, "stats", {}, channel=world.channel)).reply()
    assert mine.ephemeral and mine.embeds[0]["title"] == "Stats of Alice"
    floral = field_of(mine, "Floral Extract")
    wins, losses = record_of(records, world.alice.id)
    assert f"2 matches: {wins} won, {losses} lost" in floral["value"], floral  # not 4
    assert re.search(r"#[123] of 3 here", floral["value"]), floral

    options = {"player": world.carol, "game": GAME, "share": True}
    shared = await (await fake.slash(world.bob, "stats", options, channel=world.channel)).reply()
    assert not shared.ephemeral and shared.embeds[0]["title"] == "Stats of Carol"
    wins, losses = record_of(records, world.carol.id)
    assert f"2 matches: {wins} won, {losses} lost" in field_of(shared, "Floral Extract")["value"]

    nobody = await (
        await fake.slash(world.alice, "stats", {"player": world.mod}, channel=world.channel)
    ).reply()
    assert nobody.content == "Mod has no finished match in this server yet."
    in_dm = await (await fake.slash(world.alice, "stats", {})).reply()
    assert in_dm.content.startswith("Ratings belong to each server")

    board = await (
        await fake.slash(world.mod, "leaderboard", {"game": GAME}, channel=world.channel)
    ).reply()
    embed = board.embeds[0]
    assert embed["title"] == "Leaderboard: Floral Extract"
    lines = embed["description"].splitlines()
    assert [line.split()[0] for line in lines] == ["**1.**", "**2.**", "**3.**"]
    ids = [int(re.search(r"<@(\d+)>", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert sorted(ids) == sorted(u.id for u in (world.alice, world.bob, world.carol))
    assert STRANGER not in ids and "stranger" not in board.text()
    shown = [float(re.search(r"· \*\*(-?[\d.]+)\*\*", ln).group(1)) for ln in lines]  # type: ignore[union-attr]
    assert shown == sorted(shown, reverse=True)
    top = lines[0]
    wins, losses = record_of(records, ids[0])
    assert f"{wins}-{losses} in 2" in top, top
    assert "Page 1 of 1 · 3 players rated in this server" in embed["footer"]["text"]

    wrong = await (
        await fake.slash(world.mod, "leaderboard", {"game": "chess"}, channel=world.channel)
    ).reply()
    assert wrong.ephemeral and wrong.content.startswith("There is no game 'chess'")
    empty = await (
        await fake.slash(world.mod, "leaderboard", {"game": "warlocks-brew"}, channel=world.channel)
    ).reply()
    assert empty.content == "Nobody has finished a Warlock's Brew match in this server yet."
    in_dm = await (await fake.slash(world.bob, "leaderboard", {"game": GAME})).reply()
    assert in_dm.content.startswith("Ratings belong to each server: use `/leaderboard`")


async def test_match_history_lists_this_servers_finished_matches_newest_first(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    db = tmp_path / "floral-host.db"
    records = await play_matches(db, world)
    bot = await launch_bot(env={"FLORAL_DB": str(db), "FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")

    every = await (await fake.slash(world.bob, "match history", {}, channel=world.channel)).reply()
    assert every.ephemeral
    head, *lines = every.content.splitlines()
    here = [r for r in records if r.guild_id == world.guild.id and r.status == "finished"]
    here.sort(key=lambda r: r.ended_seq or 0)  # the order they ended in, oldest first
    assert head.startswith("Finished matches in this server, newest first (page 1 of 1, 4 in")
    assert [line.split(" · ")[0] for line in lines] == [f"m{r.id}" for r in reversed(here)]
    practice = next(r.id for r in here if r.practice)
    assert [line.split(" · ")[-2] == "practice" for line in lines] == [
        r.id == practice for r in reversed(here)
    ]
    for line, record in zip(lines, reversed(here), strict=True):
        winners = [record.names[s] for s in record.outcome["winners"]]  # type: ignore[index]
        assert f"won by {names_text(winners)}" in line if winners else "no winner" in line
        assert line.endswith(f"<t:{int(record.ended_at or 0)}:R>")
    assert "stranger" not in every.content

    carol = await (
        await fake.slash(world.bob, "match history", {"player": world.carol}, channel=world.channel)
    ).reply()
    head, *lines = carol.content.splitlines()
    assert head.startswith("Carol's finished matches in this server, newest first (page 1 of 1, 2")
    assert all("carol" in line for line in lines) and len(lines) == 2
    in_dm = await (await fake.slash(world.alice, "match history", {})).reply()
    assert in_dm.content.startswith("Match history belongs to each server")


async def test_a_big_server_pages_its_board_and_history_within_discords_limits(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    db = tmp_path / "floral-host.db"
    store = await SqliteStore.open(db)
    long_name = "Ｗｉｄｅ " * 30  # far past a display name, and wide
    for n in range(61):  # alice against 61 others, one match each
        players = (world.alice.id, 10_000 + n)
        new = NewMatch(
            GAME,
            world.guild.id,
            world.channel.id,
            players,
            ("alice", f"{long_name}{n}"),
            (),
            {},
            n,
            None,
        )
        match_id = await store.create_match(new, {}, 1000.0 + n, [])
        outcome = {"winners": [n % 2], "reason": "score", "detail": ""}
        await store.apply(Change(match_id, 1000.5 + n, status="finished", outcome=outcome))
    await store.close()
    bot = await launch_bot(env={"FLORAL_DB": str(db), "FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")

    pages = []
    for page in (1, 2, 4, 99):
        options = {"game": GAME, "page": page, "share": True}
        reply = await (
            await fake.slash(world.mod, "leaderboard", options, channel=world.channel)
        ).reply()
        embed = reply.embeds[0]
        assert len(embed["description"]) <= 4096 and len(embed["footer"]["text"]) <= 2048
        pages.append(embed)
    assert [len(p["description"].splitlines()) for p in pages] == [20, 20, 2, 2]
    assert pages[0]["footer"]["text"].startswith("Page 1 of 4 · 62 players rated in this server")
    assert pages[3]["footer"]["text"].startswith("Page 4 of 4")  # past the end: the last page
    places = [
        int(ln.split("**")[1].rstrip("."))
        for p in pages[:3]
        for ln in p["description"].splitlines()
    ]
    assert places == [*range(1, 41), 61, 62]
    assert f"<@{world.alice.id}>" in pages[0]["description"].splitlines()[0]  # 31 wins of 61

    mine = await (await fake.slash(world.alice, "stats", {}, channel=world.channel)).reply()
    assert "61 matches: 31 won, 30 lost" in field_of(mine, "Floral Extract")["value"]
    assert "#1 of 62 here" in field_of(mine, "Floral Extract")["value"]

    history = await (
        await fake.slash(world.bob, "match history", {"page": 3}, channel=world.channel)
    ).reply()
    head, *lines = history.content.splitlines()
    assert head.startswith("Finished matches in this server, newest first (page 3 of 7, 61 in all)")
    assert len(history.content) <= 2000 and len(lines) == 11  # ten matches and the next page
    assert lines[0].startswith("m41 · Floral Extract · alice vs") and lines[0].endswith(":R>")
    assert lines[-1] == "More: `/match history page:4`."
    last = await (
        await fake.slash(world.bob, "match history", {"page": 50}, channel=world.channel)
    ).reply()
    head, *lines = last.content.splitlines()
    assert head.startswith("Finished matches in this server, newest first (page 7 of 7, 61 in all)")
    assert [line.split(" · ")[0] for line in lines] == ["m1"]
    none = await (
        await fake.slash(world.bob, "match history", {"player": world.mod}, channel=world.channel)
    ).reply()
    assert none.content == "Mod's finished matches in this server: none yet."
