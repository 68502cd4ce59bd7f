"""The "Why √d_k" experiment: its statistics against theory, the softmax Jacobian against
finite differences of attention_core.softmax, determinism, and the page's numbers against
the core's."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention_core import LessonSettings, ToyEmbedder, build_lesson, softmax
from attention_core.scaling import D_KS, row_statistics, scaling_experiment, scaling_sweep, softmax_jacobian
from attention_ui.i18n import translate
from attention_ui.settings import DEFAULT_SENTENCE
from tests.helpers import charts, open_link, plotly_array


def relative_sd_of_variance(d_k: int, n_keys: int, n_samples: int) -> float:
    """Standard deviation of the measured variance, relative to d_k, for this experiment.

    x_j = q·k_j with q, k_j ~ N(0, I_d): E x² = d, E x⁴ = 3d² + 6d, so Var(x²) = 2d² + 6d; the
    n_keys scores of one row share their query, Cov(x_j², x_l²) = E|q|⁴ − d² = 2d. The mean of
    the n_samples·n_keys squares then has variance (2d² + 6d + 2d(n_keys − 1)) / (n_samples n_keys).
    For large d this is the Gaussian 2/N; for d_k = 2 it is ten times that, so a bound of
    4·√(2/N) alone would sit barely one standard deviation away.
    """
    d, n = d_k, n_keys
    return float(np.sqrt((2 + 2 * (n + 2) / d) / (n_samples * n)))


# --------------------------------------------------------------------------- experiment


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("d_k", [2, 4, 16, 64, 512])
def test_variance_is_d_k_raw_and_1_scaled(d_k, seed):
    r = scaling_experiment(d_k, seed=seed)
    tol = 4 * relative_sd_of_variance(d_k, r.n_keys, r.n_samples)
    assert abs(r.raw_variance / d_k - 1) < tol, (r.raw_variance, d_k, tol)
    assert abs(r.scaled_variance - 1) < tol, (r.scaled_variance, tol)
    np.testing.assert_allclose(r.scaled, r.raw / np.sqrt(d_k), rtol=1e-15)
    np.testing.assert_allclose(r.raw.mean(), 0.0, atol=4 * np.sqrt(d_k * (r.n_keys + 1) / r.raw.size) + 1e-9)


def test_the_tolerance_is_not_loose():
    """The measured variances' spread over seeds matches the standard deviation the tests assume."""
    d_k, n_samples = 4, 200
    ratios = np.array([scaling_experiment(d_k, n_samples=n_samples, seed=s).raw_variance / d_k for s in range(60)])
    predicted = relative_sd_of_variance(d_k, 16, n_samples)
    assert 0.7 < ratios.std(ddof=1) / predicted < 1.3


def test_softmax_rows_and_shapes():
    r = scaling_experiment(8, n_keys=5, n_samples=300, seed=2)
    assert r.raw.shape == r.scaled.shape == r.raw_weights.shape == (300, 5)
    np.testing.assert_allclose(r.raw_weights, softmax(r.raw), atol=0)
    np.testing.assert_allclose(r.scaled_weights.sum(axis=1), 1.0, atol=1e-12)
    assert r.raw_stats.max_entropy == pytest.approx(np.log(5))
    for arr in (r.raw, r.scaled, r.raw_weights, r.scaled_weights):
        assert not arr.flags.writeable


def test_sweep_saturates_unscaled_and_stays_flat_scaled():
    s = scaling_sweep()
    assert list(s.d_ks) == list(D_KS) == [2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert np.all(np.diff(s.raw_max_weight) > 0), s.raw_max_weight
    assert np.all(np.diff(s.raw_entropy) < 0), s.raw_entropy
    assert s.raw_max_weight[-1] > 0.9 and s.raw_entropy[-1] < 0.2  # near one-hot at d_k = 512
    assert np.ptp(s.scaled_max_weight) < 0.05, s.scaled_max_weight
    assert np.ptp(s.scaled_entropy) < 0.1, s.scaled_entropy
    assert np.all(s.scaled_entropy > 0.8 * s.max_entropy)
    # the gradient path: falls once saturation sets in (from d_k = 8), flat when scaled
    assert np.all(np.diff(s.raw_jacobian_norm[2:]) < 0), s.raw_jacobian_norm
    assert s.raw_jacobian_norm[-1] < 0.3 * s.scaled_jacobian_norm[-1]
    assert np.ptp(s.scaled_jacobian_norm) < 0.03, s.scaled_jacobian_norm
    assert s.uniform_weight == 1 / 16 and s.max_entropy == pytest.approx(np.log(16))


def test_sweep_entries_equal_the_experiment():
    s = scaling_sweep((4, 32), n_keys=8, n_samples=400, seed=5)
    for i, d_k in enumerate((4, 32)):
        r = scaling_experiment(d_k, n_keys=8, n_samples=400, seed=5)
        assert s.raw_variance[i] == r.raw_variance and s.scaled_variance[i] == r.scaled_variance
        assert s.raw_max_weight[i] == r.raw_stats.max_weight and s.scaled_entropy[i] == r.scaled_stats.entropy
        assert s.raw_jacobian_norm[i] == r.raw_stats.jacobian_norm


def test_deterministic_by_seed():
    a, b = scaling_experiment(32, n_samples=500, seed=3), scaling_experiment(32, n_samples=500, seed=3)
    np.testing.assert_array_equal(a.raw, b.raw)
    assert a.raw_variance == b.raw_variance and a.raw_stats == b.raw_stats
    c = scaling_experiment(32, n_samples=500, seed=4)
    assert not np.array_equal(a.raw, c.raw)
    # a different d_k draws an independent stream, not a prefix of the same numbers
    d = scaling_experiment(16, n_samples=500, seed=3)
    assert abs(np.corrcoef(a.raw.ravel(), d.raw.ravel())[0, 1]) < 0.05


@pytest.mark.parametrize("bad", [dict(d_k=0), dict(d_k=2.5), dict(d_k=4, n_keys=1), dict(d_k=4, n_samples=1)])
def test_bad_arguments_say_what_is_wrong(bad):
    with pytest.raises(ValueError, match="must be an integer"):
        scaling_experiment(**bad)


# --------------------------------------------------------------------------- the Jacobian


def finite_difference_jacobian(x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """∂softmax(x)_i/∂x_j by central differences of attention_core.softmax."""
    n = len(x)
    jac = np.empty((n, n))  # (n, n)
    for j in range(n):
        step = np.zeros(n)  # (n,)
        step[j] = h
        jac[:, j] = (softmax(x + step) - softmax(x - step)) / (2 * h)  # (n,)
    return jac


@pytest.mark.parametrize("spread", [0.1, 1.0, 5.0, 30.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_softmax_jacobian_equals_finite_differences(spread, seed):
    x = np.random.default_rng(seed).normal(scale=spread, size=7)  # (7,)
    jac = softmax_jacobian(softmax(x))  # (7, 7)
    np.testing.assert_allclose(jac, finite_difference_jacobian(x), atol=1e-8)
    np.testing.assert_allclose(jac.sum(axis=1), 0.0, atol=1e-15)
    np.testing.assert_allclose(jac.sum(axis=0), 0.0, atol=1e-15)
    np.testing.assert_array_equal(jac, jac.T)


def test_jacobian_vanishes_when_saturated_and_batches():
    n = 16
    uniform = np.full(n, 1 / n)  # (n,)
    assert np.linalg.norm(softmax_jacobian(uniform)) == pytest.approx(np.sqrt(n - 1) / n)
    np.testing.assert_array_equal(softmax_jacobian(np.eye(n)[3]), np.zeros((n, n)))
    p = softmax(np.random.default_rng(0).normal(size=(4, 3, n)))  # (4, 3, n)
    stacked = softmax_jacobian(p)  # (4, 3, n, n)
    assert stacked.shape == (4, 3, n, n)
    np.testing.assert_allclose(stacked[2, 1], softmax_jacobian(p[2, 1]), atol=0)
    s = row_statistics(np.stack([uniform, np.eye(n)[0]]))
    assert s.jacobian_norm == pytest.approx(np.sqrt(n - 1) / n / 2)
    assert s.entropy == pytest.approx(np.log(n) / 2) and s.max_weight == pytest.approx((1 / n + 1) / 2)
    assert s.peak_weight == 1.0


@pytest.mark.parametrize("p", [[0.5, 0.6], [-0.1, 1.1], [np.nan, 1.0], []])
def test_jacobian_rejects_non_weights(p):
    with pytest.raises(ValueError, match="p must"):
        softmax_jacobian(p)


# --------------------------------------------------------------------------- the page

PAGE = "pages/why_scaling.py"


def open_page(sentence: str | None = None, *, toy: bool = False, **params) -> AppTest:
    """The page from a shared link (with ``sentence``, when given), on the real model unless ``toy``."""
    if sentence is not None:
        params["sentence"] = sentence
    return open_link(PAGE, toy=toy, **params)


def _histogram_counts(fig: dict, row: int) -> tuple[np.ndarray, np.ndarray]:
    bar = fig["data"][row]
    pairs = plotly_array(bar["customdata"]).reshape(-1, 2)  # (bins, 2)
    edges = np.append(pairs[:, 0], pairs[-1, 1])  # (bins + 1,)
    return edges, plotly_array(bar["y"])


@pytest.mark.parametrize("d_k", [4, 512])
def test_page_numbers_equal_the_experiment(d_k):
    sentence = "the dog chased the cat"
    at = open_page(sentence, toy=True, exp_d_k=str(d_k))
    assert at.title and at.select_slider(key="exp_d_k").value == d_k
    r = scaling_experiment(d_k)
    s = scaling_sweep()
    latex = [x.value for x in at.latex]
    assert any(f"= d_k = {d_k}" in x and f"measured: }} {r.raw_variance:.2f}" in x for x in latex), latex
    assert any(f"measured: }} {r.scaled_variance:.3f}" in x for x in latex), latex
    text = " ".join(m.value for m in at.markdown)
    assert f"**{r.raw_variance:.2f}**" in text and f"{r.raw_stats.max_weight:.3f}" in text
    assert f"{r.scaled_stats.jacobian_norm:.3f}" in text

    figs = charts(at)
    hist = figs[f"Where the scores fall, d_k = {d_k}"]
    for row, values in ((0, r.raw), (1, r.scaled)):
        edges, counts = _histogram_counts(hist, row)
        np.testing.assert_array_equal(counts, np.histogram(values, bins=edges)[0])
        assert counts.sum() == r.raw.size == 32_000
    subtitles = [a["text"] for a in hist["layout"]["annotations"]]
    assert f"variance {r.raw_variance:.2f}" in subtitles[0] and f"variance {r.scaled_variance:.3f}" in subtitles[1]
    row = next(v for k, v in figs.items() if k.startswith("One query"))
    np.testing.assert_allclose(plotly_array(row["data"][0]["y"]), r.raw_weights[0], atol=0)
    np.testing.assert_allclose(plotly_array(row["data"][1]["y"]), r.scaled_weights[0], atol=0)
    variance = next(v for k, v in figs.items() if k.startswith("Variance"))  # the sweep's tab open by default
    by_name = {t["name"]: t for t in variance["data"]}
    np.testing.assert_allclose(plotly_array(by_name["without ÷√d_k"]["y"]), s.raw_variance, atol=0)
    np.testing.assert_allclose(plotly_array(by_name["with ÷√d_k"]["y"]), s.scaled_variance, atol=0)
    assert variance["layout"]["xaxis"]["type"] == "log" and variance["layout"]["yaxis"]["type"] == "log"
    assert not any(k.startswith("Entropy") for k in figs), "closed tabs are not drawn"
    entropy = next(
        v
        for k, v in charts(open_page(sentence, toy=True, exp_d_k=str(d_k), sweep="entropy")).items()
        if k.startswith("Entropy")
    )
    by_name = {t["name"]: t for t in entropy["data"]}
    np.testing.assert_allclose(plotly_array(by_name["without ÷√d_k"]["y"]), s.raw_entropy, atol=0)
    np.testing.assert_allclose(plotly_array(by_name["with ÷√d_k"]["y"]), s.scaled_entropy, atol=0)

    # the learner's sentence, with and without the division: one chart, two panels
    scaled = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings(scaled=True))
    unscaled = build_lesson(sentence, ToyEmbedder(dim=8), LessonSettings(scaled=False))
    own = figs[translate("en", "why_scaling.own_title")]
    panels = [note["text"].replace("<br>", "") for note in own["layout"]["annotations"]]
    assert panels == ["With ÷√d_k (sidebar)", "Without ÷√d_k"]
    np.testing.assert_allclose(plotly_array(own["data"][0]["z"]), scaled.trace.weights, atol=1e-12)
    np.testing.assert_allclose(plotly_array(own["data"][1]["z"]), unscaled.trace.weights, atol=1e-12)
    assert f"**{row_statistics(unscaled.trace.weights).peak_weight:.3f}**" in text


def test_page_with_the_real_model_through_the_navigation():
    at = open_page()  # the real model, the default
    assert at.title[0].value == translate("en", "why_scaling.title")
    assert "all-MiniLM-L6-v2" in " ".join(c.value for c in at.caption)
    assert len(charts(at)) == 4  # histograms, one row, the open sweep, the sentence with and without ÷√d_k


def test_page_slider_and_sidebar_toggle():
    at = open_page(toy=True)
    assert at.select_slider(key="exp_d_k").value == 64
    at.select_slider(key="exp_d_k").set_value(2).run()
    assert not at.exception
    assert f"measured: }} {scaling_experiment(2).raw_variance:.2f}" in at.latex[0].value
    at.toggle(key="scaled").set_value(False).run()  # the sidebar's lesson is now the unscaled one
    assert not at.exception
    own = charts(at)[translate("en", "why_scaling.own_title")]
    panels = [note["text"].replace("<br>", "") for note in own["layout"]["annotations"]]
    assert panels == ["With ÷√d_k", "Without ÷√d_k (sidebar)"]


@pytest.mark.parametrize("params", [{"exp_d_k": "7"}, {"exp_d_k": "abc"}, {"identity": "true"}])
def test_page_odd_settings_work(params):
    at = open_page(toy=True, **params)
    assert at.select_slider(key="exp_d_k").value in D_KS


def test_page_without_a_sentence_still_shows_the_experiment():
    at = open_page("   ", toy=True)
    assert len(charts(at)) == 3 and any("Type a sentence" in i.value for i in at.info)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_slider_help_names_section_4s_own_d_k_and_a_trained_head_its_score_range(lang):
    """The default sidebar runs a trained head (d_k = 32, not the random W's 4): the slider's help says
    which d_k section 4 uses, and section 4 says the variance argument is about initialisation, with
    this head's raw scores as the page computes them."""
    from attention_core.model import ModelEmbedder

    at = open_page(lang=lang)
    lesson = build_lesson(DEFAULT_SENTENCE, ModelEmbedder(), LessonSettings(projection="trained"))
    assert lesson.trace.d_k == 32
    source = translate(lang, "why_scaling.own_d_k_model")
    assert at.select_slider(key="exp_d_k").help == (
        translate(lang, "why_scaling.d_k_help")
        + " "
        + translate(lang, "why_scaling.d_k_help_now", d_k=32, d_k_source=source)
    )
    scores = lesson.trace.scores
    text = translate(
        lang,
        "why_scaling.own_trained",
        low=f"{scores.min():.1f}",
        high=f"{scores.max():.1f}",
        variance=float(np.var(scores)),
        d_k=32,
    )
    assert text in [m.value for m in at.markdown]
