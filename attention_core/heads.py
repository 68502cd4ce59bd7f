"""What a head does, measured: its roles on a sentence and over two probe sets.

A heatmap invites a story ("this head finds what *it* refers to"). A story is a claim, and a
claim needs a measurement over many sentences, including pairs that could prove it wrong. This
module gives every head of the model numbers a page can print beside such a sentence:

* ``role_scores(text)``: for each of the L × H heads, how a word-piece row i = 1 … T−2 (0-based;
  the [CLS] and [SEP] rows are left out) splits its weight into disjoint parts — [CLS], [SEP],
  itself, the previous token, the next one, punctuation, the rest — and how often the rows all
  peak on one word;
* ``census()``: the same over the plain sentences of ``probes.py``, plus the pronoun tests:
  Winograd-style minimal pairs for "it", he/she agreement and the he ↔ she swap, measured on
  the set heads are *chosen* on and on the held-out set they are *reported* on;
* ``choose(found, measure)``: the best heads on the first set with their held-out figures and
  95 % intervals (``estimates.py``), and ``best_of_72``: what the best of 72 coins would score.

The contrast test a learner runs on their own pair of sentences is ``contrast.py``.
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
from .estimates import BestOfCoins, Estimate, best_of_coins, mean_interval, wilson
from .model_files import expected_weights_sha256, model_directory, resolve_model_name
from .probes import HELD_OUT_FILE, PROBES_FILE, Probes, load_probes
from .unreadable import Unreadable

ROLES = ("previous", "next", "self", "cls", "sep", "punctuation", "rest", "favourite", "entropy")
"""The measured roles, each a number per head in [0, 1] (``role_scores``). The first seven are
disjoint parts of a row's weight: every key of a word-piece row i counts in exactly one of them,
the first that fits in this order, so that they add up to 1:

cls          α̂_{i,1}: the start marker [CLS] (for the first word it is also the token before)
sep          α̂_{i,T}: the end marker [SEP] (for the last word it is also the token after)
self         α̂_{i,i}: the token itself
previous     α̂_{i,i−1}: the token just before, when it is not [CLS]
next         α̂_{i,i+1}: the token just after, when it is not [SEP]
punctuation  the punctuation marks other than the token itself and its two neighbours
rest         every other word piece
favourite    share of rows whose largest weight lands on the same word (the head's favourite
             word of the sentence; rows that peak on [CLS] or [SEP] do not count): a vertical
             stripe in the heatmap, whatever the row asks
entropy      mean entropy of a row over log T: 0 when a row puts everything on one key, 1 when
             it spreads evenly over all T keys

(Positions from 1 as on screen; in code the markers are keys 0 and T − 1.)

>>> ROLES.index("previous"), len(ROLES)
(0, 9)
"""

WEIGHT_ROLES = ("cls", "sep", "self", "previous", "next", "punctuation", "rest")
"""The roles that are disjoint shares of a row's weight, in the order a key is given to them:
a row's shares add up to 1, a head's mean shares too."""


def is_punctuation(token: str) -> bool:
    """True when every character of ``token`` is Unicode punctuation ("," "." "'" "—" "？").

    >>> is_punctuation(","), is_punctuation("'"), is_punctuation("cat"), is_punctuation("[CLS]")
    (True, True, False, False)
    """
    return bool(token) and all(unicodedata.category(c).startswith("P") for c in token)


def key_parts(tokens) -> np.ndarray:
    """Which of ``WEIGHT_ROLES`` each key of each word-piece row belongs to: (T − 2, T) indices.

    Row r is token r + 1 (0-based; the [CLS] and [SEP] rows are left out). A key gets the first
    role of ``WEIGHT_ROLES`` that fits it, so no key counts twice.

    >>> parts = key_parts(["[CLS]", "hi", ",", "you", "too", "[SEP]"])
    >>> [WEIGHT_ROLES[p] for p in parts[0]]  # the row of "hi"
    ['cls', 'self', 'next', 'rest', 'rest', 'sep']
    >>> [WEIGHT_ROLES[p] for p in parts[3]]  # the row of "too"
    ['cls', 'rest', 'punctuation', 'previous', 'self', 'sep']
    """
    T = len(tokens)
    rows = np.arange(1, T - 1)  # (R,) the word-piece rows
    r = np.arange(len(rows))  # (R,)
    part = np.full((len(rows), T), WEIGHT_ROLES.index("rest"))  # (R, T)
    punct = np.array([is_punctuation(t) for t in tokens])  # (T,)
    part[:, punct] = WEIGHT_ROLES.index("punctuation")
    part[r, rows + 1] = WEIGHT_ROLES.index("next")  # later assignments win: the order of WEIGHT_ROLES, reversed
    part[r, rows - 1] = WEIGHT_ROLES.index("previous")
    part[r, rows] = WEIGHT_ROLES.index("self")
    part[:, T - 1] = WEIGHT_ROLES.index("sep")
    part[:, 0] = WEIGHT_ROLES.index("cls")
    return part


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
        One entry per name in ``ROLES``; the ``WEIGHT_ROLES`` add up to 1.

    Raises
    ------
    ValueError
        Fewer than 3 tokens (no word-piece row), or weights and tokens disagree.

    Examples
    --------
    A head that always looks at the previous token: for the first word that is [CLS], so a
    third of its rows' weight counts as [CLS], not twice.

    >>> w = np.eye(5, k=-1); w[0, 0] = 1.0  # (T, T): row i puts 1 on key i − 1
    >>> roles = weights_role_scores(w, ["[CLS]", "the", "cat", "sat", "[SEP]"])
    >>> round(float(roles["previous"]), 4), float(roles["next"]), round(float(roles["cls"]), 4)
    (0.6667, 0.0, 0.3333)
    >>> round(sum(float(roles[role]) for role in WEIGHT_ROLES), 12)
    1.0
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
    part = key_parts(tokens)  # (R, T)
    shares = {role: (w * (part == k)).sum(axis=-1).mean(axis=-1) for k, role in enumerate(WEIGHT_ROLES)}
    peaks = w.argmax(axis=-1)  # (..., R)
    words = np.arange(1, T - 1)  # (R,) the word keys a favourite can be
    peak_counts = (peaks[..., None] == words).sum(axis=-2)  # (..., R) rows peaking on each word key
    entropy = -(w * np.log(np.where(w > 0, w, 1.0))).sum(axis=-1)  # (..., R) in nats
    return {
        **{role: shares[role] for role in ROLES if role in shares},
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
    >>> round(float(roles["previous"][0, 2] + roles["cls"][0, 2]), 2)  # layer 0, head 2 (shown as layer 1, head 3)
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
        raise Unreadable(
            "not_a_token",
            f"{word!r} is not one of the tokens {list(tokens)}",
            word=word.strip(),
            words=" ".join(tokens),
        ) from None


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
    """What every head does over one probe set (``measure``). L layers, H heads, 0-based.

    roles : dict of ``ROLES`` → (L, H), the mean of ``role_scores`` over the plain sentences
    spread : dict of ``ROLES`` → (L, H), their standard deviation over the sentences (ddof 1),
        for an interval of a mean (``estimates.mean_interval``)
    pair_weights : (P, 2, 2, L, H), α̂ from "it" to the two nouns of each minimal pair:
        [pair, sentence (a, b), noun (referent_a, referent_b), layer, head]
    agreement_weights : (S, 2, L, H), α̂ from he/she to [the noun of its gender, the other noun]
    swap_weights : (S, 2, L, H), the same sentences with he ↔ she swapped (``Agreement.swapped``):
        α̂ from the new pronoun to [the noun of the *old* pronoun's gender, the other noun]
    n_plain : how many plain sentences the roles average
    held_out : the census of the held-out set (``HELD_OUT_FILE``), when this is the set heads
        are chosen on; None for the held-out census itself
    """

    roles: dict
    spread: dict
    pair_weights: np.ndarray
    agreement_weights: np.ndarray
    swap_weights: np.ndarray
    n_plain: int
    held_out: Census | None = None

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
    def pairs_reversed(self) -> np.ndarray:
        """(L, H) int: pairs where the head prefers the *other* noun in both sentences."""
        picks = self.pair_picks  # (P, 2, L, H)
        return ((picks[:, 0] == 1) & (picks[:, 1] == 0)).sum(axis=0)

    @property
    def pairs_same(self) -> np.ndarray:
        """(L, H) int: pairs where the head prefers the same noun in both sentences (its choice never changed)."""
        picks = self.pair_picks  # (P, 2, L, H)
        return (picks[:, 0] == picks[:, 1]).sum(axis=0)

    @property
    def pairs_shifted(self) -> np.ndarray:
        """(L, H) int: pairs where the weight moves the right way between the sentences, whatever
        the choice: (α̂ on referent_a − α̂ on referent_b) is larger in sentence a, where "it" means
        referent_a, than in sentence b. A head blind to the meaning does so in about half.
        """
        margin = self.pair_weights[:, :, 0] - self.pair_weights[:, :, 1]  # (P, 2, L, H)
        return (margin[:, 0] > margin[:, 1]).sum(axis=0)

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

    @property
    def swap_moved(self) -> np.ndarray:
        """(L, H) int: he/she sentences where swapping the pronoun moves the head's choice to the
        other noun (the contrast test of gender: nothing but the pronoun changed)."""
        before = self.agreement_weights[:, 0] > self.agreement_weights[:, 1]  # (S, L, H) prefers the old referent
        after = self.swap_weights[:, 0] > self.swap_weights[:, 1]  # (S, L, H) still prefers it
        return (before != after).sum(axis=0)

    @property
    def swap_right_both(self) -> np.ndarray:
        """(L, H) int: sentences where the head prefers the noun of the pronoun's gender before
        *and* after the swap."""
        before = self.agreement_weights[:, 0] > self.agreement_weights[:, 1]  # (S, L, H)
        after = self.swap_weights[:, 1] > self.swap_weights[:, 0]  # (S, L, H) the new referent
        return (before & after).sum(axis=0)


def measure(probes: Probes, *, name: str | os.PathLike | None = None, held_out: Census | None = None) -> Census:
    """Run every sentence of one probe set through the model and measure every head (a few seconds).

    ``census()`` is what the pages use: the same numbers for both sets, read from a file kept
    beside the probes when the model and the probes are the ones it was measured on.
    """

    def run(text: str) -> EncoderTrace:
        return encode(text, name=name, cache=False)  # a probe sentence must not push a learner's out

    if len(probes.plain) < 2:
        raise ValueError(f"the roles' spread needs at least 2 plain sentences, got {len(probes.plain)}")
    plain = [role_scores(run(text)) for text in probes.plain]
    stacked = {role: np.stack([r[role] for r in plain]) for role in ROLES}  # role -> (N, L, H)
    pair_weights = [
        [choice_weights(run(text), p.word, [p.referent_a, p.referent_b]) for text in (p.a, p.b)]  # 2 × (L, H, 2)
        for p in probes.pairs
    ]
    agreement_weights = [choice_weights(run(s.text), s.word, [s.referent, s.other]) for s in probes.agreement]
    swap_weights = [  # in the swapped sentence, [the old referent, the old other noun]: the same order
        choice_weights(run(s.swapped.text), s.swapped.word, [s.referent, s.other]) for s in probes.agreement
    ]
    shape = stacked[ROLES[0]].shape[1:]  # (L, H)
    return Census(
        roles={role: frozen(x.mean(axis=0)) for role, x in stacked.items()},
        spread={role: frozen(x.std(axis=0, ddof=1)) for role, x in stacked.items()},
        pair_weights=frozen(np.moveaxis(np.reshape(pair_weights, (-1, 2, *shape, 2)), -1, 2)),  # (P, 2, 2, L, H)
        agreement_weights=frozen(np.moveaxis(np.reshape(agreement_weights, (-1, *shape, 2)), -1, 1)),  # (S, 2, L, H)
        swap_weights=frozen(np.moveaxis(np.reshape(swap_weights, (-1, *shape, 2)), -1, 1)),  # (S, 2, L, H)
        n_plain=len(probes.plain),
        held_out=held_out,
    )


def measure_both(*, name: str | os.PathLike | None = None) -> Census:
    """The census of the set heads are chosen on, with the held-out set's as ``held_out``."""
    return measure(load_probes(PROBES_FILE), name=name, held_out=measure(load_probes(HELD_OUT_FILE), name=name))


# --------------------------------------------------------------------------- the measured file

CENSUS_FILE = PROBES_FILE.with_name("head_census.json")
"""The census of the bundled model on both probe sets, written by ``save_census`` (run
``python -m attention_core.heads``). Its key is the SHA-256 of the model's weights and of the
two probe files: with another model, or after a change of the probes, ``census`` measures afresh.
``tests/test_heads.py`` measures again and compares the numbers."""


def census_key(name: str | os.PathLike | None = None) -> dict | None:
    """What a census was measured on: the weights' and the probe files' SHA-256, or None when
    nothing knows the weights' hash (another model, unchecked).

    >>> sorted(census_key())
    ['held_out_sha256', 'model_sha256', 'probes_sha256']
    """
    known = expected_weights_sha256(model_directory(resolve_model_name(name)))
    if known is None:
        return None
    return {
        "model_sha256": known,
        "probes_sha256": hashlib.sha256(PROBES_FILE.read_bytes()).hexdigest(),
        "held_out_sha256": hashlib.sha256(HELD_OUT_FILE.read_bytes()).hexdigest(),
    }


STORED_DIGITS = 7
"""Significant digits kept in ``CENSUS_FILE``: the weights agree with transformers' to about
1e-7 of their size, so more digits would store noise. Significant digits, not decimals: the
previous-token head gives nouns weights near 1e-10, and their order still counts."""

_STORED = ("pair_weights", "agreement_weights", "swap_weights")


def _stored(found: Census) -> dict:
    def numbers(x) -> list:
        return np.vectorize(lambda v: float(f"{v:.{STORED_DIGITS}g}"), otypes=[float])(np.asarray(x)).tolist()

    return {
        "n_plain": found.n_plain,
        "roles": {role: numbers(found.roles[role]) for role in ROLES},
        "spread": {role: numbers(found.spread[role]) for role in ROLES},
        **{field: numbers(getattr(found, field)) for field in _STORED},
    }


def _read(data: dict, held_out: Census | None = None) -> Census:
    return Census(
        roles={role: frozen(data["roles"][role]) for role in ROLES},
        spread={role: frozen(data["spread"][role]) for role in ROLES},
        **{field: frozen(data[field]) for field in _STORED},
        n_plain=int(data["n_plain"]),
        held_out=held_out,
    )


def save_census(found: Census, key: dict, path: str | Path = CENSUS_FILE) -> None:
    """Write ``found`` and its held-out census with their ``key`` as JSON, numbers kept to
    ``STORED_DIGITS`` significant digits."""
    if found.held_out is None:
        raise ValueError("a census to store needs its held-out census (measure_both)")
    data = {**key, "chosen_on": _stored(found), "held_out": _stored(found.held_out)}
    Path(path).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


def read_census(key: dict, path: str | Path = CENSUS_FILE) -> Census | None:
    """The census stored at ``path`` (with its held-out census) if it was measured on ``key``, else None."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if any(data.get(k) != v for k, v in key.items()):
            return None
        return _read(data["chosen_on"], held_out=_read(data["held_out"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


@functools.lru_cache(maxsize=2)
def census(name: str | os.PathLike | None = None) -> Census:
    """Every head measured on the bundled probe sets, once per process and model: the set heads
    are chosen on, with the held-out set's census as ``held_out``.

    Read from ``CENSUS_FILE`` when it was measured on this model and these probes (instant),
    else measured (``measure_both``, some seconds).

    >>> c = census()
    >>> c.roles["previous"].shape, c.n_pairs >= 40, c.held_out.n_agreement
    ((6, 12), True, 48)
    """
    key = census_key(name)
    found = read_census(key) if key is not None else None
    return found if found is not None else measure_both(name=name)


def best_heads(scores, n: int = 3) -> list[tuple[int, int, float]]:
    """The ``n`` heads with the highest scores, as (layer, head, score), best first (0-based).

    >>> best_heads(np.array([[0.1, 0.9], [0.5, 0.2]]), 2)
    [(0, 1, 0.9), (1, 0, 0.5)]
    """
    scores = np.asarray(scores, dtype=np.float64)  # (L, H)
    order = np.argsort(-scores, axis=None, kind="stable")[:n]
    layers, heads = np.unravel_index(order, scores.shape)
    return [(int(layer), int(head), float(scores[layer, head])) for layer, head in zip(layers, heads)]


MEASURES = ("agreement", "swap", "pairs", "shift", *ROLES)
"""What the census grid can colour every head by: the pronoun tests, counted over sentences
(``COUNTED``), then the ``ROLES``, means over the plain sentences."""

COUNTED = ("agreement", "swap", "pairs", "shift")
"""The measures that count sentences (or pairs): "agreement" he/she → the noun of its gender,
"swap" the choice moves when he ↔ she is swapped, "pairs" minimal pairs resolved, "shift" pairs
whose weight moves toward the intended noun (``Census.pairs_shifted``)."""

CHANCE = {"agreement": 0.5, "swap": 0.5, "pairs": 0.25, "shift": 0.5}
"""What a head that picks one of the two nouns at random would score on each counted measure:
right in half the sentences, resolving a quarter of the pairs (it must be right twice). A score
far *below* chance is a job done backwards: a head at 0 % on "agreement" always picks the other
noun, as sensitive to gender as the best head, reversed."""


REVERSIBLE = ("agreement", "shift")
"""The counted measures whose far-below-chance end is the job done backwards (a head at 0 % on
"agreement" picks the other noun every time), not a head blind to it: coloured by the distance
from chance, and their lowest heads listed as "reversed"."""


def measure_counts(found: Census, measure_name: str) -> tuple[np.ndarray, int]:
    """A counted measure's count per head, (L, H) int, and out of how many sentences or pairs.

    >>> counts, n = measure_counts(census(), "agreement")
    >>> counts.shape, n
    ((6, 12), 48)
    """
    if measure_name == "agreement":
        return found.agreement_correct, found.n_agreement
    if measure_name == "swap":
        return found.swap_moved, found.n_agreement
    if measure_name == "pairs":
        return found.pairs_resolved, found.n_pairs
    if measure_name == "shift":
        return found.pairs_shifted, found.n_pairs
    raise ValueError(f"a counted measure is one of {COUNTED}, got {measure_name!r}")


def measure_scores(found: Census, measure_name: str) -> np.ndarray:
    """Every head's score for one of ``MEASURES``, in [0, 1]: (L, H).

    A counted measure (``COUNTED``) is the share of its sentences; a role the mean share
    ``Census.roles``.

    >>> bool(measure_scores(census(), "pairs").max() <= 0.3)
    True
    """
    if measure_name in COUNTED:
        counts, n = measure_counts(found, measure_name)
        return counts / n
    if measure_name in ROLES:
        return found.roles[measure_name]
    raise ValueError(f"measure must be one of {MEASURES}, got {measure_name!r}")


def estimate(found: Census, measure_name: str, layer: int, head: int) -> Estimate:
    """Head (``layer``, ``head``)'s score on ``found`` with its 95 % interval: Wilson's for a
    counted measure, ± 1.96 standard errors over the plain sentences for a role.

    >>> e = estimate(census().held_out, "previous", 0, 2)
    >>> e.n, e.low <= e.value <= e.high
    (48, True)
    """
    if measure_name in COUNTED:
        counts, n = measure_counts(found, measure_name)
        return wilson(int(counts[layer, head]), n)
    if measure_name in ROLES:
        mean, sd = found.roles[measure_name][layer, head], found.spread[measure_name][layer, head]
        return mean_interval(float(mean), float(sd), found.n_plain)
    raise ValueError(f"measure must be one of {MEASURES}, got {measure_name!r}")


@dataclass(frozen=True)
class Chosen:
    """A head chosen as one of the best on the sentences that choose, and its figures.

    layer, head : 0-based
    chosen_on : its score on the sentences it was chosen on (flattering: it was picked for it)
    held_out : its score on the held-out sentences, with the interval (``estimate``)
    """

    layer: int
    head: int
    chosen_on: float
    held_out: Estimate


def choose(found: Census, measure_name: str, n: int = 5, *, lowest: bool = False) -> list[Chosen]:
    """The ``n`` best heads by ``measure_name`` (``lowest``: the ``n`` lowest, for a job done
    backwards), chosen on ``found``'s own sentences only, each reported on ``found.held_out``:
    choose on one set, report on another.

    >>> best = choose(census(), "agreement", 1)[0]
    >>> (best.layer, best.head), best.held_out.n
    ((1, 3), 48)
    >>> [(c.layer, c.head, c.chosen_on) for c in choose(census(), "agreement", 2, lowest=True)]
    [(1, 5, 0.0), (4, 2, 0.0)]
    """
    if found.held_out is None:
        raise ValueError("choosing heads needs a census with its held-out census (census())")
    scores = measure_scores(found, measure_name)  # (L, H): reads the choosing set only
    picked = best_heads(-scores if lowest else scores, n)
    return [
        Chosen(
            layer=layer,
            head=head,
            chosen_on=float(scores[layer, head]),
            held_out=estimate(found.held_out, measure_name, layer, head),
        )
        for layer, head, _ in picked
    ]


def best_of_72(found: Census, measure_name: str) -> BestOfCoins:
    """What the best of as many coins as ``found`` has heads would score on a counted measure:
    the fair baseline for the best head's score (``estimates.best_of_coins``).

    >>> best_of_72(census(), "pairs").typical
    21
    """
    counts, n = measure_counts(found, measure_name)
    return best_of_coins(n, CHANCE[measure_name], counts.size)


# --------------------------------------------------------------------------- one head, in numbers


@dataclass(frozen=True)
class HeadProfile:
    """One head's measured numbers over one probe set (``profile``), ready to print beside it.

    layer, head : 0-based
    roles : role → score (``ROLES``)
    top : the ``WEIGHT_ROLES`` but "rest", from the largest share of weight down, as (role, share);
        with ``roles["rest"]`` they add up to 1
    agreement_correct, n_agreement : he/she sentences where the pronoun weighs the noun of its
        gender more than the other noun, out of how many
    agreement_referent, agreement_other : mean α̂ from he/she to that noun and to the other
    swap_moved : he/she sentences where swapping the pronoun moves the head's choice
    pairs_resolved, pairs_same, pairs_shifted, n_pairs : minimal pairs resolved, pairs with the
        same choice in both sentences, pairs whose weight moves toward the intended noun, out of
        how many
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
    swap_moved: int
    pairs_resolved: int
    pairs_same: int
    pairs_shifted: int
    n_pairs: int
    n_plain: int


def profile(found: Census, layer: int, head: int) -> HeadProfile:
    """The numbers of head (``layer``, ``head``) in ``found``.

    >>> p = profile(census(), 0, 2)  # shown as layer 1, head 3
    >>> p.top[0][0], round(p.top[0][1], 2), round(sum(share for _, share in p.top) + p.roles["rest"], 6)
    ('previous', 0.91, 1.0)
    """
    n_layers, n_heads = found.roles[ROLES[0]].shape
    if not (0 <= layer < n_layers and 0 <= head < n_heads):
        raise ValueError(f"no head ({layer}, {head}) in a model of {n_layers} layers × {n_heads} heads")
    roles = {role: float(found.roles[role][layer, head]) for role in ROLES}
    shares = [(role, roles[role]) for role in WEIGHT_ROLES if role != "rest"]
    return HeadProfile(
        layer=layer,
        head=head,
        roles=roles,
        top=tuple(sorted(shares, key=lambda rs: -rs[1])),
        agreement_correct=int(found.agreement_correct[layer, head]),
        n_agreement=found.n_agreement,
        agreement_referent=float(found.agreement_referent[layer, head]),
        agreement_other=float(found.agreement_other[layer, head]),
        swap_moved=int(found.swap_moved[layer, head]),
        pairs_resolved=int(found.pairs_resolved[layer, head]),
        pairs_same=int(found.pairs_same[layer, head]),
        pairs_shifted=int(found.pairs_shifted[layer, head]),
        n_pairs=found.n_pairs,
        n_plain=found.n_plain,
    )


@dataclass(frozen=True)
class Miss:
    """A he/she sentence (``index`` into the probe set's agreement section) where a head prefers
    the other noun as written (``as_written``), after the he ↔ she swap (``swapped``), or both,
    with α̂ from the pronoun to the noun of its gender and to the other noun, as written."""

    index: int
    as_written: bool
    swapped: bool
    on_referent: float
    on_other: float


def agreement_misses(found: Census, layer: int, head: int) -> list[Miss]:
    """The he/she sentences of ``found`` where head (``layer``, ``head``) prefers the wrong noun,
    before or after swapping the pronoun.

    >>> [m.index for m in agreement_misses(census().held_out, 1, 3)][:2]
    [2, 12]
    """
    w, swap = found.agreement_weights[:, :, layer, head], found.swap_weights[:, :, layer, head]  # (S, 2) each
    wrong = w[:, 0] <= w[:, 1]  # (S,) the other noun outweighs the pronoun's own
    wrong_swapped = swap[:, 1] <= swap[:, 0]  # (S,) after the swap the old referent is the other noun
    return [
        Miss(
            index=int(s),
            as_written=bool(wrong[s]),
            swapped=bool(wrong_swapped[s]),
            on_referent=float(w[s, 0]),
            on_other=float(w[s, 1]),
        )
        for s in np.flatnonzero(wrong | wrong_swapped)
    ]


JOBS = {"previous": 0.5, "next": 0.5, "agreement": 0.9}
"""The jobs a head can be said to have, with the score its best head must reach on the sentences
it is chosen on: a mean share of at least half the row on the previous (next) token; he/she → the
noun of its gender in at least 90 % of the agreement sentences."""


@dataclass(frozen=True)
class Job:
    """The best head for one of ``JOBS``: chosen on one set, its score there (``score``) and on
    the held-out set with its interval (``held_out``)."""

    job: str
    layer: int
    head: int
    score: float
    held_out: Estimate


def heads_with_a_job(found: Census) -> list[Job]:
    """The best head for each of ``JOBS`` whose score on ``found`` reaches the bar, in ``JOBS``
    order, with its held-out figure.

    >>> [(j.job, j.layer, j.head) for j in heads_with_a_job(census())]
    [('previous', 0, 2), ('next', 1, 8), ('agreement', 1, 3)]
    """
    jobs = []
    for job, bar in JOBS.items():
        (best,) = choose(found, job, 1)
        if best.chosen_on >= bar:
            jobs.append(Job(job=job, layer=best.layer, head=best.head, score=best.chosen_on, held_out=best.held_out))
    return jobs


PARKING = 0.5
"""A head "parks" on a marker when its rows put, on average, more than this share of their
weight there."""


def parking_heads(found: Census, on: tuple[str, ...] = ("cls", "sep")) -> int:
    """How many heads park on the markers ``on`` (together) over the plain sentences (``PARKING``).

    This model parks on [CLS], hardly ever on [SEP] (BERT-base parks on [SEP], Clark et al. 2019):

    >>> 20 < parking_heads(census()) < 50, parking_heads(census(), ("sep",))
    (True, 0)
    """
    return int((sum(found.roles[role] for role in on) > PARKING).sum())


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
    save_census(measure_both(), key)
    print(f"wrote {CENSUS_FILE} for model {key['model_sha256'][:12]}…, probes {key['probes_sha256'][:12]}…")
