"""Rock, paper, scissors: the smallest game the host can run, and one with no secret at all (a
move is private only until its window closes, which the host already keeps). The conformance
suite runs it beside the real games, so the suite's checks hold for a game without secrets;
``docs/adding-a-game.md`` points at it as the example. Loaded by its module path
(``tests.games.rps``), like the host's toy game.

Two players, ``rounds`` rounds (1-9, default 3): both throw at once; rock beats scissors,
scissors beats paper, paper beats rock; a win scores a point. The timeout default is rock.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, TypedDict

from games.moves import play_window
from games.protocol import (
    JSON,
    PUBLIC,
    Accepted,
    Choice,
    ConfigError,
    Event,
    Move,
    Outcome,
    RandomAgent,
    Refused,
    Request,
    Secret,
    Setup,
    Verdict,
)
from games.registry import GameInfo
from games.scripts import Leave

THROWS = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "scissors": "paper", "paper": "rock"}
ROUNDS = range(1, 10)


class State(TypedDict):
    rounds: int
    round: int
    names: list[str]
    scores: list[int]
    left: int | None  # the seat that left (the other wins)


class RockPaperScissors:
    name = "tests.games.rps"
    title = "Rock Paper Scissors"
    min_seats = 2
    max_seats = 2

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        for key in raw:
            if key != "rounds":
                raise ConfigError(str(key)[:40], "unknown option; the one option is rounds")
        rounds = raw.get("rounds", 3)
        if isinstance(rounds, bool) or rounds not in ROUNDS:
            raise ConfigError("rounds", "must be a whole number from 1 to 9")
        return {"rounds": rounds}

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        names = list(setup.names) or ["P1", "P2"]
        state = State(
            rounds=int(setup.config["rounds"]), round=0, names=names, scores=[0, 0], left=None
        )
        text = f"Rock Paper Scissors, best of {state['rounds']}: {names[0]} vs {names[1]}."
        return state, [Event(PUBLIC, "start", {"rounds": state["rounds"]}, text)]

    def requests(self, state: State) -> list[Request]:
        if self.outcome(state) is not None:
            return []
        choices = tuple(Choice(throw, throw.title()) for throw in THROWS)
        prompt = f"Round {state['round'] + 1} of {state['rounds']}: rock, paper or scissors?"
        return [Request(seat, "throw", prompt, choices, "rock", 60.0) for seat in (0, 1)]

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        if seat not in [request.seat for request in self.requests(state)]:
            return Refused("Nothing is asked of you now.")
        throw = raw.strip().lower()
        if throw not in THROWS:
            return Refused("Send rock, paper or scissors.")
        return Accepted(throw, f"you throw {throw}")

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        state = copy.deepcopy(state)
        throws = [str(moves.get(seat) or "rock") for seat in (0, 1)]
        for seat, other in ((0, 1), (1, 0)):
            if BEATS[throws[seat]] == throws[other]:
                state["scores"][seat] += 1
        state["round"] += 1
        names = state["names"]
        text = (
            f"Round {state['round']}: {names[0]} {throws[0]}, {names[1]} {throws[1]}."
            f" Score {state['scores'][0]}-{state['scores'][1]}."
        )
        return state, [Event(PUBLIC, "round", {"throws": throws}, text)]

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        state = copy.deepcopy(state)
        state["rounds"] = state["round"]
        return state, [Event(PUBLIC, "over", {}, f"Ended by the {reason}.")]

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if self.outcome(state) is not None:
            raise ValueError("the match is over")
        state = copy.deepcopy(state)
        state["left"] = seat
        return state, [Event(PUBLIC, "left", {"seat": seat}, f"{state['names'][seat]} left.")]

    def outcome(self, state: State) -> Outcome | None:
        if state["left"] is not None:
            return Outcome((1 - state["left"],), "opponent left")
        if state["round"] < state["rounds"]:
            return None
        first, second = state["scores"]
        winners = (0, 1) if first == second else ((0,) if first > second else (1,))
        return Outcome(winners, "all rounds played")

    def view(self, state: State, seat: int | None) -> JSON:
        return {"turn": state["round"], "rounds": state["rounds"], "scores": state["scores"]}

    def describe(self, state: State, seat: int | None) -> str:
        first, second = state["scores"]
        return f"Round {state['round']} of {state['rounds']}, score {first}-{second}."

    def secrets(self, state: State, seat: int) -> list[Secret]:
        return []  # nothing is hidden but the throws in flight, which the host keeps

    def dump(self, state: State) -> JSON:
        return json.loads(json.dumps(state))

    def load(self, data: JSON) -> State:
        return State(**copy.deepcopy(data))


GAME = RockPaperScissors()


def export_script(
    config: Mapping[str, JSON], seed: int, names: Sequence[str], windows: Sequence[Any]
) -> JSON:
    """Each window's attempts per seat, a leave as ``{"leave": seat}``."""
    return {
        "format": "rps-script/1",
        "config": dict(config),
        "names": list(names),
        "windows": [
            {"leave": w.seat} if isinstance(w, Leave) else {str(s): list(r) for s, r in w.items()}
            for w in windows
        ],
    }


def run_script(script: Mapping[str, Any]) -> JSON:
    """Replay by ``games.moves``'s rule; the final state and the winners."""
    try:
        config = GAME.parse_config(script["config"], 2)
        names = [str(name) for name in script["names"]]
        windows = list(script["windows"])
    except (KeyError, TypeError) as error:
        raise ConfigError("script", f"not an rps-script/1 ({type(error).__name__})") from None
    state, _ = GAME.new_match(Setup(config, 2, 0, names))
    for window in windows:
        if "leave" in window:
            state, _ = GAME.leave(state, int(window["leave"]))
            continue
        attempts = {int(seat): raws for seat, raws in window.items()}
        played = play_window(GAME.requests(state), attempts, partial(GAME.submit, state))
        state, _ = GAME.resolve(state, played.moves)
    outcome = GAME.outcome(state)
    return {"final": GAME.dump(state), "winners": None if outcome is None else outcome.winners}


GAME_INFO = GameInfo(
    game=GAME,
    agents={"random": RandomAgent},
    default_agent="random",
    run_script=run_script,
    export_script=export_script,
    secrets=False,
)
