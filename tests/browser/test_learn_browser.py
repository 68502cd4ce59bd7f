""" "Watch a head learn" in a real browser: press Train, watch the progress bar and the curves
grow, read the finished curves (they equal attention_core.learning.train) and the final
held-out accuracy, then let the model write from a prompt typed in.

The time from the click on Train to the finished curves drawn in Chromium is printed (run with
``-s`` to see it), not asserted: the machine is shared. Pressing Train is one script run: the
training runs inside it, a slice at a time.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from attention_core.learning import DEFAULT_TASK, TASKS, accuracy, generate, train
from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import COUNT_RUNS_JS, TOY, VIEWPORT, js, no_exception, plotly_data, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

WATCH_JS = COUNT_RUNS_JS + js(
    """
(() => {
  window.__seen = {};
  // Each added element is looked at, not only the page at the observer's turn: on a loaded
  // machine an element can come and go within one batch of changes.
  const mark = (name, selector, added) => {
    if (name in window.__seen) return;
    const inside = (n) => n.matches?.(selector) || n.querySelector?.(selector);
    if (document.querySelector(selector) || added.some(inside)) window.__seen[name] = performance.now();
  };
  new MutationObserver((records) => {
    const added = records.flatMap(r => [...r.addedNodes]).filter(n => n.nodeType === 1);
    mark('progress', 'testid(stMain) testid(stProgress)', added);
    mark('live', '[class*="st-key-fig_curves_live"] .js-plotly-plot', added);
    mark('curves', '.st-key-fig_curves .js-plotly-plot', added);
  }).observe(document, {subtree: true, childList: true});
})();"""
)

FINISHED_JS = js("""() => {
  const app = document.querySelector('testid(stApp)');
  const plot = document.querySelector('.st-key-fig_curves .js-plotly-plot');
  return app && app.getAttribute('data-test-script-state') === 'notRunning' && plot && plot.data && plot._fullLayout;
}""")


@pytest.mark.parametrize(("task", "prompt"), [("reverse", "abcde|"), ("induction", "hgfedc|e")])
def test_train_watch_the_curves_then_write(server, chromium, task, prompt):
    context = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(120_000)
    context.add_init_script(WATCH_JS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server + f"learn?{TOY}&lang=en&task={task}&temperature=0")
        wait_for_app(page)
        no_exception(page)
        main = page.locator(testid("stMain"))
        assert main.get_by_text(translate("en", "learn.press_train").replace("**", "")).count() == 1
        steps = TASKS[task].steps

        page.evaluate("window.__runs = []; window.__acked = 0; window.__seen = {}")
        start = time.perf_counter()
        clicked = page.evaluate("performance.now()")
        main.get_by_role("button", name=translate("en", "learn.train")).click()
        page.wait_for_function(FINISHED_JS, timeout=120_000, polling=50)
        seconds = time.perf_counter() - start
        seen = page.evaluate("window.__seen")
        wait_for_app(page)
        no_exception(page)
        runs = page.evaluate("window.__runs")
        first = {name: (at - clicked) / 1000 for name, at in seen.items()}
        print(
            f"\n{task}, {steps} updates, click on Train -> progress bar {first.get('progress', float('nan')):.2f} s, "
            f"first growing curve {first.get('live', float('nan')):.2f} s, finished curves drawn "
            f"{first.get('curves', float('nan')):.2f} s, whole page drawn and idle {seconds:.2f} s; script runs {runs}"
        )
        assert "progress" in seen, "the progress bar was shown while training"
        assert len(runs) == 1, f"pressing Train is one script run, got {runs}"

        history = train(task, seed=0)
        title = translate("en", "learn.curves_title", task=translate("en", f"learn.task_{task}"), seed=0, steps=steps)
        curves = [f for f in plotly_data(page) if f["title"] == title]
        assert curves, [f["title"] for f in plotly_data(page)]
        loss, _, batch_accuracy, held_out = curves[0]["data"]
        np.testing.assert_allclose(loss["y"], history.loss, rtol=0, atol=1e-12)
        np.testing.assert_allclose(batch_accuracy["y"], history.accuracy, rtol=0, atol=1e-12)
        final = accuracy(history.params, task, 500, 0)
        assert held_out["y"][-1] == pytest.approx(final)
        shown = main.get_by_text(f"Held-out accuracy {100 * final:.1f} %").count()
        assert shown == 1, "the final held-out accuracy is written under the Train button"

        box = page.locator(".st-key-prompt input")
        box.fill(prompt)
        box.press("Enter")
        wait_for_app(page)
        no_exception(page)
        written = generate(history.params, prompt, TASKS[task].n_positions - len(prompt) + 1, 0.0, task=task).text
        line = f"{prompt} → the model writes {written}"
        assert main.get_by_text(line).count() == 1, line
        next_chart = [f for f in plotly_data(page) if f["title"].startswith("Token ")]
        assert next_chart and max(next_chart[0]["data"][0]["y"]) == 1.0, "temperature 0: all on the argmax"
        assert "trained=true" in page.url and "temperature=0" in page.url
        assert (f"task={task}" in page.url) == (task != DEFAULT_TASK), "a choice other than the default is in the URL"
        assert not errors, errors
    finally:
        context.close()


PROJECTOR = {"width": 1024, "height": 768}

FIRST_SCREEN_JS = js("""(live) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const main = document.querySelector('testid(stMain)');
  const train = [...main.querySelectorAll('button')].find(b => b.closest('.st-key-train'));
  // presentation mode keys its charts apart (charts.draw): fig_curves_live3_present, fig_curves_present
  const chart = live ? '[class*="st-key-fig_curves_live"]' : '.st-key-fig_curves_present';
  const plot = document.querySelector(chart + ' .js-plotly-plot');
  if (!train || !plot || !plot._fullLayout) return null;
  return {train: box(train), curves: box(plot), scrolled: main.scrollTop || document.scrollingElement.scrollTop};
}""")

OVERLAPS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const title = plot.querySelector('.gtitle');
  if (!title || !title.textContent) return [];
  const t = title.getBoundingClientRect();
  return [...plot.querySelectorAll('.annotation-text')].filter(note => {
    const a = note.getBoundingClientRect();
    return a.width > 0 && t.left < a.right && a.left < t.right && t.top < a.bottom && a.top < t.bottom;
  }).map(note => [title.textContent, note.textContent]);
})"""


LEGEND_OVER_CURVE_JS = """() => {
  // the finished curves' legend box, and every point of the loss curve that lies inside it (px)
  const plot = document.querySelector('.st-key-fig_curves_present .js-plotly-plot');
  const legend = plot && plot.querySelector('.legend .bg');
  if (!legend) return null;
  const box = legend.getBoundingClientRect(), frame = plot.getBoundingClientRect();
  const loss = plot._fullData[0], xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
  const inside = loss.x.map((x, k) => [frame.left + xa._offset + xa.l2p(x), frame.top + ya._offset + ya.l2p(loss.y[k])])
    .filter(([x, y]) => box.left - 2 <= x && x <= box.right + 2 && box.top - 2 <= y && y <= box.bottom + 2);
  return {legend: [box.left, box.top, box.right, box.bottom], points: loss.x.length, inside: inside.length};
}"""


def first_screen(page, live: bool) -> dict:
    """The Train button's and the curves' boxes (left, top, right, bottom, px in the window) as
    soon as the curves (growing ones with ``live``, the finished ones without) are drawn."""
    handle = page.wait_for_function(FIRST_SCREEN_JS, arg=live, timeout=120_000, polling=30)
    return handle.json_value()


@pytest.mark.parametrize(("lang", "seed"), [("en", 11), ("zh", 12)])
def test_on_a_projector_train_and_the_growing_curves_are_on_the_first_screen(tab, server, lang, seed):
    """In presentation mode at 1024 × 768 the Train button and the curves it makes grow sit side
    by side on the first screen, while training and after, with the intro folded; no chart title
    of the page lies over a panel title ("Layer 1, head 1") under it. A seed trained by no other
    test: the curves grow for real (a run trained before would be replayed)."""
    page = tab(viewport=PROJECTOR)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + f"learn?{TOY}&lang={lang}&present=true&train_seed={seed}")
    wait_for_app(page)
    no_exception(page)
    main = page.locator(testid("stMain"))
    intro = translate(lang, "learn.intro")[:40]
    assert main.get_by_text(translate(lang, "learn.about_fold")).is_visible()
    assert not main.get_by_text(intro).first.is_visible(), "the intro is folded on a projector"

    main.get_by_role("button", name=translate(lang, "learn.train")).click()
    for live in (True, False):
        boxes = first_screen(page, live)
        train, curves = boxes["train"], boxes["curves"]
        when = "while training" if live else "after training"
        assert boxes["scrolled"] == 0, boxes
        assert 0 <= train[1] and train[3] <= PROJECTOR["height"], f"Train {when} at {train}"
        assert 0 <= curves[1] and curves[3] <= PROJECTOR["height"], f"the curves {when} at {curves}"
        assert curves[0] >= train[2], f"the curves beside Train {when}: {boxes}"
    wait_for_app(page)
    no_exception(page)
    assert page.evaluate(OVERLAPS_JS) == []
    covered = page.evaluate(LEGEND_OVER_CURVE_JS)
    assert covered and covered["points"] > 10, covered
    assert covered["inside"] == 0, f"the legend lies over the finished loss curve: {covered}"
    assert not errors, errors
