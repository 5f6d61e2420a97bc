"""Reading what people type, and quoting it back: shared by every game.

**Digits have one reading in every game: the ASCII digits 0-9.** Other numerals (``³``, ``①``,
``₅``, ``❸``, ``፫``, Arabic-Indic ``٣``, fullwidth ``３``) are never read as numbers, whatever
``str.isdigit`` or ``int`` would make of them: a player or moderator who sends one is refused
with a message asking for 0-9 (``OTHER_NUMERALS``). A number is at most ``MAX_DIGITS`` digits
long, which keeps far away from Python's limit on converting long digit strings.

**Quoting bad input**: an error shows at most ``EXCERPT_CHARS`` characters of it (``excerpt``),
so a megabyte of junk is never echoed back, and rendering the quote can never fail (deep
nesting, huge numbers, lone surrogates).

**Names and texts in set files** (card sets, content sets, spellbooks, presets) pass one check,
``checked_text``: a text of 1 to N characters, not blank, every character printable, so no
control character, line break, zero-width or other format character, and no lone surrogate
(which cannot be encoded, so a message holding it could never be sent); a seat's name in a
script passes ``checked_seat_name`` (no control character, no lone surrogate). **A JSON document**
a moderator gives is read by ``parse_json``, which refuses an object that names a key twice
(plain ``json.loads`` would keep the last value silently).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.protocol import ConfigError

EXCERPT_CHARS = 60
NAME_CHARS = 60  # the longest name or text of a set file (a card, a tile, a set's own name)
SEAT_NAME_CHARS = 100  # the longest seat name a script may give
MAX_DIGITS = 9
ELLIPSIS = "…"
OTHER_NUMERALS = "write numbers with the digits 0-9"


def checked_text(value: object, field: str, limit: int = NAME_CHARS) -> str:
    """``value`` as a name or text of a set file: 1 to ``limit`` characters, not blank, every
    one printable (``str.isprintable``: no control, line break, format or zero-width character,
    no lone surrogate). Otherwise ConfigError naming ``field`` and the first bad character."""
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise ConfigError(field, f"must be a text of 1 to {limit} characters, got {excerpt(value)}")
    bad = next((char for char in value if not char.isprintable()), None)
    if bad is not None:
        raise ConfigError(field, f"holds {_character(bad)}, which does not print: {excerpt(value)}")
    return value


def checked_seat_name(value: object, field: str, limit: int = SEAT_NAME_CHARS) -> str:
    """``value`` as a seat's name in a script: 1 to ``limit`` characters, not blank, with no
    control character or lone surrogate (a display name's emoji may join with U+200D, so
    format characters pass). Otherwise ConfigError naming ``field``."""
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise ConfigError(field, f"must be a name of 1 to {limit} characters, got {excerpt(value)}")
    bad = next((char for char in value if unicodedata.category(char) in ("Cc", "Cs")), None)
    if bad is not None:
        raise ConfigError(field, f"holds {_character(bad)}: {excerpt(value)}")
    return value


def _character(char: str) -> str:
    """``U+200B (ZERO WIDTH SPACE)``: a character named for an error message."""
    kind = {"Cs": "a lone surrogate", "Cc": "a control character"}
    name = unicodedata.name(char, "") or kind.get(unicodedata.category(char), "unassigned")
    return f"U+{ord(char):04X} ({name})"


def parse_json(text: str, field: str) -> Any:
    """``text`` as one JSON document; ConfigError naming ``field`` when it is not valid JSON
    (with the line), nests too deep, or an object gives a key twice (naming the key)."""
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKey as duplicate:
        raise ConfigError(
            field, f"the key {excerpt(duplicate.key)} is given twice in one object"
        ) from None
    except (ValueError, RecursionError) as error:
        where = getattr(error, "lineno", None)
        at = f" (line {where})" if where is not None else ""
        raise ConfigError(field, f"the file is not valid JSON{at}") from None


class DuplicateKey(ValueError):
    """A JSON object gives ``key`` twice (``unique_keys``)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' ``object_pairs_hook`` that raises DuplicateKey for a key given twice."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found


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
