"""``floral-host play``: a person against the AI in a terminal, driven through its stdin."""

from __future__ import annotations

import re
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


def test_play_a_whole_match_from_a_pipe() -> None:
    """Lines in, plain text out: the terminal's own words, no Discord texts, no colour."""
    process = start_play("--window", "5")
    transcript: list[str] = []
    read_until(process, "Round 1: " + PROMPT, transcript)
    type_in(process, "help", "x", "view", "/status", "4")  # a typo first, then the answer
    read_until(process, "✔ You guess 4.", transcript)
    for round_ in (2, 3):
        read_until(process, f"Round {round_}: {PROMPT}", transcript)
        type_in(process, "x", "4")
        read_until(process, "✔ You guess 4.", transcript)
    read_until(process, "How it ended: all rounds played.", transcript)
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    text = "\n".join(transcript)
    assert "You are Human (P1), against AI (random)." in text  # the intro
    assert "🔒 Your secret number is" in text  # your secret, marked as such
    assert "Toy Guess: 3 rounds, numbers 0 to 9." in text  # the public events
    assert text.count("✖ Send one number from 0 to 9.") == 3
    assert transcript.count("✔ You guess 4.") == 3
    assert "What you can type besides an answer:" in text  # help lists the commands
    assert "quit    leave: the match is aborted" in text
    assert "Round 0, scores [0, 0]. Your secret: " in text  # view: the game's own words
    assert "Toy Guess, running" in text and "left to answer" in text  # status
    assert re.search(r"^(You won|AI \(random\) wins|Nobody wins|You share)", transcript[-2])
    for discord in ("/submit", "button", "menu", "moderator", "**", '"winners"', "\x1b["):
        assert discord not in text
    assert "Secrets" not in text  # the moderator log and the AI's DMs stay hidden


@pytest.mark.parametrize("leave", ["quit", "/quit", None])
def test_quit_or_the_end_of_the_input_leaves_the_match(leave: str | None) -> None:
    process = start_play()
    transcript: list[str] = []
    read_until(process, PROMPT, transcript)
    if leave is not None:
        type_in(process, leave)
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    why = "you typed quit" if leave else "the input ended"
    assert transcript[-1] == f"You left ({why}): the match is aborted, with no result."
    assert not any("moderator" in line for line in transcript)


def test_any_text_leaves_the_input_loop_alive() -> None:
    process = start_play("--window", "30", game="tests.bot.faulty_game")
    transcript: list[str] = []
    read_until(process, PROMPT, transcript)
    type_in(process, "crash", "³", "\u0000", "x" * 100_000, "4")
    read_until(process, "You guess 4", transcript)
    type_in(process, "quit")
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    assert "✖ That could not be handled (ValueError)." in transcript
    assert transcript.count("✖ Send one number from 0 to 9.") == 3
    assert transcript[-1].startswith("You left (you typed quit)")


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
    for round_ in (1, 2, 3):
        read_until(process, f"Round {round_}: {PROMPT}", transcript)
        type_in(process, "4")
    read_until(process, "How it ended:", transcript)
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    text = "\n".join(transcript)
    assert "You are Human (P1), against AI 1 (random) and AI 2 (random)." in text
    assert "P3 " in text  # the third seat plays every round


def test_play_takes_the_games_options_line() -> None:
    """``--options``: the line of the game's setup command; a refused one is one line."""
    process = start_play("--options", "broke_buyers", game="warlocks-brew")
    transcript: list[str] = []
    read_until(process, "Variants: Two Players, Broke Buyers.", transcript)
    read_until(process, "Bid one coin.", transcript)
    assert "Your hand: 1, 2, 3, 4." in "\n".join(transcript)
    type_in(process, "quit")
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    bad = subprocess.run(
        [sys.executable, "-m", "bot", "play", "warlocks-brew", "--options", "copies=99"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == "floral-host play: --options: copies: must be from 4 to 6, not 99\n"


def test_a7_a_deal_window_played_through_a_pipe() -> None:
    """Warlock's Brew's Deal Window (§A7) in ``play``: an offer composed step by step, sent,
    answered by the AI; no answer of yours that resolves alone reads as a missed question."""
    process = start_play("--options", "deal_window=30", "--players", "3", game="warlocks-brew")
    transcript: list[str] = []
    read_until(process, "Bid one coin.", transcript)
    type_in(process, "5")
    read_until(process, "Deal window after auction 1: trade before the next card.", transcript)
    type_in(process, "propose AI 1 (normal)")
    read_until(process, "step 1 of 3: what do you give AI 1 (normal)?", transcript)
    type_in(process, "nothing")
    read_until(process, "step 2 of 3", transcript)
    type_in(process, "nothing")
    read_until(process, "step 3 of 3", transcript)
    type_in(process, "favour I will let you have the next card")
    read_until(process, "Favour: “I will let you have the next card”.", transcript)
    type_in(process, "send")
    read_until(process, "declined offer 1", transcript)  # it gains nothing from a favour
    type_in(process, "ready")
    read_until(process, "Auction 2: ", transcript)
    type_in(process, "quit")
    code, err = finish(process, transcript)
    assert (code, err) == (0, "")
    text = "\n".join(transcript)
    assert "✔ Favour noted: “I will let you have the next card”." in text
    assert "✔ Your offer goes to AI 1 (normal)." in text
    assert "The deal window is closed: no deal made." in text
    assert "Closed without your answer" not in text
