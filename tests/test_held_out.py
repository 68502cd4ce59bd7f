"""Choose on one set, report on another: the heads page's figures for a chosen head come from
held-out sentences that played no part in choosing it.

Checked here: the two probe files share no sentence (also tests/test_head_probes.py), the stored
census was measured on exactly those files, ``heads.choose`` reads only the choosing set, and
every held-out figure the page prints for a chosen head is recomputed from the held-out file
with a loop over the model's weights, its interval with SciPy.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest
from scipy import stats

from attention_core.encoder import encode
from attention_core.heads import CENSUS_FILE, census, census_key, choose, read_census
from attention_core.lesson import TRAINED_HEAD
from attention_core.probes import HELD_OUT_FILE, PROBES_FILE, load_probes


def _sentences(probes) -> set[str]:
    found = [text for p in probes.pairs for text in (p.a, p.b)] + [s.text for s in probes.agreement]
    return {" ".join(s.lower().split()) for s in found + list(probes.plain)}


def test_the_census_is_measured_on_two_separate_files():
    key = census_key()
    assert key["probes_sha256"] == hashlib.sha256(PROBES_FILE.read_bytes()).hexdigest()
    assert key["held_out_sha256"] == hashlib.sha256(HELD_OUT_FILE.read_bytes()).hexdigest()
    assert read_census(key, CENSUS_FILE) is not None, "the stored census is stale: python -m attention_core.heads"
    chosen_on, held_out = load_probes(PROBES_FILE), load_probes(HELD_OUT_FILE)
    assert not _sentences(chosen_on) & _sentences(held_out)
    found = census()
    assert (found.n_pairs, found.n_agreement, found.n_plain) == (
        len(chosen_on.pairs),
        len(chosen_on.agreement),
        len(chosen_on.plain),
    )
    h = found.held_out
    assert (h.n_pairs, h.n_agreement, h.n_plain) == (len(held_out.pairs), len(held_out.agreement), len(held_out.plain))
    assert h.held_out is None


def _shuffled(census_, seed: int):
    """``census_`` with its heads shuffled (every measure moves to another head)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(census_.roles["previous"].size)

    def shuffle(x):
        x = np.array(x)  # (..., L, H)
        flat = x.reshape(*x.shape[:-2], -1)  # (..., L·H)
        return flat[..., order].reshape(x.shape)

    return dataclasses.replace(
        census_,
        roles={role: shuffle(v) for role, v in census_.roles.items()},
        spread={role: shuffle(v) for role, v in census_.spread.items()},
        pair_weights=shuffle(census_.pair_weights),
        agreement_weights=shuffle(census_.agreement_weights),
        swap_weights=shuffle(census_.swap_weights),
    )


@pytest.mark.parametrize("measure", ["agreement", "swap", "pairs", "shift", "previous", "next"])
def test_choosing_reads_only_the_set_heads_are_chosen_on(measure):
    """Whatever the held-out sentences say, the same heads are chosen, and their held-out
    figures are read for them afterwards; shuffle the choosing set's heads and the choice moves."""
    found = census()
    picked = [(c.layer, c.head, c.chosen_on) for c in choose(found, measure, 5)]
    for seed in range(3):
        other = choose(dataclasses.replace(found, held_out=_shuffled(found.held_out, seed)), measure, 5)
        assert [(c.layer, c.head, c.chosen_on) for c in other] == picked
        assert [c.held_out for c in other] != [c.held_out for c in choose(found, measure, 5)]
    moved = choose(dataclasses.replace(_shuffled(found, 7), held_out=found.held_out), measure, 5)
    assert [(c.layer, c.head) for c in moved] != [(layer, head) for layer, head, _ in picked]
    assert [c.chosen_on for c in moved] == [score for _, _, score in picked]  # the same scores, other heads


def _loop_counts(layer: int, head: int) -> dict[str, int]:
    """Held-out counts of one head from the file, with a loop over the model's weights."""
    probes = load_probes(HELD_OUT_FILE)

    def weight(text, word, noun) -> float:
        trace = encode(text)
        tokens = list(trace.tokens)
        return float(trace.weights[layer, head, tokens.index(word), tokens.index(noun)])

    agreement = sum(weight(s.text, s.word, s.referent) > weight(s.text, s.word, s.other) for s in probes.agreement)
    resolved = shifted = 0
    for p in probes.pairs:
        a = [weight(p.a, p.word, n) for n in (p.referent_a, p.referent_b)]
        b = [weight(p.b, p.word, n) for n in (p.referent_a, p.referent_b)]
        resolved += a[0] > a[1] and b[1] > b[0]
        shifted += a[0] - a[1] > b[0] - b[1]
    return {"agreement": agreement, "pairs": resolved, "shift": shifted, "n_agreement": len(probes.agreement)}


@pytest.mark.parametrize("measure", ["agreement", "pairs", "shift"])
def test_the_held_out_figures_of_the_chosen_heads_are_recomputed_from_the_file(measure):
    """The best head of each counted measure (the default head for he/she): its held-out count
    from the file, and its Wilson interval from SciPy."""
    best = choose(census(), measure, 1)[0]
    if measure == "agreement":
        assert (best.layer, best.head) == TRAINED_HEAD
    counts = _loop_counts(best.layer, best.head)
    assert best.held_out.count == counts[measure]
    ci = stats.binomtest(counts[measure], best.held_out.n).proportion_ci(method="wilson")
    assert (best.held_out.low, best.held_out.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert best.held_out.n == (
        counts["n_agreement"] if measure == "agreement" else len(load_probes(HELD_OUT_FILE).pairs)
    )
