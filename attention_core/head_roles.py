"""What a head does on one sentence: the disjoint parts of each row's weight, and where a word looks.

For each of the L × H heads, ``weights_role_scores`` splits the weight of every word-piece row
into parts that add up to 1 (the markers, the token itself, its neighbours, punctuation, the
rest) and says how often the rows peak on one word; ``role_scores`` does it for a sentence
through the model. ``heads`` measures the same over the probe sets (the census) and chooses
heads on it; this module needs no probe set and no stored file.
Positions are 0-based here, as everywhere in the core; the pages show them from 1.
"""

from __future__ import annotations

import os
import unicodedata

import numpy as np

from .encoder import EncoderTrace, encode
from .encoder_files import MARKERS
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
        The model (see ``model_choice.resolve_model_name``).

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
