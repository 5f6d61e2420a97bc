"""Reading what people type, and quoting it back: shared by every game.

**Digits have one reading in every game: the ASCII digits 0-9.** Other numerals (``³``, ``①``,
``₅``, ``❸``, ``፫``, Arabic-Indic ``٣``, fullwidth ``３``) are never read as numbers, whatever
``str.isdigit`` or ``int`` would make of them: a player or moderator who sends one is refused
with a message asking for 0-9 (``OTHER_NUMERALS``). A number is at most ``MAX_DIGITS`` digits
long, which keeps far away from Python's limit on converting long digit strings.

**Quoting bad input**: an error shows at most ``EXCERPT_CHARS`` characters of it (``excerpt``),
so a megabyte of junk is never echoed back, and rendering the quote can never fail (deep
nesting, huge numbers, lone surrogates).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

EXCERPT_CHARS = 60
MAX_DIGITS = 9
ELLIPSIS = "…"
OTHER_NUMERALS = "write numbers with the digits 0-9"


def names_text(names: Sequence[str]) -> str:
    """Names as a sentence lists them: ``Alice``, ``Alice and Bob``, ``Alice, Bob and Carol``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def read_number(text: str) -> int | None:
    """The whole number ``text`` spells in ASCII digits (at most ``MAX_DIGITS``), else None."""
    if not 0 < len(text) <= MAX_DIGITS or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def has_other_numerals(text: str) -> bool:
    """Whether ``text`` holds a numeral that is not an ASCII digit (``³``, ``①``, ``٣``...)."""
    return any(char.isnumeric() and not char.isascii() for char in text)


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``value`` quoted for an error message: a string in quotes with its escapes, anything else
    as its Python form, cut to at most ``limit`` characters with an ellipsis."""
    text = ""
    for piece in _pieces(value, limit):
        text += piece
        if len(text) > limit:
            return text[: limit - 1] + ELLIPSIS
    return text


def field_name(key: object, limit: int = 40) -> str:
    """A user-supplied key as it may appear in an error's field path: as it is when short and
    printable, otherwise quoted and cut like ``excerpt``."""
    if isinstance(key, str) and key.isprintable() and 0 < len(key) <= limit:
        return key
    return excerpt(key, limit)


def _pieces(value: object, limit: int) -> Iterator[str]:
    """``repr(value)`` in small pieces, so ``excerpt`` stops as soon as it has ``limit``."""
    if isinstance(value, str):
        yield repr(value[:limit])  # longer than limit when the string is: the cut shows
    elif isinstance(value, bool) or value is None or isinstance(value, float):
        yield repr(value)
    elif isinstance(value, int):
        yield _number(value)
    elif isinstance(value, list | tuple):
        yield "["
        for index, item in enumerate(value):
            yield ", " if index else ""
            yield from _pieces(item, limit)
        yield "]"
    elif isinstance(value, Mapping):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield ", " if index else ""
            yield from _pieces(key, limit)
            yield ": "
            yield from _pieces(item, limit)
        yield "}"
    else:
        yield f"<{type(value).__name__}>"


def _number(value: int) -> str:
    if value.bit_length() <= 200:
        return str(value)
    digits = int(value.bit_length() * 0.30103) + 1
    return f"<a number of about {digits} digits>"
