"""The model run by its own library, transformers under sentence-transformers: the reference
that our NumPy encoder (``encoder.py``) is checked against.

Nothing in the app needs this module to teach: only the "Check against PyTorch" button of the
Real model heads page and the tests import it, and they pay its cost then (torch and the model:
about 10 s and 500–900 MB). torch and sentence_transformers are imported inside the functions,
so importing this module stays cheap.

``reference_run(ids)`` feeds the model exactly the word pieces our trace read, and returns its
hidden states, its attention probabilities (eager attention, ``output_attentions=True``) and its
sentence embedding; ``compare(trace)`` gives the largest differences from our numbers.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass

import numpy as np

from .encoder import EncoderTrace
from .isolated import run_isolated, torch_installed
from .model_choice import model_directory, resolve_model_name
from .model_files import OFFLINE_ENV, ModelUnavailable

_LOCK = threading.Lock()


def _bert(model):
    """The transformers BertModel inside a SentenceTransformer."""
    return model[0].auto_model


def _load(resolved: str):
    """Check the files, import torch and sentence-transformers, load on the CPU with eager attention."""
    directory = model_directory(resolved)  # "missing" / "checksum" before anything heavy is imported
    os.environ.update(OFFLINE_ENV)  # read by huggingface_hub at import time: set it first
    try:
        import torch  # noqa: F401
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise ModelUnavailable(
            f"the reference needs torch and sentence-transformers, which cannot be imported ({err}); "
            "`pip install -r requirements-dev.txt`",
            reason="missing",
        ) from err
    try:
        model = SentenceTransformer(
            str(directory), device="cpu", local_files_only=True, model_kwargs={"attn_implementation": "eager"}
        )
        model.eval()  # no dropout
    except MemoryError as err:
        raise ModelUnavailable(f"not enough memory to load the model {resolved}", reason="memory") from err
    except Exception as err:  # noqa: BLE001 - any load fault becomes one clear error
        if "out of memory" in str(err).lower():
            raise ModelUnavailable(f"not enough memory to load the model {resolved}: {err}", reason="memory") from err
        raise ModelUnavailable(
            f"the model {resolved} could not be loaded: {type(err).__name__}: {err}", reason="load"
        ) from err
    if getattr(_bert(model).config, "_attn_implementation", None) != "eager":
        raise ModelUnavailable("the model returns no attention weights without eager attention", reason="attentions")
    return model


@functools.lru_cache(maxsize=2)
def _load_cached(resolved: str):
    return _load(resolved)


def load_model(name: str | os.PathLike | None = None):
    """The SentenceTransformer for ``name``, loaded once per process (failures are not cached).

    Examples
    --------
    >>> load_model()[0].auto_model.config.num_hidden_layers  # doctest: +SKIP
    6
    """
    resolved = resolve_model_name(name)
    with _LOCK:
        return _load_cached(resolved)


@dataclass(frozen=True)
class ReferenceRun:
    """The model's own numbers for one list of token ids.

    hidden : (L+1, T, d_model)   weights : (L, H, T, T)   sentence_embedding : (d_model,)
    """

    hidden: np.ndarray
    weights: np.ndarray
    sentence_embedding: np.ndarray


def reference_run(ids, name: str | os.PathLike | None = None) -> ReferenceRun:
    """Run transformers' BertModel on exactly these ids ([CLS] … [SEP]) and pool as the
    sentence-transformers pipeline does (mean over tokens, then L2 normalisation).

    >>> run = reference_run([101, 1996, 4937, 102])  # doctest: +SKIP
    >>> run.weights.shape  # doctest: +SKIP
    (6, 12, 4, 4)
    """
    model = load_model(name)  # ModelUnavailable("missing") when torch cannot be imported
    import torch

    input_ids = torch.tensor([list(np.asarray(ids).tolist())])  # (1, T)
    try:
        with torch.inference_mode():
            out = _bert(model)(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                token_type_ids=torch.zeros_like(input_ids),
                output_hidden_states=True,
                output_attentions=True,
            )
            features = model({"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)})
    except MemoryError as err:
        raise ModelUnavailable("not enough memory to run the reference model", reason="memory") from err
    if not out.attentions:
        raise ModelUnavailable("the model returned no attention weights", reason="attentions")
    return ReferenceRun(
        hidden=np.stack([h[0].double().numpy() for h in out.hidden_states]),  # (L+1, T, d_model)
        weights=np.stack([a[0].double().numpy() for a in out.attentions]),  # (L, H, T, T)
        sentence_embedding=features["sentence_embedding"][0].double().numpy(),  # (d_model,)
    )


@dataclass(frozen=True)
class Comparison:
    """The largest absolute differences between our trace and the model's own run.

    hidden : over every hidden state    weights : over every head's attention weights
    sentence_embedding : over the sentence vector's components

    >>> Comparison(hidden=3e-6, weights=1e-6, sentence_embedding=1e-7).weights < 1e-5
    True
    """

    hidden: float
    weights: float
    sentence_embedding: float


def reference_or_problem(ids, name: str | None = None):
    """``reference_run`` as a child process returns it: ("ok", the run) or ("problem", reason,
    message) — a ModelUnavailable's reason would not survive pickling as an exception."""
    try:
        return ("ok", reference_run(ids, name))
    except ModelUnavailable as exc:
        return ("problem", exc.reason, str(exc))
    except MemoryError:
        return ("problem", "memory", "not enough memory to run the reference model")


def compare(trace: EncoderTrace, *, while_waiting=None) -> Comparison:
    """Our ``encode`` trace against the model's own numbers for the same word pieces.

    About 1e-6 for the bundled model: both multiply in float32, we accumulate the attention
    in float64. The model runs through PyTorch in a child process (``isolated.run_isolated``):
    the server never imports torch, and its memory returns when the check ends.

    Raises ModelUnavailable with reason "no_torch" where PyTorch is not installed (the lean
    install), or the reason the child met. ``while_waiting`` is called while the child runs;
    what it raises stops the check (``isolated.run_isolated``).

    >>> from attention_core.encoder import encode
    >>> compare(encode("the cat sat")).weights < 1e-5  # doctest: +SKIP
    True
    """
    if not torch_installed():
        raise ModelUnavailable("PyTorch is not installed here; the check needs it", reason="no_torch")
    found = run_isolated(
        "attention_core.model_reference",
        "reference_or_problem",
        np.asarray(trace.ids),
        trace.model,
        while_waiting=while_waiting,
    )
    if found[0] != "ok":
        raise ModelUnavailable(found[2], reason=found[1])
    run = found[1]
    return Comparison(
        hidden=float(np.max(np.abs(trace.hidden - run.hidden))),
        weights=float(np.max(np.abs(trace.weights - run.weights))),
        sentence_embedding=float(np.max(np.abs(trace.sentence_embedding - run.sentence_embedding))),
    )


def clear_cache() -> None:
    """Forget the loaded reference model."""
    _load_cached.cache_clear()
