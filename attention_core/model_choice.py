"""Which models this server has, and which of them reads a sentence best.

A school server may hold two models: the bundled English all-MiniLM-L6-v2 and a multilingual one
copied there once (``attention_core.fetch``). The models installed are

1. the one ``model_files.resolve_model_name`` gives ($ATTENTION_LAB_MODEL, else the model fetched
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

from .model_files import (
    TOKENIZER_FILE,
    ModelUnavailable,
    bundled_path,
    cached_snapshot,
    looks_like_path,
    read_tokenizer,
    resolve_model_name,
    unknown_token,
)

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
