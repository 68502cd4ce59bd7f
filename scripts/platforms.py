"""Does the locked set install on every computer a school has?  python scripts/platforms.py

For each platform (Linux x86-64 and aarch64, Windows x86-64, macOS on Intel and on Apple
Silicon) and each Python (3.11, 3.12, 3.13), ``uv pip compile --python-platform`` resolves

- the default, ``requirements.txt``: wheels only (``--no-build``: no compiler on a school laptop;
  the bundled model's archive is pure Python, its metadata read from its PKG-INFO);
- the default with the PyTorch checks, ``requirements.txt`` + ``requirements-check.txt``, for
  macOS on Apple Silicon as macOS 14 (torch 2.13.0's oldest); it must hold torch everywhere but on
  Intel Macs, where PyTorch publishes no wheel and the checks are left out (requirements-check.in).

Nothing is installed. Exits 1 and names every combination that does not resolve. Needs uv
(requirements-dev.txt) and PyPI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLATFORMS = {
    "Linux x86-64": "x86_64-unknown-linux-gnu",
    "Linux aarch64": "aarch64-unknown-linux-gnu",
    "Windows x86-64": "x86_64-pc-windows-msvc",
    "macOS Intel": "x86_64-apple-darwin",
    "macOS Apple Silicon": "aarch64-apple-darwin",
}
PYTHONS = ["3.11", "3.12", "3.13"]
NO_TORCH = {"macOS Intel"}
"""Where the checks install no torch: PyTorch has no wheel for Intel Macs since 2.2.2."""
MACOS_FOR_TORCH = "14.0"
"""The oldest macOS that torch 2.13.0's Apple Silicon wheel supports (macosx_14_0_arm64)."""


def resolve(files: list[str], target: str, python: str, macos: str | None = None) -> tuple[bool, str]:
    """(resolved, uv's output or its error) for ``files`` on ``target`` with Python ``python``."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    if macos:
        env["MACOSX_DEPLOYMENT_TARGET"] = macos
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "resolved.txt"
        cmd = [sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate"]
        cmd += ["--python-platform", target, "--python-version", python, "--no-build"]
        cmd += [*files, "-o", str(out)]  # the model's own archive is read for its metadata (PKG-INFO), not built
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            return False, done.stderr.strip()
        return True, out.read_text(encoding="utf-8")


def has(resolved: str, package: str) -> bool:
    return re.search(rf"^{re.escape(package)}==", resolved, flags=re.MULTILINE) is not None


def main() -> int:
    failures, rows = [], 0
    start = time.monotonic()
    for name, target in PLATFORMS.items():
        for python in PYTHONS:
            ok, text = resolve(["requirements.txt"], target, python)
            if not ok:
                failures.append(f"default, {name}, Python {python}:\n{text}")
            elif has(text, "torch"):
                failures.append(f"default, {name}, Python {python}: torch is in the default set")
            macos = MACOS_FOR_TORCH if target == "aarch64-apple-darwin" else None
            ok_check, text = resolve(["requirements.txt", "requirements-check.txt"], target, python, macos)
            if not ok_check:
                failures.append(f"checks, {name}, Python {python}:\n{text}")
            elif has(text, "torch") == (name in NO_TORCH):
                where = "in" if name in NO_TORCH else "not in"
                failures.append(f"checks, {name}, Python {python}: torch {where} the set")
            rows += 1
            print(
                f"{name:20} Python {python}: default {'ok' if ok else 'FAILS'}, "
                f"with the PyTorch checks {'ok' if ok_check else 'FAILS'}",
                flush=True,
            )
    print(f"scripts/platforms.py: {rows} platform × Python pairs in {time.monotonic() - start:.0f} s")
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
