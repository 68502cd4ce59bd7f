"""What a head does, measured (attention_core.heads, attention_core.attribution).

References, all computed here: loops over the attention weights that transformers' own BertModel
returns (eager attention), the model's own W^V and W^O read from its torch modules, and a fresh
measurement of the probe set against the stored census. The claims the app prints about a head
(the default head's job, the heads with a clear job, the cautionary pronoun head) are recomputed
here from those numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_core.attribution import rollout, row_shares, value_norms
from attention_core.encoder import encode
from attention_core.heads import (
    CENSUS_FILE,
    ROLES,
    best_heads,
    census,
    census_key,
    contrast,
    heads_with_a_job,
    is_punctuation,
    looks_most,
    measure,
    profile,
    read_census,
    role_scores,
    weights_role_scores,
    word_position,
)
from attention_core.lesson import TRAINED_HEAD
from attention_core.probes import load_probes
from tests.helpers import ROOT

OUR_SENTENCES = [  # written for this test, not in the probe set
    "My aunt keeps three noisy geese, a goat and one very patient donkey.",
    "Why would anyone paint the kitchen ceiling purple?",
    "Rain fell; the match went on; nobody left the stands.",
    "the the the cat",
]


def loop_roles(w, tokens) -> dict[str, np.ndarray]:
    """The roles of ``heads.ROLES`` written out with Python loops over heads, rows and keys."""
    n_layers, n_heads, T, _ = w.shape
    out = {role: np.zeros((n_layers, n_heads)) for role in ROLES}
    punct = [j for j, tok in enumerate(tokens) if tok in {".", ",", ";", "?", "!", ":"}]
    for layer in range(n_layers):
        for head in range(n_heads):
            rows = range(1, T - 1)
            a = w[layer, head]
            out["previous"][layer, head] = sum(a[i, i - 1] for i in rows) / len(rows)
            out["next"][layer, head] = sum(a[i, i + 1] for i in rows) / len(rows)
            out["self"][layer, head] = sum(a[i, i] for i in rows) / len(rows)
            out["cls"][layer, head] = sum(a[i, 0] for i in rows) / len(rows)
            out["sep"][layer, head] = sum(a[i, T - 1] for i in rows) / len(rows)
            out["punctuation"][layer, head] = (
                sum(sum(a[i, j] for j in punct) for i in rows) / len(rows) if punct else np.nan
            )
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
    assert roles["previous"] == pytest.approx(0.4 / 4)  # row 1's previous token is [CLS]
    assert roles["next"] == roles["sep"] == 0.0
    assert roles["punctuation"] == pytest.approx(0.6 / 4)  # only row 3 (",") puts weight on ","
    assert roles["favourite"] == pytest.approx(1 / 4)  # each row peaks on a different word: itself
    entropy = -(0.4 * np.log(0.4) + 0.6 * np.log(0.6)) / np.log(6)
    assert roles["entropy"] == pytest.approx(entropy)
    with pytest.raises(ValueError, match="3 positions, while there are 4 tokens"):
        weights_role_scores(np.eye(3), ["[CLS]", "a", "b", "[SEP]"])
    with pytest.raises(ValueError, match="at least one word piece"):
        weights_role_scores(np.eye(2), ["[CLS]", "[SEP]"])


def test_looks_most_leaves_out_markers_and_the_word_itself():
    w = np.array([[[0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1]]])  # (1, 2, 4): row 0 of two heads
    keys, weight = looks_most(np.stack([np.tile(w[0, h], (4, 1)) for h in range(2)]), ["[CLS]", "a", "b", "[SEP]"], 1)
    assert keys.tolist() == [2, 2] and weight.tolist() == pytest.approx([0.1, 0.7])
    with pytest.raises(ValueError, match="is not one of the tokens"):
        word_position(["[CLS]", "x", "[SEP]"], "it")


def test_the_stored_census_is_what_a_fresh_measurement_gives():
    key = census_key()
    stored = read_census(key, CENSUS_FILE)
    assert stored is not None, f"{CENSUS_FILE} is stale: run `python -m attention_core.heads`"
    fresh = measure(load_probes())
    for role in ROLES:
        np.testing.assert_allclose(stored.roles[role], fresh.roles[role], atol=2e-6, err_msg=role)
    np.testing.assert_allclose(stored.pair_weights, fresh.pair_weights, atol=2e-6)
    np.testing.assert_allclose(stored.agreement_weights, fresh.agreement_weights, atol=2e-6)
    assert stored.n_plain == fresh.n_plain == len(load_probes().plain)
    assert (stored.pairs_resolved == fresh.pairs_resolved).all()
    assert (stored.agreement_correct == fresh.agreement_correct).all()
    assert read_census({**key, "probes_sha256": "0" * 64}) is None  # other probes: measured again


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
    # The default head is the best he/she head and has that job by the JOBS bar.
    (layer, head, score), *_ = best_heads(found.agreement_correct, 1)
    assert (layer, head) == TRAINED_HEAD
    jobs = {job.job: job for job in heads_with_a_job(found)}
    assert (jobs["agreement"].layer, jobs["agreement"].head) == TRAINED_HEAD
    assert (jobs["previous"].layer, jobs["previous"].head) == (0, 2) and jobs["previous"].score > 0.99
    p = profile(found, *TRAINED_HEAD)
    assert p.agreement_correct >= 0.9 * p.n_agreement and p.agreement_referent > 4 * p.agreement_other
    assert p.top[0][0] == "cls"  # most of its other rows rest on [CLS]
    # The head the app used to open on has no pronoun job: on the minimal pairs its answer hardly changes.
    old = profile(found, 5, 11)
    assert old.pairs_same >= 0.9 * old.n_pairs and old.pairs_resolved <= 0.1 * old.n_pairs
    # No head resolves the minimal pairs better than a coin would (about a quarter).
    assert found.pairs_resolved.max() <= 0.3 * found.n_pairs


def test_contrast_flips_for_he_and_she_on_the_default_head():
    with pytest.raises(ValueError, match="is not one of the tokens"):  # the word must be in both sentences
        contrast("The boy thanked the girl because she had helped.", "The boy thanked the girl because he had.", "she")
    c = contrast("The king waved to the queen as she left.", "The queen waved to the king as she left.", "she")
    layer, head = TRAINED_HEAD
    assert c.tokens_a[c.key_a[layer, head]] == "queen" and c.tokens_b[c.key_b[layer, head]] == "queen"
    assert c.changed.shape == (6, 12) and c.n_changed == int(c.changed.sum())
    # An answer "changes" when the chosen word differs, even at the same position.
    expected = np.array(
        [
            [c.tokens_a[c.key_a[l, h]] != c.tokens_b[c.key_b[l, h]] for h in range(12)]
            for l in range(6)  # noqa: E741
        ]
    )
    assert (c.changed == expected).all()


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
    """The README and the TRAINED_HEAD docstring quote the census: they must say what it measures."""
    found = census()
    p = profile(found, *TRAINED_HEAD)
    readme = (ROOT / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    shown = f"layer {TRAINED_HEAD[0] + 1}, head {TRAINED_HEAD[1] + 1}"
    assert f"{shown}, which sends" in readme
    assert f"in {p.agreement_correct} of {p.n_agreement} of our probe sentences" in readme
    assert f"on our {found.n_pairs} minimal pairs" in readme
    assert f"no head resolves more than {int(found.pairs_resolved.max())}," in readme
    lesson_source = (ROOT / "attention_core" / "lesson.py").read_text(encoding="utf-8").replace("\n", " ")
    assert f"in {p.agreement_correct} of {p.n_agreement} sentences" in lesson_source
