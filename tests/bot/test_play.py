"""``floral-host play``: a person against the AI in a terminal, driven through its stdin."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.bot.test_simulate import ROOT, TOY

PROMPT = "guess the hidden number"


def start_play(*args: str, game: str = TOY) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-u", "-m", "bot", "play", game, "--seed", "3", *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_until(process: subprocess.Popen[str], text: str, transcript: list[str]) -> None:
    """Read stdout lines into ``transcript`` until one contains ``text``."""
    assert process.stdout is not None
    for line in process.stdout:
        transcript.append(line.rstrip("\n"))
        if text in line:
            return
    raise AssertionError(f"{text!r} never printed:\n" + "\n".join(transcript))


def type_in(process: subprocess.Popen[str], *lines: str) -> None:
    assert process.stdin is not None
    process.stdin.write("".join(f"{line}\n" for line in lines))
    process.stdin.flush()


def finish(process: subprocess.Popen[str], transcript: list[str]) -> tuple[int, str]:
    """The exit code and stderr, once the process ends by itself (its input closed)."""
    out, err = process.communicate(timeout=60)
    transcript.extend(out.splitlines())
    return process.returncode, err


def test_play_a_whole_match_in_the_terminal() -> None:
    process = start_play("--window", "5")
    transcript: list[str] = []
    read_until(process, PROMPT, transcript)
    type_in(process, "help", "x", "/view", "/status", "4")  # a typo first, then the answer
    for _ in range(2):
        read_until(process, PROMPT, transcript)
        type_in(process, "x", "4")
    read_until(process, "Match over", transcript)
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    text = "\n".join(transcript)
    assert "      DM │ Your secret number is" in text
    assert "#channel │ ▶ Match 1: Toy Guess" in text
    assert text.count("✖ Send one number from 0 to 9.") == 3
    assert text.count("✔ You guess 4.") == 3
    assert "/quit        leave" in text  # help lists what you can type
    assert "Round 0, scores [0, 0]. Your secret: " in text  # /view: the game's own words
    assert "Toy Guess, running. Round 0, scores [0, 0]." in text  # /status, no secret
    assert "waiting for your answer" in text
    assert '"secret":' not in text  # no raw JSON
    assert "Secrets" not in text  # the moderator log and the AI's DMs stay hidden
    assert "Match over (finished)" in transcript[-1]


@pytest.mark.parametrize("leave", ["/quit", None])
def test_quit_or_the_end_of_the_input_leaves_the_match(leave: str | None) -> None:
    process = start_play()
    transcript: list[str] = []
    read_until(process, PROMPT, transcript)
    if leave is not None:
        type_in(process, leave)
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    why = "you typed /quit" if leave else "the input ended"
    assert transcript[-1] == f"You left ({why}): match 1 is aborted, with no result."
    assert any("Match 1 is aborted" in line for line in transcript)


def test_any_text_leaves_the_input_loop_alive() -> None:
    process = start_play("--window", "30", game="tests.bot.faulty_game")
    transcript: list[str] = []
    read_until(process, PROMPT, transcript)
    type_in(process, "crash", "³", "\u0000", "x" * 100_000, "4")
    read_until(process, "You guess 4", transcript)
    type_in(process, "/quit")
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    assert "✖ That could not be handled (ValueError)." in transcript
    assert transcript.count("✖ Send one number from 0 to 9.") == 3
    assert transcript[-1].startswith("You left (you typed /quit)")


def test_bytes_that_are_not_utf8_are_refused_like_any_junk() -> None:
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "bot", "play", TOY, "--seed", "3"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = process.communicate(b"\xff\xfe\n4\n", timeout=60)
    assert process.returncode == 0, err
    assert "✖ Send one number" in out.decode() and "You guess 4" in out.decode()
    assert b"Traceback" not in err


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_play_cleanly(signum: signal.Signals, code: int) -> None:
    process = start_play()
    read_until(process, PROMPT, [])
    process.send_signal(signum)
    _, err = process.communicate(timeout=10)
    assert process.returncode == code
    assert err == ""


def test_play_against_several_computers() -> None:
    """``--players 3``: you are P1, two AI players take the other seats."""
    process = start_play("--window", "5", "--players", "3")
    transcript: list[str] = []
    for _ in range(3):
        read_until(process, PROMPT, transcript)
        type_in(process, "4")
    read_until(process, "Match over", transcript)
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    text = "\n".join(transcript)
    assert "Toy Guess, Human vs AI 1 (random) vs AI 2 (random)" in text
    assert "P3 " in text  # the third seat plays every round
