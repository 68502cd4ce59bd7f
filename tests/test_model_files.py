"""Finding, checking and reading the model's files (attention_core.model_files), and the
encoder's loading faults: missing packages and directories, damaged weights, hub ids that are
not cached, unreadable files, memory. No torch: the app reads the model with NumPy only."""

from __future__ import annotations

import functools
import sys

import pytest

from attention_core import encoder as enc
from attention_core import encoder_files
from attention_core import model_files as mf
from attention_core.encoder import load_encoder
from attention_core.model_choice import resolve_model_name
from attention_core.model_files import (
    BUNDLED_PACKAGES,
    BUNDLED_SHA256,
    MODEL_ENV,
    ModelUnavailable,
    file_sha256,
    verify_weights,
)


def test_resolve_model_name(monkeypatch):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    import attention_lab_model

    assert resolve_model_name() == str(attention_lab_model.get_model_path())
    monkeypatch.setenv(MODEL_ENV, "/somewhere/else")
    assert resolve_model_name() == "/somewhere/else"
    assert resolve_model_name("given") == "given"  # the argument wins over the environment


def test_bundled_weights_pass_verification():
    import attention_lab_model

    weights = verify_weights(attention_lab_model.get_model_path())
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
    for module in BUNDLED_PACKAGES:  # `import` of each now raises ImportError
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ModelUnavailable) as caught:
        resolve_model_name()
    assert caught.value.reason == "missing"
    assert "attention-lab-model" in str(caught.value)


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
    monkeypatch.setattr(enc, "read_encoder", lambda directory: sentinel)  # the model "appears"
    (tmp_path / "later").mkdir()
    assert load_encoder(target) is sentinel  # tried again, not a cached failure
    assert load_encoder(target) is sentinel


def test_out_of_memory_is_reported_as_memory(tmp_path, monkeypatch):
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(encoder_files, "read_tensors", no_memory)
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
    assert caught.value.reason == "unsupported" and "relu" in str(caught.value)


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


# --------------------------------------------------------------------------- memory-mapped reading


def _safetensors_bytes(header: dict, data: bytes) -> bytes:
    """A safetensors file written by hand: 8-byte little-endian header length, JSON, data."""
    import json

    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + data


def _maps_a_file(array) -> bool:
    """True when ``array``'s memory is a mapping of a file (an ``mmap`` among its bases)."""
    import mmap

    while array is not None:
        if isinstance(array, mmap.mmap):
            return True
        array = getattr(array, "base", None)
    return False


def test_mapped_tensors_are_the_safetensors_packages_own_numbers():
    """Every tensor of the bundled file, mapped or read into memory, equals what the safetensors
    package reads (its own loader, a copy in memory): same dtype, shape and bytes."""
    import numpy as np
    from safetensors.numpy import load_file

    reference = load_file(str(mf.bundled_path() / mf.WEIGHTS_FILE))
    mapped = mf.read_tensors(mf.bundled_path())
    copied = mf.read_tensors(mf.bundled_path(), in_memory=lambda name: True)
    assert set(mapped) == set(copied) == set(reference)
    for name, theirs in reference.items():
        for ours in (mapped[name], copied[name]):
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, name
            np.testing.assert_array_equal(ours, theirs, err_msg=name)
            assert not ours.flags.writeable, name
        assert isinstance(mapped[name], np.memmap), name
        assert _maps_a_file(mapped[name]) and not _maps_a_file(copied[name]), name  # a private copy


def test_the_encoder_maps_the_word_table_only():
    """The word table is a view of the file; every other weight is in memory (the product with a
    mapped matrix would read all of it for every sentence anyway)."""
    import numpy as np

    encoder = load_encoder()
    assert isinstance(encoder.word, np.memmap) and not encoder.word.flags.writeable
    assert _maps_a_file(encoder.word)
    for array in (encoder.position, encoder.segment, *encoder.norm, encoder.layers[0].w_q, encoder.layers[0].b_q):
        assert not isinstance(array, np.memmap) and not _maps_a_file(array)
    assert encoder.weights_stamp == mf.file_stamp(mf.bundled_path() / mf.WEIGHTS_FILE)


def _unknown_model(root, weights: bytes):
    """A model directory whose config differs from the bundled one by a space, so that no hash is
    known for it and the weights are read unchecked: only the reading can find a fault."""
    import shutil

    root.mkdir()
    shutil.copy(mf.bundled_path() / "tokenizer.json", root / "tokenizer.json")
    (root / "config.json").write_bytes((mf.bundled_path() / "config.json").read_bytes() + b" ")
    (root / mf.WEIGHTS_FILE).write_bytes(weights)
    return root


def _damaged(kind: str) -> bytes:
    good = (mf.bundled_path() / mf.WEIGHTS_FILE).read_bytes()
    entry = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    if kind == "truncated":
        return good[: len(good) // 2]
    if kind == "shorter than its length":
        return good[:5]
    if kind == "header length too large":
        return (10**12).to_bytes(8, "little") + good[8:]
    if kind == "header not json":
        return (16).to_bytes(8, "little") + b"{not json at all" + b"\0" * 64
    if kind == "offsets outside the file":
        return _safetensors_bytes({"a": dict(entry, data_offsets=[0, 1600])}, b"\0" * 16)
    if kind == "offsets of the wrong size":
        return _safetensors_bytes({"a": dict(entry, data_offsets=[0, 12])}, b"\0" * 12)
    if kind == "bfloat16":
        return _safetensors_bytes({"a": dict(entry, dtype="BF16", data_offsets=[0, 8])}, b"\0" * 8)
    raise AssertionError(kind)


DAMAGES = {
    "truncated": "safetensorerror",
    "shorter than its length": "safetensorerror",
    "header length too large": "safetensorerror",
    "header not json": "safetensorerror",
    "offsets outside the file": "safetensorerror",
    "offsets of the wrong size": "safetensorerror",
    "bfloat16": "numpy cannot read",
}
"""Each damage → a word of the reason in the error (safetensors' own parser refuses the first
six before anything is mapped; a dtype NumPy lacks is refused by our reading)."""


@pytest.mark.parametrize("kind", list(DAMAGES))
def test_a_damaged_weights_file_is_refused_with_the_reason(tmp_path, kind):
    weights = tmp_path / "w"
    weights.mkdir()
    (weights / mf.WEIGHTS_FILE).write_bytes(_damaged(kind))
    with pytest.raises(ModelUnavailable) as caught:
        mf.read_tensors(weights)
    assert caught.value.reason == "load", caught.value
    assert str(weights) in str(caught.value) and DAMAGES[kind] in str(caught.value).lower(), caught.value
    model = _unknown_model(tmp_path / "model", _damaged(kind))
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(model))  # through the encoder: the same refusal, no crash
    assert caught.value.reason == "load"


def test_our_header_reading_checks_what_safetensors_does_not_see(tmp_path):
    """The views come from our own reading of the header: a disagreement with safetensors' reading
    (shape, dtype) and offsets outside the mapped bytes are refused, never mapped."""
    import numpy as np

    data = np.arange(4, dtype="<f4").tobytes()
    path = tmp_path / "w.safetensors"
    path.write_bytes(_safetensors_bytes({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}, data))
    start, header = mf.safetensors_header(path)
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    view = mf._tensor_view(mapped, start, "a", header["a"], ("F32", [2, 2]))
    np.testing.assert_array_equal(view, [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="safetensors read"):
        mf._tensor_view(mapped, start, "a", header["a"], ("F32", [4]))
    with pytest.raises(ValueError, match="inside the file"):
        mf._tensor_view(mapped, start, "a", dict(header["a"], data_offsets=[8, 24]), ("F32", [2, 2]))
    with pytest.raises(ValueError, match="more than the file holds"):
        bad = tmp_path / "bad.safetensors"
        bad.write_bytes((1000).to_bytes(8, "little") + b"{}")
        mf.safetensors_header(bad)


def test_a_weights_file_rewritten_in_place_is_checked_and_read_again(tmp_path):
    """The word table is a view of the file, so a file rewritten in place shows through the old
    mapping. load_encoder sees the new file_stamp: it checks the file again (a damaged one is
    refused) and reads a repaired one afresh, with the same numbers as before."""
    import os
    import shutil

    import numpy as np

    model = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), model)  # a copy of the bundled model: its hash is known
    weights = model / mf.WEIGHTS_FILE
    before = enc.encode("the cat sat on the mat", name=str(model))
    first = load_encoder(str(model))
    row = int(before.ids[2])  # "cat"
    start, header = mf.safetensors_header(weights)
    offset = start + header["embeddings.word_embeddings.weight"]["data_offsets"][0] + row * 384 * 4
    original = weights.read_bytes()[offset : offset + 4]

    def write_in_place(four: bytes, tick: int) -> None:
        with open(weights, "r+b") as f:
            f.seek(offset)
            f.write(four)
        os.utime(weights, ns=(tick, tick))  # a new modification time, whatever the clock's resolution

    write_in_place(np.float32(12345.0).tobytes(), 10**18)
    assert first.word[row, 0] == np.float32(12345.0)  # the old mapping shows the new bytes ...
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(model))  # ... so the next load checks the file, and refuses it
    assert caught.value.reason == "checksum"
    write_in_place(original, 10**18 + 10**9)  # repaired
    again = load_encoder(str(model))
    assert again is not first and again.weights_stamp == mf.file_stamp(weights)
    assert load_encoder(str(model)) is again  # unchanged since: kept
    after = enc.encode("the cat sat on the mat", name=str(model))
    np.testing.assert_array_equal(after.hidden, before.hidden)


def test_a_weights_file_replaced_by_a_new_one_keeps_the_old_mapping_valid(tmp_path):
    """Replacing the file (a new file renamed over it, as pip and `cp` to a new name then `mv` do)
    leaves the old mapping on the old bytes; the next load reads the new file."""
    import shutil

    import numpy as np

    model = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), model)
    first = load_encoder(str(model))
    table = np.array(first.word[:3])
    new = model / "new.safetensors"
    shutil.copy(model / mf.WEIGHTS_FILE, new)
    new.replace(model / mf.WEIGHTS_FILE)
    np.testing.assert_array_equal(first.word[:3], table)
    again = load_encoder(str(model))
    assert again is not first
    np.testing.assert_array_equal(again.word, first.word)


def test_a_mapping_the_system_refuses_for_lack_of_memory_is_memory(tmp_path, monkeypatch):
    """mmap fails with ENOMEM (no address space left), not MemoryError: the app says "memory"."""
    import errno

    import numpy as np

    def no_room(*args, **kwargs):
        raise OSError(errno.ENOMEM, "Cannot allocate memory")

    monkeypatch.setattr(np, "memmap", no_room)
    with pytest.raises(ModelUnavailable) as caught:
        mf.read_tensors(mf.bundled_path())
    assert caught.value.reason == "memory"


@pytest.mark.parametrize(
    ("change", "said", "reason"),
    [
        ({"model_type": "xlm-roberta"}, "model_type 'xlm-roberta'", "unsupported"),
        ({"model_type": "roberta"}, "model_type 'roberta'", "unsupported"),
        ({"model_type": None}, "names no model_type", "load"),  # not a config of any model we could name
        ({"is_decoder": True}, "decoder", "unsupported"),
        ({"position_embedding_type": "relative_key"}, "relative_key", "unsupported"),
    ],
)
def test_a_config_whose_model_the_encoder_does_not_compute_exactly_is_refused(tmp_path, change, said, reason):
    """Only model_type "bert" is computed exactly (encoder_files.MODEL_TYPES): an XLM-RoBERTa or
    RoBERTa model counts positions from pad_token_id + 1, a decoder masks the future, relative
    positions add terms BERT has not. Each is refused ("unsupported"; a config naming no model
    "load") with the reason, before the
    weights are read; the bundled model still loads."""
    import json
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    config = json.loads((copy / "config.json").read_text())
    config.update(change)
    (copy / "config.json").write_text(json.dumps({k: v for k, v in config.items() if v is not None}))
    with pytest.raises(ModelUnavailable) as caught:
        load_encoder(str(copy))
    assert caught.value.reason == reason and said in str(caught.value)
    assert load_encoder().config.n_layers == 6


def _tokenizer(kind: str):
    """A small tokenizer of each kind, built in memory with ``tokenizers``."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    if kind == "wordpiece":
        vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "the": 4, "cat": 5}
        tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
        tokenizer.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    elif kind == "wordpiece <unk>":
        vocab = {"<pad>": 0, "<unk>": 1, "<s>": 2, "</s>": 3, "the": 4, "cat": 5}
        tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="<unk>"))
        tokenizer.post_processor = processors.RobertaProcessing(("</s>", 3), ("<s>", 2))
    elif kind == "unigram":
        pieces = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁the", -1.0), ("▁cat", -1.0)]
        tokenizer = Tokenizer(models.Unigram(pieces, unk_id=3))
        tokenizer.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
        )
    else:  # byte-level BPE: every text is spelled, there is no unknown piece
        tokenizer = Tokenizer(models.BPE({"a": 0, "b": 1}, []))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer


@pytest.mark.parametrize(
    ("kind", "unknown", "markers"),
    [
        ("wordpiece", "[UNK]", ("[CLS]", "[SEP]")),
        ("wordpiece <unk>", "<unk>", ("<s>", "</s>")),
        ("unigram", "<unk>", ("<s>", "</s>")),
        ("bpe", None, ()),
    ],
)
def test_the_unknown_piece_and_the_markers_are_the_tokenizers_own(kind, unknown, markers):
    """model_files reads the unknown piece and the markers from the tokenizer's definition; the
    check: the piece it names is what the tokenizer itself puts for a word outside its
    vocabulary, and the markers are what it adds around a sentence."""
    tokenizer = _tokenizer(kind)
    assert mf.unknown_token(tokenizer) == unknown
    assert mf.marker_tokens(tokenizer) == markers
    if unknown is not None:
        encoding = tokenizer.encode("zebra", add_special_tokens=False)  # no piece of the vocabulary spells it
        assert tokenizer.id_to_token(encoding.ids[0]) == unknown
    tokens = tokenizer.encode("the cat").tokens
    if markers:
        assert (tokens[0], tokens[-1]) == markers


def test_an_object_that_is_no_tokenizers_tokenizer_has_no_unknown_piece():
    assert mf.unknown_token(object()) is None
