"""The contrast test on a learner's own pair: two sentences that differ in one word.

Three sentences in which a head looks at the right noun prove little; a minimal pair whose right
answer differs ("… because it was too heavy / fragile") can prove a story wrong. But "the word a
head looks at most changed" is not "the head found the referent": the top key may move from a
verb to a noun by two points, or onto the very word that was swapped. So this test counts what
the claim is about. The learner names the noun the followed word means in each sentence, and
per head the test says whether it prefers that noun over the other one in both sentences
(*resolves* the pair), in one, or in neither (*reversed*), and how its top word moved.

Weights are read word by word, as Clark et al. (2019) do: a word split into word pieces
("widow" + "##er") gets the *sum* of the weights on its pieces as a key, and, as a query, the
*mean* of its pieces' rows. So "widow" is never "widower"'s first piece.

* ``sentence_words(text)``: the model's trace and the sentence's words (their pieces);
* ``word_weights(weights, words)``: token × token weights as word × word;
* ``pair_test(a, b, word, nouns)``: the test, for every head (``PairTest``);
* ``proposed_nouns(words)``: the nouns a page proposes (the word after "the", "a" …).

The he ↔ she swap (``probes.swap_pronoun``) makes such a pair from any sentence with a pronoun.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass

import numpy as np

from .arrays import frozen
from .encoder import EncoderTrace, encode, load_encoder
from .unreadable import Unreadable

SMALL = 0.03
"""A change of top word "by less than a few points": in one of the two sentences, the new top
word and the old one are less than this far apart (3 percentage points of the row's weight)."""

DETERMINERS = frozenset("the a an this that these those my your his her its our their".split())
"""The words after which ``proposed_nouns`` expects a noun."""


def _is_punctuation(text: str) -> bool:
    return bool(text) and all(unicodedata.category(c)[0] in "PS" for c in text)


@dataclass(frozen=True)
class Word:
    """One word of a sentence as the model read it: its text (as typed) and its pieces'
    positions among the trace's tokens (markers included, so the first word's piece is 1)."""

    text: str
    pieces: tuple[int, ...]

    @property
    def is_punctuation(self) -> bool:
        """True for a word made of punctuation and symbols only ("." "," "—")."""
        return _is_punctuation(self.text)


def sentence_words(text: str, *, name: str | os.PathLike | None = None) -> tuple[EncoderTrace, tuple[Word, ...]]:
    """``text`` through the model, and its words: the tokenizer's own words (its pre-tokenizer
    splits on spaces and punctuation), each with the positions of its word pieces.

    Raises ValueError for a text longer than the model reads at once.

    >>> trace, words = sentence_words("The widower smiled.")
    >>> [(w.text, w.pieces) for w in words]
    [('The', (1,)), ('widower', (2, 3)), ('smiled', (4,)), ('.', (5,))]
    >>> trace.tokens[2:4]
    ('widow', '##er')
    """
    trace = encode(text, name=name)
    if trace.truncated:
        limit = len(trace.tokens) - 2
        raise Unreadable(
            "too_long",
            f"the sentence has {trace.n_pieces} word pieces; the test reads at most {limit}",
            pieces=trace.n_pieces,
            limit=limit,
        )
    tokenizer = load_encoder(trace.model).tokenizer
    encoding = tokenizer.post_process(tokenizer.encode(text, add_special_tokens=False))
    if tuple(encoding.tokens) != tuple(trace.tokens):  # the same tokenizer: only a bug gets here
        raise ValueError(f"the tokenizer's pieces {encoding.tokens} differ from the trace's {trace.tokens}")
    grouped: dict[int, list[int]] = {}
    for position, word in enumerate(encoding.word_ids):
        if word is not None:  # None: a marker
            grouped.setdefault(word, []).append(position)
    words = []
    for positions in grouped.values():
        start, end = encoding.offsets[positions[0]][0], encoding.offsets[positions[-1]][1]
        words.append(Word(text=text[start:end].strip() or trace.tokens[positions[0]], pieces=tuple(positions)))
    return trace, tuple(words)


def word_weights(weights, words) -> np.ndarray:
    """Token × token weights as word × word: a key word gets the sum over its pieces, a query
    word the mean of its pieces' rows (Clark et al. 2019), so each word row still sums to the
    share of its pieces' weight that lands on words (the markers left out).

    weights : (..., T, T)   words : W ``Word``s   →   (..., W, W)

    >>> w = np.full((4, 4), 0.25)  # (T, T)
    >>> word_weights(w, [Word("a", (1,)), Word("bc", (2,))])
    array([[0.25, 0.25],
           [0.25, 0.25]])
    """
    weights = np.asarray(weights, dtype=np.float64)  # (..., T, T)
    members = np.zeros((weights.shape[-1], len(words)))  # (T, W): 1 where piece t belongs to word w
    for w, word in enumerate(words):
        members[list(word.pieces), w] = 1.0
    rows = members / members.sum(axis=0)  # (T, W): each column averages its pieces
    return rows.T @ weights @ members  # (..., W, W)


def one_word_apart(text_a: str, text_b: str) -> int:
    """The index of the one whitespace-separated word in which ``text_a`` and ``text_b`` differ.

    Raises ValueError, naming the words, when they differ in none or in more than one.

    >>> one_word_apart("It was heavy.", "It was fragile.")
    2
    """
    words_a, words_b = text_a.split(), text_b.split()
    differ = [k for k, (x, y) in enumerate(zip(words_a, words_b)) if x != y]
    if len(words_a) != len(words_b):
        raise Unreadable(
            "word_counts_differ",
            f"sentence A has {len(words_a)} words and B {len(words_b)}: a contrast pair differs in exactly one word",
            words_a=len(words_a),
            words_b=len(words_b),
        )
    if len(differ) != 1:
        shown = ", ".join(f"{words_a[k]} → {words_b[k]}" for k in differ[:5])
        message = f"A and B differ in {len(differ)} words ({shown or 'none'}): a contrast pair differs in one"
        if not differ:
            raise Unreadable("same_sentence", message)
        raise Unreadable("differ_in_words", message, n=len(differ), words=shown)
    return differ[0]


def proposed_nouns(words) -> list[int]:
    """Indices of the words that follow a determiner ("the dog", "a window"): the nouns a page
    proposes as candidates, in order, each text once. A guess to check, not grammar.

    >>> ws = [Word(t, (k,)) for k, t in enumerate("The stone broke the window".split(), start=1)]
    >>> [ws[k].text for k in proposed_nouns(ws)]
    ['stone', 'window']
    """
    found, seen = [], set()
    for k in range(1, len(words)):
        text = words[k].text.lower()
        if words[k - 1].text.lower() in DETERMINERS and text not in DETERMINERS and not words[k].is_punctuation:
            if text not in seen:
                found.append(k)
                seen.add(text)
    return found


def find_word(words, word: str) -> int | None:
    """The index of the first of ``words`` that reads ``word`` (case and spaces aside), or None.

    >>> find_word([Word("The", (1,)), Word("It", (2,))], " it ")
    1
    """
    wanted = word.strip().lower()
    return next((k for k, w in enumerate(words) if w.text.lower() == wanted), None)


OUTCOMES = ("reversed", "one", "resolves")
"""A head's result on a pair, by the number of sentences (0, 1, 2) in which the followed word
puts more weight on the noun it means there than on the other noun."""

CHANGES = ("same", "small", "switch", "nouns", "other")
"""How a head's top word moved from A to B: not at all; by less than ``SMALL`` in one of the
sentences; onto, off or with the word that differs (it is the top word in A, in B or in both);
from one noun to the other; to another word."""


@dataclass(frozen=True)
class PairTest:
    """The contrast test of one pair, for every head (``pair_test``). L layers, H heads.

    words_a, words_b : the sentences' words (text)     i_a, i_b : the followed word in each
    switch_a, switch_b : the words that differ (indices)
    nouns_a, nouns_b : (meant, other) word indices in A and in B, or None without nouns
    rows_a, rows_b : (L, H, W) the followed word's weight on each word (pieces summed)
    right_a, right_b : (L, H) bool, the meant noun outweighs the other (None without nouns)
    top_a, top_b : (L, H) the word it weighs most (itself left out)
    change : (L, H) index into ``CHANGES``
    """

    words_a: tuple[str, ...]
    words_b: tuple[str, ...]
    i_a: int
    i_b: int
    switch_a: tuple[int, ...]
    switch_b: tuple[int, ...]
    nouns_a: tuple[int, int] | None
    nouns_b: tuple[int, int] | None
    rows_a: np.ndarray
    rows_b: np.ndarray
    right_a: np.ndarray | None
    right_b: np.ndarray | None
    top_a: np.ndarray
    top_b: np.ndarray
    change: np.ndarray

    @property
    def n_right(self) -> np.ndarray:
        """(L, H) int: in how many of the two sentences each head prefers the meant noun."""
        if self.right_a is None or self.right_b is None:
            raise ValueError("the test was run without nouns: nothing is right or wrong")
        return self.right_a.astype(int) + self.right_b.astype(int)

    @property
    def outcome(self) -> np.ndarray:
        """(L, H) index into ``OUTCOMES``: 2 resolves the pair, 1 right in one, 0 reversed."""
        return self.n_right

    def count(self, outcome: str) -> int:
        """How many heads have ``outcome`` (one of ``OUTCOMES``)."""
        return int((self.outcome == OUTCOMES.index(outcome)).sum())

    def changed(self, kind: str) -> int:
        """How many heads' top word moved in the way ``kind`` (one of ``CHANGES``)."""
        return int((self.change == CHANGES.index(kind)).sum())

    @property
    def n_moved(self) -> int:
        """How many heads' top word reads differently in B than in A (what a test of the top word
        alone counts as "its answer changed")."""
        return int((self.change != CHANGES.index("same")).sum())


def _place(k: int, switch: tuple[int, ...], n_words: int) -> tuple:
    """Where word ``k`` stands, comparable across the pair: ("before", k), ("after", from the
    end) or ("switch",) for the words that differ."""
    if k in switch:
        return ("switch",)
    return ("before", k) if k < min(switch) else ("after", n_words - k)


def _counterpart(k: int, switch_from, switch_to, n_from: int, n_to: int) -> list[int]:
    """The words of the other sentence that stand where word ``k`` stands: one word, or the
    other sentence's switch words."""
    place = _place(k, switch_from, n_from)
    if place[0] == "switch":
        return list(switch_to)
    return [place[1]] if place[0] == "before" else [n_to - place[1]]


def pair_test(
    text_a: str,
    text_b: str,
    word: str,
    nouns: tuple[str, str] | None = None,
    *,
    name: str | os.PathLike | None = None,
) -> PairTest:
    """The contrast test: for every head, does ``word`` prefer the noun it means in each sentence?

    Parameters
    ----------
    text_a, text_b : two sentences that differ in exactly one whitespace-separated word
    word : the word to follow (as it reads in A, or in B when it is the word that differs)
    nouns : (the noun ``word`` means in A, the noun it means in B), whole words of the sentences;
        each is compared, in each sentence, with the other (or with what stands in its place).
        None: only where the top word goes.

    Raises ValueError, in words a page can show, when the pair or the words do not fit.

    >>> t = pair_test("The stone broke the window because it was heavy.",
    ...               "The stone broke the window because it was fragile.", "it", ("stone", "window"))
    >>> t.count("resolves") + t.count("one") + t.count("reversed"), t.words_a[t.switch_a[0]]
    (72, 'heavy')
    """
    one_word_apart(text_a, text_b)
    trace_a, words_a = sentence_words(text_a, name=name)
    trace_b, words_b = sentence_words(text_b, name=name)
    lower_a, lower_b = [w.text.lower() for w in words_a], [w.text.lower() for w in words_b]
    same_start = next((k for k, (x, y) in enumerate(zip(lower_a, lower_b)) if x != y), min(len(lower_a), len(lower_b)))
    same_end = next(
        (k for k, (x, y) in enumerate(zip(reversed(lower_a), reversed(lower_b))) if x != y),
        min(len(lower_a), len(lower_b)),
    )
    same_end = min(same_end, len(lower_a) - same_start, len(lower_b) - same_start)
    switch_a = tuple(range(same_start, len(words_a) - same_end))
    switch_b = tuple(range(same_start, len(words_b) - same_end))
    if not switch_a or not switch_b:  # the differing word was only spacing or case
        raise Unreadable(
            "same_to_model", "A and B read the same to the model (they differ only in capitals or spacing)"
        )

    i_a = find_word(words_a, word)
    if i_a is None:
        i_b = find_word(words_b, word)
        if i_b is None:
            raise Unreadable(
                "not_a_word",
                f"{word.strip()!r} is not a word of either sentence: {' '.join(lower_a)}",
                word=word.strip(),
                words=" ".join(w.text for w in words_a),
            )
        i_a = _counterpart(i_b, switch_b, switch_a, len(words_b), len(words_a))[0]
    else:
        i_b = _counterpart(i_a, switch_a, switch_b, len(words_a), len(words_b))[0]

    rows_a = word_weights(trace_a.weights, words_a)[..., i_a, :]  # (L, H, W_a)
    rows_b = word_weights(trace_b.weights, words_b)[..., i_b, :]  # (L, H, W_b)
    top_a = np.where(np.arange(len(words_a)) == i_a, -np.inf, rows_a).argmax(axis=-1)  # (L, H)
    top_b = np.where(np.arange(len(words_b)) == i_b, -np.inf, rows_b).argmax(axis=-1)  # (L, H)

    nouns_a = nouns_b = right_a = right_b = None
    if nouns is not None:
        meant_a, meant_b = (find_word(ws, noun) for ws, noun in ((words_a, nouns[0]), (words_b, nouns[1])))
        if meant_a is None or meant_b is None:
            which, noun = ("A", nouns[0]) if meant_a is None else ("B", nouns[1])
            raise Unreadable(
                "noun_not_in_sentence",
                f"{noun.strip()!r} is not a word of sentence {which}",
                noun=noun.strip(),
                sentence=which,
                words=" ".join(w.text for w in (words_a if which == "A" else words_b)),
            )
        # the other noun: the noun meant in the other sentence, or what stands in its place
        other_a = _counterpart(meant_b, switch_b, switch_a, len(words_b), len(words_a))[0]
        other_b = _counterpart(meant_a, switch_a, switch_b, len(words_a), len(words_b))[0]
        if other_a == meant_a or other_b == meant_b:
            raise Unreadable("same_nouns", "the test needs two different nouns: one meant in A, another meant in B")
        if i_a in (meant_a, other_a):
            raise Unreadable(
                "word_is_a_noun", f"the followed word {word.strip()!r} is one of the nouns", word=word.strip()
            )
        nouns_a, nouns_b = (meant_a, other_a), (meant_b, other_b)
        right_a = rows_a[..., meant_a] > rows_a[..., other_a]  # (L, H)
        right_b = rows_b[..., meant_b] > rows_b[..., other_b]  # (L, H)

    change = np.zeros(top_a.shape, dtype=np.int64)  # (L, H) CHANGES index
    noun_places = set() if nouns_a is None else {_place(k, switch_a, len(words_a)) for k in nouns_a}
    for index in np.ndindex(top_a.shape):
        ka, kb = int(top_a[index]), int(top_b[index])
        place_a, place_b = _place(ka, switch_a, len(words_a)), _place(kb, switch_b, len(words_b))
        if place_a == place_b:  # the same word, or the word that differs in both: it followed the swap
            change[index] = CHANGES.index("switch") if place_a[0] == "switch" else 0
            continue
        kb_in_a = _counterpart(kb, switch_b, switch_a, len(words_b), len(words_a))
        ka_in_b = _counterpart(ka, switch_a, switch_b, len(words_a), len(words_b))
        lead_a = rows_a[index][ka] - max((rows_a[index][k] for k in kb_in_a if k != i_a), default=0.0)
        lead_b = rows_b[index][kb] - max((rows_b[index][k] for k in ka_in_b if k != i_b), default=0.0)
        if min(lead_a, lead_b) < SMALL:
            kind = "small"
        elif "switch" in (place_a[0], place_b[0]):
            kind = "switch"
        elif {place_a, place_b} == noun_places:
            kind = "nouns"
        else:
            kind = "other"
        change[index] = CHANGES.index(kind)

    return PairTest(
        words_a=tuple(w.text for w in words_a),
        words_b=tuple(w.text for w in words_b),
        i_a=i_a,
        i_b=i_b,
        switch_a=switch_a,
        switch_b=switch_b,
        nouns_a=nouns_a,
        nouns_b=nouns_b,
        rows_a=frozen(rows_a),
        rows_b=frozen(rows_b),
        right_a=None if right_a is None else frozen(right_a, dtype=bool),
        right_b=None if right_b is None else frozen(right_b, dtype=bool),
        top_a=frozen(top_a, dtype=np.int64),
        top_b=frozen(top_b, dtype=np.int64),
        change=frozen(change, dtype=np.int64),
    )
