"""What a head does, measured: its roles on a sentence and over a probe set, and the contrast test.

A heatmap invites a story ("this head finds what *it* refers to"). A story is a claim, and a
claim needs a measurement over many sentences, including pairs that could prove it wrong. This
module gives every head of the model numbers a page can print beside such a sentence:

* ``role_scores(text)``: for each of the L × H heads, how much weight the word-piece rows
  i = 1 … T−2 (0-based; the [CLS] and [SEP] rows are left out) put on the previous token, the next
  one, themselves, [CLS], [SEP], punctuation, and how often they all peak on one word;
* ``census()``: the same over the probe set of ``probes.py`` (plain sentences), plus the two
  pronoun tests: Winograd-style minimal pairs for "it" and he/she agreement;
* ``contrast(a, b, word)``: where ``word`` looks most in each of two sentences, per head, and
  whether the answer changed — the test a learner can run on their own pair.

Positions are 0-based here, as everywhere in the core; the pages show them from 1.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .arrays import frozen
from .encoder import MARKERS, EncoderTrace, encode
from .model_files import expected_weights_sha256, model_directory, resolve_model_name
from .probes import PROBES_FILE, Probes, load_probes

ROLES = ("previous", "next", "self", "cls", "sep", "punctuation", "favourite", "entropy")
"""The measured roles, each a number per head in [0, 1] (``role_scores``):

previous     mean α̂_{i,i−1}: weight on the token just before
next         mean α̂_{i,i+1}: weight on the token just after
self         mean α̂_{i,i}: weight on the token itself
cls          mean α̂_{i,0}: weight parked on [CLS]
sep          mean α̂_{i,T−1}: weight parked on [SEP]
punctuation  mean weight on punctuation keys (NaN in a sentence without punctuation)
favourite    share of rows whose largest weight lands on the same word (the head's favourite
             word of the sentence; rows that peak on [CLS] or [SEP] do not count): a vertical
             stripe in the heatmap, whatever the row asks
entropy      mean entropy of a row over log T: 0 when a row puts everything on one key, 1 when
             it spreads evenly over all T keys

>>> ROLES.index("previous"), len(ROLES)
(0, 8)
"""


def is_punctuation(token: str) -> bool:
    """True when every character of ``token`` is Unicode punctuation ("," "." "'" "—" "？").

    >>> is_punctuation(","), is_punctuation("'"), is_punctuation("cat"), is_punctuation("[CLS]")
    (True, True, False, False)
    """
    return bool(token) and all(unicodedata.category(c).startswith("P") for c in token)


def weights_role_scores(weights, tokens) -> dict[str, np.ndarray]:
    """``role_scores`` on given weights: the roles of every head of one sentence.

    Parameters
    ----------
    weights : array, shape (..., T, T)
        Attention weights (any leading axes, e.g. (L, H)); rows sum to 1.
    tokens : sequence of T str
        The sentence's tokens, a start marker first and an end marker last ([CLS] … [SEP]).

    Returns
    -------
    dict of str to numpy.ndarray, shape (...)
        One entry per name in ``ROLES``.

    Raises
    ------
    ValueError
        Fewer than 3 tokens (no word-piece row), or weights and tokens disagree.

    Examples
    --------
    A head that always looks at the previous token:

    >>> w = np.eye(5, k=-1); w[0, 0] = 1.0  # (T, T): row i puts 1 on key i − 1
    >>> roles = weights_role_scores(w, ["[CLS]", "the", "cat", "sat", "[SEP]"])
    >>> float(roles["previous"]), float(roles["next"]), float(roles["cls"])
    (1.0, 0.0, 0.3333333333333333)
    """
    weights = np.asarray(weights, dtype=np.float64)  # (..., T, T)
    tokens = list(tokens)
    T = len(tokens)
    if weights.ndim < 2 or weights.shape[-2:] != (T, T):
        raise ValueError(
            f"weights of shape {weights.shape} have {weights.shape[-1]} positions, while there are {T} tokens"
        )
    if T < 3:
        raise ValueError(f"need a start marker, at least one word piece and an end marker; got {T} tokens")
    rows = np.arange(1, T - 1)  # (R,) the word-piece rows i = 1 … T−2
    w = weights[..., rows, :]  # (..., R, T)
    punct = np.array([is_punctuation(t) for t in tokens])  # (T,)
    peaks = w.argmax(axis=-1)  # (..., R)
    words = np.arange(1, T - 1)  # (R,) the word keys a favourite can be
    peak_counts = (peaks[..., None] == words).sum(axis=-2)  # (..., R) rows peaking on each word key
    entropy = -(w * np.log(np.where(w > 0, w, 1.0))).sum(axis=-1)  # (..., R) in nats
    return {
        "previous": w[..., np.arange(len(rows)), rows - 1].mean(axis=-1),
        "next": w[..., np.arange(len(rows)), rows + 1].mean(axis=-1),
        "self": w[..., np.arange(len(rows)), rows].mean(axis=-1),
        "cls": w[..., 0].mean(axis=-1),
        "sep": w[..., T - 1].mean(axis=-1),
        "punctuation": (w[..., punct].sum(axis=-1).mean(axis=-1) if punct.any() else np.full(w.shape[:-2], np.nan)),
        "favourite": peak_counts.max(axis=-1) / len(rows),
        "entropy": entropy.mean(axis=-1) / np.log(T),
    }


def role_scores(text: str | EncoderTrace, *, name: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """The roles of every head of the model on one sentence.

    Parameters
    ----------
    text : str or EncoderTrace
        A sentence (run through the model by ``encoder.encode``) or its trace.
    name : str or path, optional
        The model (see ``model_files.resolve_model_name``).

    Returns
    -------
    dict of str to numpy.ndarray, shape (n_layers, n_heads)
        One array per name in ``ROLES``, each a mean over the word-piece rows i = 1 … T−2.

    Examples
    --------
    >>> roles = role_scores("The cat sat on the mat because it was tired.")
    >>> roles["previous"].shape
    (6, 12)
    >>> round(float(roles["previous"][0, 2]), 2)  # layer 0, head 2 (shown as layer 1, head 3)
    1.0
    """
    trace = text if isinstance(text, EncoderTrace) else encode(text, name=name)
    return weights_role_scores(trace.weights, trace.tokens)


def quiet_keys(tokens) -> list[int]:
    """The keys where heads often park weight that changes little: the markers and punctuation.

    >>> quiet_keys(["[CLS]", "hi", ",", "you", "[SEP]"])
    [0, 2, 4]
    """
    return [j for j, token in enumerate(tokens) if token in MARKERS or is_punctuation(token)]


# --------------------------------------------------------------------------- where a word looks


def word_position(tokens, word: str) -> int:
    """The position of ``word`` among ``tokens`` (its first occurrence; case is ignored).

    Raises ValueError naming the tokens when the word is not one of them (a word the
    tokenizer splits into pieces is not one token).

    >>> word_position(["[CLS]", "it", "was", "it", "[SEP]"], "It")
    1
    """
    lowered = [t.lower() for t in tokens]
    try:
        return lowered.index(word.strip().lower())
    except ValueError:
        raise ValueError(f"{word!r} is not one of the tokens {list(tokens)}") from None


def looks_most(weights, tokens, i: int, *, ignore_markers: bool = True, ignore_self: bool = True):
    """Where query ``i`` puts its largest weight, per head, among the keys left in.

    Parameters
    ----------
    weights : array, shape (..., T, T)
    tokens : T tokens
    i : the query position
    ignore_markers : leave [CLS] and [SEP] out of the keys (many heads park weight there)
    ignore_self : leave key i out

    Returns
    -------
    keys : numpy.ndarray of int, shape (...)      the chosen key j of each head
    weight : numpy.ndarray, shape (...)           α̂_ij at that key

    >>> w = np.full((4, 4), 0.25); w[2] = [0.5, 0.3, 0.1, 0.1]
    >>> key, weight = looks_most(w, ["[CLS]", "cat", "it", "[SEP]"], 2)
    >>> int(key), float(weight)
    (1, 0.3)
    """
    weights = np.asarray(weights, dtype=np.float64)  # (..., T, T)
    keep = np.ones(len(tokens), dtype=bool)  # (T,)
    if ignore_markers:
        keep &= np.array([t not in MARKERS for t in tokens])
    if ignore_self:
        keep[i] = False
    if not keep.any():
        raise ValueError(f"no key is left to look at among {list(tokens)}")
    row = np.where(keep, weights[..., i, :], -np.inf)  # (..., T)
    keys = np.asarray(row.argmax(axis=-1))  # (...)
    return keys, np.take_along_axis(weights[..., i, :], keys[..., None], axis=-1)[..., 0]


def _labels(tokens) -> list[str]:
    """Token texts with a repeat count, so "the … the" stay two different keys: "the", "the#2"."""
    seen: dict[str, int] = {}
    labels = []
    for t in tokens:
        seen[t] = seen.get(t, 0) + 1
        labels.append(t if seen[t] == 1 else f"{t}#{seen[t]}")
    return labels


@dataclass(frozen=True)
class Contrast:
    """Where one word looks most in two sentences, head by head (``contrast``).

    tokens_a, tokens_b : the two sentences' tokens       i_a, i_b : the word's position in each
    key_a, key_b : (L, H) the key each head's word looks at most (markers and the word itself
        left out)                                        weight_a, weight_b : (L, H) α̂ there
    changed : (L, H) True where the chosen word differs between the sentences (compared by
        text and occurrence: the second "the" is not the first)
    weights_a, weights_b : (L, H, T, T) every head's weights, for the side-by-side view
    """

    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    i_a: int
    i_b: int
    key_a: np.ndarray
    key_b: np.ndarray
    weight_a: np.ndarray
    weight_b: np.ndarray
    changed: np.ndarray
    weights_a: np.ndarray
    weights_b: np.ndarray

    @property
    def n_changed(self) -> int:
        """How many heads change their answer between the two sentences."""
        return int(self.changed.sum())


def contrast(text_a: str, text_b: str, word: str, *, name: str | os.PathLike | None = None) -> Contrast:
    """The contrast test: does a head's answer for ``word`` change when the sentence changes?

    Three sentences where a head looks at the right noun prove little; a minimal pair whose
    right answer differs ("… because it was too tired" / "… too wide") can prove a story wrong.

    Raises ValueError when ``word`` is not one token of each sentence.

    >>> c = contrast("The girl met a man as he left", "The girl met a man as she left", "he")
    Traceback (most recent call last):
    ...
    ValueError: 'he' is not one of the tokens ['[CLS]', 'the', 'girl', 'met', 'a', 'man', 'as', 'she', 'left', '[SEP]']
    >>> c = contrast("The cat sat because it was tired", "The cat sat because it was cold", "it")
    >>> c.changed.shape, c.tokens_a[c.i_a]
    ((6, 12), 'it')
    """
    a, b = encode(text_a, name=name), encode(text_b, name=name)
    i_a, i_b = word_position(a.tokens, word), word_position(b.tokens, word)
    key_a, weight_a = looks_most(a.weights, a.tokens, i_a)  # (L, H) each
    key_b, weight_b = looks_most(b.weights, b.tokens, i_b)  # (L, H) each
    labels_a, labels_b = np.array(_labels(a.tokens)), np.array(_labels(b.tokens))
    return Contrast(
        tokens_a=a.tokens,
        tokens_b=b.tokens,
        i_a=i_a,
        i_b=i_b,
        key_a=frozen(key_a, dtype=np.int64),
        key_b=frozen(key_b, dtype=np.int64),
        weight_a=frozen(weight_a),
        weight_b=frozen(weight_b),
        changed=frozen(labels_a[key_a] != labels_b[key_b], dtype=bool),
        weights_a=a.weights,
        weights_b=b.weights,
    )


# --------------------------------------------------------------------------- over the probe set


def choice_weights(trace: EncoderTrace, word: str, candidates) -> np.ndarray:
    """α̂ from ``word`` to each candidate noun, every head: shape (L, H, len(candidates)).

    >>> w = choice_weights(encode("The dog chased the cat because it was hungry."), "it", ["dog", "cat"])
    >>> w.shape
    (6, 12, 2)
    """
    i = word_position(trace.tokens, word)
    keys = [word_position(trace.tokens, c) for c in candidates]
    return np.asarray(trace.weights[:, :, i, keys])  # (L, H, C)


@dataclass(frozen=True)
class Census:
    """What every head does over the probe set (``census``). L layers, H heads, 0-based.

    roles : dict of ``ROLES`` → (L, H), the mean of ``role_scores`` over the plain sentences
        (punctuation over the sentences that have some)
    pair_weights : (P, 2, 2, L, H), α̂ from "it" to the two nouns of each minimal pair:
        [pair, sentence (a, b), noun (referent_a, referent_b), layer, head]
    agreement_weights : (S, 2, L, H), α̂ from he/she to [the noun of its gender, the other noun]
    n_plain : how many plain sentences the roles average
    """

    roles: dict
    pair_weights: np.ndarray
    agreement_weights: np.ndarray
    n_plain: int

    @property
    def n_pairs(self) -> int:
        """Minimal pairs in the probe set."""
        return int(self.pair_weights.shape[0])

    @property
    def n_agreement(self) -> int:
        """He/she sentences in the probe set."""
        return int(self.agreement_weights.shape[0])

    @property
    def pair_picks(self) -> np.ndarray:
        """(P, 2, L, H): the noun each head prefers in sentence a and in sentence b (0 = referent_a)."""
        return self.pair_weights.argmax(axis=2)

    @property
    def pairs_resolved(self) -> np.ndarray:
        """(L, H) int: pairs where the head prefers the intended noun in *both* sentences.

        A head that always prefers one of the two nouns resolves none; a coin resolves about a quarter.
        """
        picks = self.pair_picks  # (P, 2, L, H)
        return ((picks[:, 0] == 0) & (picks[:, 1] == 1)).sum(axis=0)

    @property
    def pairs_same(self) -> np.ndarray:
        """(L, H) int: pairs where the head prefers the same noun in both sentences (its answer never changed)."""
        picks = self.pair_picks  # (P, 2, L, H)
        return (picks[:, 0] == picks[:, 1]).sum(axis=0)

    @property
    def agreement_correct(self) -> np.ndarray:
        """(L, H) int: he/she sentences where the pronoun weighs the noun of its gender more than the other."""
        return (self.agreement_weights[:, 0] > self.agreement_weights[:, 1]).sum(axis=0)

    @property
    def agreement_referent(self) -> np.ndarray:
        """(L, H): mean α̂ from he/she to the noun of its gender."""
        return self.agreement_weights[:, 0].mean(axis=0)

    @property
    def agreement_other(self) -> np.ndarray:
        """(L, H): mean α̂ from he/she to the other noun."""
        return self.agreement_weights[:, 1].mean(axis=0)


def measure(probes: Probes, *, name: str | os.PathLike | None = None) -> Census:
    """Run every probe sentence through the model and measure every head (about 5 s).

    ``census()`` is what the pages use: the same numbers, read from a file kept beside the
    probes when the model and the probes are the ones it was measured on.
    """

    def run(text: str) -> EncoderTrace:
        return encode(text, name=name, cache=False)  # a probe sentence must not push a learner's out

    plain = [role_scores(run(text)) for text in probes.plain]
    roles = {}
    for role in ROLES:
        stacked = np.stack([r[role] for r in plain])  # (N, L, H)
        roles[role] = frozen(np.nanmean(stacked, axis=0) if role == "punctuation" else stacked.mean(axis=0))
    pair_weights = [
        [choice_weights(run(text), p.word, [p.referent_a, p.referent_b]) for text in (p.a, p.b)]  # 2 × (L, H, 2)
        for p in probes.pairs
    ]
    agreement_weights = [choice_weights(run(s.text), s.word, [s.referent, s.other]) for s in probes.agreement]
    return Census(
        roles=roles,
        pair_weights=frozen(np.moveaxis(np.array(pair_weights), -1, 2)),  # (P, 2, 2, L, H)
        agreement_weights=frozen(np.moveaxis(np.array(agreement_weights), -1, 1)),  # (S, 2, L, H)
        n_plain=len(probes.plain),
    )


# --------------------------------------------------------------------------- the measured file

CENSUS_FILE = PROBES_FILE.with_name("head_census.json")
"""The census of the bundled model on the bundled probes, written by ``save_census`` (run
``python -m attention_core.heads``). Its key is the SHA-256 of the model's weights and of the
probe file: with another model, or after a change of the probes, ``census`` measures afresh.
``tests/test_heads.py`` measures again and compares every number."""


def census_key(name: str | os.PathLike | None = None) -> dict | None:
    """What a census was measured on: the weights' and the probe file's SHA-256, or None when
    nothing knows the weights' hash (another model, unchecked).

    >>> sorted(census_key())
    ['model_sha256', 'probes_sha256']
    """
    known = expected_weights_sha256(model_directory(resolve_model_name(name)))
    if known is None:
        return None
    return {"model_sha256": known, "probes_sha256": hashlib.sha256(PROBES_FILE.read_bytes()).hexdigest()}


STORED_DIGITS = 7
"""Significant digits kept in ``CENSUS_FILE``: the weights agree with transformers' to about
1e-7 of their size, so more digits would store noise. Significant digits, not decimals: the
previous-token head gives nouns weights near 1e-10, and their order still counts."""


def save_census(found: Census, key: dict, path: str | Path = CENSUS_FILE) -> None:
    """Write ``found`` with its ``key`` as JSON, numbers kept to ``STORED_DIGITS`` significant digits."""

    def numbers(x) -> list:
        return np.vectorize(lambda v: float(f"{v:.{STORED_DIGITS}g}"), otypes=[float])(np.asarray(x)).tolist()

    data = {
        **key,
        "n_plain": found.n_plain,
        "roles": {role: numbers(found.roles[role]) for role in ROLES},
        "pair_weights": numbers(found.pair_weights),
        "agreement_weights": numbers(found.agreement_weights),
    }
    Path(path).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


def read_census(key: dict, path: str | Path = CENSUS_FILE) -> Census | None:
    """The census stored at ``path`` if it was measured on ``key``, else None."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if any(data.get(k) != v for k, v in key.items()):
        return None
    return Census(
        roles={role: frozen(data["roles"][role]) for role in ROLES},
        pair_weights=frozen(data["pair_weights"]),
        agreement_weights=frozen(data["agreement_weights"]),
        n_plain=int(data["n_plain"]),
    )


@functools.lru_cache(maxsize=2)
def census(name: str | os.PathLike | None = None) -> Census:
    """Every head measured on the bundled probe set, once per process and model.

    Read from ``CENSUS_FILE`` when it was measured on this model and these probes (instant),
    else measured (``measure``, a few seconds).

    >>> c = census()
    >>> c.roles["previous"].shape, c.n_pairs >= 40
    ((6, 12), True)
    """
    key = census_key(name)
    found = read_census(key) if key is not None else None
    return found if found is not None else measure(load_probes(), name=name)


def best_heads(scores, n: int = 3) -> list[tuple[int, int, float]]:
    """The ``n`` heads with the highest scores, as (layer, head, score), best first (0-based).

    >>> best_heads(np.array([[0.1, 0.9], [0.5, 0.2]]), 2)
    [(0, 1, 0.9), (1, 0, 0.5)]
    """
    scores = np.asarray(scores, dtype=np.float64)  # (L, H)
    order = np.argsort(-scores, axis=None, kind="stable")[:n]
    layers, heads = np.unravel_index(order, scores.shape)
    return [(int(layer), int(head), float(scores[layer, head])) for layer, head in zip(layers, heads)]


MEASURES = ("agreement", "pairs", *ROLES)
"""What the census grid can colour every head by: the two pronoun tests, then the ``ROLES``."""


def measure_scores(found: Census, measure_name: str) -> np.ndarray:
    """Every head's score for one of ``MEASURES``, in [0, 1]: (L, H).

    "agreement" is the share of he/she sentences a head gets right, "pairs" the share of minimal
    pairs it resolves; the roles are ``Census.roles``.

    >>> bool(measure_scores(census(), "pairs").max() <= 0.3)
    True
    """
    if measure_name == "agreement":
        return found.agreement_correct / found.n_agreement
    if measure_name == "pairs":
        return found.pairs_resolved / found.n_pairs
    if measure_name in ROLES:
        return found.roles[measure_name]
    raise ValueError(f"measure must be one of {MEASURES}, got {measure_name!r}")


# --------------------------------------------------------------------------- one head, in numbers

WEIGHT_ROLES = ("previous", "next", "self", "cls", "sep", "punctuation")
"""The roles that are shares of a row's weight (they can be compared, and a row's shares add up)."""


@dataclass(frozen=True)
class HeadProfile:
    """One head's measured numbers over the probe set (``profile``), ready to print beside it.

    layer, head : 0-based
    roles : role → score (``ROLES``)
    top : the ``WEIGHT_ROLES`` from the largest share of weight down, as (role, share)
    agreement_correct, n_agreement : he/she sentences where the pronoun weighs the noun of its
        gender more than the other noun, out of how many
    agreement_referent, agreement_other : mean α̂ from he/she to that noun and to the other
    pairs_resolved, pairs_same, n_pairs : minimal pairs resolved, pairs with the same answer in
        both sentences, out of how many
    n_plain : plain sentences behind ``roles``
    """

    layer: int
    head: int
    roles: dict
    top: tuple
    agreement_correct: int
    n_agreement: int
    agreement_referent: float
    agreement_other: float
    pairs_resolved: int
    pairs_same: int
    n_pairs: int
    n_plain: int


def profile(found: Census, layer: int, head: int) -> HeadProfile:
    """The numbers of head (``layer``, ``head``) in ``found``.

    >>> p = profile(census(), 0, 2)  # shown as layer 1, head 3
    >>> p.top[0][0], round(p.top[0][1], 2)
    ('previous', 1.0)
    """
    n_layers, n_heads = found.roles[ROLES[0]].shape
    if not (0 <= layer < n_layers and 0 <= head < n_heads):
        raise ValueError(f"no head ({layer}, {head}) in a model of {n_layers} layers × {n_heads} heads")
    roles = {role: float(found.roles[role][layer, head]) for role in ROLES}
    shares = [(role, roles[role]) for role in WEIGHT_ROLES if not np.isnan(roles[role])]
    return HeadProfile(
        layer=layer,
        head=head,
        roles=roles,
        top=tuple(sorted(shares, key=lambda rs: -rs[1])),
        agreement_correct=int(found.agreement_correct[layer, head]),
        n_agreement=found.n_agreement,
        agreement_referent=float(found.agreement_referent[layer, head]),
        agreement_other=float(found.agreement_other[layer, head]),
        pairs_resolved=int(found.pairs_resolved[layer, head]),
        pairs_same=int(found.pairs_same[layer, head]),
        n_pairs=found.n_pairs,
        n_plain=found.n_plain,
    )


JOBS = {"previous": 0.5, "next": 0.5, "agreement": 0.9}
"""The jobs a head can be said to have, with the score its best head must reach: a mean share
of at least half the row on the previous (next) token; he/she → the noun of its gender in at
least 90 % of the agreement sentences."""


@dataclass(frozen=True)
class Job:
    """The best head for one of ``JOBS`` and its score (a share, or a fraction of sentences)."""

    job: str
    layer: int
    head: int
    score: float


def heads_with_a_job(found: Census) -> list[Job]:
    """The best head for each of ``JOBS`` whose score reaches the bar, in ``JOBS`` order.

    >>> [(j.job, j.layer, j.head) for j in heads_with_a_job(census())]
    [('previous', 0, 2), ('next', 1, 8), ('agreement', 1, 3)]
    """
    scores = {"previous": found.roles["previous"], "next": found.roles["next"]}
    scores["agreement"] = found.agreement_correct / found.n_agreement
    jobs = []
    for job, bar in JOBS.items():
        (layer, head, score), *_ = best_heads(scores[job], 1)
        if score >= bar:
            jobs.append(Job(job=job, layer=layer, head=head, score=score))
    return jobs


PARKING = 0.5
"""A head "parks" on the markers when its rows put, on average, more than this share of their
weight on [CLS] and [SEP] together."""


def parking_heads(found: Census) -> int:
    """How many heads park on the markers over the plain sentences (``PARKING``).

    >>> 20 < parking_heads(census()) < 50
    True
    """
    return int(((found.roles["cls"] + found.roles["sep"]) > PARKING).sum())


TRAP = ("The cat sat on the mat because it was tired", "it", 5, 11)
"""(sentence, word, layer, head): the example that once made this app say that layer 6, head 12
finds what "it" refers to. The head sends "it" to "cat" here; on the minimal pairs its answer
hardly ever changes (``Census.pairs_same``). The heads page tells the story with these numbers."""


def where_word_looks(text: str, word: str, layer: int, head: int, *, name=None) -> tuple[str, float]:
    """The token ``word`` puts its largest weight on in one head (markers and itself left out), and that weight.

    >>> token, weight = where_word_looks(*TRAP)
    >>> token, weight > 0.5
    ('cat', True)
    """
    trace = encode(text, name=name)
    i = word_position(trace.tokens, word)
    key, weight = looks_most(trace.weights[layer, head], trace.tokens, i)
    return trace.tokens[int(key)], float(weight)


if __name__ == "__main__":  # python -m attention_core.heads: measure the bundled model again and store it
    key = census_key()
    if key is None:
        raise SystemExit("no bundled model to measure: install requirements.txt")
    save_census(measure(load_probes()), key)
    print(f"wrote {CENSUS_FILE} for model {key['model_sha256'][:12]}…, probes {key['probes_sha256'][:12]}…")
