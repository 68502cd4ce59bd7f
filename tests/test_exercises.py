"""Exercises: the checking accepts right answers and explains wrong ones, the expected answers
agree with an independent computation written here (plain loops and math.exp), the seeds
give the same exercise in a fresh process, and the page works in English and Chinese."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attention_core import LessonSettings, ToyEmbedder, build_lesson
from attention_core import exercises as ex
from attention_core.lesson import STEPS
from attention_ui.i18n import translate

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
SEEDS = [0, 1, 2, 7, 42, 999_999]


def loop_weights(q_row, keys, scale):
    """softmax_j(scale · q·k_j) with Python loops and math.exp: the reference."""
    scores = [sum(a * b for a, b in zip(q_row, k)) for k in keys]
    m = max(s * scale for s in scores)
    exps = [math.exp(s * scale - m) for s in scores]
    total = sum(exps)
    return scores, [e / total for e in exps]


# --------------------------------------------------------------------------- seeds


def test_check_seed_and_rng():
    assert ex.check_seed(0) == 0 and ex.check_seed(ex.MAX_SEED - 1) == ex.MAX_SEED - 1
    for bad in (-1, ex.MAX_SEED, 1.5, "3", None, float("nan"), 10**30):
        with pytest.raises(ValueError):
            ex.check_seed(bad)
    with pytest.raises(ValueError):
        ex.exercise_rng(1, "no_such_kind")


def _fingerprint(seeds) -> dict:
    out = {}
    for s in seeds:
        a, b, o, n = ex.attend_exercise(s), ex.by_hand_exercise(s), ex.order_exercise(s), ex.no_scaling_exercise(s)
        out[str(s)] = {
            "attend": [list(a.word_ids), a.query, [round(float(x), 12) for x in a.weights]],
            "by_hand": [b.q.tolist(), b.k.tolist()],
            "order": list(o.shuffled),
            "no_scaling": [n.d_k, list(n.options), round(n.raw_max_weight, 12)],
        }
    return out


def test_same_seed_same_exercise_in_a_fresh_process():
    """Python's hash() changes between processes (PYTHONHASHSEED); the exercises must not."""
    code = "import json; from tests.test_exercises import _fingerprint, SEEDS; print(json.dumps(_fingerprint(SEEDS)))"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == _fingerprint(SEEDS)


def test_different_seeds_give_different_exercises():
    prints = _fingerprint(range(20))
    for kind in ("attend", "by_hand", "order"):
        assert len({json.dumps(p[kind]) for p in prints.values()}) >= 15, kind


# --------------------------------------------------------------------------- (a) attend


@pytest.mark.parametrize("seed", SEEDS)
def test_attend_answer_is_the_independent_argmax(seed):
    e = ex.attend_exercise(seed)
    assert 4 <= len(e.tokens) <= 6 and len(set(e.word_ids)) == len(e.word_ids)
    assert list(e.tokens) == [ex.VOCAB[w] for w in e.word_ids]
    # rebuild the q and k of the generated sentence, then weights by loops
    lesson = build_lesson(" ".join(e.tokens), ToyEmbedder(dim=8), LessonSettings(d_k=4, seed=seed % 10_000))
    q, k = lesson.trace.q, lesson.trace.k
    scores, weights = loop_weights(q[e.query], k, 1 / math.sqrt(q.shape[1]))
    np.testing.assert_allclose(e.scores, scores, atol=1e-12)
    np.testing.assert_allclose(e.weights, weights, atol=1e-12)
    best = max(range(len(weights)), key=lambda j: weights[j])
    assert best in e.answers
    assert max(range(len(scores)), key=lambda j: scores[j]) == best  # softmax keeps the order
    right = ex.check_attend(e, best)
    assert right.correct and right.answer == best and right.chosen_weight == pytest.approx(weights[best])
    for j in range(len(e.tokens)):
        if j in e.answers:
            continue
        wrong = ex.check_attend(e, j)
        assert not wrong.correct and wrong.answer == j and wrong.expected == best
        assert wrong.chosen_score == pytest.approx(scores[j]) and wrong.chosen_weight == pytest.approx(weights[j])
        assert wrong.best_weight == pytest.approx(weights[best]) and weights[best] > wrong.chosen_weight


@pytest.mark.parametrize("bad", [None, -1, 99, "x", 1.5, float("nan")])
def test_attend_bad_answers_are_wrong_not_errors(bad):
    r = ex.check_attend(ex.attend_exercise(3), bad)
    assert not r.correct and r.answer is None and r.chosen_weight is None


def test_attend_on_the_learners_lesson():
    lesson = build_lesson("我 爱 the cat <script>", ToyEmbedder(dim=8))
    e = ex.attend_from_trace(lesson.trace, lesson.tokens, seed=11)
    assert e.word_ids is None and list(e.tokens) == lesson.tokens
    _, weights = loop_weights(lesson.trace.q[e.query], lesson.trace.k, lesson.trace.scale)
    assert ex.check_attend(e, int(np.argmax(weights))).correct
    with pytest.raises(ValueError):
        ex.attend_from_trace(lesson.trace, lesson.tokens[:-1], seed=1)


def test_attend_tie_accepts_every_tied_key():
    from attention_core import scaled_dot_product_attention

    q = np.array([[1.0, 0.0]] * 3)  # (3, 2)
    k = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # keys 0 and 1 tie for every query
    e = ex.attend_from_trace(scaled_dot_product_attention(q, k, k), ["a", "b", "c"], seed=0)
    assert e.answers == (0, 1)
    assert ex.check_attend(e, 0).correct and ex.check_attend(e, 1).correct and not ex.check_attend(e, 2).correct


# --------------------------------------------------------------------------- (b) by hand


@pytest.mark.parametrize("seed", SEEDS)
def test_by_hand_example_and_its_numbers(seed):
    e = ex.by_hand_exercise(seed)
    low, high = ex.BY_HAND_RANGE
    assert e.q.shape == (2,) and e.k.shape == (3, 2)
    assert all(float(x).is_integer() and low <= x <= high for x in [*e.q, *e.k.ravel()])
    assert len({tuple(r) for r in e.k}) == 3 and e.q.any()
    scores, weights = loop_weights(e.q, e.k, 1 / math.sqrt(2))
    np.testing.assert_allclose(e.scores, scores, atol=0)
    np.testing.assert_allclose(e.weights, weights, atol=1e-12)
    # the hand method shown to learners: e^(score/√2), divided by the sum
    hand = [math.exp(s / math.sqrt(2)) for s in scores]
    np.testing.assert_allclose(e.exps, hand, rtol=1e-12)
    assert e.total == pytest.approx(sum(hand), rel=1e-12)
    assert len(set(scores)) > 1


@pytest.mark.parametrize("seed", SEEDS)
def test_by_hand_right_answers_are_accepted(seed):
    e = ex.by_hand_exercise(seed)
    _, weights = loop_weights(e.q, e.k, 1 / math.sqrt(2))
    for answer in (
        weights,
        [round(w, 2) for w in weights],
        [w + 0.019 for w in weights],
        [str(round(w, 3)) for w in weights],
    ):
        r = ex.check_by_hand(e, answer)
        assert r.correct and all(r.per_key), (answer, r)
        assert "missing" not in r.mistakes and "forgot_scale" not in r.mistakes


@pytest.mark.parametrize("seed", SEEDS)
def test_by_hand_wrong_answers_are_explained(seed):
    e = ex.by_hand_exercise(seed)
    scores, weights = loop_weights(e.q, e.k, 1 / math.sqrt(2))
    off = list(weights)
    off[1] += 0.03
    r = ex.check_by_hand(e, off)
    assert not r.correct and r.per_key == (True, False, True)
    np.testing.assert_allclose(r.expected, weights, atol=1e-12)
    assert r.answer_sum == pytest.approx(sum(off))
    # forgot to divide by √d_k: softmax of the raw scores
    _, unscaled = loop_weights(e.q, e.k, 1.0)
    r = ex.check_by_hand(e, unscaled)
    if max(abs(a - b) for a, b in zip(unscaled, weights)) > ex.BY_HAND_TOLERANCE:
        assert not r.correct and "forgot_scale" in r.mistakes
    # weights that do not sum to 1, and a negative one
    r = ex.check_by_hand(e, [0.5, 0.5, 0.5])
    assert not r.correct and "sum_not_one" in r.mistakes
    r = ex.check_by_hand(e, [-0.2, 0.6, 0.6])
    assert not r.correct and "negative" in r.mistakes


def test_by_hand_no_exponential_is_recognised():
    seed = next(
        s
        for s in range(200)
        if (lambda e: e.scores.sum() != 0 and (e.scores >= 0).all() and len(set(e.scores.tolist())) == 3)(
            ex.by_hand_exercise(s)
        )
    )
    e = ex.by_hand_exercise(seed)
    linear = [s / sum(e.scores) for s in e.scores]
    r = ex.check_by_hand(e, linear)
    assert not r.correct and "no_exp" in r.mistakes


MANY_SEEDS = range(2000)


def loop_slips(q_row, keys) -> dict[str, list[float]]:
    """What each slip gives, written here with loops and math.exp (d_k = 2): the reference."""
    scores, unscaled = loop_weights(q_row, keys, 1.0)  # softmax(q·k): √d_k forgotten
    _, by_d_k = loop_weights(q_row, keys, 1 / 2)  # softmax(q·k / d_k)
    slips = {
        "forgot_scale": unscaled,
        "scaled_by_d_k": by_d_k,
        "no_normalise": [math.exp(s / math.sqrt(2)) for s in scores],
    }
    if sum(scores) != 0:
        slips["no_exp"] = [s / sum(scores) for s in scores]
    return slips


def test_no_slip_passes_as_right_on_2000_seeds():
    """On every one of 2 000 seeds, each slip's answer (exact, or rounded to two decimals as a
    learner writes it) is wrong and named as exactly that slip, while the right weights rounded
    to two decimals pass. Before the seeds were screened, the forgotten √d_k passed on 260 of
    these seeds and the missing exponential on 27."""
    named = dict.fromkeys(ex.SLIPS, 0)
    for seed in MANY_SEEDS:
        e = ex.by_hand_exercise(seed)
        _, weights = loop_weights(e.q, e.k, 1 / math.sqrt(2))
        assert ex.check_by_hand(e, [round(w, 2) for w in weights]).correct, seed
        for name, answer in loop_slips(e.q, e.k).items():
            for given in (answer, [round(x, 2) for x in answer]):
                r = ex.check_by_hand(e, given)
                assert not r.correct and r.mistakes == (name,), (seed, name, given, r.mistakes)
            named[name] += 1
    assert named["forgot_scale"] == named["scaled_by_d_k"] == named["no_normalise"] == len(MANY_SEEDS)
    assert named["no_exp"] > 0.8 * len(MANY_SEEDS)  # missing only where the scores sum to 0


def test_the_old_draw_let_slips_pass():
    """The screening matters: among unscreened draws (the old rule), the forgotten √d_k lands
    within the tolerance of the right weights on a good share of them."""
    rng = np.random.default_rng(0)
    passed = 0
    for _ in range(2000):
        q, k = rng.integers(-2, 3, size=2), rng.integers(-2, 3, size=(3, 2))
        if not q.any():
            continue
        _, weights = loop_weights(q, k, 1 / math.sqrt(2))
        _, unscaled = loop_weights(q, k, 1.0)
        passed += max(abs(a - b) for a, b in zip(weights, unscaled)) <= ex.BY_HAND_TOLERANCE
    assert passed > 100


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_right_choice_cannot_be_guessed_by_its_length(lang):
    """On 2 000 seeds, the right answer to "without √d_k" is never the longest nor the shortest
    of the four options shown."""
    length = {c: len(translate(lang, f"exercises.choice_{c}")) for c in ex.CHOICES}
    for seed in MANY_SEEDS:
        _, options = ex.no_scaling_options(seed)
        lengths = sorted(length[o] for o in options)
        assert lengths[0] < length[ex.CORRECT_CHOICE] < lengths[-1], (seed, options)


def test_every_slip_has_its_message():
    for lang in ("en", "zh"):
        for name in ex.SLIPS:
            assert translate(lang, f"exercises.mistake_{name}").strip()


@pytest.mark.parametrize(
    "bad",
    [[], [0.5], [0.2, 0.3], [None, 0.5, 0.5], ["abc", 1, 0], [float("nan")] * 3, [0.3, 0.3, 0.4, 0.0], None, "0.3"],
)
def test_by_hand_incomplete_answers(bad):
    r = ex.check_by_hand(ex.by_hand_exercise(1), bad)
    assert not r.correct and "missing" in r.mistakes


# --------------------------------------------------------------------------- (c) order


@pytest.mark.parametrize("seed", SEEDS)
def test_order_exercise_is_a_real_shuffle(seed):
    e = ex.order_exercise(seed)
    assert sorted(e.shuffled) == sorted(ex.STEPS) and e.shuffled != ex.STEPS


def test_order_checking():
    steps = list(ex.STEPS)
    assert ex.STEPS is STEPS == ("tokens", "embedding", "qkv", "scores", "scale", "softmax", "output")
    r = ex.check_order(steps)
    assert r.correct and r.first_wrong is None and all(r.per_position) and r.problem is None
    swapped = steps[:]
    swapped[4], swapped[5] = swapped[5], swapped[4]  # softmax before the scaling
    r = ex.check_order(swapped)
    assert not r.correct and r.first_wrong == 4 and r.per_position == (True,) * 4 + (False, False, True)
    r = ex.check_order(steps[:5])
    assert not r.correct and r.problem == "incomplete" and r.first_wrong == 5
    r = ex.check_order(steps[:6] + ["tokens"])
    assert not r.correct and r.problem == "repeated"
    r = ex.check_order(steps[:6] + ["<script>"])
    assert not r.correct and r.problem == "unknown"
    assert not ex.check_order([]).correct and not ex.check_order(None).correct
    r = ex.check_order(list(reversed(steps)))
    assert not r.correct and r.first_wrong == 0


# --------------------------------------------------------------------------- (d) without √d_k


@pytest.mark.parametrize("seed", SEEDS)
def test_no_scaling_question_and_its_numbers(seed):
    e = ex.no_scaling_exercise(seed)
    assert e.d_k in ex.NO_SCALING_D_KS
    assert len(e.options) == 4 and len(set(e.options)) == 4 and ex.CORRECT_CHOICE in e.options
    assert set(e.options) <= set(ex.CHOICES)
    # the measured spread: Var(q·k) = d_k, so std ≈ √d_k unscaled and ≈ 1 scaled
    assert e.raw_std == pytest.approx(math.sqrt(e.d_k), rel=0.1)
    assert e.scaled_std == pytest.approx(1.0, rel=0.1)
    assert e.raw_std / e.scaled_std == pytest.approx(math.sqrt(e.d_k), rel=1e-6)
    # saturation: the largest weight grows, the Jacobian shrinks; sums stay 1, weights >= 0
    assert e.raw_max_weight > e.scaled_max_weight + 0.3 and e.raw_jacobian < e.scaled_jacobian
    assert e.raw_sum_error < 1e-9 and e.raw_min_weight >= 0
    # the example row: scaling after softmax's log equals softmax of the scaled scores
    # (log α̂_j = α_j − logsumexp(α), and softmax ignores the constant)
    raw = np.asarray(e.example_raw)
    assert (raw > 0).all()
    logits = [math.log(w) / math.sqrt(e.d_k) for w in raw]
    m = max(logits)
    ref = [math.exp(x - m) for x in logits]
    np.testing.assert_allclose(e.example_scaled, [r / sum(ref) for r in ref], atol=1e-6)
    assert raw.max() > np.max(e.example_scaled)


def test_no_scaling_checking():
    e = ex.no_scaling_exercise(5)
    assert ex.check_no_scaling(e, "saturate").correct
    for option in e.options:
        r = ex.check_no_scaling(e, option)
        assert r.correct == (option == "saturate") and r.choice == option and r.expected == "saturate"
    for bad in (None, "", "<b>x</b>", 3):
        r = ex.check_no_scaling(e, bad)
        assert not r.correct and r.choice is None


# --------------------------------------------------------------------------- score


def test_score_counts_first_answers_only():
    a = {}
    a = ex.record_answer(a, ex.exercise_id("order", 1), False)
    a = ex.record_answer(a, ex.exercise_id("order", 1), True)  # a second try does not count
    a = ex.record_answer(a, ex.exercise_id("by_hand", 1), True)
    a = ex.record_answer(a, ex.exercise_id("attend", 1, "generated"), True)
    assert ex.score(a) == (2, 3) and ex.score({}) == (0, 0)


def test_generated_words_exist_in_every_language():
    for lang in ("en", "zh"):
        words = translate(lang, "exercises.vocab").split()
        assert len(words) == len(ex.VOCAB) and len(set(words)) == len(words), lang
    assert translate("en", "exercises.vocab").split() == list(ex.VOCAB)


# --------------------------------------------------------------------------- the page


@pytest.fixture
def existing_pages(monkeypatch):
    """Keep NAV to the page files that exist, so this page's tests do not depend on pages
    other work is still adding (a no-op once every page is in place)."""
    import attention_ui.shell as shell

    monkeypatch.setattr(shell, "NAV", [(p, i) for p, i in shell.NAV if (ROOT / "pages" / f"{p}.py").exists()])


def open_page(lang="en", **params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = lang
    at.query_params["toy"] = "true"
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/exercises.py")
    at.run()
    assert not at.exception, at.exception
    return at


def check(at, lang):
    next(b for b in at.button if b.label == translate(lang, "exercises.check")).click()
    at.run()
    assert not at.exception, at.exception
    return at


def score_of(at) -> str:
    return at.metric[0].value


def texts(at) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [s.value for s in at.success]
    parts += [w.value for w in at.warning] + [i.value for i in at.info]
    return "\n".join(parts)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_attend_right_then_wrong(existing_pages, lang):
    seed = 7
    at = open_page(lang, ex_seed=str(seed))
    assert at.title[0].value == translate(lang, "exercises.title")
    assert score_of(at) == "0/0"
    e = ex.attend_exercise(seed)
    words = translate(lang, "exercises.vocab").split()
    # the scores on the page are the exercise's scores
    from tests.helpers import _decode

    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    np.testing.assert_allclose(_decode(spec["data"][0]["y"]), e.scores, atol=1e-12)
    assert [f"{x:.3f}" for x in e.scores] == spec["data"][0]["text"]  # every score is printed
    at.radio(key=f"ex_attend_answer_{seed}_generated").set_value(e.answers[0])
    check(at, lang)
    assert at.success and score_of(at) == "1/1"
    assert words[e.word_ids[e.answers[0]]] in texts(at)
    # the next exercise, answered wrong: the score counts it, the explanation names both tokens
    next(b for b in at.button if b.label == translate(lang, "exercises.next")).click()
    at.run()
    e2 = ex.attend_exercise(seed + 1)
    wrong = next(j for j in range(len(e2.tokens)) if j not in e2.answers)
    at.radio(key=f"ex_attend_answer_{seed + 1}_generated").set_value(wrong)
    check(at, lang)
    assert at.error and score_of(at) == "1/2"
    body = texts(at)
    assert words[e2.word_ids[wrong]] in body and words[e2.word_ids[e2.answers[0]]] in body
    assert f"{e2.weights[e2.answers[0]]:.3f}" in body
    assert translate(lang, "exercises.attend_why") in body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_by_hand_wrong_then_right(existing_pages, lang):
    seed = 3
    at = open_page(lang, ex_seed=str(seed), ex_kind="by_hand")
    e = ex.by_hand_exercise(seed)
    _, unscaled = loop_weights(e.q, e.k, 1.0)
    for j, w in enumerate(unscaled):
        at.number_input(key=f"ex_hand_{seed}_{j}").set_value(round(w, 3))
    check(at, lang)
    assert at.error and score_of(at) == "0/1"
    body = texts(at)
    assert translate(lang, "exercises.mistake_forgot_scale") in body
    assert any(f"{e.weights[j]:.3f}" in body for j in range(3))
    # a second, right answer is praised but does not change the score (first answer counts)
    for j, w in enumerate(e.weights):
        at.number_input(key=f"ex_hand_{seed}_{j}").set_value(round(float(w), 2))
    check(at, lang)
    assert at.success and score_of(at) == "0/1"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_order_and_no_scaling(existing_pages, lang):
    seed = 11
    at = open_page(lang, ex_seed=str(seed), ex_kind="order")
    swapped = list(ex.STEPS)
    swapped[4], swapped[5] = swapped[5], swapped[4]
    # AppTest formats options outside the session (in English): give the labels the learner sees
    at.multiselect(key=f"ex_order_{seed}").set_value([translate(lang, f"exercises.step_{s}") for s in swapped])
    check(at, lang)
    assert at.error and score_of(at) == "0/1"
    assert translate(lang, "exercises.order_first_wrong", position=5) in texts(at)
    at.button_group(key="ex_kind").set_value(translate(lang, "exercises.kind_no_scaling")).run()
    assert at.query_params["ex_kind"] in ("no_scaling", ["no_scaling"])  # the id, not the label, is in the URL
    e = ex.no_scaling_exercise(seed)
    at.radio(key=f"ex_choice_{seed}").set_value(translate(lang, "exercises.choice_saturate"))
    check(at, lang)
    assert at.success and score_of(at) == "1/2"
    assert f"{e.raw_max_weight:.3f}" in texts(at) and f"{e.scaled_max_weight:.3f}" in texts(at)
    assert at.get("download_button"), "the experiment's weights can be downloaded as CSV"


def test_page_lesson_source_and_bad_url(existing_pages):
    at = open_page("en", ex_seed="abc", ex_kind="<script>", ex_source="lesson")
    assert at.title and not at.exception
    at = open_page("en", ex_seed="99999999999", ex_source="lesson")
    assert not at.exception
    at = open_page("en", ex_seed="4", ex_source="lesson")
    at.text_input(key="sentence").set_value("").run()
    assert not at.exception and translate("en", "exercises.need_sentence") in texts(at)
