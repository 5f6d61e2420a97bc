"""What the shared game suites (conformance, bad input, scripts) know of each game beyond the
registry: its tests' ``tests/games/<package>/conformance.py``, which declares

* ``CONFORMANCE_CASE = (configs, window_bound, host_configs)`` (``test_conformance.py``);
* ``EXAMPLE_SCRIPTS``: valid match scripts to mutate and to fuzz (``test_bad_input.py``;
  default: the ``examples`` of ``tests/data/<game>-examples.json``, the rules page's worked
  examples);
* ``MATCH_CONFIGS``: a few configs to start matches with (``test_bad_input.py``; default ``[{}]``).

Floral Extract and Warlock's Brew, older than this, keep theirs in the suites themselves.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from games import registry

JSON = Any
DATA = Path(__file__).resolve().parents[1] / "data"


def case_module(name: str) -> ModuleType:
    """The registered game's ``tests/games/<package>/conformance.py``; AssertionError naming
    the file when the game has none."""
    package = registry.discover()[name]
    module = f"tests.games.{package.rsplit('.', 1)[-1]}.conformance"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        raise AssertionError(f"give the shared game suites a case for {name} in {module}") from None


def declared(name: str, attribute: str, default: Any = None) -> Any:
    value = getattr(case_module(name), attribute, default)
    if value is None:
        raise AssertionError(f"{case_module(name).__name__} declares no {attribute}")
    return value


def example_scripts(name: str) -> list[JSON]:
    examples = DATA / f"{name}-examples.json"
    if not hasattr(case_module(name), "EXAMPLE_SCRIPTS") and examples.exists():
        return list(json.loads(examples.read_text(encoding="utf-8"))["examples"])
    return list(declared(name, "EXAMPLE_SCRIPTS"))


def match_configs(name: str) -> list[dict[str, JSON]]:
    return list(declared(name, "MATCH_CONFIGS", [{}]))
