"""Which model: the one to use and its checked directory, the models this server has, and
which of them reads a sentence best.

The model to use is ``resolve_model_name``: an explicit name, else $ATTENTION_LAB_MODEL, else
the model fetched for $ATTENTION_LAB_FETCH_MODEL (opt-in, ``attention_core.fetch``), else the
bundled package attention-lab-model. A hub id is looked up in the local Hugging Face cache only:
the app never downloads, unless $ATTENTION_LAB_FETCH_MODEL asks it to fetch one pinned model
once. ``model_directory`` turns the name into a local directory whose weights are checked
(``model_files.check_weights``). This module sits above the fetcher and below the encoder:
``model_files`` reads, ``fetch`` fetches, and neither asks which model is meant.

A school server may hold two models: the bundled English all-MiniLM-L6-v2 and a multilingual one
copied there once (``attention_core.fetch``). The models installed are

1. the one ``resolve_model_name`` gives ($ATTENTION_LAB_MODEL, else the model fetched
   for $ATTENTION_LAB_FETCH_MODEL, else the bundled one),
2. the bundled model, when its package is installed,
3. each entry of $ATTENTION_LAB_MODELS (local directories or cached hub ids, separated by
   ``os.pathsep``: ``:`` on Linux),

in that order, each once, and only those whose files are there. The app offers a choice when
there are two or more; left on automatic, a sentence is read by the model whose vocabulary
lacks the fewest of its word pieces (``best_for``): the bundled model turns 10 of the 14
pieces of "小猫没有过马路，因为它太累了" into [UNK], a multilingual model none, so a Chinese
sentence goes to the multilingual model and an English one stays on the first model.

Counting unknown pieces needs only the tokenizer (``tokenizer.json``, read once per model), not
the weights.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import model_files
from .fetch import fetched_model
from .model_files import (
    FETCH_ENV,
    MODEL_ENV,
    OFFLINE_ENV,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    ModelUnavailable,
    bundled_path,
    check_weights,
    read_tokenizer,
    unknown_token,
)

# --------------------------------------------------------------------------- the model to use


def resolve_model_name(name: str | os.PathLike | None = None) -> str:
    """The model to use: ``name`` if given, else $ATTENTION_LAB_MODEL, else the model fetched for
    $ATTENTION_LAB_FETCH_MODEL (opt-in; fetched once, see ``attention_core.fetch``), else the bundled model.

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
        reason "missing": no name, no environment variable and no bundled package, or the fetch
        asked for by $ATTENTION_LAB_FETCH_MODEL failed; "checksum": the fetched copy changed.

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
    fetch_setting = os.environ.get(FETCH_ENV, "").strip()
    if fetch_setting:  # opt-in: a model fetched once from the hub (attention_core.fetch.fetched_model)
        return str(fetched_model(fetch_setting))
    return str(model_files.bundled_path())  # looked up when called: a test may put another model there


def looks_like_path(name: str) -> bool:
    """True when ``name`` is written as a path (absolute, ./, ~, backslashes), not a hub id.

    >>> looks_like_path("./my-model"), looks_like_path("sentence-transformers/all-MiniLM-L6-v2")
    (True, False)
    """
    return os.path.isabs(name) or name.startswith((".", "~")) or "\\" in name


def cached_snapshot(repo_id: str) -> Path | None:
    """The local Hugging Face cache snapshot holding ``repo_id``'s weights, or None (no lookup online).

    >>> cached_snapshot("no-such-owner/no-such-model-here") is None
    True
    """
    os.environ.update(OFFLINE_ENV)
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, WEIGHTS_FILE)
    except Exception:  # noqa: BLE001 - not a valid repo id, or no huggingface_hub: nothing cached
        return None
    return Path(found).parent if isinstance(found, str) else None


def model_directory(name: str | os.PathLike | None = None) -> Path:
    """The checked local directory of the model ``name`` (see ``resolve_model_name``).

    A local directory is used as it is; a hub id must already be in the local Hugging Face
    cache. Either way its weights are checked (``check_weights``) before they are returned.

    Raises
    ------
    ModelUnavailable
        "missing" (no such directory, or a hub id not in the cache), "checksum".

    Examples
    --------
    >>> model_directory() == model_files.bundled_path()
    True
    """
    resolved = resolve_model_name(name)
    path = Path(os.path.expanduser(resolved))
    if not path.is_dir():
        if looks_like_path(resolved) or path.exists():
            raise ModelUnavailable(
                f"no model directory at {resolved}: the path does not exist or is not a directory",
                reason="missing",
                path=resolved,
            )
        snapshot = cached_snapshot(resolved)
        if snapshot is None:
            raise ModelUnavailable(
                f"the model {resolved!r} is not a local directory and is not in the local Hugging Face "
                f"cache (the app never downloads models unless {FETCH_ENV} names one to fetch)",
                reason="missing",
            )
        path = snapshot
    check_weights(path)
    return path


# --------------------------------------------------------------------------- the models offered

MODELS_ENV = "ATTENTION_LAB_MODELS"
"""Environment variable naming more models to offer, separated by ``os.pathsep``."""

BUNDLED_LABEL = "all-MiniLM-L6-v2"
"""How the bundled model is named on screen (its package directory is just ``model``)."""


@dataclass(frozen=True)
class InstalledModel:
    """One model the learner may choose.

    Attributes
    ----------
    id : str     short and URL-safe, kept in the URL as ``?model=``: "all-minilm-l6-v2"
    name : str   what ``resolve_model_name`` accepts: a directory or a cached hub id
    label : str  as shown: "all-MiniLM-L6-v2"
    """

    id: str
    name: str
    label: str


def model_label(name: str) -> str:
    """How the model ``name`` is shown: the bundled model's own name, a hub id's last part, the
    repository of a Hugging Face cache snapshot (…/models--owner--name/snapshots/<commit>), else
    the directory's name.

    >>> model_label(str(bundled_path())), model_label("sentence-transformers/LaBSE")
    ('all-MiniLM-L6-v2', 'LaBSE')
    >>> model_label("/hf/hub/models--sentence-transformers--paraphrase-multilingual-MiniLM-L12-v2/snapshots/86741b4")
    'paraphrase-multilingual-MiniLM-L12-v2'
    >>> model_label("/srv/models/multilingual/")
    'multilingual'
    """
    path = Path(os.path.expanduser(name))
    try:
        if path.resolve() == bundled_path().resolve():
            return BUNDLED_LABEL
    except ModelUnavailable:
        pass
    if path.parent.name == "snapshots" and path.parent.parent.name.startswith("models--"):
        return path.parent.parent.name.split("--")[-1]
    return path.name or str(name)


def is_bundled(name: str) -> bool:
    """Whether ``name`` is the bundled model (what the lessons' text about its training is about).

    >>> is_bundled(str(bundled_path())), is_bundled("sentence-transformers/LaBSE")
    (True, False)
    """
    return model_label(name) == BUNDLED_LABEL


def model_id(label: str) -> str:
    """``label`` as a URL parameter value: lower case, letters, digits, dots and dashes.

    >>> model_id("all-MiniLM-L6-v2"), model_id("my model (zh)")
    ('all-minilm-l6-v2', 'my-model-zh')
    """
    return re.sub(r"[^a-z0-9.]+", "-", label.lower()).strip("-") or "model"


def _present(name: str) -> bool:
    """Whether the files of ``name`` are here: a directory with a tokenizer, or a cached hub id."""
    path = Path(os.path.expanduser(name))
    if path.is_dir():
        return (path / TOKENIZER_FILE).is_file()
    return not looks_like_path(name) and cached_snapshot(name) is not None


def _same(a: str, b: str) -> bool:
    return a == b or Path(os.path.expanduser(a)).resolve() == Path(os.path.expanduser(b)).resolve()


def installed_models() -> tuple[InstalledModel, ...]:
    """Every model this server can offer, the default one first (see the module's docstring).

    >>> installed_models()[0].name == resolve_model_name()
    True
    """
    names: list[str] = []
    try:
        names.append(resolve_model_name())
    except ModelUnavailable:  # no default model: the others may still be there
        pass
    try:
        names.append(str(bundled_path()))
    except ModelUnavailable:
        pass
    names += [entry.strip() for entry in os.environ.get(MODELS_ENV, "").split(os.pathsep) if entry.strip()]
    found: list[InstalledModel] = []
    for name in names:
        if any(_same(name, model.name) for model in found) or not _present(name):
            continue
        label = model_label(name)
        ident, n = model_id(label), 2
        while any(model.id == ident for model in found):  # two directories of one name
            ident, n = f"{model_id(label)}-{n}", n + 1
        found.append(InstalledModel(ident, name, label))
    return tuple(found)


@functools.lru_cache(maxsize=8)
def _tokenizer(name: str):
    path = Path(os.path.expanduser(name))
    directory = path if path.is_dir() else cached_snapshot(name)
    if directory is None:
        raise ModelUnavailable(f"the model {name} is not here", reason="missing")
    return read_tokenizer(directory)


@dataclass(frozen=True)
class Reading:
    """How one model reads a sentence: how many of its word pieces it lacks.

    Attributes
    ----------
    model : InstalledModel
    unknown : int   pieces that are the model's unknown token ([UNK], <unk>)
    pieces : int    all pieces of the sentence, markers not counted
    """

    model: InstalledModel
    unknown: int
    pieces: int

    @property
    def share(self) -> float:
        """The unknown pieces' share of all: what the models are compared by (a model that cuts
        finer is not penalised)."""
        return self.unknown / max(self.pieces, 1)


def reading(text: str, model: InstalledModel) -> Reading:
    """How ``model`` reads ``text``: its unknown pieces among all (the tokenizer only).

    >>> bundled = InstalledModel("all-minilm-l6-v2", str(bundled_path()), BUNDLED_LABEL)
    >>> r = reading("小猫没有过马路，因为它太累了", bundled)
    >>> (r.unknown, r.pieces)
    (10, 14)
    """
    tokenizer = _tokenizer(model.name)
    unk = unknown_token(tokenizer)
    tokens = tokenizer.encode(text, add_special_tokens=False).tokens
    return Reading(model, sum(token == unk for token in tokens) if unk is not None else 0, len(tokens))


def readings(text: str, models) -> list[Reading]:
    """How each of ``models`` reads ``text`` (``reading``), in their order; a model whose
    tokenizer cannot be read is passed over.

    >>> bundled = InstalledModel("all-minilm-l6-v2", str(bundled_path()), BUNDLED_LABEL)
    >>> [r.unknown for r in readings("the cat sat", [bundled])]
    [0]
    """
    found = []
    for model in models:
        try:
            found.append(reading(text, model))
        except ModelUnavailable:
            continue
    return found


def best_for(text: str, models) -> Reading:
    """The reading of ``text`` with the fewest unknown pieces among ``models`` (a share of the
    pieces, so a model that cuts finer is not penalised); on a tie the first model, the default.
    A model whose tokenizer cannot be read is passed over.

    >>> bundled = InstalledModel("all-minilm-l6-v2", str(bundled_path()), BUNDLED_LABEL)
    >>> best_for("the cat sat", [bundled]).model.label
    'all-MiniLM-L6-v2'
    """
    found = readings(text, models)
    if not found:
        raise ModelUnavailable("no installed model can read text here", reason="missing")
    return min(found, key=lambda r: r.share)  # min keeps the first of equals
