"""What a head does, measured (attention_core.heads, attention_core.attribution).

References, all computed here: loops over the attention weights that transformers' own BertModel
returns (eager attention), the model's own W^V and W^O read from its torch modules, and a fresh
measurement of the probe set against the stored census. The claims the app prints about a head
(the default head's job, the heads with a clear job, the cautionary pronoun head) are recomputed
here from those numbers.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from attention_core.attribution import rollout, row_shares, value_norms
from attention_core.encoder import encode
from attention_core.head_roles import (
    ROLES,
    WEIGHT_ROLES,
    is_punctuation,
    looks_most,
    role_scores,
    weights_role_scores,
    word_position,
)
from attention_core.heads import (
    CENSUS_FILE,
    best_heads,
    census,
    census_key,
    heads_with_a_job,
    measure,
    parking_heads,
    profile,
    read_census,
)
from attention_core.lesson import TRAINED_HEAD
from attention_core.probes import HELD_OUT_FILE, Probes, load_probes
from attention_ui.i18n import translate
from tests.helpers import ROOT

OUR_SENTENCES = [  # written for this test, not in the probe set
    "My aunt keeps three noisy geese, a goat and one very patient donkey.",
    "Why would anyone paint the kitchen ceiling purple?",
    "Rain fell; the match went on; nobody left the stands.",
    "the the the cat",
]


def loop_roles(w, tokens) -> dict[str, np.ndarray]:
    """The roles of ``heads.ROLES`` written out with Python loops over heads, rows and keys:
    each key of a row goes to the first part it fits ([CLS], [SEP], itself, previous, next,
    punctuation, the rest)."""
    n_layers, n_heads, T, _ = w.shape
    out = {role: np.zeros((n_layers, n_heads)) for role in ROLES}
    punct = {j for j, tok in enumerate(tokens) if tok in {".", ",", ";", "?", "!", ":"}}
    for layer in range(n_layers):
        for head in range(n_heads):
            rows = range(1, T - 1)
            a = w[layer, head]
            for i in rows:
                for j in range(T):
                    if j == 0:
                        part = "cls"
                    elif j == T - 1:
                        part = "sep"
                    elif j == i:
                        part = "self"
                    elif j == i - 1:
                        part = "previous"
                    elif j == i + 1:
                        part = "next"
                    elif j in punct:
                        part = "punctuation"
                    else:
                        part = "rest"
                    out[part][layer, head] += a[i, j] / len(rows)
            peaks = [max(range(T), key=lambda j, i=i: a[i, j]) for i in rows]
            counts = [peaks.count(j) for j in range(1, T - 1)]
            out["favourite"][layer, head] = max(counts) / len(rows)
            entropies = [-sum(p * np.log(p) for p in a[i] if p > 0) for i in rows]
            out["entropy"][layer, head] = sum(entropies) / len(rows) / np.log(T)
    return out


@pytest.fixture(scope="module")
def library():
    from attention_core.model_reference import load_model

    return load_model()


def their_weights(library, text):
    """transformers' tokens and attention probabilities, (L, H, T, T), for ``text``."""
    import torch

    encoded = library.tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        out = library[0].auto_model(**encoded, output_attentions=True, output_hidden_states=True)
    tokens = library.tokenizer.convert_ids_to_tokens(encoded["input_ids"][0].tolist())
    weights = np.stack([a[0].double().numpy() for a in out.attentions])
    hidden = np.stack([h[0].double().numpy() for h in out.hidden_states])
    return tokens, weights, hidden


@pytest.mark.parametrize("text", OUR_SENTENCES)
def test_role_scores_equal_loops_over_the_models_own_attentions(library, text):
    tokens, theirs, _ = their_weights(library, text)
    ours = role_scores(text)
    expected = loop_roles(theirs, tokens)
    assert list(encode(text).tokens) == tokens
    for role in ROLES:
        np.testing.assert_allclose(ours[role], expected[role], atol=1e-5, err_msg=role)


def test_punctuation_is_unicode_punctuation():
    assert is_punctuation("，") and is_punctuation("...") and is_punctuation("—")
    assert not is_punctuation("[SEP]") and not is_punctuation("a.") and not is_punctuation("")


def test_roles_of_a_made_up_head_are_what_its_rows_say():
    tokens = ["[CLS]", "a", "b", ",", "c", "[SEP]"]
    w = np.zeros((6, 6))
    w[:, 0] = 0.4
    w[np.arange(6), np.arange(6)] += 0.6  # 0.4 on [CLS], 0.6 on itself
    roles = weights_role_scores(w, tokens)
    assert roles["cls"] == pytest.approx(0.4) and roles["self"] == pytest.approx(0.6)
    assert roles["previous"] == 0.0  # row 1's previous token is [CLS]: counted once, as [CLS]
    assert roles["next"] == roles["sep"] == roles["punctuation"] == roles["rest"] == 0.0  # "," on "," is itself
    assert roles["favourite"] == pytest.approx(1 / 4)  # each row peaks on a different word: itself
    entropy = -(0.4 * np.log(0.4) + 0.6 * np.log(0.6)) / np.log(6)
    assert roles["entropy"] == pytest.approx(entropy)
    far = np.zeros((6, 6))
    far[:, 3] = 1.0  # every row on the comma
    roles = weights_role_scores(far, tokens)
    # row "a" (two before it) counts it as punctuation, "b" as next, "," as itself, "c" as previous
    shares = (roles["punctuation"], roles["next"], roles["self"], roles["previous"])
    assert shares == pytest.approx((0.25, 0.25, 0.25, 0.25))
    with pytest.raises(ValueError, match="3 positions, while there are 4 tokens"):
        weights_role_scores(np.eye(3), ["[CLS]", "a", "b", "[SEP]"])
    with pytest.raises(ValueError, match="at least one word piece"):
        weights_role_scores(np.eye(2), ["[CLS]", "[SEP]"])


def test_a_heads_shares_add_up_to_at_most_one_for_every_head():
    """The parts of a row are disjoint: on every sentence and every head they add up to 1 (the
    stored census keeps 7 digits), so a summary never lists shares above 100 %."""
    for found in (census(), census().held_out):
        total = sum(found.roles[role] for role in WEIGHT_ROLES)  # (L, H)
        np.testing.assert_allclose(total, 1.0, atol=1e-5)
        for layer, head in np.ndindex(total.shape):
            p = profile(found, layer, head)
            assert sum(share for _, share in p.top) + p.roles["rest"] <= 1 + 1e-5
    roles = role_scores(OUR_SENTENCES[2])  # (L, H) each, fresh
    np.testing.assert_allclose(sum(roles[role] for role in WEIGHT_ROLES), 1.0, atol=1e-12)


def test_looks_most_leaves_out_markers_and_the_word_itself():
    w = np.array([[[0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1]]])  # (1, 2, 4): row 0 of two heads
    keys, weight = looks_most(np.stack([np.tile(w[0, h], (4, 1)) for h in range(2)]), ["[CLS]", "a", "b", "[SEP]"], 1)
    assert keys.tolist() == [2, 2] and weight.tolist() == pytest.approx([0.1, 0.7])
    with pytest.raises(ValueError, match="is not one of the tokens"):
        word_position(["[CLS]", "x", "[SEP]"], "it")


def _sample(probes: Probes, step: int) -> Probes:
    """Every ``step``-th pair and he/she sentence of ``probes``, and no plain sentence."""
    return Probes(pairs=probes.pairs[::step], agreement=probes.agreement[::step], plain=probes.plain[:2])


@pytest.mark.parametrize("which", ["chosen_on", "held_out"])
def test_the_stored_roles_are_what_a_fresh_measurement_gives(which):
    """Every plain sentence of one set measured again: the stored means and spreads."""
    key = census_key()
    stored = read_census(key, CENSUS_FILE)
    assert stored is not None, f"{CENSUS_FILE} is stale: run `python -m attention_core.heads`"
    stored = stored if which == "chosen_on" else stored.held_out
    probes = load_probes() if which == "chosen_on" else load_probes(HELD_OUT_FILE)
    fresh = measure(Probes(pairs=(), agreement=(), plain=probes.plain))
    for role in ROLES:
        np.testing.assert_allclose(stored.roles[role], fresh.roles[role], atol=2e-6, err_msg=role)
        np.testing.assert_allclose(stored.spread[role], fresh.spread[role], atol=2e-6, err_msg=role)
    assert stored.n_plain == fresh.n_plain == len(probes.plain)
    assert read_census({**key, "probes_sha256": "0" * 64}) is None  # other probes: measured again
    assert read_census({**key, "held_out_sha256": "0" * 64}) is None


def test_the_stored_pronoun_weights_are_what_a_fresh_measurement_gives():
    """Every fourth pair and he/she sentence of both sets (and its he ↔ she swap) measured again."""
    stored = census()
    for found, probes in ((stored, load_probes()), (stored.held_out, load_probes(HELD_OUT_FILE))):
        assert (found.n_pairs, found.n_agreement) == (len(probes.pairs), len(probes.agreement))
        fresh = measure(_sample(probes, 4))
        np.testing.assert_allclose(found.pair_weights[::4], fresh.pair_weights, atol=2e-6)
        np.testing.assert_allclose(found.agreement_weights[::4], fresh.agreement_weights, atol=2e-6)
        np.testing.assert_allclose(found.swap_weights[::4], fresh.swap_weights, atol=2e-6)


def test_pronoun_figures_equal_loops_over_the_models_own_attentions(library):
    """Every pair and agreement sentence through transformers, counted here with plain loops."""
    probes, found = load_probes(), census()
    resolved = np.zeros((6, 12), dtype=int)
    for pair in probes.pairs:
        picks = []
        for text in (pair.a, pair.b):
            tokens, w, _ = their_weights(library, text)
            i = tokens.index(pair.word)
            j_a, j_b = tokens.index(pair.referent_a), tokens.index(pair.referent_b)
            picks.append(np.where(w[:, :, i, j_a] >= w[:, :, i, j_b], 0, 1))
        resolved += (picks[0] == 0) & (picks[1] == 1)
    correct = np.zeros((6, 12), dtype=int)
    for s in probes.agreement:
        tokens, w, _ = their_weights(library, s.text)
        i, j, o = tokens.index(s.word), tokens.index(s.referent), tokens.index(s.other)
        correct += w[:, :, i, j] > w[:, :, i, o]
    assert (found.pairs_resolved == resolved).all()
    assert (found.agreement_correct == correct).all()


def test_the_claims_the_app_makes_about_heads():
    """The numbers the pages print, recomputed: if the model or the probes change, the text must too."""
    found = census()
    # The default head is the best he/she head on the set heads are chosen on, and has that job.
    (layer, head, score), *_ = best_heads(found.agreement_correct, 1)
    assert (layer, head) == TRAINED_HEAD
    jobs = {job.job: job for job in heads_with_a_job(found)}
    assert (jobs["agreement"].layer, jobs["agreement"].head) == TRAINED_HEAD
    assert (jobs["previous"].layer, jobs["previous"].head) == (0, 2) and jobs["previous"].score > 0.9
    # ... and keeps it on the held-out sentences, with a Wilson interval above chance.
    held = jobs["agreement"].held_out
    assert held.count == found.held_out.agreement_correct[TRAINED_HEAD] and held.low > 0.75
    p = profile(found.held_out, *TRAINED_HEAD)
    assert p.agreement_referent > 4 * p.agreement_other and p.swap_moved >= 0.85 * p.n_agreement
    assert p.top[0][0] == "cls"  # most of its other rows rest on [CLS]
    # The head the app used to open on has no pronoun job: on the minimal pairs its choice hardly changes.
    for pairs in (found, found.held_out):
        old = profile(pairs, 5, 11)
        assert old.pairs_same >= 0.9 * old.n_pairs and old.pairs_resolved <= 0.1 * old.n_pairs
    # No head resolves the minimal pairs better than a coin would (about a quarter).
    assert found.pairs_resolved.max() <= 0.3 * found.n_pairs
    assert found.held_out.pairs_resolved.max() <= 0.3 * found.held_out.n_pairs
    # Heads park on [CLS], not on [SEP] (BERT-base, in Clark et al., parks on [SEP]).
    assert parking_heads(found, ("cls",)) >= 25 and parking_heads(found, ("sep",)) == 0


def test_a_swapped_pronoun_moves_the_default_heads_choice_in_a_loop():
    """The he ↔ she swap counted with a loop over the held-out sentences, read from the file."""
    probes = load_probes(HELD_OUT_FILE)
    moved = 0
    for s in probes.agreement:
        picks = []
        for text, word in ((s.text, s.word), (s.swapped.text, s.swapped.word)):
            trace = encode(text)
            tokens = list(trace.tokens)
            w = trace.weights[TRAINED_HEAD][tokens.index(word)]  # (T,) the pronoun's row
            picks.append(w[tokens.index(s.referent)] > w[tokens.index(s.other)])
        changed = [(x, y) for x, y in zip(s.text.split(), s.swapped.text.split()) if x != y]
        assert [(x.lower(), y.lower()) for x, y in changed] == [(s.word, s.swapped.word)]  # only the pronoun
        moved += picks[0] != picks[1]
    assert moved == census().held_out.swap_moved[TRAINED_HEAD]


def test_value_norms_equal_the_models_own_value_and_output_layers(library):
    """‖α̂_ij v_j W^O_h‖ from transformers' hidden states, W^V and W^O, with a loop over i, j."""
    text = OUR_SENTENCES[0]
    tokens, w, hidden = their_weights(library, text)
    bert = library[0].auto_model
    ours_trace = encode(text)
    for layer, head in [(0, 2), TRAINED_HEAD, (5, 11)]:
        block = bert.encoder.layer[layer].attention
        d = 32
        w_v = block.self.value.weight.detach().double().numpy()[head * d : (head + 1) * d]  # (d, 384), torch (out, in)
        b_v = block.self.value.bias.detach().double().numpy()[head * d : (head + 1) * d]
        w_o = block.output.dense.weight.detach().double().numpy()[:, head * d : (head + 1) * d]  # (384, d)
        x = hidden[layer]
        expected = np.zeros((len(tokens), len(tokens)))
        for i in range(len(tokens)):
            for j in range(len(tokens)):
                v_j = w_v @ x[j] + b_v
                expected[i, j] = np.linalg.norm(w[layer, head, i, j] * (w_o @ v_j))
        np.testing.assert_allclose(value_norms(ours_trace, layer, head), expected, rtol=1e-4, atol=1e-5)
    shares = row_shares(value_norms(ours_trace, *TRAINED_HEAD))
    np.testing.assert_allclose(shares.sum(axis=-1), 1.0)


def test_rollout_equals_a_loop_over_layers():
    w = encode(OUR_SENTENCES[1]).weights  # (L, H, T, T)
    L, H, T, _ = w.shape
    expected = np.eye(T)
    for layer in range(L):
        a = np.zeros((T, T))
        for i in range(T):
            for j in range(T):
                a[i, j] = 0.5 * sum(w[layer, h, i, j] for h in range(H)) / H + (0.5 if i == j else 0.0)
            a[i] /= a[i].sum()
        expected = a @ expected
        np.testing.assert_allclose(rollout(w)[layer], expected, atol=1e-12)
    np.testing.assert_allclose(rollout(w).sum(axis=-1), 1.0)


def test_numbers_written_in_the_docs_are_the_census():
    """The README and the TRAINED_HEAD docstring quote the census: they must say what it measures,
    the default head's figure held-out, with its interval."""
    from attention_core.heads import choose
    from attention_ui.head_claims import interval

    found = census()
    chosen, held = profile(found, *TRAINED_HEAD), profile(found.held_out, *TRAINED_HEAD)
    (agreement,) = choose(found, "agreement", 1)
    (pairs,) = choose(found, "pairs", 1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    shown = f"layer {TRAINED_HEAD[0] + 1}, head {TRAINED_HEAD[1] + 1}"
    assert f"{shown}, which sends" in readme
    english = partial(translate, "en")
    assert f"in {held.agreement_correct} of {held.n_agreement} of our held-out probe sentences" in readme
    assert f"(95% interval {interval(agreement.held_out, english)})" in readme
    assert f"on our {found.n_pairs} minimal pairs" in readme
    assert f"no head resolves more than {int(found.pairs_resolved.max())}," in readme
    assert f"fewer than the {round(found.n_pairs / 4)} a coin would" in readme
    assert f"resolves {pairs.held_out.count} of the {pairs.held_out.n} held-out pairs" in readme
    assert f"(95% interval {interval(pairs.held_out, english)})" in readme
    assert "| Watch a head learn | `/learn` |" in readme
    lesson_source = (ROOT / "attention_core" / "lesson.py").read_text(encoding="utf-8").replace("\n", " ")
    assert f"in {chosen.agreement_correct} of {chosen.n_agreement} sentences, the most of any head" in lesson_source
    assert f"held-out set, in {held.agreement_correct} of {held.n_agreement} sentences" in lesson_source


def test_the_readme_lists_every_page():
    from attention_ui.registry import PAGES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [entry.id for entry in PAGES[1:] if f"| `/{entry.id}` |" not in readme]
    assert not missing, f"pages missing from the README's table: {missing}"
