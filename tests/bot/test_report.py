"""The reading commands print a table for a person and JSON lines for a program: ``--json``
or a pipe gives JSON, a terminal (a real pseudo-terminal here) gives a table."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from bot.report import emit, wants_json
from tests.bot.test_backup import make_db
from tests.bot.test_simulate import ROOT, TOY, cli

COLUMNS = (("match", "Match"), ("players", "Players"))
ROWS = [{"match": "m1", "players": ["Alice", "Bob"]}, {"match": "m2", "players": ["Carol"]}]


def test_a_table_for_a_person_json_lines_for_a_program() -> None:
    table = io.StringIO()
    emit(ROWS, COLUMNS, as_json=False, title="Stored matches", empty="none", out=table)
    text = table.getvalue()
    assert "Stored matches" in text and "Match" in text and "Players" in text
    assert "Alice, Bob" in text and "Carol" in text and "{" not in text
    lines = io.StringIO()
    emit(ROWS, COLUMNS, as_json=True, title="Stored matches", empty="none", out=lines)
    assert [json.loads(line) for line in lines.getvalue().splitlines()] == ROWS


def test_json_is_the_default_off_a_terminal() -> None:
    assert wants_json(False, io.StringIO()) and wants_json(True, io.StringIO())


def run_in_terminal(*args: str, stderr_only: bool = False) -> str:
    """A command's output as a terminal shows it (its stdout is a pseudo-terminal; with
    ``stderr_only``, its stderr is, and its stdout is discarded)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL if stderr_only else follower,
        stderr=follower if stderr_only else subprocess.PIPE,
        env={**os.environ, "COLUMNS": "120", "TERM": "dumb"},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    assert process.returncode == 0, process.stderr
    return b"".join(chunks).decode()


def test_list_and_ratings_and_audit_print_tables_on_a_terminal(tmp_path: Path) -> None:
    db = make_db(tmp_path / "host.db", matches=2)
    listed = run_in_terminal("list", "--db", str(db))
    assert "Stored matches" in listed and "Alice0" in listed and "Bob1" in listed
    assert not listed.lstrip().startswith("{")
    forced = run_in_terminal("list", "--db", str(db), "--json")
    assert json.loads(forced.splitlines()[0])["match"] == "m1"
    audited = run_in_terminal("audit", "--db", str(db))
    assert "Every match replays as stored." in audited and "Mismatches" in audited
    rated = run_in_terminal("ratings", "--db", str(db))
    assert "no ratings yet" in rated


SIMULATE = ("simulate", TOY, "--matches", "3", "--window", "0.05", "--seed", "4")


def test_simulate_shows_its_progress_and_a_summary_table_on_a_terminal() -> None:
    shown = run_in_terminal(*SIMULATE)
    assert re.search(r"matches over .*3/3 \d+ steps", shown), shown[-600:]
    assert "[m3 public]" in shown  # the transcript, printed above the bar
    assert "Simulated" in shown and re.search(r"finished\s+.\s+3", shown)
    assert not shown.rstrip().endswith("}")
    forced = run_in_terminal(*SIMULATE, "--quiet", "--json")
    assert "matches over" in forced  # the bar still shows; the summary is JSON
    assert json.loads(forced.splitlines()[-1])["finished"] == 3
    beside = run_in_terminal(*SIMULATE, "--quiet", stderr_only=True)
    assert re.search(r"matches over .*3/3", beside)  # the transcript to a file: bar on stderr


def test_simulate_piped_prints_no_progress_and_a_json_summary() -> None:
    piped = cli(*SIMULATE)
    assert piped.returncode == 0 and piped.stderr == ""
    lines = piped.stdout.splitlines()
    assert json.loads(lines[-1])["finished"] == 3
    assert all(line.startswith(("[m", " ")) for line in lines[:-1])
    assert "matches over" not in piped.stdout and "\x1b" not in piped.stdout
