"""Fetching a model for a machine without internet (attention_core.fetch), end to end against a
stand-in for the model hub.

These machines cannot reach the real hub, so ``StandInHub`` serves a model directory over HTTP
on 127.0.0.1 in the hub's URL layout, the parts huggingface_hub asks for:

    GET  /api/models/<repo>/revision/<rev>     the commit a revision names, and its files
    GET  /api/models/<repo>/tree/<commit>      the file listing snapshot_download walks
    HEAD /<repo>/resolve/<commit>/<file>       X-Repo-Commit, ETag / X-Linked-Etag, sizes
    GET  /<repo>/resolve/<commit>/<file>       the bytes

It lists a large file as LFS with its SHA-256 and a small one by its git blob id, as the hub
does. The command runs in a child process with ``HF_ENDPOINT`` pointing at the stand-in and a
private ``HF_HOME``. References are independent of the code under test: hashlib over each
file, coreutils' ``sha256sum -c``, ``git hash-object``, and the bundled model's own files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest

from attention_core import encoder as enc
from attention_core import fetch as fm
from attention_core import model_choice
from attention_core import model_files as mf

ROOT = Path(__file__).resolve().parents[1]
REPO = "stand-in-owner/minilm-for-school"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
LFS_FROM = 1 << 20  # files this large are listed as LFS (SHA-256), smaller ones by git blob id


def _git_blob_id(data: bytes) -> str:
    """git's id of a blob, from git itself."""
    return (
        subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True)
        .stdout.decode()
        .strip()
    )


class StandInHub:
    """A model repository at one commit (branch "main"), served on 127.0.0.1 in the hub's layout.

    ``files``: path in the repository → bytes. ``served``: what a GET returns instead, to play a
    download damaged on the way. ``requests``: (method, path) of every request."""

    def __init__(self, files: dict[str, bytes], served: dict[str, bytes] | None = None):
        self.files, self.served, self.requests = files, served or {}, []
        self.blob_ids = {name: _git_blob_id(data) for name, data in files.items() if len(data) < LFS_FROM}
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self._answer(body=False)

            def do_GET(self):
                self._answer(body=True)

            def _send(self, code, data=b"", headers=(), body=True):
                self.send_response(code)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def _answer(self, body):
                path = unquote(urlsplit(self.path).path)
                hub.requests.append((self.command, path))
                api = re.fullmatch(r"/api/models/(.+)/(revision|tree)/([^/]+)(/.*)?", path)
                if api:
                    repo, kind, rev = api[1], api[2], api[3]
                    if repo != REPO or rev not in (COMMIT, "main"):
                        error = "RepoNotFound" if repo != REPO else "RevisionNotFound"
                        return self._send(404, b'{"error": "not found"}', [("X-Error-Code", error)], body)
                    listing = hub.listing()
                    if kind == "revision":
                        siblings = [
                            {
                                "rfilename": e["path"],
                                "size": e["size"],
                                "blobId": e["oid"],
                                **({"lfs": e["lfs"]} if "lfs" in e else {}),
                            }
                            for e in listing
                        ]
                        answer = {"id": REPO, "modelId": REPO, "sha": COMMIT, "private": False, "siblings": siblings}
                    else:
                        answer = listing
                    return self._send(200, json.dumps(answer).encode(), [("Content-Type", "application/json")], body)
                prefix = f"/{REPO}/resolve/"
                if path.startswith(prefix):
                    rev, _, name = path[len(prefix) :].partition("/")
                    if rev not in (COMMIT, "main") or name not in hub.files:
                        return self._send(404, b"", [("X-Error-Code", "EntryNotFound")], body)
                    data = hub.files[name]
                    etag = hashlib.sha256(data).hexdigest() if len(data) >= LFS_FROM else hub.blob_ids[name]
                    headers = [
                        ("X-Repo-Commit", COMMIT),
                        ("ETag", f'"{etag}"'),
                        ("Content-Type", "application/octet-stream"),
                    ]
                    if len(data) >= LFS_FROM:
                        headers += [("X-Linked-Etag", f'"{etag}"'), ("X-Linked-Size", str(len(data)))]
                    return self._send(200, hub.served.get(name, data), headers, body)
                return self._send(404, b"", [], body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def listing(self) -> list[dict]:
        entries = []
        for name, data in sorted(self.files.items()):
            if len(data) >= LFS_FROM:
                digest = hashlib.sha256(data).hexdigest()
                pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{digest}\nsize {len(data)}\n"
                lfs = {
                    "oid": digest,
                    "sha256": digest,
                    "size": len(data),
                    "pointerSize": len(pointer),
                }
                entries.append(
                    {"type": "file", "path": name, "size": len(data), "oid": _git_blob_id(pointer.encode()), "lfs": lfs}
                )
            else:
                entries.append({"type": "file", "path": name, "size": len(data), "oid": self.blob_ids[name]})
        return entries

    def fetched(self) -> set[str]:
        """The files whose bytes were asked for."""
        prefix = f"/{REPO}/resolve/"
        return {
            path[len(prefix) :].partition("/")[2]
            for method, path in self.requests
            if method == "GET" and path.startswith(prefix)
        }

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def bundled_files() -> dict[str, bytes]:
    """The bundled model's directory as a repository, with the files a real one has and the app
    never needs: the same weights for PyTorch and ONNX, git's attributes."""
    root = mf.bundled_path()
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    files = {name: data for name, data in files.items() if not name.startswith(".")}
    files["pytorch_model.bin"] = b"\x80" * 4096
    files["onnx/model.onnx"] = b"onnx" * 1024
    files["onnx/config.json"] = b"{}"
    files[".gitattributes"] = b"*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
    return files


def run_fetch(hub: StandInHub | None, *args: str, home: Path) -> subprocess.CompletedProcess:
    """``python -m attention_core.fetch ARGS`` in a child process, the hub at ``hub``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", mf.MODEL_ENV))}
    env.update(HF_HOME=str(home), PYTHONPATH=str(ROOT), HF_HUB_DISABLE_TELEMETRY="1")
    if hub is not None:
        env["HF_ENDPOINT"] = hub.url
    return subprocess.run(
        [sys.executable, "-m", "attention_core.fetch", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def flip_a_byte(path: Path, where: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * where)] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.fixture()
def fresh_encoders():
    enc.clear_cache()
    yield
    enc.clear_cache()


def test_fetched_verified_copied_and_read_by_the_encoder(tmp_path, monkeypatch, fresh_encoders):
    """The whole recipe: fetch at a branch (resolved to its commit), check every file, copy,
    verify the copy, point the app at it; a flipped byte is then found by --verify (any file)
    and by the app itself (the weights)."""
    files = bundled_files()
    with StandInHub(files) as hub:
        done = run_fetch(hub, REPO, "--revision", "main", "--to", str(tmp_path / "fetched"), home=tmp_path / "hf")
    assert done.returncode == 0, done.stderr
    fetched = tmp_path / "fetched"
    assert COMMIT in done.stdout and "ATTENTION_LAB_MODEL=" in done.stdout, done.stdout
    wanted = {n for n in files if fm.needed(n)}
    assert wanted >= {"config.json", "tokenizer.json", "model.safetensors", "1_Pooling/config.json", "modules.json"}
    assert hub.fetched() == wanted  # never the PyTorch or ONNX copies
    assert not {"pytorch_model.bin", "onnx/model.onnx", ".gitattributes"} & hub.fetched()
    written = {p.relative_to(fetched).as_posix() for p in fetched.rglob("*") if p.is_file()}
    assert written == wanted | {"fetched.json", "model.safetensors.sha256", "SHA256SUMS"}
    assert not (tmp_path / "fetched.partial").exists()
    for name in wanted:
        assert (fetched / name).read_bytes() == files[name], name
    assert json.loads((fetched / "fetched.json").read_text()) == {"repo_id": REPO, "revision": "main", "commit": COMMIT}

    sums = dict(reversed(line.split("  ", 1)) for line in (fetched / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == written - {"SHA256SUMS"}
    for name, digest in sums.items():
        assert hashlib.sha256((fetched / name).read_bytes()).hexdigest() == digest, name
    assert (
        subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=fetched, capture_output=True).returncode == 0
    )
    assert (fetched / "model.safetensors.sha256").read_text().split()[0] == mf.BUNDLED_SHA256

    server = tmp_path / "server" / "multilingual"  # the copy on the school server
    shutil.copytree(fetched, server)
    checked = run_fetch(None, "--verify", str(server), home=tmp_path / "hf")
    assert checked.returncode == 0, checked.stderr
    assert "every file matches" in checked.stdout and "unknown to the model" in checked.stdout

    monkeypatch.setenv(mf.MODEL_ENV, str(server))
    assert mf.expected_weights_sha256(server) == mf.BUNDLED_SHA256  # from the sidecar: checked at every load
    ours = enc.encode("小猫没有过马路，因为它太累了")
    assert ours.model == str(server)
    np.testing.assert_array_equal(
        ours.hidden, enc.encode("小猫没有过马路，因为它太累了", name=str(mf.bundled_path())).hidden
    )

    flip_a_byte(server / "tokenizer.json", 0.9)  # the app would not notice this one: --verify does
    flip_a_byte(server / "model.safetensors")
    checked = run_fetch(None, "--verify", str(server), home=tmp_path / "hf")
    assert checked.returncode == 1
    assert "FAILED model.safetensors" in checked.stderr and "FAILED tokenizer.json" in checked.stderr, checked.stderr
    assert "FAILED config.json" not in checked.stderr
    enc.clear_cache()
    with pytest.raises(mf.ModelUnavailable) as caught:
        enc.load_encoder()
    assert caught.value.reason == "checksum"


def test_a_pinned_commit_is_fetched_and_an_unknown_revision_is_an_error(tmp_path):
    with StandInHub(bundled_files()) as hub:
        done = run_fetch(hub, REPO, "--revision", COMMIT, "--to", str(tmp_path / "m"), home=tmp_path / "hf")
        assert done.returncode == 0, done.stderr
        assert "is not a commit" not in done.stdout
        assert {path.split("/")[4] for _, path in hub.requests if "/resolve/" in path} == {COMMIT}
        wrong = run_fetch(hub, REPO, "--revision", "f" * 40, "--to", str(tmp_path / "n"), home=tmp_path / "hf")
    assert wrong.returncode == 1 and "RevisionNotFound" in wrong.stderr, wrong.stderr
    assert not (tmp_path / "n").exists() and not (tmp_path / "n.partial").exists()


def test_a_file_damaged_on_the_way_is_refused_and_nothing_is_left(tmp_path):
    """The hub lists one SHA-256 and sends other bytes (same size): the fetch stops, says which
    file, and leaves neither the model nor its staging directory."""
    files = bundled_files()
    served = bytearray(files["model.safetensors"])
    served[len(served) // 2] ^= 0xFF
    with StandInHub(files, served={"model.safetensors": bytes(served)}) as hub:
        done = run_fetch(hub, REPO, "--revision", "main", "--to", str(tmp_path / "m"), home=tmp_path / "hf")
    assert done.returncode == 1 and "model.safetensors" in done.stderr and "the hub lists" in done.stderr, done.stderr
    assert not (tmp_path / "m").exists() and not (tmp_path / "m.partial").exists()

    other_config = files["config.json"].replace(b"384", b"385", 1)  # the same size, another blob
    with StandInHub(files, served={"config.json": other_config}) as hub:
        done = run_fetch(hub, REPO, "--revision", "main", "--to", str(tmp_path / "m"), home=tmp_path / "hf")
    assert done.returncode == 1 and "config.json" in done.stderr and "blob" in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("xlm-roberta", "model_type 'xlm-roberta'"),
        ("no safetensors", "has no model.safetensors"),
        ("relu", "relu"),
    ],
)
def test_a_model_the_app_cannot_read_exactly_is_refused(tmp_path, change, said):
    """An XLM-RoBERTa model would run with BERT's positions (every number off), a repository with
    pytorch_model.bin only has nothing our encoder reads, an activation it does not implement is
    refused by the encoder's own config check: the fetch says so and writes nothing."""
    files = bundled_files()
    config = json.loads(files["config.json"])
    if change == "xlm-roberta":
        files["config.json"] = json.dumps(dict(config, model_type="xlm-roberta")).encode()
    elif change == "relu":
        files["config.json"] = json.dumps(dict(config, hidden_act="relu")).encode()
    else:
        del files["model.safetensors"]
    with StandInHub(files) as hub:
        done = run_fetch(hub, REPO, "--revision", "main", "--to", str(tmp_path / "m"), home=tmp_path / "hf")
    assert done.returncode == 1 and said in done.stderr, done.stderr
    assert not (tmp_path / "m").exists() and not (tmp_path / "m.partial").exists()


def test_fetch_never_writes_into_a_directory_that_is_not_empty(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "notes.txt").write_text("the teacher's")
    done = run_fetch(None, REPO, "--revision", COMMIT, "--to", str(tmp_path / "m"), home=tmp_path / "hf")
    assert done.returncode == 1 and "not empty" in done.stderr
    assert [p.name for p in (tmp_path / "m").iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("line", ["0" * 64 + "  ../outside.json", "0" * 64 + "  /etc/passwd", "not a checksum line"])
def test_verify_refuses_a_checksum_list_that_points_outside(tmp_path, line):
    (tmp_path / "SHA256SUMS").write_text(line + "\n")
    with pytest.raises(fm.FetchError, match="expected '<sha256>  <file in the directory>'"):
        fm.verify(tmp_path)


def test_verify_without_a_checksum_list_says_how_to_get_one(tmp_path):
    done = run_fetch(None, "--verify", str(tmp_path), home=tmp_path / "hf")
    assert done.returncode == 1 and "no SHA256SUMS" in done.stderr


def test_git_blob_ids_are_gits_own():
    for data in (b"", b"{}\n", (mf.bundled_path() / "config.json").read_bytes()):
        assert fm.git_blob_id(data) == _git_blob_id(data)


# --------------------------------------------------------------------------- the opt-in fetch at start (the Cloud)


@pytest.fixture()
def cloud(tmp_path, monkeypatch, fresh_encoders):
    """The environment of a Cloud app that opts in: $ATTENTION_LAB_FETCH_MODEL names the stand-in's
    model at its commit, no $ATTENTION_LAB_MODEL, and the hub switched off as the app switches it
    off (the fetch runs in a child process without that switch)."""
    monkeypatch.delenv(mf.MODEL_ENV, raising=False)
    monkeypatch.setenv(mf.FETCH_ENV, f"{REPO}@{COMMIT}")
    monkeypatch.setenv(fm.FETCH_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fm.forget_fetched()
    yield tmp_path / "cache" / REPO.replace("/", "--") / COMMIT
    fm.forget_fetched()


def test_the_cloud_setting_fetches_once_verifies_and_the_app_reads_it(cloud, monkeypatch):
    from attention_ui import model_access

    with StandInHub(bundled_files()) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert model_choice.resolve_model_name() == str(cloud)
        assert "model.safetensors" in hub.fetched()
        asked = len(hub.requests)
        assert model_choice.resolve_model_name() == str(cloud)  # remembered in this process
        fm.forget_fetched()  # a restart: found on disk and verified again, not fetched
        assert model_choice.resolve_model_name() == str(cloud)
        assert len(hub.requests) == asked
        assert (cloud / "model.safetensors").read_bytes() == (mf.bundled_path() / "model.safetensors").read_bytes()
        model_access._model_embedder.clear()
        embedder, problem = model_access.model_or_problem()
        model_access._model_embedder.clear()
    assert problem is None and embedder.name == str(cloud)
    text = "the cat sat on the mat"
    np.testing.assert_array_equal(enc.encode(text).hidden, enc.encode(text, name=str(mf.bundled_path())).hidden)

    flip_a_byte(cloud / "tokenizer.json", 0.9)  # changed since the fetch: the next start refuses it
    fm.forget_fetched()
    with pytest.raises(mf.ModelUnavailable) as caught:
        model_choice.resolve_model_name()
    assert caught.value.reason == "checksum" and "tokenizer.json" in str(caught.value)


def test_a_cloud_fetch_that_fails_says_why_and_waits_before_trying_again(cloud, monkeypatch):
    """No hub (a closed port): the app falls back with reason "missing" and the hub's error; the
    next reruns do not start a fetch again until RETRY_AFTER_S has passed."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed}")
    children = []
    real_run = fm.subprocess.run
    monkeypatch.setattr(fm.subprocess, "run", lambda *a, **k: children.append(a) or real_run(*a, **k))
    with pytest.raises(mf.ModelUnavailable) as caught:
        model_choice.resolve_model_name()
    assert caught.value.reason == "missing" and "failed" in str(caught.value) and REPO in str(caught.value)
    for _ in range(3):
        with pytest.raises(mf.ModelUnavailable):
            model_choice.resolve_model_name()
    assert len(children) == 1
    assert not cloud.exists()
    monkeypatch.setattr(fm, "RETRY_AFTER_S", 0.0)
    with pytest.raises(mf.ModelUnavailable):
        model_choice.resolve_model_name()
    assert len(children) == 2


@pytest.mark.parametrize("setting", [f"{REPO}@main", REPO, f"{REPO}@{COMMIT[:12]}", f"../x@{COMMIT}"])
def test_the_cloud_setting_must_pin_a_commit(cloud, monkeypatch, setting):
    monkeypatch.setenv(mf.FETCH_ENV, setting)
    with pytest.raises(mf.ModelUnavailable) as caught:
        model_choice.resolve_model_name()
    assert caught.value.reason == "missing" and "owner/name@<commit>" in str(caught.value)


def test_the_model_named_by_attention_lab_model_comes_first(cloud, monkeypatch):
    monkeypatch.setenv(mf.MODEL_ENV, str(mf.bundled_path()))
    assert model_choice.resolve_model_name() == str(mf.bundled_path())  # no fetch at all: no hub is running


def test_two_app_processes_fetch_the_model_once(cloud, monkeypatch):
    """serve.sh's processes start together: one fetches, the other waits for its lock and finds
    the model there."""
    code = "from attention_core import model_choice; print(model_choice.resolve_model_name())"
    with StandInHub(bundled_files()) as hub:
        env = dict(os.environ, HF_ENDPOINT=hub.url, PYTHONPATH=str(ROOT))
        children = [
            subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        said = [child.communicate(timeout=300)[0].strip() for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert said == [str(cloud), str(cloud)]
    weights = [path for method, path in hub.requests if method == "GET" and path.endswith("/model.safetensors")]
    assert len(weights) == 1, hub.requests
