"""``floral-host replay`` reads Red Phoenix scripts; ``simulate``, ``export`` and ``audit`` work on
Red Phoenix matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main

from .helpers import examples, script_of


def test_replay_prints_the_trace_of_a_worked_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ex5.json"
    path.write_text(json.dumps(script_of(examples()[4])))
    assert main(["replay", str(path)]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["format"] == "red-phoenix-trace/1" and trace["checkpoints"][-1]["winners"] == [
        "P1"
    ]


def test_replay_refuses_a_bad_step_in_one_line_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = script_of(examples()[1])
    data["steps"][2] = {"seat": "P3", "attempts": ["ward"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) != 0
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "steps[2].seat" in err and "ward for P2" in err


def test_simulate_export_and_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "matches.db")
    args = ["simulate", "red-phoenix", "--players", "3", "--seed", "3", "--db", db, "--quiet"]
    assert main(args) == 0
    capsys.readouterr()
    assert main(["export", "1", "--db", db]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["format"] == "red-phoenix-script/2" and len(exported["players"]) == 3
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported))
    assert main(["replay", str(path)]) == 0
    capsys.readouterr()
    assert main(["audit", "--db", db]) == 0
    assert '"mismatches": 0' in capsys.readouterr().out
