"""The contrast test on a learner's own pair (attention_core.contrast) and the pronoun swap
(attention_core.probes.swap_pronoun). References: loops over the model's weights written here,
with words found by hand from the word pieces."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.contrast import (
    CHANGES,
    OUTCOMES,
    SMALL,
    Word,
    one_word_apart,
    pair_test,
    proposed_nouns,
    sentence_words,
    word_weights,
)
from attention_core.encoder import encode
from attention_core.lesson import TRAINED_HEAD
from attention_core.probes import swap_pronoun

STONE = (  # a teacher's pair: "it" is the stone in A, the window in B
    "The stone broke the window because it was heavy.",
    "The stone broke the window because it was fragile.",
)


def words_by_hand(tokens) -> list[list[int]]:
    """Word pieces grouped into words with a loop: a "##" piece continues the word before it."""
    words = []
    for position, token in enumerate(tokens):
        if token in ("[CLS]", "[SEP]"):
            continue
        if token.startswith("##"):
            words[-1].append(position)
        else:
            words.append([position])
    return words


def test_a_split_word_is_one_word_and_its_weights_are_summed():
    trace, words = sentence_words("The widow met the widower at noon.")
    assert [w.text for w in words] == ["The", "widow", "met", "the", "widower", "at", "noon", "."]
    assert [list(w.pieces) for w in words] == words_by_hand(trace.tokens)
    assert [trace.tokens[p] for p in words[4].pieces] == ["widow", "##er"]
    w = trace.weights[TRAINED_HEAD]  # (T, T)
    by_word = word_weights(trace.weights, words)[TRAINED_HEAD]  # (W, W)
    for q, query in enumerate(words):
        for k, key in enumerate(words):
            expected = sum(w[i, j] for i in query.pieces for j in key.pieces) / len(query.pieces)
            assert by_word[q, k] == pytest.approx(expected, abs=1e-12)


def test_one_word_apart_names_what_is_wrong():
    assert one_word_apart(*STONE) == 8
    with pytest.raises(ValueError, match="differ in 2 words"):
        one_word_apart("The cat slept.", "The dog barked.")
    with pytest.raises(ValueError, match="differ in 0 words"):
        one_word_apart("The cat slept.", "The cat slept.")
    with pytest.raises(ValueError, match="has 3 words and B 4"):
        one_word_apart("The cat slept.", "The cat slept well.")
    with pytest.raises(ValueError, match="only in capitals"):
        pair_test("The cat slept.", "the cat slept.", "cat")


def test_the_page_proposes_the_words_after_the_and_a():
    _, words = sentence_words("After the dog knocked over a vase, it broke.")
    assert [words[k].text for k in proposed_nouns(words)] == ["dog", "vase"]


def loop_test(text_a, text_b, word, meant_a, meant_b, word_b=None):
    """Right in A / right in B per head, from the model's weights with loops and words by hand."""
    right = []
    for text, followed, meant, other in ((text_a, word, meant_a, meant_b), (text_b, word_b or word, meant_b, meant_a)):
        trace = encode(text)
        words = words_by_hand(trace.tokens)
        texts = ["".join(trace.tokens[p].removeprefix("##") for p in w) for w in words]
        q, m, o = words[texts.index(followed)], words[texts.index(meant)], words[texts.index(other)]
        L, H = trace.weights.shape[:2]
        ok = np.zeros((L, H), dtype=bool)
        for layer in range(L):
            for head in range(H):
                a = trace.weights[layer, head]
                on = [sum(a[i, j] for i in q for j in key) / len(q) for key in (m, o)]
                ok[layer, head] = on[0] > on[1]
        right.append(ok)
    return right


def test_the_stone_and_the_window_no_head_resolves_them():
    """The teacher's pair: no head prefers the meant noun in both sentences, and the default
    head's top word "changed" from a verb to a noun by less than a few points."""
    t = pair_test(*STONE, "it", ("stone", "window"))
    right_a, right_b = loop_test(*STONE, "it", "stone", "window")
    assert (t.right_a == right_a).all() and (t.right_b == right_b).all()
    assert t.count("resolves") == int((right_a & right_b).sum()) == 0
    assert sum(t.count(o) for o in OUTCOMES) == 72
    assert t.words_a[t.top_a[TRAINED_HEAD]] == "broke" and t.words_b[t.top_b[TRAINED_HEAD]] == "window"
    assert CHANGES[t.change[TRAINED_HEAD]] == "small"
    lead_b = t.rows_b[TRAINED_HEAD][t.top_b[TRAINED_HEAD]] - t.rows_b[TRAINED_HEAD][t.top_a[TRAINED_HEAD]]
    assert 0 < lead_b < SMALL


def test_swapping_he_for_she_is_a_pair_the_default_head_resolves():
    a = "The girl met a man as he left."
    swap = swap_pronoun(a)
    assert swap.text == "The girl met a man as she left." and (swap.old, swap.new) == ("he", "she")
    t = pair_test(a, swap.text, "he", ("man", "girl"))
    assert t.words_b[t.i_b] == "she"  # the followed word is the one that differs
    assert t.n_right[TRAINED_HEAD] == 2 and CHANGES[t.change[TRAINED_HEAD]] == "nouns"
    right_a, right_b = loop_test(a, swap.text, "he", "man", "girl", word_b="she")
    assert (t.right_a == right_a).all() and (t.right_b == right_b).all()


def test_every_change_of_top_word_is_sorted_into_one_kind():
    a = "The dog did not cross the river because it was too tired."
    b = "The dog did not cross the river because it was too wide."
    t = pair_test(a, b, "it", ("dog", "river"))

    def labels(words):  # "the#1", "the#2": a word and which of its occurrences
        seen, out = {}, []
        for word in words:
            seen[word.lower()] = seen.get(word.lower(), 0) + 1
            out.append(f"{word.lower()}#{seen[word.lower()]}")
        return np.array(out)

    moved = labels(t.words_a)[t.top_a] != labels(t.words_b)[t.top_b]  # (L, H) another word, or another "the"
    assert t.n_moved == int(moved.sum()) == sum(t.changed(kind) for kind in CHANGES[1:])
    switch = (np.isin(t.top_a, t.switch_a) | np.isin(t.top_b, t.switch_b)) & moved
    assert 0 < t.changed("switch") <= int(switch.sum())


def test_a_sentence_without_the_noun_gets_a_message():
    with pytest.raises(ValueError, match="'table' is not a word of sentence A"):
        pair_test(*STONE, "it", ("table", "window"))
    with pytest.raises(ValueError, match="two different nouns"):
        pair_test(*STONE, "it", ("stone", "stone"))
    with pytest.raises(ValueError, match="'she' is not a word of either"):
        pair_test(*STONE, "she")


@pytest.mark.parametrize(
    ("text", "swapped"),
    [
        ("She thanked the waiter.", "He thanked the waiter."),
        ("The boy lost his hat.", "The boy lost her hat."),
        ("I met her at noon.", "I met him at noon."),
        ("I met her brother.", "I met his brother."),
        ("They helped him and left.", "They helped her and left."),
        ("The cat washed itself.", None),
        ("Theo sheltered here.", None),  # "he" inside a word is no pronoun
    ],
)
def test_swap_pronoun(text, swapped):
    swap = swap_pronoun(text)
    assert (swap.text if swap else None) == swapped


def test_word_weights_of_a_made_up_sentence():
    w = np.eye(5)  # (T, T) every token on itself
    words = [Word("ab", (1, 2)), Word("c", (3,))]
    np.testing.assert_allclose(word_weights(w, words), [[1.0, 0.0], [0.0, 1.0]])
