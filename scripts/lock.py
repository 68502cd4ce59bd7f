"""Write the locks from the hand-written lists:  python3 scripts/lock.py

- ``packages/attention_lab_model-0.1.0.tar.gz``: the source archive of packages/attention-lab-model
  (the bundled model's package), the same bytes on every run, pinned by hash in the lock;
- ``requirements.txt`` from ``requirements.in``: the whole set the server needs, every package at
  one version with the SHA-256 of each of its files, for every platform and Python 3.11+ (one
  universal resolution; markers pick what a platform needs). Community Cloud installs this file.
- ``requirements-check.txt`` from ``requirements-check.in``: what the optional PyTorch checks add
  on top, resolved together with (and constrained to) requirements.txt. Without hashes: on Linux
  torch comes from PyTorch's CPU index, whose files a PyPI-only lock cannot name. PyPI's Linux
  torch needs the CUDA libraries (nvidia-*, cuda-*, triton); the CPU build needs none, so they
  are left out.

Run it after changing a ``.in`` file or packages/attention-lab-model; commit what it writes.
It needs uv (requirements-dev.txt) and PyPI. ``tests/test_release.py`` checks that the locks
agree with the lists, and ``scripts/platforms.py`` that they install on every platform.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_PACKAGE = ROOT / "packages" / "attention-lab-model"
LOCK_COMMAND = "python3 scripts/lock.py"
CUDA_ONLY = re.compile(r"^(nvidia-|cuda-|triton\b)")
"""Packages only PyPI's CUDA build of torch on Linux pulls in: not in requirements-check.txt."""

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def uv() -> list[str]:
    """The uv command: ``python -m uv`` of this Python (uv is in requirements-dev.txt)."""
    return [sys.executable, "-m", "uv"]


def uv_env() -> dict[str, str]:
    """uv never downloads a Python of its own here (it would try GitHub for each version)."""
    return {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}


def pins(text: str) -> dict[str, str]:
    """``{normalised name: version}`` of the ``name==version`` lines of a requirements file (a
    package pinned twice under different markers keeps its first version)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            found.setdefault(re.sub(r"[-_.]+", "-", match[1]).lower(), match[2])
    return found


def pin_lines(text: str) -> list[str]:
    """The requirement lines of a compiled file, without hashes, comments or continuations."""
    lines = []
    for line in text.splitlines():
        line = line.rstrip(" \\")
        if line and not line.startswith((" ", "#", "-")):
            lines.append(line)
    return lines


def build_model_sdist() -> Path:
    sys.path.insert(0, str(MODEL_PACKAGE))
    import build_model

    return ROOT / "packages" / build_model.build_sdist(ROOT / "packages")


def compile_lock(sources: list[str], output: Path, *extra: str) -> str:
    """``uv pip compile --universal`` of ``sources`` (paths relative to the repository) into ``output``."""
    cmd = [*uv(), "pip", "compile", "--universal", "--python-version", "3.11", "--quiet"]
    cmd += ["--custom-compile-command", LOCK_COMMAND, *extra, *sources, "-o", str(output)]
    subprocess.run(cmd, cwd=ROOT, env=uv_env(), check=True)
    return output.read_text(encoding="utf-8")


def main() -> None:
    print(f"wrote {build_model_sdist().relative_to(ROOT)}")
    default = compile_lock(["requirements.in"], ROOT / "requirements.txt", "--generate-hashes")
    print(f"wrote requirements.txt: {len(pin_lines(default))} packages")
    default_pins = pins(default)
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "default-pins.txt"
        constraints.write_text("\n".join(f"{n}=={v}" for n, v in default_pins.items()) + "\n", encoding="utf-8")
        sources = ["requirements.in", "requirements-check.in"]
        both = compile_lock(sources, Path(tmp) / "both.txt", "--no-annotate", "-c", str(constraints))
    extra = [
        line
        for line in pin_lines(both)
        if (match := PIN.match(line))
        and re.sub(r"[-_.]+", "-", match[1]).lower() not in default_pins
        and not CUDA_ONLY.match(line)
    ]
    header = (
        f"# Written by `{LOCK_COMMAND}` from requirements-check.in: what the optional checks against\n"
        "# PyTorch add to requirements.txt, each at one version. Install it after requirements.txt; on\n"
        "# Linux with PyTorch's CPU index (README). The CUDA libraries of PyPI's Linux torch are left out.\n"
    )
    (ROOT / "requirements-check.txt").write_text(header + "\n".join(extra) + "\n", encoding="utf-8")
    print(f"wrote requirements-check.txt: {len(extra)} packages")


if __name__ == "__main__":
    main()
