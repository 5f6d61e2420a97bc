"""``floral-host replay``: scripts in, traces out, malformed scripts refused in one line."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main

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
