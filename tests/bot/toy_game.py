"""A tiny game for testing the host without the real engines: guess the hidden number.

Every round each asked seat sends a number 0..max; whoever is closest to the round's hidden
target scores a point. Each seat has a secret number that is its timeout default. With
``turn_based`` only one seat is asked per round (round-robin); with ``revisable`` a later valid
answer replaces the earlier one. With ``hand`` (opt-in, 0: off) a seat instead picks
``pick`` = [min, max] of ``hand`` cards with long names, joined by commas as the protocol says;
its guess is the sum of the picked cards' numbers, modulo max + 1 (a paged multi-select menu on
Discord). With ``reactions`` (opt-in) every second round is a ``reaction`` timer window. With
``actions`` above 1 (opt-in) a round is that many windows (actions) on one turn clock (the
request's ``clock``: ``round:<n>``); only the last action's guesses score. With ``close`` set to
``"each"`` every seat makes its ``actions`` guesses at its own pace on the round's one clock
(each answer resolves alone); its last guess scores, and a seat the deadline finds still
guessing plays its secret. With ``pauses`` (opt-in) every second round is a pause: seat 0 holds
a silent request nobody is prompted for, and the window waits out its deadline. With ``blocks``
(opt-in, turn-based) the other seats may block each guess in a ``reaction`` window that closes
at the first block (``close="ready"``; or once everyone passed): a blocked guess scores nothing,
and the first blocker to arrive is named. The
module exposes what a registry game module does, so the command line can load it by its module
path (``tests.bot.toy_game``).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping, Sequence
from functools import lru_cache, partial
from typing import Any

from games.moves import play_window
from games.protocol import (
    JSON,
    MODERATORS,
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
    Topic,
    Verdict,
    derive_rng,
    to_seat,
)
from games.registry import GameInfo
from games.scripts import Leave

State = dict[str, Any]
DEFAULTS: dict[str, JSON] = {
    "rounds": 3,
    "max": 9,
    "timeout_s": 60.0,
    "revisable": False,
    "turn_based": False,
    "hand": 0,
    "pick": [1, 1],
    # opt-in close rules of the guess windows: "first" (the first guess closes the window) or
    # "ready" (closes once the guesses so far sum to ``ready_at`` or more)
    "close": "all",
    "ready_at": 0,
    "reactions": False,
    "actions": 1,
    "blocks": False,
    "help": False,  # opt-in: the guess requests carry a reference behind a typed ``help``
    "pauses": False,  # opt-in: every second round a silent pause (see the module's docstring)
}
BLOCK, PASS = "block", "pass"
GUESS_HELP = (
    "Guess the round's hidden number, 0 to {top}: the guesses closest to it score a point."
    " Type the number, or `guess N`."
)
HAND_MAX = 500  # past what a prompt's menus of picks hold (cogs.prompts.MULTI_MOST)
REACTION_S = 20.0  # the declared default of the opt-in "reaction" timer kind


def card_value(index: int) -> str:
    """A card's name: too long and too spaced for a button id, and no comma in it."""
    return f"card {index} of the long deck"


def card_number(index: int, top: int) -> int:
    return index % (top + 1)


@lru_cache(maxsize=64)
def hand_choices(hand: int, top: int) -> tuple[Choice, ...]:
    """A hand's cards as choices (made once: every answer is checked against its request)."""
    return tuple(
        Choice(card_value(i), f"Card {i} ({card_number(i, top)})", "hand") for i in range(hand)
    )


class ToyGame:
    name = "tests.bot.toy_game"
    title = "Toy Guess"
    min_seats = 2
    max_seats = 4

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        unknown = set(raw) - set(DEFAULTS)
        if unknown:
            raise ConfigError(sorted(unknown)[0], "unknown option")
        config = {**DEFAULTS, **raw}
        if not isinstance(config["rounds"], int) or config["rounds"] < 1:
            raise ConfigError("rounds", "must be a positive integer")
        if not isinstance(config["max"], int) or not 1 <= config["max"] <= 9:
            raise ConfigError("max", "must be 1..9")
        hand, pick = config["hand"], config["pick"]
        if not isinstance(hand, int) or not 0 <= hand <= HAND_MAX:
            raise ConfigError("hand", f"must be 0..{HAND_MAX}")
        if not (
            isinstance(pick, list)
            and len(pick) == 2
            and all(isinstance(n, int) for n in pick)
            and 0 <= pick[0] <= pick[1]
            and 1 <= pick[1] <= max(1, hand)
        ):
            raise ConfigError("pick", "must be [min, max] with 0 <= min <= max <= hand")
        for flag in ("reactions", "blocks", "revisable", "turn_based", "help", "pauses"):
            if not isinstance(config[flag], bool):
                raise ConfigError(flag, "must be true or false")
        actions = config["actions"]
        if not isinstance(actions, int) or isinstance(actions, bool) or not 1 <= actions <= 9:
            raise ConfigError("actions", "must be 1..9")
        if config["close"] not in ("all", "first", "ready", "each", "deadline"):
            raise ConfigError("close", "must be all, first, ready, each or deadline")
        ready_at = config["ready_at"]
        if not isinstance(ready_at, int) or isinstance(ready_at, bool) or ready_at < 0:
            raise ConfigError("ready_at", "must be a whole number 0 or more")
        return config

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        config, top = setup.config, setup.config["max"]
        secrets = [derive_rng(setup.seed, "secret", s).randint(0, top) for s in range(setup.seats)]
        rounds = min(config["rounds"], 99)  # at most 99 targets; only the rounds' are drawn
        targets = [derive_rng(setup.seed, "target", r).randint(0, top) for r in range(rounds)]
        state: State = {
            "config": dict(config),
            "seats": setup.seats,
            "round": 0,
            "secrets": secrets,
            "targets": targets,
            "scores": [0] * setup.seats,
            "over": False,
            "reason": "",
            "out": [],  # seats that left, never asked again
            "pending": None,  # blocks: {"seat", "guess", "timeout"} waiting on the others
        }
        events = [
            Event(
                PUBLIC,
                "start",
                {"rounds": config["rounds"]},
                f"Toy Guess: {config['rounds']} rounds, numbers 0 to {top}.",
            )
        ]
        events += [
            Event(to_seat(s), "secret", {"secret": v}, f"Your secret number is {v}.")
            for s, v in enumerate(secrets)
        ]
        events.append(Event(MODERATORS, "secrets", {"secrets": secrets}, f"Secrets: {secrets}"))
        return state, events

    def requests(self, state: State) -> list[Request]:
        if state["over"]:
            return []
        config, round_ = state["config"], state["round"]
        if state.get("pending") is not None:
            return self._block_requests(state)
        seats = _round_seats(state)
        each = config.get("close") == "each"
        if each:  # a seat that made its last guess of the round waits for the others
            seats = [seat for seat in seats if str(seat) not in state.get("final", {})]
        clock = f"round:{round_}" if config.get("actions", 1) > 1 or each else None
        if config.get("pauses") and round_ % 2 == 1:  # a pause: nobody is prompted
            return [
                Request(0, "pause", "", (), "the round passes", config["timeout_s"], silent=True)
            ]
        if config.get("hand"):
            return [self._hand_request(config, round_, seat, clock) for seat in seats]
        choices = tuple(Choice(str(n), str(n)) for n in range(config["max"] + 1))
        # opt-in: every second round is a short "reaction" window of the declared length
        reaction = config.get("reactions") and round_ % 2 == 1
        return [
            Request(
                seat,
                "guess",
                f"Round {round_ + 1}{_action_text(state, seat)}: guess the hidden number.",
                choices,
                "your secret number is your guess",
                REACTION_S if reaction else config["timeout_s"],
                config["revisable"],
                timer="reaction" if reaction else "turn",
                close=config.get("close", "all"),
                clock=clock,  # opt-in: one turn clock for the round's actions
                help=GUESS_HELP.format(top=config["max"]) if config.get("help") else "",
            )
            for seat in seats
        ]

    def _block_requests(self, state: State) -> list[Request]:
        pending = state["pending"]
        guesser = f"P{pending['seat'] + 1}"
        choices = (Choice(BLOCK, f"Block {guesser}"), Choice(PASS, "Let it stand"))
        return [
            Request(
                seat,
                "block",
                f"Round {state['round'] + 1}: {guesser} guesses {pending['guess']}. Block it?",
                choices,
                "you let it stand",
                REACTION_S,
                timer="reaction",
                close="ready",  # at the first block, or once every asked seat let it stand
            )
            for seat in _active(state)
            if seat != pending["seat"]
        ]

    def _hand_request(
        self, config: Mapping[str, Any], round_: int, seat: int, clock: str | None = None
    ) -> Request:
        choices = hand_choices(config["hand"], config["max"])
        low, high = config["pick"]
        return Request(
            seat,
            "pick",
            f"Round {round_ + 1}: pick {low} to {high} cards; their sum is your guess.",
            choices,
            "your secret number is your guess",
            config["timeout_s"],
            config["revisable"],
            min_choices=low,
            max_choices=high,
            clock=clock,
        )

    def _submit_cards(self, request: Request, raw: str, top: int) -> Verdict:
        """Cards by name, joined by the request's separator; the move is the guess they make."""
        index = {c.value: i for i, c in enumerate(request.choices)}
        picked = request.split_answer(raw) if raw.strip() else []
        unknown = [p for p in picked if p not in index]
        if unknown:
            return Refused(f"No card is called {unknown[0][:40]!r}.")
        if len(set(picked)) != len(picked):
            return Refused("Pick each card at most once.")
        if not request.min_choices <= len(picked) <= request.max_choices:
            return Refused(f"Pick {request.min_choices} to {request.max_choices} cards.")
        guess = sum(card_number(index[p], top) for p in picked) % (top + 1)
        return Accepted(guess, f"You pick {len(picked)} cards: you guess {guess}.")

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        asked = {r.seat: r for r in self.requests(state)}
        if seat not in asked:
            return Refused("Nothing is asked of you now.")
        if asked[seat].kind == "block":
            answer = raw.strip().lower()
            if answer not in (BLOCK, PASS):
                return Refused("Send block or pass.")
            return Accepted(answer, "You block." if answer == BLOCK else "You let it stand.")
        if state["config"].get("hand"):
            return self._submit_cards(asked[seat], raw, state["config"]["max"])
        text = raw.strip()
        if text.casefold().startswith("guess "):  # a typed grammar beside the bare number
            text = text[len("guess ") :].strip()
        if text not in [str(n) for n in range(state["config"]["max"] + 1)]:
            return Refused(f"Send one number from 0 to {state['config']['max']}.")
        return Accepted(int(text), f"You guess {int(text)}.")

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        state = copy.deepcopy(state)
        if state.get("pending") is not None:
            return self._resolve_block(state, moves)
        if state["config"].get("close") == "each":
            return self._resolve_each(state, moves)
        actions = state["config"].get("actions", 1)
        if actions > 1:  # opt-in: an action before the round's last is counted, not scored
            state["action"] = state.get("action", 0) + 1
            if state["action"] < actions:
                text = f"Round {state['round'] + 1}: action {state['action']} of {actions} done."
                return state, [Event(PUBLIC, "action", {"action": state["action"]}, text)]
            state["action"] = 0
        guesses = {s: (m if m is not None else state["secrets"][s]) for s, m in moves.items()}
        (guesser,) = guesses if state["config"].get("blocks") else (None,)
        if guesser is not None and len(_active(state)) > 1:  # the others may block it
            state["pending"] = {
                "seat": guesser,
                "guess": guesses[guesser],
                "timeout": moves[guesser] is None,
            }
            text = f"Round {state['round'] + 1}: P{guesser + 1} guesses {guesses[guesser]}."
            return state, [Event(PUBLIC, "guess", {"seat": guesser}, text)]
        return self._score(state, guesses, {s for s, m in moves.items() if m is None})

    def _resolve_each(
        self, state: State, moves: Mapping[int, Move | None]
    ) -> tuple[State, list[Event]]:
        """The seats that answered go on alone; a seat's last action (or the deadline) is its
        final guess, and the round scores once every seat has one."""
        acted, final = state.setdefault("acted", {}), state.setdefault("final", {})
        actions, events = state["config"].get("actions", 1), []
        for seat, move in moves.items():
            acted[str(seat)] = acted.get(str(seat), 0) + 1
            if move is None or acted[str(seat)] >= actions:
                final[str(seat)] = [state["secrets"][seat] if move is None else move, move is None]
            else:
                text = f"Action {acted[str(seat)]} of {actions} done."
                events.append(Event(to_seat(seat), "action", {"action": acted[str(seat)]}, text))
        playing = _round_seats(state)
        if any(str(seat) not in final for seat in playing):
            return state, events
        guesses = {seat: final[str(seat)][0] for seat in playing}
        timeouts = {seat for seat in playing if final[str(seat)][1]}
        state["acted"], state["final"] = {}, {}
        return self._score(state, guesses, timeouts)

    def _resolve_block(
        self, state: State, moves: Mapping[int, Move | None]
    ) -> tuple[State, list[Event]]:
        """The first block to arrive (``moves`` keeps arrival order) voids the pending guess."""
        pending, state["pending"] = state["pending"], None
        blockers = [seat for seat, move in moves.items() if move == BLOCK]
        if not blockers:
            timeouts = {pending["seat"]} if pending["timeout"] else set()
            return self._score(state, {pending["seat"]: pending["guess"]}, timeouts)
        state["round"] += 1
        text = (
            f"Round {state['round']}: P{blockers[0] + 1} blocks P{pending['seat'] + 1}'s guess;"
            f" no point. Scores {state['scores']}."
        )
        events = [Event(PUBLIC, "blocked", {"by": blockers[0], "seat": pending["seat"]}, text)]
        return state, events + self._after_round(state)

    def _score(
        self, state: State, guesses: Mapping[int, int], timeouts: set[int]
    ) -> tuple[State, list[Event]]:
        target = state["targets"][state["round"]]
        best = min(abs(g - target) for g in guesses.values())
        winners = [s for s, g in guesses.items() if abs(g - target) == best]
        for seat in winners:
            state["scores"][seat] += 1
        state["round"] += 1
        text = ", ".join(
            f"P{s + 1} {g}" + (" (timeout)" if s in timeouts else "") for s, g in guesses.items()
        )
        events = [
            Event(
                PUBLIC,
                "round",
                {"target": target, "guesses": guesses},
                f"Round {state['round']}: target {target}; {text}. Scores {state['scores']}.",
            )
        ]
        events += [
            Event(to_seat(s), "mine", {"guess": g}, f"You played {g}.") for s, g in guesses.items()
        ]
        events.append(
            Event(
                MODERATORS,
                "hidden",
                {"secrets": state["secrets"]},
                f"Secrets {state['secrets']}, target {target}.",
            )
        )
        return state, events + self._after_round(state)

    def _after_round(self, state: State) -> list[Event]:
        if state["round"] < len(state["targets"]):
            return []
        state["over"], state["reason"] = True, "all rounds played"
        return [Event(PUBLIC, "over", {}, f"Game over: {self._winner_text(state)}.")]

    def ready(self, state: State, moves: Mapping[int, Move]) -> bool:
        """A block window: at the first block, or once every asked seat let it stand. Else the
        opt-in ``ready`` close rule: the guesses so far reach ``ready_at``."""
        if state.get("pending") is not None:
            return BLOCK in moves.values() or len(moves) == len(self.requests(state))
        return bool(sum(moves.values()) >= state["config"].get("ready_at", 0))

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        state = copy.deepcopy(state)
        state["over"], state["reason"] = True, f"ended by {reason}"
        return state, [Event(PUBLIC, "over", {}, f"Ended: {self._winner_text(state)}.")]

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """The seat is out; with one seat left, that seat wins."""
        if state["over"] or seat not in _active(state):
            raise ValueError(f"seat {seat} cannot leave now")
        state = copy.deepcopy(state)
        state["out"] = sorted([*state["out"], seat])
        events = [Event(PUBLIC, "left", {"seat": seat}, f"P{seat + 1} left the match.")]
        if len(_active(state)) == 1:
            state["over"], state["reason"] = True, "opponent left"
            events.append(Event(PUBLIC, "over", {}, f"Game over: {self._winner_text(state)}."))
        elif state.get("final") and all(str(s) in state["final"] for s in _round_seats(state)):
            return self._resolve_each(state, {})  # the others had all made their last guess
        elif state.get("pending") is not None and state["pending"]["seat"] == seat:
            state["pending"] = None  # the guess of a seat that left lapses
            state["round"] += 1
            events += self._after_round(state)
        return state, events

    def outcome(self, state: State) -> Outcome | None:
        if not state["over"]:
            return None
        return Outcome(tuple(self._leaders(state)), state["reason"])

    def view(self, state: State, seat: int | None) -> JSON:
        view = {
            "turn": state["round"],
            "round": state["round"],
            "rounds": len(state["targets"]),
            "scores": list(state["scores"]),
            "max": state["config"]["max"],
        }
        if seat is not None:
            view["secret"] = state["secrets"][seat]
        return view

    def describe(self, state: State, seat: int | None) -> str:
        text = f"Round {state['round']}, scores {state['scores']}."
        return text if seat is None else f"{text} Your secret: {state['secrets'][seat]}."

    def secrets(self, state: State, seat: int) -> list[Secret]:
        """The seat's secret number, as its start event and its description tell it."""
        number = state["secrets"][seat]
        texts = (f"Your secret number is {number}.", f"Your secret: {number}.")
        return [Secret(texts, ({"secret": number},))]

    def dump(self, state: State) -> JSON:
        return json.loads(json.dumps(state))

    def load(self, data: JSON) -> State:
        return copy.deepcopy(dict(data))

    def _leaders(self, state: State) -> list[int]:
        active = _active(state)
        top = max(state["scores"][s] for s in active)
        return [s for s in active if state["scores"][s] == top]

    def _winner_text(self, state: State) -> str:
        return " and ".join(f"P{s + 1}" for s in self._leaders(state)) + " lead"


def _action_text(state: State, seat: int) -> str:
    """Which of the round's actions a request asks for ("" for a one-action round)."""
    actions = state["config"].get("actions", 1)
    if actions <= 1:
        return ""
    done = state.get("acted", {}).get(str(seat), 0) if state["config"].get("close") == "each" else 0
    return f" (action {state.get('action', 0) + done + 1} of {actions})"


def _round_seats(state: State) -> list[int]:
    """The seats asked this round: one in turn (round-robin) when turn-based, else all."""
    active = _active(state)
    if state["config"]["turn_based"] or state["config"].get("blocks"):
        return [active[state["round"] % len(active)]]
    return active


def _active(state: State) -> list[int]:
    return [seat for seat in range(state["seats"]) if seat not in state.get("out", ())]


class RandomGuesser:
    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.seen: list[Event] = []

    def observe(self, event: Event) -> None:
        assert event.audience in (PUBLIC, to_seat(self.seat)), "saw another seat's event"
        self.seen.append(event)

    def act(self, request: Request, view: JSON) -> str:
        if request.kind in ("pick", "block"):  # the protocol's random pick of the choices
            return RandomAgent(self.seat, self.rng).act(request, view)
        return str(self.rng.randint(0, view["max"]))


GAME = ToyGame()
# every game's levels (their play is the same here); the default stays the baseline's
AGENTS = {level: RandomGuesser for level in ("random", "easy", "normal", "hard")}
DEFAULT_AGENT = "random"


def export_script(
    config: Mapping[str, JSON], seed: int, names: Sequence[str], windows: Sequence[Any]
) -> JSON:
    return {
        "format": "toy-script/1",
        "config": dict(config),
        "seed": seed,
        "names": list(names),
        "windows": [
            {"leave": w.seat} if isinstance(w, Leave) else {str(s): list(r) for s, r in w.items()}
            for w in windows
        ],
    }


def reference(state: State) -> list[Topic]:
    """The match's cards (with ``hand``), each worth its number: many topics of every length up
    to about 900 characters, to page."""
    top = state["config"]["max"]
    return [
        Topic(
            card_value(i),
            f"Card {i} is worth {card_number(i, top)}."
            + " It counts toward your guess." * (i % 30),
        )
        for i in range(state["config"].get("hand", 0))
    ]


def run_script(script: Mapping[str, Any]) -> JSON:
    """Replay: per window, each seat's move by ``games.moves``'s rule."""
    config = GAME.parse_config(script["config"], len(script["names"]))
    state, _ = GAME.new_match(Setup(config, len(script["names"]), script["seed"], script["names"]))
    for window in script["windows"]:
        if "leave" in window:  # a seat left instead of this window resolving
            state, _ = GAME.leave(state, window["leave"])
            continue
        attempts = {int(seat): raws for seat, raws in window.items()}
        played = play_window(GAME.requests(state), attempts, partial(GAME.submit, state))
        state, _ = GAME.resolve(state, played.moves)
    outcome = GAME.outcome(state)
    winners = None if outcome is None else list(outcome.winners)
    return {"final": GAME.dump(state), "winners": winners}


GAME_INFO = GameInfo(
    game=GAME,
    agents=AGENTS,
    default_agent=DEFAULT_AGENT,
    run_script=run_script,
    export_script=export_script,
    timers={"turn": 60.0, "reaction": REACTION_S},  # turn: DEFAULTS["timeout_s"]
    reference=reference,
    public_lines=lambda view: [f"{score} point{'s' * (score != 1)}" for score in view["scores"]],
)
