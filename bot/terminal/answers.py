"""What the terminal sends for what you type: a choice by its number in the list shown (several
numbers for a question that takes several), by its answer or by its label; anything else as
typed, for the game to judge (a game's typed grammar reaches further than its choices).

When a choice's answer is itself a number (a coin, a guess), the choices are listed by their
answers and not numbered, so that ``3`` always means the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from games.protocol import Request
from games.text import read_number

_NUMBERS = re.compile(r"[0-9]{1,9}(?:[\s,]+[0-9]{1,9})*")
_SPLIT = re.compile(r"[\s,]+")


class AnswerError(ValueError):
    """What was typed cannot be an answer to this question; the message says why, in words."""


def numbered(request: Request) -> bool:
    """Whether the choices are listed by number (not when an answer is a number itself)."""
    return not any(read_number(choice.value) is not None for choice in request.choices)


def key(request: Request, index: int) -> str:
    """What picks the choice at ``index``: its number, or its answer when that is a number."""
    return str(index + 1) if numbered(request) else request.choices[index].value


def by_number(request: Request, typed: str) -> bool:
    """Whether ``typed`` picks this question's choices by their numbers in its list."""
    return numbered(request) and _NUMBERS.fullmatch(typed.strip()) is not None


def read_answer(request: Request, typed: str) -> str:
    """The raw answer to submit for ``typed``; AnswerError for a number that picks nothing."""
    text = typed.strip()
    if by_number(request, text):
        return _by_numbers(request, [int(n) for n in _SPLIT.split(text)])
    if request.max_choices > 1:
        picked = _by_answers(request, _SPLIT.split(text))
        if picked is not None:
            return request.join_answer(picked)
    folded = text.casefold()
    for choice in request.choices:
        if folded == choice.value.casefold():
            return choice.value
    for choice in request.choices:
        if folded == choice.label.casefold():
            return choice.value
    return text


def _by_numbers(request: Request, numbers: list[int]) -> str:
    count = len(request.choices)
    wrong = [n for n in numbers if not 1 <= n <= count]
    if wrong:
        raise AnswerError(f"There is no choice {wrong[0]}: pick {_range(count)}.")
    if len(numbers) > request.max_choices:
        raise AnswerError(f"Pick at most {request.max_choices} here.")
    if len(set(numbers)) < len(numbers):
        raise AnswerError("Pick each choice once.")
    return request.join_answer([request.choices[n - 1].value for n in numbers])


def _by_answers(request: Request, words: list[str]) -> list[str] | None:
    """Several answers typed with spaces between them (``2 5`` for two coins), if each one is a
    choice's answer."""
    values = {choice.value.casefold(): choice.value for choice in request.choices}
    if len(words) < 2 or any(word.casefold() not in values for word in words):
        return None
    return [values[word.casefold()] for word in words]


def _range(count: int) -> str:
    return "1" if count == 1 else f"a number from 1 to {count}"


def how_to_answer(request: Request) -> str:
    """One line: how to answer this question at the keyboard."""
    if not request.choices:
        return "Type your answer."
    if request.max_choices <= 1:
        return (
            "Type a number, or the answer itself."
            if numbered(request)
            else "Type one of the answers."
        )
    low, high = request.min_choices, request.max_choices
    count = f"{low} to {high}" if low != high else str(low)
    several = "numbers" if numbered(request) else "answers"
    example = "1 3" if numbered(request) else " ".join(c.value for c in request.choices[:2])
    return f"Pick {count}: type their {several} with spaces between them (like {example})."


def completions(request: Request | None, names: list[str], typed: str) -> Iterator[tuple[str, str]]:
    """Candidates for what is being typed: (the whole text, a note) for the answers that start
    with it, then (a word, "") for the names and answer words that start its last word."""
    folded = typed.casefold()
    seen = {typed}
    choices = request.choices if request is not None else ()
    for choice in choices:
        if choice.value.casefold().startswith(folded) and choice.value not in seen:
            seen.add(choice.value)
            yield choice.value, "" if choice.label == choice.value else choice.label
    words = typed.split(" ")
    last = words[-1].casefold()
    if not last:
        return
    head = " ".join([*words[:-1], ""])
    vocabulary = [*names, *(word for c in choices for word in c.value.split())]
    for word in dict.fromkeys(vocabulary):
        whole = head + word
        if word.casefold().startswith(last) and whole not in seen:
            seen.add(whole)
            yield whole, ""
