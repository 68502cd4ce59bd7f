"""What a learner's clicks cost, in Chromium, against a bare Streamlit app's rerun in the same run.

    python -m bench.bench_clicks                      # every interaction, 3 repetitions (~15 min)
    python -m bench.bench_clicks --reps 5
    python -m bench.bench_clicks --only "W:"          # only interactions whose name contains "W:"
    python -m bench.bench_clicks --profile /tmp/prof  # cProfile every run (times inflated!), top functions
    python -m bench.bench_clicks --js-profile --only "page →"  # where Chromium spends the time

Two servers, started alike from the repo root (``bench.core.Server(timed=True)``: ``python -m
bench.st_timed run <script> --server.port <free> --server.headless true --server.address 127.0.0.1
--server.fileWatcherType none``, HF_HUB_OFFLINE=1, the bundled model): "ours" is app.py,
"bare" is bench/bare_app.py (a text input and one go.Heatmap). bench/st_timed.py is
``streamlit run`` with a stopwatch around every script run; the app is not changed. One
headless Debian Chromium (Playwright's sync API, 1400×900), one browser context per app.

Warm-up: ours opens /matrices (the model loads), then every page of the sidebar is clicked
once ("first visit" rows, printed apart, not in the overall figures). Then ``--reps`` times,
each group of interactions below, each interaction followed by one bare Enter (a new 20-word
sentence into the bare app's "Sentence" box) so that background load hits both alike:

* pages: every sidebar page link, in menu order (each page's second or later visit);
* step_by_step: a query token picked, then Next through all 7 steps and Back to the first,
  for two tokens;
* settings on step_by_step (at step 3, "Q, K, V", whose charts grow with d_k) and on matrices:
  W (segmented control) Trained → Random, d_k ±1, seed ±1, positional off/on (enabled for
  Random only), Random → Trained, Trained → Identity, Identity → Trained, layer and head
  picked and back, scaled off/on, toy off/on, presentation mode on/off, language 中文/English;
* matrices: tab "Q, K, V" opened, then "Weights" again;
* real_model: layer and head picked and back, a query token picked (never the PyTorch check);
* similarity: a token picked, inputs/queries switched; why_scaling: its d_k slider ±1 step;
  multi_head: the causal mask toggled off/on.

Elements are found by widget key (``.st-key-<key>``) and data-testid, options by position, so
the language does not matter. Interactions that are not timed (``--only``) still run, so every
group leaves the app in its defaults.

What each column measures, per interaction (medians over the repetitions unless marked):

total    On the page's own clock (``performance.now()``), from the input event that starts the
         interaction (``pointerdown`` or ``keydown``, seen by a capturing listener) until what
         its script runs sent has been drawn: every run it started has ended (the page received
         as many ForwardMsg ``script_finished`` as ``new_session``, read from the websocket's
         frames), stApp's ``data-test-script-state`` is "notRunning", no element of the old run
         is left (no ``[data-stale="true"]``, no skeleton, every Plotly chart has a
         ``_fullLayout``), and nothing in the page changed for 400 ms; the clock stops at the
         second ``requestAnimationFrame`` callback after the last change to the page (a
         MutationObserver on the whole document), i.e. once the last change has been painted.
         The state attribute alone is not enough: when a run is fast, React renders "running"
         and "notRunning" in one go and the page never shows "running".
run      From the same input until the page handled the last ``script_finished`` message (the end
         of the rerun as the page sees it; a page still busy drawing what came before handles it
         late). total − run is the drawing after the run; an st.dataframe's grid, for one,
         changes its canvas about 0.3–0.4 s after the run.
script   On the server (bench/st_timed.py): wall time of the script runs the interaction started
         (app.py, sidebar and page, every ``st.*`` call up to its message being queued), summed
         if there were several. Not included: the websocket send and the post-run GC.
browser  Chromium's renderer main thread: the growth of ``TaskDuration`` (CDP
         ``Performance.getMetrics``) from just before the input event until the interaction is
         over (400 ms of quiet included) — the time the page spent handling the messages,
         rendering React, laying out and drawing the charts. It overlaps the script (the page
         draws what arrives while the script runs), so script + browser may exceed total.
runs     Script runs the interaction started, counted in the page (``new_session`` messages); a
         different count on the server (st_timed.py's log) is printed as ``srv=`` n.
KB       Bytes the page received on its websocket during the interaction (median).
× bare   total / the median of all bare Enters (Enter → redrawn heatmap, timed the same way).

Summary: the median and the p95 of the per-interaction medians (and of all samples), as
multiples of the bare median, and how many interactions have a sample over 1 s. Then, for the
slowest interactions, their script runs' charts (key, JSON spec KB, ``st.plotly_chart`` ms)
from st_timed.py. Diagnosis: ``--profile DIR`` profiles every script run (cProfile, script
thread) and prints the top functions of the slowest interactions; ``--js-profile`` records
Chromium's JavaScript CPU profile (CDP Profiler, 0.5 ms sampling) of every timed interaction
and prints where the slowest spent it ("(program)" is the browser's own work: style, layout,
paint). Both slow down what they watch: do not read times from such a run.

Charts drawn afresh: the keys of the charts whose Plotly plot the browser built anew during
the interaction (a ``plot-container`` added, i.e. the chart was mounted), listed per
interaction at the end. Streamlit mounts a chart again when its figure changes and also when
the chart moves to another place in the page (an element above it came or went): a key listed
for a click that does not change that figure is work to remove.

It prints; it never asserts a time. The machine may be shared: ``uptime`` before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pstats
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.core import (
    ROOT,
    TRACE_CATEGORIES,
    chromium,
    main_thread_time,
    on_sigterm_exit,
    percentile,
    sentences,
    wait_idle,
)
from bench.pageclock import App, Sample, timed_server
from harness import testid

SLOW_S = 1.0


# --------------------------------------------------------------------------- ours: selectors


class Ours:
    """Clicks on app.py, by widget key and data-testid."""

    def __init__(self, app: App):
        self.app, self.page = app, app.page
        self.current = ""  # page id ("" before the first page)

    def sidebar(self, key: str):
        return self.page.locator(f"{testid('stSidebar')} .st-key-{key}")

    def main(self, key: str):
        return self.page.locator(f"{testid('stMain')} .st-key-{key}")

    def option(self, where, n: int):
        """Option ``n`` of a segmented control (buttons in option order)."""
        return where.locator('button[role="radio"]').nth(n)

    def link(self, page_id: str):
        start = "?" if page_id == "home" else f"{page_id}?"
        return self.page.locator(f'{testid("stSidebar")} {testid("stPageLink")} a[href^="{start}"]').first

    def toggle(self, key: str):
        return self.sidebar(key).locator("label").first

    def step(self) -> int:
        """The step shown by step by step, 0-based (from "Step n of 7" / "第 n 步 …")."""
        text = self.page.locator(testid("stProgress")).inner_text()
        found = re.search(r"\d+", text)
        if found is None:
            raise ValueError(f"no step number in the progress text {text!r}")
        return int(found.group()) - 1

    def checked(self, where) -> int:
        """Position of the checked option of a segmented control."""
        states = where.locator('button[role="radio"]').evaluate_all("bs => bs.map(b => b.getAttribute('aria-checked'))")
        return states.index("true")


# --------------------------------------------------------------------------- the interactions


@dataclass
class Step:
    name: str
    act: Callable[[], None] | None  # the one input (click, key press); None: only ``prepare``
    prepare: str | None = None  # untimed, before: "open_sidebar", "to_step0", "to_step2"


@dataclass
class Group:
    name: str
    steps: Callable[[], list[Step]]  # built when the group runs (the app's state then)


def _app_constants() -> tuple[list[str], int, int, int]:
    """The sidebar's pages in menu order and the default trained head (layer, head), from the app itself."""
    from attention_core.lesson import STEPS, TRAINED_HEAD
    from attention_ui.registry import PAGES

    return [entry.id for entry in PAGES], len(STEPS), *TRAINED_HEAD


NAV, N_STEPS, LAYER, HEAD = _app_constants()
OTHER_LAYER, OTHER_HEAD = (LAYER + 1) % 6, (HEAD + 1) % 12  # a pick away from the default, and back
STEP_TOKENS = (2, 4)  # the two query tokens walked through (of the default sentence's 12 pieces)


def groups(o: Ours, runner) -> list[Group]:
    """Every group of interactions; each starts by opening its page and ends in the defaults."""
    sb, mn, opt = o.sidebar, o.main, o.option
    L, L2, H, H2 = LAYER + 1, OTHER_LAYER + 1, HEAD + 1, OTHER_HEAD + 1  # as shown, from 1

    def goto(page_id: str) -> list[Step]:
        if o.current == page_id:
            return []
        return [Step(f"(open {page_id})", lambda: o.link(page_id).click())]

    def pages() -> list[Step]:
        order = NAV[NAV.index(o.current) + 1 :] + NAV[: NAV.index(o.current) + 1] if o.current in NAV else NAV
        return [Step(f"page → {p}", o.link(p).click) for p in order]  # a locator finds its element when clicked

    def step_by_step() -> list[Step]:
        out = goto("step_by_step")
        # back to the first step first (untimed)
        out.append(Step("(to step 1)", None, prepare="to_step0"))
        for token in STEP_TOKENS:
            out.append(Step("step_by_step: query token picked", opt(mn("token_picker"), token).click))
            for n in range(1, N_STEPS):
                out.append(
                    Step(f"step_by_step: Next → step {n + 1}", lambda: mn("step_next").locator("button").click())
                )
            for n in range(N_STEPS - 2, -1, -1):
                out.append(
                    Step(f"step_by_step: Back → step {n + 1}", lambda: mn("step_back").locator("button").click())
                )
        return out

    def settings(where: str) -> Callable[[], list[Step]]:
        def build() -> list[Step]:
            out = goto(where)
            if where == "step_by_step":
                out.append(Step("(to step 3)", None, prepare="to_step2"))
            at = f"@{where}"
            w = lambda n: lambda: opt(sb("w"), n).click()  # noqa: E731 - trained, random, identity
            slider = lambda key: sb(key).locator('input[type="range"]')  # noqa: E731
            out += [
                Step(f"W: Trained → Random {at}", w(1)),
                Step(f"d_k +1 {at}", lambda: slider("d_k").press("ArrowRight")),
                Step(f"d_k −1 {at}", lambda: slider("d_k").press("ArrowLeft")),
                Step(f"seed +1 {at}", lambda: sb("seed").locator(testid("stNumberInputStepUp")).click()),
                Step(f"seed −1 {at}", lambda: sb("seed").locator(testid("stNumberInputStepDown")).click()),
                Step(f"positional off {at}", lambda: o.toggle("positional").click()),
                Step(f"positional on {at}", lambda: o.toggle("positional").click()),
                Step(f"W: Random → Trained {at}", w(0)),
                Step(f"W: Trained → Identity {at}", w(2)),
                Step(f"W: Identity → Trained {at}", w(0)),
                Step(f"layer {L} → {L2} {at}", lambda: opt(sb("layer_picker"), OTHER_LAYER).click()),
                Step(f"layer {L2} → {L} {at}", lambda: opt(sb("layer_picker"), LAYER).click()),
                Step(f"head {H} → {H2} {at}", lambda: opt(sb("head_picker"), OTHER_HEAD).click()),
                Step(f"head {H2} → {H} {at}", lambda: opt(sb("head_picker"), HEAD).click()),
                Step(f"scaled off {at}", lambda: o.toggle("scaled").click()),
                Step(f"scaled on {at}", lambda: o.toggle("scaled").click()),
                Step(f"toy on {at}", lambda: o.toggle("toy").click()),
                Step(f"toy off {at}", lambda: o.toggle("toy").click()),
                Step(f"presentation on {at}", lambda: o.toggle("present").click()),
                Step(f"presentation off {at}", lambda: o.toggle("present").click(), prepare="open_sidebar"),
                Step(f"language → 中文 {at}", lambda: opt(sb("lang_picker"), 1).click()),
                Step(f"language → English {at}", lambda: opt(sb("lang_picker"), 0).click()),
            ]
            return out

        return build

    def matrices() -> list[Step]:
        tab = lambda n: lambda: o.page.locator(".st-key-matrix_tab button").nth(n).click()  # noqa: E731
        return goto("matrices") + [Step("matrices: tab Q, K, V", tab(0)), Step("matrices: tab Weights", tab(3))]

    def real_model() -> list[Step]:
        return goto("real_model") + [
            Step(f"real_model: layer {L} → {L2}", lambda: opt(mn("layer_picker"), OTHER_LAYER).click()),
            Step(f"real_model: layer {L2} → {L}", lambda: opt(mn("layer_picker"), LAYER).click()),
            Step(f"real_model: head {H} → {H2}", lambda: opt(mn("head_picker"), OTHER_HEAD).click()),
            Step(f"real_model: head {H2} → {H}", lambda: opt(mn("head_picker"), HEAD).click()),
            Step("real_model: query token picked", lambda: opt(mn("model_token_picker"), 3).click()),
        ]

    def similarity() -> list[Step]:
        return goto("similarity") + [
            Step("similarity: token picked", lambda: opt(mn("sim_token_picker"), 3).click()),
            Step("similarity: token 0 again", lambda: opt(mn("sim_token_picker"), 0).click()),
            Step("similarity: inputs a_i", lambda: opt(mn("sim_vectors"), 1).click()),
            Step("similarity: queries/keys", lambda: opt(mn("sim_vectors"), 0).click()),
        ]

    def why_scaling() -> list[Step]:
        thumb = lambda: mn("exp_d_k").locator('input[type="range"]')  # noqa: E731
        return goto("why_scaling") + [
            Step("why_scaling: d_k 64 → 128", lambda: thumb().press("ArrowRight")),
            Step("why_scaling: d_k 128 → 64", lambda: thumb().press("ArrowLeft")),
        ]

    def multi_head() -> list[Step]:
        causal = lambda: mn("causal").locator("label").first.click()  # noqa: E731
        return goto("multi_head") + [
            Step("multi_head: causal mask off", causal),
            Step("multi_head: causal mask on", causal),
        ]

    return [
        Group("pages", pages),
        Group("step_by_step", step_by_step),
        Group("settings@step_by_step", settings("step_by_step")),
        Group("settings@matrices", settings("matrices")),
        Group("matrices", matrices),
        Group("real_model", real_model),
        Group("similarity", similarity),
        Group("why_scaling", why_scaling),
        Group("multi_head", multi_head),
    ]


# --------------------------------------------------------------------------- running


class Runner:
    def __init__(self, ours: App, bare: App, only: str | None, seed: int, js_profile=False, trace=False):
        self.ours, self.bare, self.only, self.js_profile, self.trace = ours, bare, only, js_profile, trace
        self.o = Ours(ours)
        self.samples: dict[str, list[Sample]] = {}
        self.first: dict[str, Sample] = {}
        self.bare_samples: list[Sample] = []
        self.order: list[str] = []
        self.bare_sentences = iter(sentences(10_000, seed))
        self.bare_box = bare.page.get_by_label("Sentence", exact=True)

    def wanted(self, name: str) -> bool:
        return not name.startswith("(") and (self.only is None or self.only.lower() in name.lower())

    def prepare(self, what: str | None) -> None:
        o = self.o
        if what == "open_sidebar":
            button = o.page.locator(testid("stExpandSidebarButton"))
            if button.count() and button.is_visible():
                button.click()  # no script run: only the sidebar slides in
                o.toggle("present").wait_for(state="visible")
                time.sleep(0.5)
        elif what in ("to_step0", "to_step2"):
            target = 0 if what == "to_step0" else 2
            while (now := o.step()) != target:
                key = "step_next" if now < target else "step_back"
                self.ours.measure(o.main(key).locator("button").click)

    def bare_enter(self) -> None:
        words = next(self.bare_sentences)
        self.bare_box.fill(" ".join(words))
        self.bare_samples.append(self.bare.measure(lambda: self.bare_box.press("Enter"), trace=self.trace))

    def run_step(self, step: Step, timed: bool, first: bool = False) -> Sample | None:
        self.prepare(step.prepare)
        if step.act is None:
            return None
        watch = timed and not first
        sample = self.ours.measure(step.act, js_profile=self.js_profile and watch, trace=self.trace and watch)
        if step.name.startswith("page → "):
            self.o.current = step.name.removeprefix("page → ")
        elif step.name.startswith("(open "):
            self.o.current = step.name.removeprefix("(open ").rstrip(")")
        if first:
            self.first[step.name.removeprefix("page → ")] = sample
            return sample
        if not timed:
            return None
        self.samples.setdefault(step.name, []).append(sample)
        if step.name not in self.order:
            self.order.append(step.name)
        self.bare_enter()
        return sample

    def run_group(self, group: Group, rep: int) -> None:
        steps = group.steps()
        if not any(self.wanted(s.name) for s in steps):
            return
        for step in steps:
            sample = self.run_step(step, self.wanted(step.name))
            if sample is not None:
                flag = (
                    "" if sample.runs == 1 == sample.server_runs else f"  runs {sample.runs}/srv {sample.server_runs}"
                )
                print(
                    f"  rep {rep} {pad(step.name, 42)} {fmt_s(sample.total)}  script {fmt_s(sample.script)}  "
                    f"browser {fmt_s(sample.browser)}  {sample.kb:7.0f} KB  | bare {fmt_s(self.bare_samples[-1].total)}"
                    + flag,
                    flush=True,
                )


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (a CJK character takes two)."""
    wide = sum(1 for ch in text if ord(ch) > 0x2E7F)
    return text + " " * max(0, width - len(text) - wide)


def fmt_s(x: float) -> str:
    return "    nan" if x != x else f"{x:6.3f}s"


def open_app(browser, name: str, script: str, path: str, tmp: Path, args) -> App:
    """Start ``script`` through bench/st_timed.py, open ``path`` in a context with the page clock."""
    profile = None
    if args.profile and name == "ours":
        profile = Path(args.profile).resolve()
        profile.mkdir(parents=True, exist_ok=True)
    server = timed_server(name, script, tmp, profile_dir=profile).start()
    server.wait_health(args.timeout)
    app = App(server, browser, args.timeout, trace_reader=main_thread_time, trace_categories=TRACE_CATEGORIES)
    app.page.goto(server.url + path)
    # a chart, or a matrix drawn as a table (/matrices' default since 2026-12-06)
    drawn = "() => document.querySelectorAll('.js-plotly-plot, table.cell-matrix, table.num-table').length > 0"
    wait_idle(app.page, args.timeout, predicate_js=drawn)
    time.sleep(1.0)
    return app


# --------------------------------------------------------------------------- report


def med(xs: list[float]) -> float:
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def runs_text(samples: list[Sample]) -> str:
    page = sorted({s.runs for s in samples})
    text = "/".join(str(n) for n in page)
    if any(s.runs != s.server_runs for s in samples):
        text += " srv=" + "/".join(str(n) for n in sorted({s.server_runs for s in samples}))
    return text


def report(runner: Runner, args) -> None:
    bare = med([s.total for s in runner.bare_samples])
    print()
    print(
        f"bare Enter → redrawn heatmap: median {bare:.3f} s, "
        f"p95 {percentile([s.total for s in runner.bare_samples], 95):.3f} s, "
        f"script {med([s.script for s in runner.bare_samples]):.3f} s, "
        f"browser {med([s.browser for s in runner.bare_samples]):.3f} s, "
        f"run over {med([s.fin for s in runner.bare_samples]):.3f} s (n = {len(runner.bare_samples)})"
    )
    head = f"{'interaction':<44} {'n':>2} {'runs':>5} {'total':>7} {'p95':>7} {'run':>6} {'script':>7} {'browser':>7}"
    head += f" {'KB':>6} {'× bare':>7}"
    print()
    print(head)
    print("-" * len(head))
    medians, all_totals, slow_rows = [], [], []
    for name in runner.order:
        ss = runner.samples[name]
        totals = [s.total for s in ss]
        m = med(totals)
        medians.append(m)
        all_totals += [x for x in totals if x == x]
        if any(x > SLOW_S for x in totals):
            slow_rows.append(name)
        print(
            f"{pad(name, 44)} {len(ss):>2} {runs_text(ss):>5} {m:7.3f} {percentile(totals, 95):7.3f} "
            f"{med([s.fin for s in ss]):6.3f} {med([s.script for s in ss]):7.3f} {med([s.browser for s in ss]):7.3f} "
            f"{med([s.kb for s in ss]):6.0f} {m / bare:6.2f}×"
        )
    if not medians:
        return
    print()
    print(f"{len(medians)} interactions, {len(all_totals)} samples; bare median {bare:.3f} s")
    print(
        f"  per-interaction medians: median {med(medians):.3f} s = {med(medians) / bare:.2f}× bare (target ≤ 1.2×), "
        f"p95 {percentile(medians, 95):.3f} s = {percentile(medians, 95) / bare:.2f}× bare (target ≤ 2×)"
    )
    print(
        f"  all samples:             median {med(all_totals):.3f} s = {med(all_totals) / bare:.2f}× bare, "
        f"p95 {percentile(all_totals, 95):.3f} s = {percentile(all_totals, 95) / bare:.2f}× bare"
    )
    print(
        f"  interactions with a sample over {SLOW_S:.0f} s: {len(slow_rows)} (target 0); "
        f"medians over {SLOW_S:.0f} s: {sum(m > SLOW_S for m in medians)}"
    )
    odd = [n for n in runner.order if any(s.runs != 1 or s.server_runs != 1 for s in runner.samples[n])]
    print(f"  interactions not always exactly one script run: {', '.join(odd) if odd else 'none'}")
    if runner.first:
        print()
        print("first visits (warm-up, once, model loaded, fresh server; not in the figures above):")
        for name, s in runner.first.items():
            print(
                f"  page → {name:<36} {s.total:7.3f} s  script {s.script:6.3f} s  browser {s.browser:6.3f} s  "
                f"{s.kb:6.0f} KB  runs {s.runs}/srv {s.server_runs}"
            )
    slowest = sorted(runner.order, key=lambda n: -med([s.total for s in runner.samples[n]]))[: args.top]
    print()
    print(
        f"charts sent by the {len(slowest)} slowest interactions (one sample; key, JSON spec KB, st.plotly_chart ms):"
    )
    for name in slowest:
        s = runner.samples[name][-1]
        charts = sorted(s.charts, key=lambda c: -c[1])
        spec_kb = sum(c[1] for c in charts) / 1024
        chart_ms = 1e3 * sum(c[2] for c in charts)
        print(
            f"  {name}: script {s.script:.3f} s (thread CPU {s.cpu:.3f} s, server tree CPU {s.server_cpu:.3f} s),\n    "
            f"{len(charts)} charts, {spec_kb:.0f} KB of spec, {chart_ms:.0f} ms in st.plotly_chart; "
            f"the page got {s.kb:.0f} KB and has {s.nodes} elements;\n    "
            f"script_finished reached the page {s.fin:.3f} s after the input, the page last changed "
            f"{s.total - s.fin:.3f} s later (the last changes, ms after it: {s.late})"
        )
        for key, size, secs in charts[:5]:
            print(f"      {key:<28} {size / 1024:8.1f} KB {1e3 * secs:7.1f} ms")
        print(f"    drawn afresh in the browser: {', '.join(s.drawn) or 'none'}")
    print()
    print("charts drawn afresh, per interaction (a chart whose figure did not change should not be here):")
    for name in runner.order:
        drawn = sorted(set(k for s in runner.samples[name] for k in s.drawn))
        print(f"  {name:<44} {', '.join(drawn) or '-'}")
    if args.profile:
        print_profiles(runner, slowest, Path(args.profile))
    if args.js_profile:
        print_js_profiles(runner, slowest)
    if args.trace:
        print_traces(runner, slowest)


def print_profiles(runner: Runner, names: list[str], directory: Path, top: int = 14) -> None:
    print()
    print(f"cProfile of the script runs (profiled server: times inflated), files in {directory}:")
    for name in names:
        paths = [directory / f"run-{n}.prof" for s in runner.samples[name] for n in s.profiles]
        files = [str(f) for f in paths if f.exists()]
        if not files:
            continue
        stats = pstats.Stats(*files)
        n = len(runner.samples[name])
        slug = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")
        stats.dump_stats(directory / f"{slug}.prof")
        print(f"\n  {name}  ({n} samples; cumulative s per sample; {directory / (slug + '.prof')})")
        rows = []
        for (path, line, func), (_cc, _nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
            rows.append((ct / n, tt / n, path, line, func))
        ours = [r for r in rows if str(ROOT) in r[2] and "/bench/" not in r[2]]
        for ct, tt, path, line, func in sorted(ours, reverse=True)[:top]:
            print(f"    {ct:7.3f} {tt:7.3f}  {os.path.relpath(path, ROOT)}:{line} {func}")
        print("    -- by own time (any module):")
        for ct, tt, path, line, func in sorted(rows, key=lambda r: -r[1])[:6]:
            print(f"    {ct:7.3f} {tt:7.3f}  {path.split('site-packages/')[-1]}:{line} {func}")


def js_self_times(profile: dict) -> tuple[dict, dict]:
    """Self time (s) of a CDP CPU profile by (function, file:line) and by file."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    by_node: dict[int, float] = {}
    for node_id, delta in zip(profile.get("samples", []), profile.get("timeDeltas", [])):
        by_node[node_id] = by_node.get(node_id, 0.0) + delta / 1e6
    by_function: dict[str, float] = {}
    by_file: dict[str, float] = {}
    for node_id, secs in by_node.items():
        frame = nodes[node_id]["callFrame"]
        if frame.get("functionName") == "(idle)":
            continue
        url = frame.get("url", "").split("?")[0].rsplit("/", 1)[-1] or "(native)"
        name = f"{frame.get('functionName') or '(anonymous)'}  {url}:{frame.get('lineNumber', 0) + 1}"
        by_function[name] = by_function.get(name, 0.0) + secs
        by_file[url] = by_file.get(url, 0.0) + secs
    return by_function, by_file


def print_traces(runner: Runner, names: list[str], top: int = 8) -> None:
    print()
    print("Chromium trace, renderer main thread, self time per sample (s) by kind, then the largest events:")
    rows = [("bare Enter (reference)", runner.bare_samples)] + [(n, runner.samples[n]) for n in names]
    for name, samples in rows:
        traces = [s.trace for s in samples if s.trace]
        if not traces:
            continue
        kinds: dict[str, float] = {}
        events: dict[str, float] = {}
        for tr in traces:
            for k, v in tr["kinds"].items():
                kinds[k] = kinds.get(k, 0.0) + v / len(traces)
            for k, v in tr["names"].items():
                events[k] = events.get(k, 0.0) + v / len(traces)
        total = sum(kinds.values())
        split = ", ".join(f"{k} {v:.3f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
        largest = ", ".join(f"{k} {v:.3f}" for k, v in sorted(events.items(), key=lambda kv: -kv[1])[:top])
        print(f"  {name}: {total:.3f} = {split}\n      {largest}")


def print_js_profiles(runner: Runner, names: list[str], top: int = 12) -> None:
    print()
    print("Chromium's JavaScript CPU profile (self time per sample, s; minified names as shipped):")
    for name in names:
        profiles = [s.js_profile for s in runner.samples[name] if s.js_profile]
        if not profiles:
            continue
        functions: dict[str, float] = {}
        files: dict[str, float] = {}
        for profile in profiles:
            f, g = js_self_times(profile)
            for k, v in f.items():
                functions[k] = functions.get(k, 0.0) + v / len(profiles)
            for k, v in g.items():
                files[k] = files.get(k, 0.0) + v / len(profiles)
        print(
            f"\n  {name}: by file: "
            + ", ".join(f"{k} {v:.3f}" for k, v in sorted(files.items(), key=lambda kv: -kv[1])[:6])
        )
        for k, v in sorted(functions.items(), key=lambda kv: -kv[1])[:top]:
            print(f"    {v:7.3f}  {k}")


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="repetitions of every interaction (default 3)")
    ap.add_argument("--only", default=None, help="time only interactions whose name contains this (case-insensitive)")
    ap.add_argument("--profile", default=None, metavar="DIR", help="cProfile every script run into DIR (slower)")
    ap.add_argument("--top", type=int, default=8, help="detail the N slowest interactions (default 8)")
    ap.add_argument("--trace", action="store_true", help="a Chromium performance trace per interaction")
    ap.add_argument("--js-profile", action="store_true", help="record Chromium's JS CPU profile per interaction")
    ap.add_argument("--no-warmup", action="store_true", help="no first visit of every page (debugging only)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the bare app's sentences")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds for any one wait (default 180)")
    args = ap.parse_args()
    on_sigterm_exit()
    import streamlit

    t_start = time.perf_counter()
    print(
        f"bench_clicks: {args.reps} rep(s), only={args.only!r}, {os.cpu_count()} CPUs, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start; "
        f"Python {sys.version.split()[0]}, Streamlit {streamlit.__version__}"
        + ("; PROFILING: times inflated" if args.profile else ""),
        flush=True,
    )
    apps: list[App] = []
    with tempfile.TemporaryDirectory(prefix="bench-clicks-") as tmp, chromium() as browser:
        try:
            ours = open_app(browser, "ours", "app.py", "matrices?lang=en", Path(tmp), args)
            apps.append(ours)
            bare = open_app(browser, "bare", "bench/bare_app.py", "", Path(tmp), args)
            apps.append(bare)
            runner = Runner(ours, bare, args.only, args.seed, js_profile=args.js_profile, trace=args.trace)
            runner.o.current = "matrices"
            print("warm-up: every page once (first visits), then bare Enter ×3", flush=True)
            for p in [] if args.no_warmup else NAV[NAV.index("matrices") + 1 :] + NAV[: NAV.index("matrices") + 1]:
                s = runner.run_step(Step(f"page → {p}", runner.o.link(p).click), False, first=True)
                assert s is not None  # the step acts
                print(f"  first visit {p:<16} {fmt_s(s.total)}  script {fmt_s(s.script)}", flush=True)
            for _ in range(3):
                runner.bare_enter()
            runner.bare_samples.clear()
            for rep in range(1, args.reps + 1):
                for group in groups(runner.o, runner):
                    runner.run_group(group, rep)
            report(runner, args)
            for app in apps:
                if app.errors:
                    print(f"{app.server.name}: {len(app.errors)} JavaScript error(s), first: {app.errors[0][:200]}")
        finally:
            for app in apps:
                with contextlib.suppress(Exception):
                    app.close()
                app.server.stop()
    print(
        f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"took {time.perf_counter() - t_start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
