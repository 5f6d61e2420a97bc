"""``floral-host play``: a person against the AI in a terminal, driven through its stdin."""

from __future__ import annotations

import subprocess
import sys

from tests.bot.test_simulate import ROOT, TOY


def test_play_a_whole_match_in_the_terminal() -> None:
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "bot", "play", TOY, "--window", "5", "--seed", "3"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    transcript = []
    for line in process.stdout:
        transcript.append(line.rstrip("\n"))
        if "guess the hidden number" in line:
            process.stdin.write("x\n/view\n4\n")  # a typo first, then the answer
            process.stdin.flush()
    assert process.wait(timeout=60) == 0
    text = "\n".join(transcript)
    assert "      DM │ Your secret number is" in text
    assert "#channel │ ▶ Match 1: Toy Guess" in text
    assert text.count("✖ Send one number from 0 to 9.") == 3
    assert text.count("✔ You guess 4.") == 3
    assert '"secret":' in text  # the private view
    assert "Secrets" not in text  # the moderator log and the AI's DMs stay hidden
    assert "Match over (finished)" in transcript[-1]
