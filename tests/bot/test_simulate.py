"""simulate, export and audit, in process and through the command line."""

from __future__ import annotations

import io
import json
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.audit import audit_store
from bot.export import export_match
from bot.games import load_game_info
from bot.host import SubmitResult
from bot.simulate import SimulatedPlayers, Simulation, simulate
from bot.store.sqlite import SqliteStore
from bot.transport import request_to_json
from games.protocol import JSON, Setup
from games.registry import get
from tests.bot import toy_game

TOY = "tests.bot.toy_game"
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


async def test_simulate_plays_every_match_to_the_end(tmp_path: Path) -> None:
    out = io.StringIO()
    db = tmp_path / "sim.db"
    summary = await simulate(TOY, matches=4, seed=11, window_s=0.5, db=db, out=out)
    assert summary["matches"] == summary["finished"] == 4
    assert summary["turns"] == 12  # 3 rounds each
    assert summary["messages"] > 0 and summary["submissions"] > 0
    lines = out.getvalue().splitlines()
    assert all(re.match(r"(\[m\d+ \w+[\] ]| +)", line) for line in lines)

    store = await SqliteStore.open(db)
    audit, problems = await audit_store(store)
    assert (audit, problems) == ({"matches": 4, "finished": 4, "mismatches": 0}, [])
    for record in await store.list_matches():
        script = await export_match(store, record.id)
        replayed = toy_game.run_script(script)
        assert replayed["final"] == (await store.latest_step(record.id)).snapshot
    await store.close()


async def test_simulate_resumes_unfinished_matches_only_with_zero(tmp_path: Path) -> None:
    db = tmp_path / "sim.db"
    summary = await simulate(TOY, matches=0, db=db, out=io.StringIO())
    assert summary["matches"] == 0
    await simulate(TOY, matches=2, seed=1, window_s=0.05, db=db, quiet=True, out=io.StringIO())
    again = await simulate(TOY, matches=0, db=db, quiet=True, out=io.StringIO())
    assert again["matches"] == 0  # nothing unfinished was left


def test_cli_simulate_floral_extract_then_audit_and_export(tmp_path: Path) -> None:
    db = tmp_path / "fe.db"
    run = cli(
        "simulate",
        "floral-extract",
        "--matches",
        "2",
        "--seed",
        "4",
        "--window",
        "0.03",
        "--db",
        str(db),
        "--quiet",
    )
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout.splitlines()[-1])
    assert set(summary) == {
        "seed",
        "steps",
        "matches",
        "finished",
        "turns",
        "submissions",
        "timeouts",
        "refused",
        "messages",
    }
    assert summary["matches"] == summary["finished"] == 2

    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert json.loads(audit.stdout.splitlines()[-1]) == {
        "matches": 2,
        "finished": 2,
        "mismatches": 0,
    }

    export = cli("export", "1", "--db", str(db))
    assert export.returncode == 0, export.stderr
    trace = get("floral-extract").run_script(json.loads(export.stdout))
    with sqlite3.connect(db) as connection:
        (outcome,) = connection.execute("SELECT outcome FROM matches WHERE id = 1").fetchone()
    winner = trace["checkpoints"][-1]["winner"]
    assert ["P1", "P2"].index(winner) in json.loads(outcome)["winners"]

    def last_turn(trace: dict[str, list[dict[str, str]]]) -> int:  # "T54"; "Plant@1" is none
        return max(int(c["after"][1:]) for c in trace["checkpoints"] if c["after"][1:].isdigit())

    export2 = cli("export", "m2", "--db", str(db))  # an id as it is shown
    assert export2.returncode == 0, export2.stderr
    trace2 = get("floral-extract").run_script(json.loads(export2.stdout))
    # turns as the game counts them: planting steps are no turns
    assert summary["turns"] == last_turn(trace) + last_turn(trace2) < summary["steps"]


def test_audit_reports_a_tampered_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert cli("simulate", TOY, "--db", str(db), "--quiet", "--window", "0.03").returncode == 0
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE steps SET snapshot = json_set(snapshot, '$.scores[0]', 99)"
            " WHERE match_id = 1 AND step = 0"  # a checkpoint: the store keeps its snapshot
        )
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 1
    lines = audit.stdout.splitlines()
    assert "match 1 step 0: snapshot differs at $.scores[0]" in lines[0]
    assert json.loads(lines[-1])["mismatches"] == 1


def test_cli_errors_are_clear(tmp_path: Path) -> None:
    unknown = cli("simulate", "chess", "--quiet")
    assert unknown.returncode == 2 and "unknown game 'chess'" in unknown.stderr
    missing = cli("audit", "--db", str(tmp_path / "none.db"))
    assert missing.returncode != 0 and "no database" in missing.stderr  # codes: test_storage_faults
    db = tmp_path / "t.db"
    assert cli("simulate", TOY, "--db", str(db), "--quiet", "--window", "0.03").returncode == 0
    absent = cli("export", "9", "--db", str(db))
    assert absent.returncode == 2 and "no match 9" in absent.stderr


async def test_a_seed_reproduces_the_transcript() -> None:
    """The AI answers in a fixed order, whatever the machine's speed; with the default
    window none of its answers is late."""
    runs = []
    for _ in range(2):
        out = io.StringIO()
        summary = await simulate("floral-extract", matches=2, seed=5, out=out)
        runs.append((summary, out.getvalue()))
    assert runs[0] == runs[1]
    summary, transcript = runs[0]
    assert summary["finished"] == 2 and summary["timeouts"] == 0 and summary["refused"] > 0
    assert "UTC" not in transcript  # no wall-clock times


def test_a_closed_pipe_ends_simulate_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "simulate", "floral-extract"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # as ``| head -1`` does
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_simulate_with_its_store_closed(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    db = tmp_path / "stopped.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "simulate", "floral-extract", "--db", str(db)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "ack step 5]" in line:
            break
    process.send_signal(signum)
    _, err = process.communicate(timeout=10)
    assert (process.returncode, err) == (code, "")
    assert not Path(f"{db}-wal").exists()  # SQLite removes it when the last connection closes
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0, audit.stdout


async def test_the_ai_level_is_chosen_from_the_games_own() -> None:
    out = io.StringIO()
    summary = await simulate("warlocks-brew", seed=2, level="random", out=out)
    assert summary["finished"] == 1 and "random1" in out.getvalue()
    with pytest.raises(KeyError, match="unknown AI level 'genius'; known: random"):
        await simulate(TOY, level="genius", out=io.StringIO())


async def test_players_sets_the_seats_within_the_games_own_range(tmp_path: Path) -> None:
    db = tmp_path / "sim.db"
    summary = await simulate(TOY, seats=4, seed=5, window_s=0.05, db=db, out=io.StringIO())
    assert summary["finished"] == 1
    store = await SqliteStore.open(db)
    (record,) = await store.list_matches()
    await store.close()
    assert len(record.players) == 4 and record.names[3] == "random4"
    with pytest.raises(KeyError, match="Toy Guess is played by 2 to 4 players, not 5"):
        await simulate(TOY, seats=5, out=io.StringIO())


def test_cli_players_out_of_range_is_one_line() -> None:
    run = cli("simulate", "floral-extract", "--players", "3")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("floral-host simulate: Floral Extract is played by 2 players, not 3\n")


async def test_options_set_the_rules_of_every_new_match(tmp_path: Path) -> None:
    """``--options`` is the line the game's setup command reads: here Warlock's Brew's."""
    db, out = tmp_path / "sim.db", io.StringIO()
    options = "broke_buyers, limited_supply=1"
    summary = await simulate("warlocks-brew", seed=4, seats=3, options=options, db=db, out=out)
    assert summary["finished"] == 1
    assert "Variants: Broke Buyers, Limited Supply." in out.getvalue()
    store = await SqliteStore.open(db)
    (record,) = await store.list_matches()
    await store.close()
    assert (record.config["broke_buyers"], record.config["limited_supply"]) == (True, 1)


@pytest.mark.parametrize(
    ("game", "options", "line"),
    [
        ("warlocks-brew", "limited_supply=9", "--options: limited_supply: must be from 0 to 5"),
        ("warlocks-brew", "bogus", "--options: 'bogus' is not an option; known: two_players"),
        ("potioncraft", "max_turns=x", "--options: max_turns: must be a whole number"),
        ("red-phoenix", "bogus=1", "--options: 'bogus' is not an option; known: starting_health"),
        ("flaky-flasks", "bargain=maybe", "--options: bargain: must be true or false"),
        ("floral-extract", "bogus=1", "--options: bogus: is not a rules option"),
    ],
)
async def test_a_refused_option_names_it_before_any_match(
    game: str, options: str, line: str
) -> None:
    with pytest.raises(KeyError) as caught:
        await simulate(game, options=options, out=io.StringIO())
    assert str(caught.value.args[0]).startswith(line)


def test_cli_options_refused_in_one_line() -> None:
    run = cli("simulate", "warlocks-brew", "--players", "3", "--options", "magic_infused=9")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("floral-host simulate: --options: magic_infused: ")
    assert run.stderr.count("\n") == 1


class _CountingHost:
    """What an AI player asks of the host: its seat's view (counted) and its answers."""

    def __init__(self, view: JSON) -> None:
        self.seat_view, self.views = view, 0
        self.answers: list[str] = []

    async def view(self, match_id: int, user_id: int) -> JSON:
        self.views += 1
        return self.seat_view

    async def submit(
        self, match_id: int, user_id: int, raw: str, *, step: int | None = None
    ) -> SubmitResult:
        self.answers.append(raw)
        return SubmitResult(True, "ok", match_id, 0, step)


@pytest.mark.parametrize(("level", "views"), [("random", 0), ("normal", 1)])
async def test_only_a_level_that_reads_its_view_is_given_one(level: str, views: int) -> None:
    """The ``random`` level answers from the request alone (the AI levels' contract): the load
    benchmark's players fetch no view and decode no event (a host's cost no real player
    causes); any other level gets both."""
    info = load_game_info("floral-extract")
    state, _ = info.game.new_match(Setup(info.game.parse_config({}, 2), 2, 5, ("a", "b")))
    host = _CountingHost(info.game.view(state, 0))
    sim = Simulation(host, SimulatedPlayers(io.StringIO(), quiet=True), 60.0, level=level)  # type: ignore[arg-type]
    record = SimpleNamespace(game="floral-extract", window_s=None, id=1, seed=5, players=(7, 8))
    player = sim.seat_players(record)[0]  # type: ignore[arg-type]  # what seat_players reads
    player.junk_rate = 0.0
    await player.answer(request_to_json(info.game.requests(state)[0], 1, 1, 0.0))
    assert host.views == views and len(host.answers) == 1
    assert player.blind is (level == "random")
