"""Shard ranges (issue 22): parsed from --shards/--shard-count and FLORAL_SHARDS, refused in one
line; a match belongs to its server's shard ((guild_id >> 22) % count), a practice to shard 0,
and the SQL test the outbox uses says the same as the Python one."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main as cli_main
from bot.client import ShardedFloralBot, as_dm, dm_match_of, naming_match
from bot.shards import Shards, parse_range, parse_setting, shard_of


def test_a_server_is_on_discords_shard() -> None:
    guild = (12345 << 22) | 77  # the low 22 bits never count
    assert shard_of(guild, 8) == 12345 % 8
    assert shard_of(guild, 1) == 0


def test_ranges_parse_and_print_as_floral_shards_takes_them() -> None:
    assert parse_range("0-3", 8) == Shards((0, 1, 2, 3), 8)
    assert parse_range("5", 8).text == "5/8"
    assert parse_setting("0-3/8").text == "0-3/8"
    assert Shards((0, 2, 3), 8).text == "0,2-3/8"
    assert parse_setting(" 1/2 ") == Shards((1,), 2)


@pytest.mark.parametrize(
    ("text", "count", "says"),
    [
        ("3-1", 8, "ends before it starts"),
        ("0-8", 8, "not within 0-7"),
        ("a", 8, "expected a shard or a range"),
        ("0", 0, "shard count: expected 1"),
    ],
)
def test_a_bad_range_is_refused_naming_the_field(text: str, count: int, says: str) -> None:
    with pytest.raises(ValueError, match=says) as raised:
        parse_range(text, count)
    assert "\n" not in str(raised.value)


def test_a_bad_floral_shards_names_the_setting() -> None:
    for text in ("0-3", "0-3/", "x/8", "9/8"):
        with pytest.raises(ValueError, match=r"^FLORAL_SHARDS: "):
            parse_setting(text)


def test_practice_matches_belong_to_the_process_holding_shard_0() -> None:
    guild_on_1 = 1 << 22
    assert Shards((0,), 2).holds(0, practice=True)
    assert not Shards((1,), 2).holds(0, practice=True)
    assert Shards((1,), 2).holds(guild_on_1, practice=False)
    assert not Shards((0,), 2).holds(guild_on_1, practice=False)
    assert Shards((1, 0), 2).overlaps(Shards((0,), 2))
    assert not Shards((1,), 2).overlaps(Shards((0,), 2))
    assert Shards((1,), 2).overlaps(Shards((5,), 8))  # another layout: every server moves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    guilds=st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=20),
    count=st.integers(1, 16),
    data=st.data(),
)
def test_the_sql_test_says_what_the_python_one_says(
    guilds: list[int], count: int, data: st.DataObject
) -> None:
    ids = data.draw(st.sets(st.integers(0, count - 1), min_size=1))
    shards = Shards(tuple(sorted(ids)), count)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE matches (guild_id INTEGER, practice INTEGER)")
    rows = [(guild, guild % 2) for guild in guilds]
    db.executemany("INSERT INTO matches VALUES (?, ?)", rows)
    held = db.execute(f"SELECT guild_id, practice FROM matches WHERE {shards.sql()}").fetchall()
    assert sorted(held) == sorted(row for row in rows if shards.holds(row[0], bool(row[1])))


def test_run_refuses_shards_on_sqlite_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "t")
    monkeypatch.setenv("FLORAL_DB", "data/x.db")
    assert cli_main(["run", "--shards", "0-1", "--shard-count", "4"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "floral-host run: --shards needs a PostgreSQL FLORAL_DB: an SQLite database is one"
        " process's"
    )
    monkeypatch.setenv("FLORAL_SHARDS", "0/2")
    assert cli_main(["run"]) == 2
    assert "PostgreSQL" in capsys.readouterr().err


def test_run_needs_a_shard_count_with_a_range(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "t")
    monkeypatch.delenv("FLORAL_SHARDS", raising=False)
    assert cli_main(["run", "--shards", "0-1"]) == 2
    assert "--shards needs --shard-count" in capsys.readouterr().err
    assert cli_main(["run", "--standby"]) == 2
    assert "--standby needs --shard-count" in capsys.readouterr().err
    monkeypatch.setenv("FLORAL_SHARDS", "0-1")
    assert cli_main(["run"]) == 2
    assert "FLORAL_SHARDS: expected a range and the shard count" in capsys.readouterr().err


def test_a_dm_component_names_its_match_and_practice_stays_with_shard_0() -> None:
    def pressed(custom_id: str) -> dict[str, object]:
        return {"type": 3, "data": {"custom_id": custom_id, "component_type": 2}}

    assert dm_match_of(pressed("fx:12:3:A")) == 12  # a choice
    assert dm_match_of(pressed("fx:declare:12:3:1")) == 12  # a menu
    assert dm_match_of(pressed("fh:7:2:?")) == 7  # help
    assert dm_match_of(pressed("fc:9:2:next")) == 9  # a page of cards
    assert dm_match_of({"type": 2, "data": {"name": "submit"}}) is None
    named = {"type": 2, "data": {"name": "submit", "options": [{"name": "match", "value": "m7"}]}}
    assert dm_match_of(named) == 7  # a command naming its match goes where it is hosted
    leave = {"name": "leave", "type": 1, "options": [{"name": "match", "value": "12"}]}
    assert dm_match_of({"type": 2, "data": {"name": "match", "options": [leave]}}) == 12
    practice = {"type": 2, "data": {"name": "practice"}}
    assert not ShardedFloralBot._may_hand_over("INTERACTION_CREATE", practice)
    assert ShardedFloralBot._may_hand_over("INTERACTION_CREATE", {"type": 2, "data": {}})
    assert not ShardedFloralBot._may_hand_over("INTERACTION_CREATE", {"type": 4})
    assert not ShardedFloralBot._may_hand_over("MESSAGE_CREATE", {"author": {"bot": True}})


def test_the_lease_length_is_bounded() -> None:
    from bot.settings import Settings

    assert Settings.load({"FLORAL_LEASE_SECONDS": "2"}, env_file=None).lease_s == 2.0
    for bad in ("0.5", "7200"):
        with pytest.raises(ValueError, match=r"^FLORAL_LEASE_SECONDS: expected 1 to 3600 seconds"):
            Settings.load({"FLORAL_LEASE_SECONDS": bad}, env_file=None)


def test_a_servers_practice_command_goes_to_shard_0_as_the_same_command_by_dm() -> None:
    """Named as the server names the user: their nickname there is the DM user's display
    name (its global name), as a practice started there unsharded names them."""
    user = {"id": "5", "username": "bob", "global_name": "Bob"}
    command = {"type": 2, "token": "t", "data": {"name": "practice"}, "channel_id": "9"}
    sent = {**command, "guild_id": "77", "member": {"user": user, "nick": "B"}, "channel": {}}
    dm = {"type": 2, "token": "t", "data": {"name": "practice"}}
    assert as_dm(sent) == {**dm, "user": {**user, "global_name": "B"}}
    no_nick = {**sent, "member": {"user": user, "nick": None}}
    assert as_dm(no_nick) == {**dm, "user": user}


def test_a_command_handed_over_names_its_match_in_its_subcommand() -> None:
    """``/match leave`` about a practice, handed to shard 0's process: the same command naming
    the practice, which its handler takes from anywhere."""
    leave = {"name": "leave", "type": 1, "options": []}
    command = {"type": 2, "token": "t", "data": {"name": "match", "options": [leave]}}
    named = naming_match(command, 12)
    assert named["data"]["options"] == [
        {"name": "leave", "type": 1, "options": [{"name": "match", "type": 3, "value": "m12"}]}
    ]
    assert command["data"]["options"] == [leave] and leave["options"] == []  # a copy
    renamed = naming_match(named, 13)  # a match named already: replaced
    assert renamed["data"]["options"][0]["options"] == [
        {"name": "match", "type": 3, "value": "m13"}
    ]
