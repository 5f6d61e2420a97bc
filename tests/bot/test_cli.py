"""The command line as a Unix tool: arguments and settings refused in one line, the voice
warnings filtered (``run`` itself is started and stopped in tests/e2e/test_run_process.py)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from bot import version
from bot.cli import build_parser
from bot.client import UnusedVoiceFilter
from tests.bot.test_simulate import ROOT, TOY

BAD_ARGUMENTS = [
    ["simulate", TOY, "--window", "-1"],
    ["simulate", TOY, "--window", "0"],
    ["simulate", TOY, "--window", "inf"],
    ["simulate", TOY, "--window", "nan"],
    ["simulate", TOY, "--window", "1e300"],
    ["simulate", TOY, "--matches", "-1"],
    ["simulate", TOY, "--matches", "1.5"],
    ["simulate", TOY, "--matches", "³"],
    ["simulate", TOY, "--seed", "-3"],
    ["simulate", TOY, "--seed", "9" * 5000],
    ["simulate", TOY, "--players", "³"],
    ["simulate", TOY, "--players", "0"],
    ["play", TOY, "--players", "two"],
    ["play", TOY, "--window", "-inf"],
    ["play", TOY, "--seed", "x"],
    ["export", "m"],
    ["export", "0"],
    ["export", "m1x" * 1000],
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=lambda argv: " ".join(argv)[:40])
def test_bad_arguments_are_refused_in_one_short_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"floral-host {argv[0]}: argument ")
    assert len(err) < 200  # bad input quoted as a short excerpt


def test_a_bad_argument_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    run = subprocess.run(
        [sys.executable, "-m", "bot", "simulate", TOY, "--window", "nan", "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert "--window" in run.stderr and not db.exists()


@pytest.mark.parametrize("text", ["m7", "7", "M7"])
def test_match_ids_are_accepted_as_shown(text: str) -> None:
    assert build_parser().parse_args(["export", text]).match == 7


def test_help_lists_the_ai_levels_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("simulate", "play"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        out = capsys.readouterr().out
        assert "floral-extract: random, easy, normal (default), hard" in out
        assert "warlocks-brew: random, easy, normal (default), hard" in out
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    assert "130 or 143 stopped by Ctrl-C or SIGTERM" in capsys.readouterr().out


def test_a_bad_setting_stops_run_in_one_line(tmp_path: Path) -> None:
    """``FLORAL_GRACE_SECONDS=inf`` once crashed the bot on its next restart."""
    env = {"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "x", "FLORAL_DB": str(tmp_path / "a.db")}
    for name, value in [("FLORAL_GRACE_SECONDS", "inf"), ("LOG_LEVEL", "chatty")]:
        run = subprocess.run(
            [sys.executable, "-m", "bot", "run"],
            cwd=tmp_path,  # no .env there
            env={**env, name: value},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
        assert run.stderr.startswith(f"floral-host run: {name}: expected")
        assert not (tmp_path / "a.db").exists()


def test_only_the_voice_warnings_are_filtered() -> None:
    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("discord.client", logging.WARNING, "", 0, message, None, None)

    voice = UnusedVoiceFilter()
    assert not voice.filter(record("PyNaCl is not installed, voice will NOT be supported"))
    assert not voice.filter(record("davey is not installed, voice will NOT be supported"))
    assert voice.filter(record("Shard ID %s has stopped responding to the gateway."))


def test_version_and_bare_help() -> None:
    run = [sys.executable, "-m", "bot"]
    shown = subprocess.run([*run, "--version"], cwd=ROOT, capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.strip() == f"floral-host {version()}"
    assert version() not in ("", "unknown")  # the installed package's, as pyproject says
    bare = subprocess.run(run, cwd=ROOT, capture_output=True, text=True)
    assert bare.returncode == 0 and bare.stderr == ""
    assert bare.stdout.startswith("usage: floral-host") and "simulate" in bare.stdout
