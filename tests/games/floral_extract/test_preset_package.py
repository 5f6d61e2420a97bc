"""The spellbook presets ship inside the package: a wheel built from the project, installed
outside the checkout, has every preset and reads them from where it is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from games.floral_extract import books

ROOT = Path(__file__).resolve().parents[3]
# What setuptools needs to build the wheel (pyproject.toml names the packages and the data).
SOURCES = ("pyproject.toml", "README.md", "games", "bot", "cogs")

PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from games.floral_extract import books
names = books.preset_names()
print(json.dumps({
    "module": books.__file__,
    "names": names,
    "books": {name: books.load_preset(name).to_json() for name in names},
}))
"""


def _copy_sources(to: Path) -> None:
    """The project as a clean clone has it: a build writes build/ and egg-info beside its
    sources, so it runs on a copy, never in the shared checkout."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=ignore)
        else:
            shutil.copy2(source, to / name)


def _run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_an_installed_wheel_has_every_preset(tmp_path: Path) -> None:
    source, wheels, site = tmp_path / "src", tmp_path / "wheels", tmp_path / "site"
    source.mkdir()
    _copy_sources(source)
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet")
    _run(*pip, "wheel", "--no-deps", "--wheel-dir", wheels, source, cwd=tmp_path)
    [wheel] = wheels.glob("floral_host-*.whl")
    _run(*pip, "install", "--no-deps", "--no-compile", "--target", site, wheel, cwd=tmp_path)

    # The base interpreter, isolated (-I): neither the checkout nor its editable install is on
    # its path, so the games package can only come from the installed wheel.
    base = getattr(sys, "_base_executable", sys.executable)
    found = json.loads(_run(base, "-I", "-c", PROBE, site, cwd=tmp_path))

    assert Path(found["module"]).is_relative_to(site)
    assert found["names"] == books.preset_names()
    assert found["names"]  # the checkout has presets, so the wheel must too
    assert found["books"] == {name: books.load_preset(name).to_json() for name in found["names"]}
