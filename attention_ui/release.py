"""The release a school runs: its version (from pyproject.toml) and the app's own tab icon.

The version is the one place it is written, ``[project] version`` in pyproject.toml; the app is
run from its checkout, not installed, so the file is read (``importlib.metadata`` only when there
is no such file beside the package, as in an install that made the project a distribution).

>>> VERSION.count(".") >= 2
True
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAVICON = Path(__file__).resolve().parent / "assets" / "favicon.png"
"""The tab's icon, a file the app serves itself: a ``:material/…:`` icon would make Streamlit's
frontend fetch it from Google's font server on every page view (tests/browser/test_offline_browser.py)."""


def app_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """``[project] version`` of pyproject.toml, e.g. ``"1.0.0"``; ``"unknown"`` if neither an
    installed distribution nor the file says."""
    try:
        with pyproject.open("rb") as f:
            return str(tomllib.load(f)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version("attention-lab")
    except metadata.PackageNotFoundError:
        return "unknown"


VERSION = app_version()
