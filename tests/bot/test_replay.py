"""``floral-host replay``: scripts in, traces out, malformed scripts refused in one line."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import history
from bot.audit import audit_store, check_export
from bot.cli import main
from bot.export import export_match
from games import registry
from games.registry import GameInfo
from games.text import EXCERPT_CHARS
from tests.bot.conftest import CHANNEL, GUILD, PLAYERS, HostEnv

EXAMPLES = json.loads(
    (Path(__file__).parents[1] / "data" / "floral-extract-examples.json").read_text()
)["examples"]
EX1 = EXAMPLES[0]


def replay(tmp_path: Path, script: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path = tmp_path / "script.json"
    path.write_text(script if isinstance(script, str) else json.dumps(script))
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_the_trace(tmp_path: Path) -> None:
    path = tmp_path / "ex1.json"
    path.write_text(json.dumps(EX1))
    done = subprocess.run(
        [sys.executable, "-m", "bot", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    trace = json.loads(done.stdout)
    assert trace["format"] == "floral-extract-trace/1"
    assert [c["after"] for c in trace["checkpoints"]] == ["plant@1", "T1", "T2", "T3", "T4", "T5"]


def broken(path: str, value: Any) -> dict[str, Any]:
    """EX1 with one field replaced (dotted path; the value ``...`` deletes it)."""
    script = copy.deepcopy(EX1)
    *parents, last = path.split(".")
    node: Any = script
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is ...:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return script


@pytest.mark.parametrize(
    ("script", "field"),
    [
        (broken("format", "floral-extract-script/9"), "format"),
        (broken("maps.P1.A", 5), "maps.P1"),  # two symbols on identity 5: not a bijection
        (broken("maps.P2.Q", 1), "maps.P2"),
        (broken("maps", ...), "maps"),
        (broken("advantage", "P3"), "advantage"),
        (broken("spellbook.water.type", "odd"), "spellbook.water.type"),
        (broken("spellbook.fertilize.lo", 40), "spellbook.fertilize.lo"),
        (broken("spellbook.weather.ops", ["<"]), "spellbook.weather.ops"),
        (broken("spellbook.water.n", 6), "spellbook.water.n"),
        (broken("config.colour", "red"), "config.colour"),
        (broken("config.initial_weather", "foggy"), "config.initial_weather"),
        (broken("steps.1.turn", 3), "steps[1].turn"),
        (broken("steps.2.phase", "water"), "steps[2].phase"),
        (broken("steps.0.submit", {"P3": ["A"]}), "steps[0].submit"),
        (broken("steps.1.submit.P1", "1"), "steps[1].submit.P1"),
        (broken("steps", {}), "steps"),
    ],
)
def test_malformed_scripts_are_refused_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: Any, field: str
) -> None:
    code, out, err = replay(tmp_path, script, capsys)
    assert code != 0
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert f": {field}" in err


def test_a_preset_with_hidden_flower_memory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = copy.deepcopy(EXAMPLES[4])
    script["preset"]["players"]["P1"]["pots"][0] = "A:3"
    code, _, err = replay(tmp_path, script, capsys)
    assert code != 0 and "preset.players.P1.pots[0]" in err and "Azalea" in err


def test_not_json_and_missing_files_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = replay(tmp_path, "{not json", capsys)
    assert code != 0 and "not valid JSON" in err and len(err.strip().splitlines()) == 1
    assert main(["replay", str(tmp_path / "missing.json")]) != 0
    assert "cannot read" in capsys.readouterr().err


def test_steps_after_the_end_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = copy.deepcopy(EXAMPLES[4])
    script["steps"].append({"phase": "cast", "turn": 34, "submit": {}})
    code, _, err = replay(tmp_path, script, capsys)
    assert code != 0 and "steps[1]" in err and "after the end" in err


# --- exports tell the truth -------------------------------------------------------------------

WINDOW_S = 60.0  # on manual timers: a seat that never answers validly times out at once
JUNK = ["TIMEOUT", "timeout", " TIMEOUT ", "null", "", "³", "①", "٣", "ſ", "x" * 300, "9" * 50]
# Any text, lone surrogates included (the host keeps them as U+FFFD).
JUNK_TEXT = st.sampled_from(JUNK) | st.text(st.characters(exclude_categories=()), max_size=4)


async def play_with_junk(env: HostEnv, game: str, seed: int, junk: list[str]) -> int:
    """A match through the real host: every asked seat sends junk around a random agent's
    answer, or only junk (then the window times out). Returns the match id."""
    info = registry.get(game)
    players = (*PLAYERS, 103, 104)[: info.game.min_seats]
    record = await env.host.create_match(
        game, guild_id=GUILD, channel_id=CHANNEL, players=players, seed=seed, window_s=WINDOW_S
    )
    await env.host.start_match(record.id)
    rng = random.Random(seed)
    agents = [info.agents["random"](seat, random.Random(seed + seat)) for seat in range(4)]
    store = env.host.store
    for _ in range(10):
        latest = await store.latest_step(record.id)
        state = info.game.load(latest.snapshot)
        requests = info.game.requests(state)
        if not requests or record.id not in env.host.active_match_ids():
            break
        for request in requests:
            texts = rng.sample(junk, rng.randint(0, len(junk)))
            if rng.random() < 0.5:
                texts.insert(0, "TIMEOUT")  # the text that once forged a window's end
            if rng.random() < 0.8:  # otherwise only junk: a timeout
                answer = agents[request.seat].act(request, info.game.view(state, request.seat))
                texts.insert(rng.randint(0, len(texts)), answer)
            for text in texts:
                await env.host.submit(record.id, players[request.seat], text)
        await env.host.wait_idle()  # the window closes when all have answered...
        if (await store.latest_step(record.id)).step == latest.step:
            window = (await env.host.status(record.id)).window
            assert window is not None
            # ...or at its deadline (a turn clock's may be nearer than WINDOW_S; met on time,
            # not seconds late, which the host would take for a stall)
            await env.advance(max(0.0, window.deadline - env.clock()) + 0.5)
        assert (await store.latest_step(record.id)).step != latest.step
    if record.id in env.host.active_match_ids():
        await env.host.end(record.id)
    await env.host.wait_idle()
    return record.id


def moves_made(moves: Any) -> dict[int, Any]:
    return {int(seat): move for seat, move in moves.items() if move is not None}


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    game=st.sampled_from(registry.names()),
    seed=st.integers(0, 2**31),
    junk=st.lists(JUNK_TEXT, min_size=1, max_size=4),
)
async def test_an_export_replays_the_stored_match_step_by_step(
    manual_env: HostEnv, game: str, seed: int, junk: list[str]
) -> None:
    env = manual_env
    match_id = await play_with_junk(env, game, seed, junk)
    store = env.host.store
    script = json.loads(json.dumps(await export_match(store, match_id)))  # as the file holds it
    info = registry.get(game)
    assert info.replay_script is not None
    replayed = list(info.replay_script(script))
    record = await store.get_match(match_id)
    assert record is not None
    steps, attempts = await store.steps(match_id), await store.attempts(match_id)
    stored = [step for step in steps if step.kind == "resolve"]
    assert [moves_made(step.moves) for step in replayed] == [
        moves_made(step.moves or {}) for step in stored
    ]
    # kept where the store keeps them, derived from the log between checkpoints
    derived = history.snapshots(info.game, record, steps)
    snapshots = {step.step: snapshot for step, snapshot in zip(steps, derived, strict=True)}
    for again, step in zip(replayed, stored, strict=True):
        assert info.game.view(again.state, None) == info.game.view(
            info.game.load(snapshots[step.step]), None
        )
    assert check_export(info, record, steps, attempts) == []


def legacy_export(info: GameInfo) -> GameInfo:
    """Floral Extract's ``info`` with the old writer: version 1, the window's end as the
    string TIMEOUT."""

    def write(config: Any, seed: int, names: Any, windows: Any) -> Any:
        script = info.export_script(config, seed, names, windows)
        script["format"] = script["format"].replace("/2", "/1")
        for step in script["steps"]:
            for attempts in step["submit"].values():
                attempts[:] = ["TIMEOUT" if a is None else a for a in attempts]
        return script

    return dataclasses.replace(info, export_script=write)


async def test_the_audit_reports_an_export_that_replays_another_match(env: HostEnv) -> None:
    """The old format's export of a player who typed TIMEOUT before casting: the audit's
    export check catches the move it loses; the real export passes."""
    record = await env.host.create_match(
        "floral-extract", guild_id=GUILD, channel_id=CHANNEL, players=PLAYERS, seed=4
    )
    await env.host.start_match(record.id)
    for user, flower in zip(PLAYERS, "CH", strict=True):
        await env.host.submit(record.id, user, "TIMEOUT")
        assert (await env.host.submit(record.id, user, flower)).accepted
    await env.host.wait_idle()
    await env.host.end(record.id)
    store = env.host.store
    stored = await store.get_match(record.id)
    assert stored is not None
    steps, attempts = await store.steps(record.id), await store.attempts(record.id)
    info = registry.get("floral-extract")
    assert check_export(info, stored, steps, attempts) == []
    problems = check_export(legacy_export(info), stored, steps, attempts)
    assert problems == [
        f"match {record.id} step 1: its export replays the moves {{}}, the match stored"
        " {0: 'C', 1: 'H'}"
    ]
    summary, found = await audit_store(store)
    assert summary["mismatches"] == 0 and found == []


# --- replay --summary and unreadable files ------------------------------------------------------


def test_the_summary_tells_each_step_in_the_games_words(tmp_path: Path) -> None:
    path = tmp_path / "ex1.json"
    path.write_text(json.dumps(EX1))
    done = subprocess.run(
        [sys.executable, "-m", "bot", "replay", "--summary", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "— step 1 —" and "— step 6 —" in lines
    assert "  [public] Turn 1: P1 cast D, P2 cast V. Points: P1 0 – P2 0." in lines
    info = registry.get("floral-extract")
    assert info.replay_script is not None
    *_, last = info.replay_script(EX1)
    now = lines.index("— now —")  # then the game's own describe() of the final position
    assert "\n".join(lines[now + 1 :]) == info.game.describe(last.state, None)


def test_the_summary_of_a_script_with_no_steps_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = replay_summary(tmp_path, {**EX1, "steps": []}, capsys)
    assert code == 0 and out == "(no steps: the script stops before its first window closed)\n"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"[" * 100_000, "too deeply nested"),
        (b"1" * 5000, "too long a number"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"{not json", "not valid JSON"),
        (b"", "not valid JSON"),
    ],
    ids=["deep", "big-number", "encoding", "syntax", "empty"],
)
@pytest.mark.parametrize("summary", [False, True], ids=["trace", "summary"])
def test_an_unreadable_script_file_is_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    reason: str,
    summary: bool,
) -> None:
    path = tmp_path / "script.json"
    path.write_bytes(content)
    code = main(["replay", *(["--summary"] if summary else []), str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and reason in err


def test_a_missing_file_or_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        assert main(["replay", "--summary", str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "cannot read" in err


def test_a_malformed_script_gives_no_partial_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = broken("steps.3.turn", 9)
    code, out, err = replay_summary(tmp_path, script, capsys)
    assert code == 2 and out == "" and "steps[3].turn" in err


def replay_summary(
    tmp_path: Path, script: Any, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    code = main(["replay", "--summary", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


# --- refusals quote little (issue 18: 565 and 519 characters of bad input quoted) --------------


def quoted(message: str, bad: Any) -> int:
    """The longest piece of ``message`` found in ``bad`` written out (repr, JSON or str)."""
    import difflib

    written = f"{bad!r}\n{json.dumps(bad)}\n{bad}"
    match = difflib.SequenceMatcher(None, message, written, autojunk=False).find_longest_match(
        0, len(message), 0, len(written)
    )
    return int(match.size)


def example(game: str) -> dict[str, Any]:
    from tests.games.test_bad_input import SCRIPTS

    return copy.deepcopy(SCRIPTS[game][0])


HUGE_NUMBER = int("7" * 400)
LONG_ID = "acid_flask_" + "q" * 554  # 565 characters
LONG_IDS = [f"card_{k:02d}_{'q' * 40}" for k in range(12)]


def _floral(step: int, key: str, value: Any) -> dict[str, Any]:
    script = copy.deepcopy(EX1)
    script["steps"][step][key] = value
    return script


def _flasks_deck(value: Any) -> dict[str, Any]:
    script = example("flaky-flasks")
    script["decks"]["1"]["P1"] = value
    return script


def _phoenix_deck(value: Any) -> dict[str, Any]:
    script = example("red-phoenix")
    script["decks"]["I"][0] = value
    return script


REFUSED = [
    ("a 400-digit planting turn", _floral(0, "before_turn", HUGE_NUMBER), HUGE_NUMBER),
    ("a 400-digit turn", _floral(1, "turn", HUGE_NUMBER), HUGE_NUMBER),
    ("a long deck id", _flasks_deck([LONG_ID]), LONG_ID),
    ("long deck ids", _flasks_deck(LONG_IDS), LONG_IDS),
    ("a long result id", _phoenix_deck(LONG_ID), LONG_ID),
    ("a 400-digit result", _phoenix_deck(HUGE_NUMBER), HUGE_NUMBER),
]


@pytest.mark.parametrize(("script", "bad"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
@pytest.mark.parametrize("summary", [False, True], ids=["trace", "summary"])
def test_a_refusal_quotes_at_most_60_characters_of_bad_input(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    script: dict[str, Any],
    bad: Any,
    summary: bool,
) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    assert main(["replay", *(["--summary"] if summary else []), str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert quoted(err, bad) <= EXCERPT_CHARS, err
