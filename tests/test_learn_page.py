"""AppTest for "Watch a head learn" (pages/learn.py), in English and Chinese.

What the page shows is checked against attention_core.learning run here, with the same task,
seed and number of updates: the curves against ``train(...)`` (the page trains in slices, which
must give the same numbers as one run), the snapshots against the history's, one row against
``forward``, generation at temperature 0 against a greedy loop written here, and every sentence
about the heads against ``head_report`` of the same weights. The two measurements the page adds
to the core (``head_report``, ``qk_circuit``) are checked against loops written here.

The page keeps its runs in ``st.cache_resource`` (one per server), so a run trained by one test
may be replayed in another: the numbers are the same either way, which is what is checked.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attention_core.learning import (
    IGNORE,
    TASKS,
    accuracy,
    decode,
    encode,
    forward,
    generate,
    head_report,
    init_params,
    qk_circuit,
    sample_many,
    train,
    without_head,
)
from attention_ui.i18n import translate
from attention_ui.presentation import CHART_FONT_PX
from tests.helpers import CJK, english_prose, figures_by_key, open_link, page_texts, plotly_array, title_text

PAGE = "pages/learn.py"


def trained_page(lang: str = "en", **params):
    """The page opened from a link with ``params``, Train pressed."""
    at = open_link(PAGE, lang=lang, **params)
    at.button(key="train").click().run()
    assert not at.exception, at.exception
    return at


def markdown(at) -> list[str]:
    return [str(el.value) for el in at.markdown]


def percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def ys(trace) -> np.ndarray:
    return np.asarray(plotly_array(trace["y"]), dtype=np.float64)


# --------------------------------------------------------------------------- the core's measurements


def test_head_report_equals_loops():
    """on_answer, on_previous and without, recomputed example by example, position by position."""
    params = train("copy", steps=30, seed=3).params
    report = head_report(params, "copy", n=40, seed=2)
    from attention_core.learning.tasks import HELD_OUT_STREAM, _batch  # the held-out examples head_report reads

    inputs, targets = _batch(TASKS["copy"], 40, [2, HELD_OUT_STREAM], held_out=True)
    weights = forward(params, inputs).layers[0].attention.weights  # (n, H, T, T)
    n, n_heads, t, _ = weights.shape
    for h in range(n_heads):
        on_answer, on_previous = [], []
        for b in range(n):
            for i in range(t):
                if targets[b, i] != IGNORE:
                    on_answer.append(sum(weights[b, h, i, j] for j in range(i + 1) if inputs[b, j] == targets[b, i]))
                if i >= 1:
                    on_previous.append(weights[b, h, i, i - 1])
        assert report.on_answer[0, h] == pytest.approx(np.mean(on_answer), abs=1e-12)
        assert report.on_previous[0, h] == pytest.approx(np.mean(on_previous), abs=1e-12)
        knocked = {k: np.array(w) for k, w in params.items()}
        knocked["layer0.w_o"][h] = 0.0
        assert report.without[0, h] == accuracy(knocked, "copy", n=40, seed=2)
    assert report.accuracy == accuracy(params, "copy", n=40, seed=2)
    p = without_head(params, 0, 1)
    assert not p["layer0.w_o"][1].any() and np.array_equal(p["layer0.w_o"][0], params["layer0.w_o"][0])
    assert params["layer0.w_o"][1].any(), "the original weights are not changed"
    with pytest.raises(ValueError, match="no head 2"):
        without_head(params, 0, 2)


def test_qk_circuit_is_the_score_of_the_embeddings():
    """positions[i, j] is the scaled score of position embeddings p_i and p_j through the head's
    own W^Q and W^K, -inf above the diagonal; tokens the same for token embeddings."""
    params = init_params("reverse", seed=4)
    for h in range(2):
        c = qk_circuit(params, 0, h)
        w_q, w_k = params["layer0.w_q"][h], params["layer0.w_k"][h]
        p, e = params["position_embedding"], params["token_embedding"]
        for i in range(p.shape[0]):
            for j in range(p.shape[0]):
                expected = (p[i] @ w_q) @ (p[j] @ w_k) / math.sqrt(w_q.shape[1]) if j <= i else -math.inf
                assert c.positions[i, j] == pytest.approx(expected, rel=1e-12, abs=1e-12)
        for a in range(e.shape[0]):
            for b in range(e.shape[0]):
                assert c.tokens[a, b] == pytest.approx((e[a] @ w_q) @ (e[b] @ w_k) / 4.0, rel=1e-12, abs=1e-12)
        counted = c.positions[np.isfinite(c.positions)]
        assert c.position_span == pytest.approx(counted.max() - counted.min())
        assert c.token_span == pytest.approx(c.tokens.max() - c.tokens.min())


# --------------------------------------------------------------------------- the page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_before_train_the_page_asks_for_it(lang):
    at = open_link(PAGE, lang=lang)
    assert at.title[0].value == translate(lang, "learn.title")
    assert any(el.value == translate(lang, "learn.press_train") for el in at.info)
    assert list(figures_by_key(at)) == ["fig_curves_empty"], "only the empty axes the curves will grow on"
    empty = figures_by_key(at)["fig_curves_empty"]
    assert [len(plotly_array(trace["x"])) for trace in empty["data"][::2]] == [0, 0], "no loss, no accuracy yet"
    assert "trained" not in at.query_params


@pytest.mark.parametrize(
    ("lang", "task", "seed", "steps"),
    [("en", "reverse", 0, 100), ("zh", "copy", 2, 30), ("en", "induction", 1, 30)],
)
def test_curves_are_the_cores_training(lang, task, seed, steps):
    at = trained_page(lang, task=task, train_seed=str(seed), steps=str(steps))
    history = train(task, steps=steps, seed=seed)
    fig = figures_by_key(at)["fig_curves"]
    loss, uniform, batch_accuracy, held_out = fig["data"]
    np.testing.assert_array_equal(ys(loss), history.loss)
    np.testing.assert_array_equal(ys(batch_accuracy), history.accuracy)
    assert list(plotly_array(loss["x"])) == list(range(1, steps + 1))
    assert ys(uniform)[0] == pytest.approx(math.log(TASKS[task].vocab_size))
    snapshot_steps = [s.step for s in history.snapshots]
    assert list(plotly_array(held_out["x"])) == snapshot_steps
    expected = [accuracy(s.params, task, 500, seed) for s in history.snapshots]
    np.testing.assert_allclose(ys(held_out), expected, rtol=0, atol=0)
    name = translate(lang, f"learn.task_{task}")
    assert title_text(fig) == translate(lang, "learn.curves_title", task=name, seed=seed, steps=steps)
    result = next(text for text in markdown(at) if text.startswith("**" + str(steps)))
    assert percent(expected[-1]) in result and percent(expected[0]) in result
    assert at.query_params["trained"] == "true"


def test_slices_give_the_same_run_as_one_call():
    """What the page does (Trainer.run in slices of varying size) equals one train() call."""
    from attention_core.learning import Trainer

    trainer = Trainer("sort", seed=5)
    for n in (5, 1, 17, 40, 37):
        trainer.run(n)
    sliced = trainer.history()
    whole = train("sort", steps=100, seed=5)
    np.testing.assert_array_equal(sliced.loss, whole.loss)
    for key in whole.params:
        np.testing.assert_array_equal(sliced.params[key], whole.params[key])


def test_snapshot_slider_shows_each_snapshot():
    at = trained_page(task="reverse", train_seed="0", steps="100")
    history = train("reverse", steps=100, seed=0)
    slider = at.select_slider(key="snapshot_reverse_0_100")
    assert list(slider.options) == [str(s.step) for s in history.snapshots]
    for snap in history.snapshots:
        slider.set_value(snap.step).run()
        assert not at.exception
        fig = figures_by_key(at)["fig_snapshot"]
        panels = [np.asarray(plotly_array(trace["z"]), dtype=np.float64) for trace in fig["data"]]
        for h, z in enumerate(panels):
            np.testing.assert_allclose(z, snap.weights[0, h], rtol=0, atol=1e-12)
        assert title_text(fig) == translate("en", "learn.snapshot_title", step=snap.step)
        predicting = [s - 1 for s in TASKS["reverse"].scored]
        written = decode("reverse", snap.probs[predicting].argmax(axis=-1))
        line = translate(
            "en",
            "learn.snapshot_line",
            step=snap.step,
            written=written.replace("|", "\\|"),
            accuracy=percent(accuracy(snap.params, "reverse", 500, 0)),
            n=500,
        )
        assert line in markdown(at)
        assert at.query_params.get("snapshot") == (None if snap.step == 100 else str(snap.step))
    # the first snapshot is the random W: rows nearly uniform over the tokens they may see
    first = np.asarray(plotly_array(figures_by_key(at)["fig_snapshot"]["data"][0]["z"]), dtype=np.float64)
    assert first.shape == (10, 10)


def test_one_row_step_by_step_equals_the_forward_pass():
    history = train("reverse", steps=100, seed=0)
    fwd = forward(history.params, history.example)
    report = head_report(history.params, "reverse", 500, 0)
    lead = int(np.argmax(report.on_answer[0]))
    at = open_link(PAGE, task="reverse", trained="true", learn_query="7", learn_step="weights")
    i = 6
    fig = figures_by_key(at)["fig_row_weights"]
    np.testing.assert_allclose(ys(fig["data"][0]), fwd.layers[0].attention.weights[lead, i], rtol=0, atol=1e-12)
    assert ys(fig["data"][0])[i + 1 :].tolist() == [0.0] * (10 - i - 1), "the mask: no weight on later keys"
    assert at.session_state["learn_head"] == lead, "the page opens on the lead head"
    assert "learn_head" not in at.query_params, "the lead head is the default: left out of the link"
    at.button_group(key="learn_step_tab").set_value("mask").run()
    scaled = ys(figures_by_key(at)["fig_row_scaled"]["data"][0])
    np.testing.assert_allclose(scaled, fwd.layers[0].attention.scaled[lead, i, : i + 1], rtol=0, atol=1e-12)
    assert any("-\\infty" in el.value for el in at.latex), "the mask's −∞ is in the formula"
    at.button_group(key="learn_step_tab").set_value("output").run()
    probs = ys(figures_by_key(at)["fig_row_next"]["data"][0])
    np.testing.assert_allclose(probs, fwd.probs[i], rtol=0, atol=1e-12)
    at.button_group(key="qk_tab").set_value("positions").run()
    circuit = qk_circuit(history.params, 0, lead)
    z = np.asarray(plotly_array(figures_by_key(at)["fig_qk_positions"]["data"][0]["z"]), dtype=np.float64)
    finite = np.isfinite(circuit.positions)
    np.testing.assert_allclose(z[finite], circuit.positions[finite], rtol=0, atol=1e-12)
    assert np.isnan(z[~finite]).all(), "masked pairs are drawn empty"
    at.button_group(key="qk_tab").set_value("tokens").run()
    tokens = figures_by_key(at)["fig_qk_tokens"]["data"][0]
    np.testing.assert_allclose(plotly_array(tokens["z"]), circuit.tokens, rtol=0, atol=1e-12)
    at.button_group(key="qk_tab").set_value("mixed").run()
    for part, expected in (("tp", circuit.token_position), ("pt", circuit.position_token)):
        z = plotly_array(figures_by_key(at)[f"fig_qk_mixed_{part}"]["data"][0]["z"])
        np.testing.assert_allclose(z, expected, rtol=0, atol=1e-12)
    mixed_tp, mixed_pt = circuit.mixed_spans
    assert any(f"a query token with a key position {mixed_tp:.1f}" in el.value for el in at.markdown)


def greedy(params, prompt: str, task: str) -> str:
    """Argmax decoding written out: read the sequence, take the most probable next token, repeat."""
    ids = list(encode(task, prompt))
    while len(ids) < TASKS[task].length:
        ids.append(int(np.argmax(forward(params, np.array(ids)).logits[-1])))
    return decode(task, ids[len(prompt) :])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_writing_at_temperature_zero_is_the_argmax(lang):
    at = open_link(PAGE, lang=lang, task="reverse", trained="true", temperature="0.0", prompt="gfedc|")
    assert not at.exception
    params = train("reverse", steps=100, seed=0).params
    expected = greedy(params, "gfedc|", "reverse")
    assert expected == "cdefg"  # the trained model reverses
    line = translate(lang, "learn.written", prompt="gfedc\\|", written=expected, n=5)
    assert line in markdown(at)
    assert translate(lang, "learn.temperature_zero") in markdown(at)
    fig = figures_by_key(at)["fig_gen_next"]
    drawn = ys(fig["data"][0])
    assert drawn.tolist() == [0.0] * 2 + [1.0] + [0.0] * 6, "all on the argmax, c"
    made = generate(params, "gfedc|", 5, 0.0, task="reverse")
    np.testing.assert_allclose(ys(fig["data"][1]), made.steps[0].probs, rtol=0, atol=1e-12)
    attention = np.asarray(plotly_array(figures_by_key(at)["fig_gen_attention"]["data"][0]["z"]), dtype=np.float64)
    np.testing.assert_allclose(attention, made.steps[0].weights[0, :, -1], rtol=0, atol=1e-12)
    at.button_group(key="gen_step_picker").set_value(4).run()
    np.testing.assert_allclose(
        ys(figures_by_key(at)["fig_gen_next"]["data"][1]), made.steps[4].probs, rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_temperature_changes_what_an_early_snapshot_writes(lang):
    """On the trained model T barely matters (and the page says why); after 30 updates the same
    slider changes the next-token bars and how often 200 draws write the greedy text."""
    history = train("reverse", steps=100, seed=0)
    early = next(s for s in history.snapshots if s.step == 30).params
    seen = {}
    for temperature in ("0.5", "2.0"):
        at = open_link(PAGE, lang=lang, task="reverse", trained="true", temperature=temperature, write_from="30")
        assert not at.exception
        t = float(temperature)
        draws = sample_many(early, "cabhe|", 5, t, 200, 0, task="reverse")
        line = translate(
            lang,
            "learn.draws",
            n=200,
            T=f"{t:g}",
            seed=0,
            greedy=decode("reverse", draws.greedy),
            n_greedy=draws.n_greedy,
            n_distinct=draws.n_distinct,
        )
        assert line in markdown(at)
        made = generate(early, "cabhe|", 5, t, seed=0, task="reverse")
        bars = ys(figures_by_key(at)["fig_gen_next"]["data"][0])
        np.testing.assert_allclose(bars, made.steps[0].sampling_probs, rtol=0, atol=1e-12)
        seen[temperature] = (draws.n_greedy, draws.n_distinct, bars)
    assert seen["0.5"][0] > seen["2.0"][0] and seen["0.5"][1] < seen["2.0"][1]  # T visibly changes the draws
    assert np.abs(seen["0.5"][2] - seen["2.0"][2]).max() > 0.2  # ... and the bars
    trained = open_link(PAGE, lang=lang, task="reverse", trained="true", temperature="2.0")
    top = generate(history.params, "cabhe|", 5, 0.0, task="reverse").steps[0].probs.max()
    assert top > 0.99 and translate(lang, "learn.why_still", top=f"{100 * top:.2f} %") in [
        el.value for el in trained.caption
    ]


def test_sampling_at_temperature_two_draws_from_the_tempered_softmax():
    at = open_link(PAGE, task="reverse", trained="true", temperature="2.0", sample_seed="3")
    params = train("reverse", steps=100, seed=0).params
    made = generate(params, "cabhe|", 5, 2.0, seed=3, task="reverse")
    assert translate("en", "learn.written", prompt="cabhe\\|", written=made.text, n=5) in markdown(at)
    drawn = ys(figures_by_key(at)["fig_gen_next"]["data"][0])
    np.testing.assert_allclose(drawn, made.steps[0].sampling_probs, rtol=0, atol=1e-12)
    assert translate("en", "learn.temperature_text", T="2", beta="0.50") in markdown(at)


@pytest.mark.parametrize(
    ("prompt", "key", "fields"),
    [
        ("abz!", "learn.prompt_unknown", {"chars": "'z', '\\!'", "tokens": "abcdefgh\\|"}),
        ("abcdefghabc", "learn.prompt_long", {"positions": 10, "got": 11}),
        ("", "learn.prompt_empty", {"tokens": "abcdefgh\\|"}),
    ],
)
def test_a_bad_prompt_gets_a_clear_message(prompt, key, fields):
    at = open_link(PAGE, task="reverse", trained="true")
    at.text_input(key="prompt").set_value(prompt).run()
    assert not at.exception
    assert [el.value for el in at.warning] == [translate("en", key, **fields)]
    assert "fig_gen_next" not in figures_by_key(at)


def test_chinese_prompt_message():
    at = open_link(PAGE, lang="zh", task="sort", trained="true", prompt="12三")
    assert [el.value for el in at.warning] == [
        translate("zh", "learn.prompt_unknown", chars="'三'", tokens="0123456789\\|")
    ]


def test_claims_about_the_heads_come_from_the_trained_weights():
    at = open_link(PAGE, task="induction", train_seed="5", trained="true")
    history = train("induction", seed=5)
    report = head_report(history.params, "induction", 500, 5)
    texts = markdown(at)
    lead = int(np.argmax(report.on_answer[1]))
    name = translate("en", "learn.head_name_start", layer=2, head=lead + 1)
    assert (
        translate(
            "en",
            "learn.lead_head",
            head=name,
            share=percent(report.on_answer[1, lead]),
            accuracy=percent(report.accuracy),
            without=percent(report.without[1, lead]),
        )
        in texts
    )
    prev = int(np.argmax(report.on_previous[0]))
    assert (
        translate(
            "en",
            "learn.previous_head",
            head=translate("en", "learn.head_name_start", layer=1, head=prev + 1),
            share=percent(report.on_previous[0, prev]),
            without=percent(report.without[0, prev]),
        )
        in texts
    )
    before = accuracy(history.snapshots[0].params, "induction", 500, 5)
    assert any(percent(before) in text and percent(report.accuracy) in text for text in texts)
    task = TASKS["induction"]  # the chance line: a blind guess among the letters, the separator never an answer
    chance = percent(1 / (task.vocab_size - 1))
    assert any(f"among the {task.vocab_size - 1} tokens an answer can be" in text and chance in text for text in texts)
    from tests.helpers import tables

    table = tables(at)[0]
    np.testing.assert_allclose(table.iloc[:, 0].to_numpy(float), report.on_answer.ravel(), rtol=0, atol=0)
    np.testing.assert_allclose(table.iloc[:, 2].to_numpy(float), report.without.ravel(), rtol=0, atol=0)


def test_a_second_seed_is_compared_with_the_first():
    at = trained_page(task="reverse", train_seed="0", steps="100")
    at.number_input(key="train_seed").set_value(1).run()
    assert any(el.value == translate("en", "learn.press_train") for el in at.info), "a new seed needs Train"
    at.button(key="train").click().run()
    assert not at.exception
    assert translate("en", "learn.runs_text") in markdown(at)
    from tests.helpers import tables

    runs = tables(at)[-1]
    assert runs.iloc[:, 0].tolist() == [0, 1]
    for row, seed in enumerate((0, 1)):
        report = head_report(train("reverse", seed=seed).params, "reverse", 500, seed)
        lead = int(np.argmax(report.on_answer[0]))
        assert runs.iloc[row, 2] == report.accuracy
        assert runs.iloc[row, 3] == translate("en", "learn.head_name_start", layer=1, head=lead + 1)
        assert runs.iloc[row, 4] == report.on_answer[0, lead]


def test_pressing_train_again_replays_without_computing():
    at = trained_page(task="copy", train_seed="4", steps="30")
    at.button(key="train").click().run()
    assert translate("en", "learn.replayed") in [el.value for el in at.caption]
    np.testing.assert_array_equal(ys(figures_by_key(at)["fig_curves"]["data"][0]), train("copy", steps=30, seed=4).loss)


def test_a_new_task_starts_from_its_own_recipe_and_prompt():
    at = trained_page(task="reverse")
    at.button_group(key="task").set_value("sort").run()
    assert not at.exception
    assert at.select_slider(key="steps").value == TASKS["sort"].steps
    assert at.query_params.get("steps") is None
    assert any(el.value == translate("en", "learn.press_train") for el in at.info)
    at.button(key="train").click().run()
    assert at.text_input(key="prompt").value == "40718|"
    assert not at.warning, [el.value for el in at.warning]


def test_a_new_task_opens_at_its_own_final_snapshot():
    """A snapshot, a head and a query chosen on one task do not carry over to the next: Induction
    opens after all its 400 updates, not after the 100 that were the end of Reverse's run."""
    at = trained_page(task="reverse", train_seed="0", steps="100")
    at.select_slider(key="snapshot_reverse_0_100").set_value(30).run()
    at.select_slider(key="write_from_reverse_0_100").set_value(10).run()
    at.button_group(key="learn_head_picker").set_value(0).run()
    assert at.query_params.get("snapshot") == "30" and at.query_params.get("write_from") == "10"
    at.button_group(key="task").set_value("induction").run()
    at.button(key="train").click().run()
    assert not at.exception, at.exception
    steps = TASKS["induction"].steps
    history = train("induction", seed=0)
    assert at.select_slider(key=f"snapshot_induction_0_{steps}").value == steps
    assert at.select_slider(key=f"write_from_induction_0_{steps}").value == steps
    for name in ("snapshot", "write_from", "learn_head"):
        assert at.query_params.get(name) is None, name
    fig = figures_by_key(at)["fig_snapshot"]
    assert title_text(fig) == translate("en", "learn.snapshot_title", step=steps)
    last = history.snapshots[-1]
    panels = [np.asarray(plotly_array(trace["z"]), dtype=np.float64) for trace in fig["data"]]
    heads = [(layer, h) for layer in range(TASKS["induction"].n_layers) for h in range(TASKS["induction"].n_heads)]
    for (layer, h), z in zip(heads, panels, strict=True):
        np.testing.assert_allclose(z, last.weights[layer, h], rtol=0, atol=1e-12)
    report = head_report(history.params, "induction", 500, 0)
    lead = int(np.argmax(report.on_answer[-1]))
    assert at.button_group(key="learn_head_picker").value == heads.index((1, lead)), "its own lead head"


@pytest.mark.parametrize(
    "params",
    [
        {"task": "nope", "steps": "17", "train_seed": "-3", "trained": "maybe"},
        {"trained": "true", "temperature": "9", "snapshot": "7", "learn_head": "99", "learn_query": "0"},
        {"trained": "true", "gen_step": "abc", "learn_step": "nope", "qk": "x", "sample_seed": "1e9", "prompt": "<b>x"},
        {"trained": "true", "train_seed": "abc", "steps": "1000000", "temperature": "-1"},
    ],
)
def test_bad_url_values_give_a_working_page(params):
    at = open_link(PAGE, **params)
    assert not at.exception, at.exception
    assert at.title[0].value == translate("en", "learn.title")
    if params.get("trained") == "true":
        assert "fig_curves" in figures_by_key(at)


def test_chinese_page_has_no_english_prose():
    at = open_link(PAGE, lang="zh", task="induction", trained="true", steps="30")
    assert not at.exception
    page = [text for text in page_texts(at) if CJK.search(text) or text.strip()]
    allowed = ("attention_core/learning/", "Adam", "argmax", "softmax", "induction head", "W^O_h")
    leftover = english_prose(page, allowed_words=allowed)
    assert not leftover, leftover
    for spec in figures_by_key(at).values():
        assert CJK.search(title_text(spec)), title_text(spec)


def test_presentation_mode():
    at = open_link(PAGE, lang="zh", task="reverse", trained="true", present="true")
    assert not at.exception
    for spec in figures_by_key(at).values():
        assert spec["layout"]["font"]["size"] == CHART_FONT_PX
    keys = [chart.proto.id.rsplit("-", 1)[-1] for chart in at.get("plotly_chart")]
    assert "fig_curves_present" in keys


def test_the_link_keeps_the_view():
    params = {
        "task": "sort",
        "train_seed": "2",
        "steps": "100",
        "temperature": "0.5",
        "prompt": "91|",
        "snapshot": "30",
    }
    at = open_link(PAGE, trained="true", **params)
    assert not at.exception
    kept = dict(at.query_params.items())
    for k, v in params.items():
        assert kept.get(k) == v, (k, kept.get(k))
    assert kept["trained"] == "true"
    fig = figures_by_key(at)["fig_snapshot"]
    assert title_text(fig) == translate("en", "learn.snapshot_title", step=30)
    spec = json.dumps(figures_by_key(at)["fig_curves"])
    assert spec
