"""The trained decoder of attention_core.learning: its hand-written backward pass against
central finite differences, the causal mask, every task learned to 95 % held-out accuracy,
training in slices, generation (greedy = argmax, sampling frequencies = probabilities by a
χ² test) and clear errors for bad input.

Training runs once per task for the whole module (the ``trained`` fixture); the file runs in
a few seconds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from attention_core import learning
from attention_core.attention import softmax
from attention_core.learning import (
    DEFAULT_TASK,
    HELD_OUT_EVERY,
    IGNORE,
    TASKS,
    Trainer,
    accuracy,
    decode,
    encode,
    forward,
    generate,
    get_task,
    init_params,
    loss_and_grads,
    make_batch,
    sizes,
    tempered,
    train,
)
from attention_core.masks import causal_mask


def noisy_params(task, seed=0, noise=0.3, **model_sizes):
    """A generic point to test at: seeded initial weights plus N(0, noise²) on every entry, so
    attention is neither uniform nor one-hot and no gradient is zero by symmetry."""
    rng = np.random.default_rng([seed, 99])
    return {k: w + rng.normal(0.0, noise, size=w.shape) for k, w in init_params(task, seed, **model_sizes).items()}


@pytest.fixture(scope="module")
def trained():
    """Every task trained once with its own recipe (Task.steps, Task.lr), seed 0; reused below."""
    cache = {}

    def get(task_id):
        if task_id not in cache:
            cache[task_id] = train(task_id, seed=0)
        return cache[task_id]

    return get


# --------------------------------------------------------------------------- gradients


def finite_difference_grads(params, inputs, targets, keys=None, eps=1e-6):
    """∂loss/∂w for every entry of the weights ``keys`` (all by default), by central differences
    (loss(w + ε) − loss(w − ε)) / 2ε."""
    grads = {}
    for key in params if keys is None else keys:
        w = params[key]
        g = np.zeros_like(w)
        for idx in np.ndindex(w.shape):
            old = w[idx]
            w[idx] = old + eps
            plus, _ = loss_and_grads(params, inputs, targets)
            w[idx] = old - eps
            minus, _ = loss_and_grads(params, inputs, targets)
            w[idx] = old
            g[idx] = (plus - minus) / (2 * eps)
        grads[key] = g
    return grads


@pytest.mark.parametrize(
    ("task", "n_heads", "n_layers"),
    [("induction", 2, 2), ("sort", 1, 1), ("copy", 4, 2)],
)
def test_gradients_match_finite_differences(task, n_heads, n_layers):
    params = noisy_params(task, seed=1, d_model=8, n_heads=n_heads, n_layers=n_layers)
    inputs, targets = make_batch(task, 3, seed=2)
    assert params["layer0.w_q"].dtype == np.float64
    loss, grads = loss_and_grads(params, inputs, targets)
    assert grads.keys() == params.keys()
    numeric = finite_difference_grads(params, inputs, targets)
    for key in params:
        assert grads[key].shape == params[key].shape, key
        diff = np.linalg.norm(grads[key] - numeric[key])
        size = np.linalg.norm(grads[key]) + np.linalg.norm(numeric[key])
        assert size > 0, f"{key}: zero gradient, the check would be vacuous"
        assert diff / size <= 1e-5, (key, diff / size)
        np.testing.assert_allclose(grads[key], numeric[key], rtol=0, atol=1e-7, err_msg=key)


def test_gradient_check_sees_a_wrong_gradient():
    """Guard against a vacuous check: a small error in one backward step is caught."""
    params = noisy_params("copy", seed=1, d_model=8, n_heads=2, n_layers=1)
    inputs, targets = make_batch("copy", 2, seed=2)
    _, grads = loss_and_grads(params, inputs, targets)
    numeric = finite_difference_grads(params, inputs, targets, keys=["layer0.w_k"])["layer0.w_k"]
    assert np.linalg.norm(grads["layer0.w_k"] - numeric) / np.linalg.norm(numeric) < 1e-7
    wrong = grads["layer0.w_k"] * 1.001
    assert np.linalg.norm(wrong - numeric) / np.linalg.norm(numeric) > 1e-5


def test_loss_is_the_mean_cross_entropy_of_the_scored_positions():
    params = noisy_params("reverse")
    inputs, targets = make_batch("reverse", 4, seed=0)
    loss, _ = loss_and_grads(params, inputs, targets)
    probs = forward(params, inputs).probs
    by_hand = [-math.log(probs[b, i, targets[b, i]]) for b in range(4) for i in range(10) if targets[b, i] != IGNORE]
    assert len(by_hand) == 4 * 5
    assert loss == pytest.approx(np.mean(by_hand), rel=1e-12)


# --------------------------------------------------------------------------- the causal mask


@pytest.mark.parametrize("task", ["reverse", "induction"])
def test_no_position_sees_the_future(task):
    """Changing token j changes no logit, weight or residual at a position before j."""
    params = noisy_params(task, n_layers=2)
    ids = make_batch(task, 1, seed=3)[0][0]
    before = forward(params, ids)
    t = len(ids)
    for j in range(t):
        changed = ids.copy()
        changed[j] = (ids[j] + 1) % get_task(task).vocab_size
        after = forward(params, changed)
        np.testing.assert_array_equal(after.logits[:j], before.logits[:j])
        for a, b in zip(after.layers, before.layers):
            np.testing.assert_array_equal(a.outputs[:j], b.outputs[:j])
            np.testing.assert_array_equal(a.attention.weights[:, :j], b.attention.weights[:, :j])
        assert not np.allclose(after.logits[j:], before.logits[j:])  # the change does reach position j on


def test_weights_are_causal_and_come_from_the_shared_mask():
    params = noisy_params("copy")
    f = forward(params, make_batch("copy", 2, seed=0)[0])
    for layer in f.layers:
        w = layer.attention.weights  # (n, H, T, T)
        np.testing.assert_array_equal(w[..., ~causal_mask(10)], 0.0)
        np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
        np.testing.assert_array_equal(layer.attention.mask[0, 0], causal_mask(10))


# --------------------------------------------------------------------------- tasks and batches


@pytest.mark.parametrize("task_id", list(TASKS))
def test_batches_follow_the_task_layout(task_id):
    task = get_task(task_id)
    inputs, targets = make_batch(task, 50, seed=0)
    assert inputs.shape == targets.shape == (50, task.n_positions)
    scored_inputs = [p - 1 for p in task.scored]  # the position whose next token is scored
    assert (targets[:, scored_inputs] != IGNORE).all()
    others = np.setdiff1d(np.arange(task.n_positions), scored_inputs)
    assert (targets[:, others] == IGNORE).all()
    for row, target in zip(inputs, targets):
        text = decode(task, row) + decode(task, target[-1:])
        head, tail = text.split("|")
        if task_id == "copy":
            assert tail == head
        elif task_id == "reverse":
            assert tail == head[::-1]
        elif task_id == "sort":
            assert tail == "".join(sorted(head)) and len(set(head)) == len(head)
        else:
            query, answer = tail
            assert len(set(head)) == len(head) and head.index(query) + 1 == head.index(answer)
    a, b = make_batch(task, 5, seed=7), make_batch(task, 5, seed=7)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("task_id", ["copy", "sort"])
def test_held_out_examples_are_never_trained_on(task_id):
    task = get_task(task_id)
    train_rows = {tuple(r) for r in learning.tasks._batch(task, 4000, [0, learning.TRAIN_STREAM, 0], held_out=False)[0]}
    held_rows = {tuple(r) for r in make_batch(task, 1000, seed=0, held_out=True)[0]}
    assert not train_rows & held_rows
    everything = task.sample(np.random.default_rng(5), 8000)
    share = learning.tasks._held_out(everything).mean()
    assert abs(share - 1 / HELD_OUT_EVERY) < 0.02, share


# --------------------------------------------------------------------------- training


def test_initial_model_guesses_uniformly_and_attends_evenly():
    params = init_params("reverse", seed=0)
    inputs, targets = make_batch("reverse", 256, seed=0)
    loss, _ = loss_and_grads(params, inputs, targets)
    assert loss == pytest.approx(math.log(9), abs=0.1)
    w = forward(params, inputs).layers[0].attention.weights  # (n, H, T, T)
    uniform = causal_mask(10) / np.arange(1, 11)[:, None]  # (T, T): 1/(i+1) on keys 0 … i
    assert np.abs(w - uniform).max() < 0.15


@pytest.mark.parametrize("task_id", list(TASKS))
def test_each_task_is_learned_to_95_percent_held_out(task_id, trained):
    history = trained(task_id)
    task = get_task(task_id)
    assert history.steps == task.steps
    acc = accuracy(history.params, task_id, n=1000, seed=1)
    assert acc >= 0.95, (task_id, acc)
    assert history.loss[-10:].mean() < 0.1 * history.loss[:10].mean()
    assert [s.step for s in history.snapshots] == [s for s in learning.SNAPSHOT_STEPS if s < task.steps] + [task.steps]


def test_induction_needs_two_layers(trained):
    """The task's claim: one layer, with the same recipe, stays far below the two-layer model."""
    one_layer = train("induction", seed=0, n_layers=1)
    assert accuracy(one_layer.params, "induction", n=1000, seed=1) < 0.6
    assert accuracy(trained("induction").params, "induction", n=1000, seed=1) >= 0.95


def test_reverse_learns_the_anti_diagonal(trained):
    """After "|", position p reads position 9 − p (the letter it must output); random W did not."""
    history = trained("reverse")
    rows = np.arange(5, 10)
    first, last = history.snapshots[0].weights[0], history.snapshots[-1].weights[0]  # (H, T, T)
    best = last[:, rows, 9 - rows].max(axis=0)  # the strongest head's weight on the right letter
    assert (best > 0.9).all(), best
    assert (first[:, rows, 9 - rows] < 0.5).all()


def test_training_in_slices_equals_one_run():
    whole = train("copy", steps=25, seed=3)
    trainer = Trainer("copy", seed=3).run(7).run(0).run(18)
    sliced = trainer.history()
    assert trainer.step == 25
    for key in whole.params:
        np.testing.assert_array_equal(sliced.params[key], whole.params[key])
    np.testing.assert_array_equal(sliced.loss, whole.loss)
    assert [s.step for s in sliced.snapshots] == [0, 10, 25]
    with pytest.raises(ValueError):
        sliced.params["unembedding"][0, 0] = 1.0  # read-only


def test_history_records_every_step(trained):
    history = trained(DEFAULT_TASK)
    assert history.loss.shape == history.accuracy.shape == (history.steps,)
    assert history.loss[0] > history.loss[-1]
    assert 0 <= history.accuracy.min() <= history.accuracy.max() <= 1
    snapshot = history.snapshots[-1]
    np.testing.assert_array_equal(snapshot.weights, forward(history.params, history.example).weights)


def test_training_diverges_with_a_clear_message():
    with pytest.raises(ValueError, match="smaller learning rate"):
        Trainer("copy", seed=0, lr=1e300).run(5)


# --------------------------------------------------------------------------- generation


def greedy_by_hand(params, prompt, n):
    sequence = list(prompt)
    for _ in range(n):
        sequence.append(int(np.argmax(forward(params, np.array(sequence)).logits[-1])))
    return sequence[len(prompt) :]


@pytest.mark.parametrize("temperature", [0.0, 1e-12, 1e-3])
def test_temperature_to_zero_is_the_argmax(temperature):
    params = noisy_params("copy", noise=0.5)
    prompt = encode("copy", "hgfa")
    g = generate(params, prompt, 5, temperature=temperature, seed=0)
    assert list(g.tokens) == greedy_by_hand(params, prompt, 5)
    for step in g.steps:
        assert step.sampling_probs[step.token] == pytest.approx(1.0, abs=1e-9)


def test_a_trained_model_reverses_a_typed_prompt(trained):
    g = generate(trained("reverse").params, "cabhe|", 5, temperature=0, task="reverse")
    assert g.text == "ehbac"
    assert decode("reverse", g.sequence) == "cabhe|ehbac"


def test_generation_steps_hold_the_probabilities_and_weights():
    params = noisy_params("sort", noise=0.5)
    g = generate(params, "2750|", 4, temperature=1.5, seed=4, task="sort")
    assert len(g.steps) == 4 and len(g.text) == 4
    for i, step in enumerate(g.steps):
        f = forward(params, g.sequence[: 5 + i])
        assert step.position == 4 + i
        np.testing.assert_allclose(step.probs, f.probs[-1], rtol=1e-12)
        np.testing.assert_allclose(step.sampling_probs, tempered(f.logits[-1], 1.5), rtol=1e-12)
        np.testing.assert_array_equal(step.weights, f.weights)  # (L, H, t, t)
        assert step.token == g.tokens[i]
    again = generate(params, "2750|", 4, temperature=1.5, seed=4, task="sort")
    np.testing.assert_array_equal(again.tokens, g.tokens)


def test_sampling_frequencies_match_the_probabilities():
    """χ² goodness of fit of 3000 first tokens (seeds 0 … 2999) against the model's probabilities."""
    params = noisy_params("copy", noise=0.05)
    params["unembedding"] = np.random.default_rng(11).normal(0.0, 0.12, size=params["unembedding"].shape)
    prompt = encode("copy", "dea")
    probs = forward(params, prompt).probs[-1]
    assert probs.min() > 0.02 and probs.max() < 0.5  # spread: every token is drawn often
    n = 3000
    tokens = [int(generate(params, prompt, 1, temperature=1.0, seed=s).tokens[0]) for s in range(n)]
    counts = np.bincount(tokens, minlength=len(probs))
    assert scipy.stats.chisquare(counts, n * probs).pvalue > 1e-3
    # the test has power: the same counts are far from a uniform draw
    assert scipy.stats.chisquare(counts, np.full(len(probs), n / len(probs))).pvalue < 1e-6


def test_tempered_is_softmax_of_scaled_logits():
    logits = np.array([1.0, -0.5, 2.0, 0.0])
    np.testing.assert_allclose(tempered(logits, 1.0), softmax(logits), rtol=1e-15)
    np.testing.assert_allclose(tempered(logits, 0.5), softmax(2 * logits), rtol=1e-14)
    assert tempered(logits, 1e6).max() - tempered(logits, 1e6).min() < 1e-5  # hot: uniform
    np.testing.assert_array_equal(tempered(logits, 0), [0, 0, 1, 0])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prompt": ""}, "the prompt is empty"),
        ({"prompt": []}, "the prompt is empty"),
        ({"prompt": "abz"}, "'z' is not a token of the copy task"),
        ({"prompt": "ABC"}, "'A', 'B', 'C' are not tokens"),
        ({"prompt": "abc", "temperature": -0.1}, "temperature must be a finite number >= 0"),
        ({"prompt": "abc", "temperature": float("nan")}, "temperature must be"),
        ({"prompt": "abc", "temperature": "hot"}, "temperature must be"),
        ({"prompt": "abc", "n": 0}, "n must be a whole number of tokens >= 1"),
        ({"prompt": "abcde|abcd", "n": 2}, "at most 1 new tokens"),
        ({"prompt": [0, 9]}, "token ids 0 … 8"),
        ({"prompt": [[0, 1]]}, "one sequence of token ids"),
        ({"prompt": "abc", "task": None}, "needs its task"),
        ({"prompt": "abc", "task": "sort"}, "the sort task has 11 tokens"),
    ],
)
def test_generate_rejects_bad_input(kwargs, message):
    params = init_params("copy", seed=0)
    arguments = {"n": 3, "temperature": 1.0, "seed": 0, "task": "copy"} | kwargs
    with pytest.raises(ValueError, match=message):
        generate(params, **arguments)


def test_encode_decode_round_trip_and_errors():
    for task in TASKS.values():
        assert decode(task, encode(task, task.alphabet)) == task.alphabet
        np.testing.assert_array_equal(encode(task, task.alphabet), np.arange(task.vocab_size))
    with pytest.raises(ValueError, match=r"'x' is not a token of the sort task; its tokens are: 0123456789\|"):
        encode("sort", "12x")
    with pytest.raises(ValueError, match="outside the copy task's ids 0 … 8"):
        decode("copy", [0, 9])
    with pytest.raises(ValueError, match="unknown task 'add'; the tasks are reverse, copy, sort, induction"):
        get_task("add")


@pytest.mark.parametrize(
    ("model_sizes", "message"),
    [
        ({"n_layers": 3}, "n_layers must be 1 … 2"),
        ({"n_heads": 5}, "n_heads must be 1 … 4"),
        ({"d_model": 30, "n_heads": 4}, "multiple of n_heads = 4"),
    ],
)
def test_init_params_rejects_bad_sizes(model_sizes, message):
    with pytest.raises(ValueError, match=message):
        init_params("copy", 0, **model_sizes)


def test_other_bad_input():
    params = init_params("copy", seed=0)
    inputs, targets = make_batch("copy", 2, seed=0)
    with pytest.raises(ValueError, match="every target is IGNORE"):
        loss_and_grads(params, inputs, np.full_like(targets, IGNORE))
    with pytest.raises(ValueError, match="this model has 10"):
        forward(params, np.zeros(11, dtype=int))
    with pytest.raises(ValueError, match="for 9 tokens and 10 positions; the sort task has 11 tokens"):
        accuracy(params, "sort")
    with pytest.raises(ValueError, match="learning rate must be a positive number"):
        Trainer("copy", lr=-1.0)
    with pytest.raises(ValueError, match="seed must be an integer"):
        make_batch("copy", 2, seed=-1)
    assert sizes(params) == {"vocab_size": 9, "n_positions": 10, "d_model": 32, "n_layers": 1, "n_heads": 2, "d_k": 16}


def test_the_four_parts_of_a_first_layer_score_add_up_to_the_score(trained):
    """q·k/√d_k of the first layer equals tokens + positions + the two mixed parts of ``qk_circuit``,
    at every pair (i, j) of an example, for every head."""
    params = trained("reverse").params
    ids = learning.encode("reverse", "cabhe|ehba")
    fwd = forward(params, ids)
    for head in range(2):
        c = learning.qk_circuit(params, 0, head)
        scaled = fwd.layers[0].attention.scaled[head]  # (T, T)
        for i in range(len(ids)):
            for j in range(i + 1):
                parts = (
                    c.tokens[ids[i], ids[j]]
                    + c.positions[i, j]
                    + c.token_position[ids[i], j]
                    + c.position_token[i, ids[j]]
                )
                assert parts == pytest.approx(scaled[i, j], abs=1e-9)
            assert c.mixed_spans[0] == pytest.approx(np.ptp(c.token_position))


def test_many_draws_follow_the_tempered_softmax_and_spread_with_the_temperature(trained):
    """``sample_many``'s first tokens are distributed as softmax(z/T) (a chi-square test), and
    after 30 updates a higher temperature writes the greedy text less often and more texts."""
    history = trained("reverse")
    early = next(s for s in history.snapshots if s.step == 30).params
    probs = tempered(forward(early, learning.encode("reverse", "cabhe|")).logits[-1], 1.5)  # (V,)
    draws = learning.sample_many(early, "cabhe|", 1, 1.5, n=4000, seed=2, task="reverse")
    counts = np.bincount(draws.tokens[:, 0], minlength=len(probs))  # (V,)
    keep = probs * 4000 >= 5  # the chi-square test's usual bound on expected counts
    expected = probs[keep] / probs[keep].sum() * counts[keep].sum()
    assert scipy.stats.chisquare(counts[keep], expected).pvalue > 1e-3
    spread = {t: learning.sample_many(early, "cabhe|", 5, t, n=200, task="reverse") for t in (0.5, 1.0, 2.0)}
    assert spread[0.5].n_greedy > spread[1.0].n_greedy > spread[2.0].n_greedy
    assert spread[0.5].n_distinct < spread[1.0].n_distinct < spread[2.0].n_distinct
    final = learning.sample_many(history.params, "cabhe|", 5, 2.0, n=200, task="reverse")
    assert final.n_greedy > 150  # a trained model: even at T = 2 most draws write the greedy text
    assert learning.sample_many(early, "cabhe|", 5, 0.0, n=20, task="reverse").n_greedy == 20
