"""One learner's lesson, the same for every bench: its own settings, every step checked against attention_core.

Used by ``bench_server.py`` and ``bench_sizing.py`` (protocol learners), ``bench_load.py`` and
``bench_proxy.py`` (Chromium pages too: ``classroom.ChromiumSeat``). Each learner:

* has its own settings, drawn per learner from a seeded generator (``draw_settings``): the
  language, W (trained / random / identity; random or identity on the toy embedder), W's seed,
  d_k, the trained head's layer and head. They are set the way a learner sets them: in the
  page's URL (``?w=random&seed=37&d_k=5&layer=3&head=2&lang=zh``, positions from 1 as shown),
  and for about half of the learners with random W the seed typed into the sidebar's box once
  the page is open (never the default seed, so a seed the app did not take shows);
* types a sentence from a small pool (``SENTENCES`` sentences for the whole class; every third
  one carries a piece of markup that must come back escaped), so several learners type the same
  sentence with different settings: a server that cached a lesson by its sentence alone, or
  handed one session's settings to another, shows a learner numbers that are not its own;
* walks (``walk``): open Step by step, Enter its sentence, pick its own query token (never the
  default one), Next to step 7, Attention matrices, Why √d_k and back to Step by step;
* is checked on every answer against ``build_lesson(sentence, embedder, settings)`` computed here
  for its own sentence and settings (atol ``ATOL``): the first page's tokens table, the token
  picker (labels counted from 1, Markdown-escaped as the server sends them) and its choice,
  step 2's inputs a (and the query token's strip), step 3's q, k, v (and W^Q, W^K, W^V when the
  page draws them), step 4's products q_i ⊙ k_j and scores, step 5's scaled scores, step 6's
  weights α̂_i·, step 7's contributions and b_i, Attention matrices' weights matrix (labels
  HTML-escaped) and Why √d_k's weights with and without ÷√d_k;
* counts a lost click: an action whose answer never came (no end of the run within the
  timeout, or the connection dropped on a seat that does not reconnect) is a lost click,
  reported, never retried in silence; the learner stops there (its page is in an unknown state).

Behind a proxy whose process dies (``bench_proxy.py --fault``) a seat reconnects, and an action
the drop cut off is counted in ``cut_off``: the learner first looks at the page once reconnected
(a protocol learner reruns it as the browser does, ``Client.look``); an action whose effect is
there counts as ``carried``, otherwise as ``asked_again`` (the page's note) or ``lost_silently``
(a Chromium seat) or ``clicked_again`` (a protocol seat, which has no page to ask), and the
learner clicks again. A first action after a reconnect that had no effect (issue 34's
"first click lost") is counted in ``lost_first`` and clicked again, as a person would.

``self_check()`` proves the checker can fail: it walks a class against a stub app that computes
the lesson with attention_core, once as it should, once with a cache keyed on the sentence alone
and once with one learner's settings leaking into the next learner's session, and reports what
the checks found (``python -m bench.bench_server --self-check``; ``tests/test_bench_lesson_walk.py``).
"""

from __future__ import annotations

import asyncio
import html
import random
import re
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from html.parser import HTMLParser
from typing import Any

import numpy as np

from bench.protocol import Answer, Client, Disconnected, NoAnswer

ATOL = 1e-9
SENTENCES = 6
"""Sentences in the class's pool: a class of 40 types each about 7 times, with different settings."""
MODES = ("model", "toy")
LANGS = ("en", "zh")
D_K_RANGE = (2, 16)  # the sidebar's d_k slider (attention_ui.sidebar.D_K_RANGE)
N_STEPS = 7

View = dict[str, Any]

# Words that are one token for the toy tokenizer and for the model's (lower case, in its vocabulary),
# and a few pieces of markup that must come back escaped, never rendered.
WORDS = (
    "the a cat dog bird fish sat ran jumped slept on under near the mat tree house river because it "
    "was tired hungry happy big small red blue old young teacher student book letter wrote read quickly "
    "slowly every morning night city garden"
).split()
MARKUP = ("<b>", "&", "*", "<i>")


def sentence_for(k: int, n_words: int = 8) -> str:
    """A different sentence for every k (the same k gives the same one); every third one
    carries a piece of markup (``<b>``, ``&``, ``*``)."""
    rng = np.random.default_rng(1000 + k)
    words = list(rng.choice(WORDS, size=n_words))
    if k % 3 == 0:
        words.insert(int(rng.integers(1, n_words)), MARKUP[(k // 3) % len(MARKUP)])
    return " ".join(words)


@cache
def app_defaults() -> tuple[dict, str]:
    """The app's own defaults (the sidebar's settings and the default sentence)."""
    from attention_ui.settings import DEFAULT_SENTENCE, DEFAULTS

    return dict(DEFAULTS), DEFAULT_SENTENCE


@cache
def embedder_for(mode: str):
    if mode == "toy":
        from attention_core import ToyEmbedder

        return ToyEmbedder(dim=8)
    from attention_core.model import ModelEmbedder

    return ModelEmbedder().load()


def step_of(progress: str) -> int | None:
    """The step a progress text shows ("Step 3 of 7: …" → 3)."""
    m = re.search(r"\d+", progress or "")
    return int(m.group()) if m else None


# --------------------------------------------------------------------------- a learner's settings


@dataclass(frozen=True)
class Settings:
    """One learner's settings: what its URL says (``query``) and what the app must compute with."""

    mode: str  # "model" or "toy"
    lang: str
    w: str  # trained, random, identity
    seed: int
    d_k: int
    layer: int  # 0-based; the URL carries it from 1
    head: int
    seed_by_control: bool = False  # the seed typed into the sidebar's box after the page opened, not in the URL

    def query(self) -> str:
        """The URL's query string that opens Step by step with these settings.

        >>> Settings("toy", "zh", "random", 37, 5, 0, 0).query()
        'lang=zh&toy=true&w=random&seed=37&d_k=5'
        >>> Settings("model", "en", "trained", 0, 4, 2, 3).query()
        'lang=en&w=trained&seed=0&d_k=4&layer=3&head=4'
        """
        parts = [f"lang={self.lang}"] + (["toy=true"] if self.mode == "toy" else [])
        parts += [f"w={self.w}"] + ([] if self.seed_by_control else [f"seed={self.seed}"]) + [f"d_k={self.d_k}"]
        if self.mode == "model":
            parts += [f"layer={self.layer + 1}", f"head={self.head + 1}"]
        return "&".join(parts)

    def lesson_settings(self):
        """The ``LessonSettings`` the sidebar builds from this URL (the app's other defaults)."""
        from attention_core import LessonSettings

        d, _ = app_defaults()
        return LessonSettings(
            projection=self.w,
            layer=self.layer,
            head=self.head,
            d_k=self.d_k,
            seed=self.seed,
            scaled=d["scaled"],
            positional=d["positional"],
            cjk=d["cjk"],
        )


@cache
def model_shape(mode: str) -> tuple[int, int]:
    """(layers, heads) of the bundled model; (1, 1) for the toy embedder, which has no heads."""
    if mode == "toy":
        return 1, 1
    from attention_core.model import model_info

    info = model_info()
    return info.n_layers, info.n_heads


def draw_settings(mode: str, rng: random.Random) -> Settings:
    """Settings drawn for one learner: every setting the lesson's numbers depend on."""
    from attention_core.lesson import PROJECTIONS

    n_layers, n_heads = model_shape(mode)
    kinds = PROJECTIONS if mode == "model" else PROJECTIONS[1:]  # the toy embedder has no trained heads
    w = rng.choice(kinds)
    return Settings(
        mode=mode,
        lang=rng.choice(LANGS),
        w=w,
        seed=rng.randint(1, 10_000),  # never the default 0: a seed the app did not take would show
        d_k=rng.randint(*D_K_RANGE),
        layer=rng.randrange(n_layers),
        head=rng.randrange(n_heads),
        seed_by_control=w == "random" and rng.random() < 0.5,  # the box is enabled with random W only
    )


# --------------------------------------------------------------------------- what it must see


@dataclass
class Expected:
    """A learner's lesson computed here, for its own sentence and settings (0-based query i)."""

    sentence: str
    settings: Settings
    tokens: list[str]
    i: int
    default_i: int
    wire_labels: list[str]  # the picker's options as the server sends them (Markdown-escaped)
    plot_labels: list[str]  # chart tick labels (HTML-escaped)
    default_tokens: list[str]  # the first page's tokens (the default sentence, these settings)
    numbers: dict[str, np.ndarray]  # name -> the array the page must show


def expected_lesson(sentence: str, settings: Settings, k: int = 0) -> Expected:
    """The lesson of ``sentence`` with ``settings``, query token number ``k`` among those that
    are not the default query."""
    from attention_core import build_lesson, explain
    from attention_core.lesson import default_query
    from attention_ui.safe import escape_markdown, numbered_labels, token_labels

    embedder = embedder_for(settings.mode)
    lesson = build_lesson(sentence, embedder, settings.lesson_settings())
    tokens = list(lesson.tokens)
    default_i = default_query(tokens)
    others = [j for j in range(len(tokens)) if j != default_i] or [default_i]
    i = others[k % len(others)]
    e = explain(lesson.trace, i)
    trace, p = lesson.trace, lesson.projections
    first = build_lesson(app_defaults()[1], embedder, settings.lesson_settings())
    flipped = replace(settings.lesson_settings(), scaled=not settings.lesson_settings().scaled)
    other = build_lesson(sentence, embedder, flipped)  # Why √d_k shows both
    with_scaling, without_scaling = (lesson, other) if flipped.scaled is False else (other, lesson)
    numbers = {
        "inputs": np.asarray(lesson.inputs),  # (T, d_model)
        "input_i": np.asarray(lesson.inputs[i]),  # (d_model,)
        "q": np.asarray(trace.q),  # (T, d_k)
        "k": np.asarray(trace.k),  # (T, d_k)
        "v": np.asarray(trace.v),  # (T, d_v)
        "w_q": np.asarray(p.w_q),  # (d_model, d_k)
        "w_k": np.asarray(p.w_k),  # (d_model, d_k)
        "w_v": np.asarray(p.w_v),  # (d_model, d_v)
        "products": np.asarray(e.products),  # (T, d_k)
        "scores": np.asarray(e.scores),  # (T,)
        "scaled": np.where(np.isfinite(e.scaled), e.scaled, 0.0),  # (T,), as the chart draws it
        "weights_row": np.asarray(e.weights),  # (T,)
        "contributions": np.asarray(e.contributions),  # (T, d_v)
        "output": np.asarray(e.output),  # (d_v,)
        "weights": np.asarray(trace.weights),  # (T, T)
        "own_with": np.asarray(with_scaling.trace.weights),  # (T, T), softmax(scores / √d_k)
        "own_without": np.asarray(without_scaling.trace.weights),  # (T, T), softmax(scores)
    }
    return Expected(
        sentence=sentence,
        settings=settings,
        tokens=tokens,
        i=i,
        default_i=default_i,
        wire_labels=numbered_labels([escape_markdown(t) for t in tokens]),
        plot_labels=token_labels(tokens),
        default_tokens=list(first.tokens),
        numbers=numbers,
    )


PAGE_NUMBERS: dict[str, tuple[str, ...]] = {"why_scaling": ("own_with", "own_without")}
"""What another page must show: Why √d_k's weights of the learner's sentence with and without ÷√d_k."""
STEP_NUMBERS: dict[int, tuple[str, ...]] = {
    2: ("inputs", "input_i"),
    3: ("q", "k", "v", "w_q", "w_k", "w_v"),
    4: ("products", "scores"),
    5: ("scaled",),
    6: ("weights_row",),
    7: ("contributions", "output"),
}
"""What each step (shown from 1) must show; W^Q, W^K, W^V only where the page draws them (d_model ≤ 16)."""
OPTIONAL = {"w_q", "w_k", "w_v"}


def close(got, want: np.ndarray) -> bool:
    try:
        a = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.shape == want.shape and bool(np.allclose(a, want, atol=ATOL))


def contribution_bars(bars: Sequence[tuple[str, Any]], contributions: np.ndarray, labels: Sequence[str]):
    """(shown, expected) for step 7's stacked bars, named by key token: a token's bar is its row of
    α̂_ij v_j; the one bar named otherwise ("3 others") is the sum of the rows not named.

    >>> c = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # (T, d_v)
    >>> shown, want = contribution_bars([("1: a", [1, 2]), ("2 others", [8, 10])], c, ["1: a", "2: b", "3: c"])
    >>> want.tolist()
    [[1.0, 2.0], [8.0, 10.0]]
    """
    named = [labels.index(name) for name, _ in bars if name in labels]
    rest = [j for j in range(len(labels)) if j not in named]
    others = contributions[rest].sum(axis=0)  # (d_v,)
    want = [contributions[labels.index(name)] if name in labels else others for name, _ in bars]
    shown = [y for _, y in bars]
    return shown, np.asarray(want).reshape(len(bars), contributions.shape[1])  # (bars, d_v)


def check(
    view: View, kind: str, step: int | None, exp: Expected, first_page: bool = False, page: str = ""
) -> tuple[list[str], int]:
    """Problems with one answer (``view``, see ``view_of``) and the number of checks that passed.

    ``step``: the step the page must show (1–7), 0 for whichever step it shows (back on Step by
    step from another page), or None on another page: ``page`` ("matrices", "why_scaling")."""
    problems = list(view.get("exceptions", []))
    passed = 0
    if step == 0:
        step = view.get("step") or -1
        if view.get("options") != exp.wire_labels:
            problems.append(f"{kind}: the token picker shows {view.get('options')} != {exp.wire_labels}")
    tokens = exp.default_tokens if first_page else exp.tokens
    if step is not None and view.get("step") != step:
        problems.append(f"{kind}: the page shows step {view.get('step')} ({view.get('progress')!r}), expected {step}")
        return problems, passed
    if step == 1:
        table = view.get("tokens_table")
        if table != tokens:
            problems.append(f"{kind}: step 1's tokens table {table} != {tokens}")
        else:
            passed += 1
        if not first_page:
            labels = exp.wire_labels
            if view.get("options") != labels:
                problems.append(f"{kind}: the token picker shows {view.get('options')} != {labels}")
            else:
                want = labels[exp.default_i if kind == "enter" else exp.i]
                if kind in ("enter", "token") and view.get("chosen") != want:
                    problems.append(f"{kind}: chosen {view.get('chosen')!r}, expected {want!r}")
    for name in STEP_NUMBERS.get(step or 0, ()) + PAGE_NUMBERS.get(page, ()):
        wanted, got = exp.numbers[name], view.get("numbers", {}).get(name)
        if name == "contributions" and got is not None:
            got, wanted = contribution_bars(got, wanted, exp.plot_labels)
        if got is None and name in OPTIONAL:
            continue
        if close(got, wanted):
            passed += 1
        else:
            shown = None if got is None else np.round(np.asarray(got, dtype=float), 5).ravel()[:8].tolist()
            expected = np.round(wanted, 5).ravel()[:8].tolist()
            problems.append(
                f"{page or f'step {step}'}: {name} shown {shown} != expected {expected} "
                f"({exp.settings.query()}; another learner's numbers?)"
            )
    if page == "matrices":
        got = view.get("weights")
        if close(got, exp.numbers["weights"]):
            passed += 1
        else:
            problems.append(f"matrices: weights {'missing' if got is None else 'not this learner’s'}")
        if view.get("weights_labels") not in (None, exp.plot_labels):
            problems.append(f"matrices: labels {view.get('weights_labels')} != {exp.plot_labels}")
    return problems, passed


# --------------------------------------------------------------------------- reading an answer


class _TokensTable(HTMLParser):
    """The second column of the first page's tokens table (``tables.table_html``: class num-table)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: list[list[str]] = []
        self._in_body = self._in_cell = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.cells.append([])
        elif tag == "td" and self._in_body:
            self._in_cell = True
            self.cells[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cells[-1][-1] += data


def tokens_table(bodies: Sequence[str]) -> list[str] | None:
    """The tokens listed by the first ``num-table`` among st.html bodies (its column 2), or None."""
    for body in bodies:
        if 'class="num-table"' in body:
            parser = _TokensTable()
            parser.feed(body)
            return [row[1] for row in parser.cells if len(row) > 1]
    return None


def view_of(answer: Answer) -> View:
    """What the checks read from one answer: the step, the picker, every number the step draws."""
    view: View = {
        "exceptions": answer.exceptions,
        "options": answer.options("token_picker") or None,
        "chosen": (answer.chosen("token_picker") or [None])[0],
        "step": step_of(answer.progress) if answer.progress else None,
        "progress": answer.progress,
        "tokens_table": tokens_table(answer.html),
    }
    numbers: dict[str, Any] = {}

    def traces(key: str, kind: str) -> list[dict]:
        chart = answer.chart(key)
        return [] if chart is None else [t for t in chart.traces if t["type"] == kind]

    if inputs := traces("fig_inputs", "heatmap"):
        numbers["inputs"] = inputs[0]["z"]
    if strips := traces("fig_embedding", "heatmap"):
        numbers["input_i"] = strips[-1]["z"][0]  # the last strip is a_i
    for name, trace in zip(("q", "k", "v"), traces("fig_qkv", "heatmap")):
        numbers[name] = trace["z"]
    for name, trace in zip(("w_q", "w_k", "w_v"), traces("fig_w", "heatmap")):
        numbers[name] = trace["z"]
    if products := traces("fig_products", "heatmap"):
        numbers["products"] = products[0]["z"]
    for key, name in (("fig_scores_row", "scores"), ("fig_scaled_row", "scaled"), ("fig_weights_row", "weights_row")):
        if bars := traces(key, "bar"):
            numbers[name] = bars[0]["y"]
    if sums := traces("fig_contributions", "scatter"):
        numbers["output"] = sums[0]["y"]
        numbers["contributions"] = [(t["name"], t["y"]) for t in traces("fig_contributions", "bar")]
    own = traces("fig_own", "heatmap")  # Why √d_k: with and without ÷√d_k
    if len(own) == 2:
        numbers["own_with"], numbers["own_without"] = own[0]["z"], own[1]["z"]
    view["numbers"] = numbers
    weights = answer.chart("fig_weights")
    if weights is not None:
        view["weights"] = next((t["z"] for t in weights.traces if t["type"] == "heatmap"), None)
        view["weights_labels"] = weights.ticktext("yaxis")
    elif answer.tables:
        view["weights"] = answer.tables[0].z
        view["weights_labels"] = [html.escape(label, quote=False) for label in answer.tables[0].rows]
    return view


# --------------------------------------------------------------------------- a learner and its seat


@dataclass
class Learner:
    """One learner: its lesson (``own``) and what happened to it."""

    name: str
    own: Expected
    mode: str
    kind: str = "protocol"  # or "chromium": its seat's
    times: dict[str, list[float]] = field(default_factory=dict)  # action kind -> seconds of each
    runs: int = 0
    checked: int = 0  # number checks that passed
    by_step: dict[str, int] = field(default_factory=dict)  # "step 3" / "matrices" -> checks passed
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # "next (step 4): NoAnswer: …", one per lost click
    disconnects: int = 0
    reconnect_s: list[float] = field(default_factory=list)
    lost_first: int = 0  # first actions after a reconnect that had no effect
    # Actions in flight when the connection dropped (the learner's own process died):
    cut_off: int = 0  # all of them
    carried: int = 0  # ... whose effect arrived anyway (an Enter: the reconnect carries the box)
    asked_again: int = 0  # ... lost, and the page asked for them again (busy.LOST_ATTR)
    clicked_again: int = 0  # ... lost on a protocol seat (no page to ask), so its learner clicked again
    lost_silently: int = 0  # ... lost with nothing on the page to say so
    view_kept: bool | None = None  # after a reconnect: its first action showed its own view
    finished: bool = False
    process: str = ""  # the app process that served it (behind a proxy)


class Seat:
    """Where a learner acts: ``open(query)`` and ``do(kind, arg)`` return (seconds, script runs,
    view); the other methods matter behind a proxy whose process may die."""

    kind = "protocol"
    seen_disconnects = 0  # drops the walk has already dealt with

    async def open(self, query: str) -> tuple[float, int, View]:
        raise NotImplementedError

    async def do(self, kind: str, arg: object = None) -> tuple[float, int, View]:
        raise NotImplementedError

    async def close(self, learner: Learner) -> None:
        return None

    def disconnects(self) -> int:
        return 0

    def reconnects(self) -> bool:
        """After a drop, does this seat reconnect (a drop then cuts off an action, not the walk)?"""
        return False

    async def refresh(self) -> None:
        """Catch up with what happened while the learner was reading (a reconnect)."""
        return None

    async def route(self) -> str:
        """The proxy's route cookie (``deploy/serve.sh``'s nginx), "" without a proxy."""
        return ""

    async def wait_connected(self) -> None:
        return None

    async def asked_again(self) -> bool:
        """The page asks the learner to do their last action again (a Chromium page's note)."""
        return False

    async def after_drop(self) -> View | None:
        """The view once reconnected, after an action the drop cut off (None: nothing comes)."""
        return None


class ProtocolSeat(Seat):
    """A learner's browser tab as a ``protocol.Client``. ``reconnect``: after a dropped connection,
    reconnect as the browser does (behind a proxy); otherwise a drop is a lost click."""

    def __init__(self, base: str, timeout: float, reconnect: bool = False):
        self.client = Client(base, timeout=timeout, reconnect=reconnect)

    async def open(self, query: str) -> tuple[float, int, View]:
        answer = await self.client.open("step_by_step", query)
        return answer.seconds, answer.runs, view_of(answer)

    async def do(self, kind: str, arg: object = None) -> tuple[float, int, View]:
        c = self.client
        if kind == "enter":
            answer = await c.type_text("sentence", str(arg))
        elif kind == "token":
            answer = await c.choose("token_picker", str(arg))
        elif kind == "next":
            answer = await c.click("step_next")
        elif kind == "switch":
            answer = await c.switch_page(str(arg))
        elif kind == "setting" and isinstance(arg, tuple):  # (key, number)
            answer = await c.enter_number(str(arg[0]), int(arg[1]))
        else:
            raise ValueError(kind)
        return answer.seconds, answer.runs, view_of(answer)

    async def close(self, learner: Learner) -> None:
        await self.client.close()
        learner.disconnects = self.client.disconnects
        learner.reconnect_s = list(self.client.reconnects)

    def disconnects(self) -> int:
        return self.client.disconnects

    def reconnects(self) -> bool:
        return self.client.auto_reconnect

    async def route(self) -> str:
        return self.client.cookies.get("attention_lab_route", "")

    async def wait_connected(self) -> None:
        await self.client.wait_connected()

    async def after_drop(self) -> View | None:
        """The page once reconnected (``Client.look``), None when no answer comes."""
        try:
            return view_of(await self.client.look())
        except (Disconnected, NoAnswer):
            return None


class LostClick(Exception):
    """An action whose answer never came."""


async def walk(
    learner: Learner,
    seat: Seat,
    think: Callable[[], float] | None = None,
    start: asyncio.Event | None = None,
) -> None:
    """Open Step by step with the learner's settings, Enter its sentence, pick its query token,
    Next through every step, Attention matrices, Why √d_k and back: every answer checked, every
    lost click counted, every action a drop cut off counted (module docstring)."""
    exp = learner.own

    def take(kind: str, label: str, seconds: float | None, runs: int, problems: list[str], passed: int) -> None:
        if seconds is not None:
            learner.times.setdefault(kind, []).append(seconds)
        learner.runs += runs
        learner.errors += problems
        learner.checked += passed
        learner.by_step[label] = learner.by_step.get(label, 0) + passed

    async def act(kind: str, arg: object, step: int | None, label: str, first_page: bool = False) -> None:
        page = str(arg) if kind == "switch" and step is None else ""

        def judge(view: View) -> tuple[list[str], int]:
            return check(view, kind, step, exp, first_page, page)

        if think is not None and kind != "open":
            await asyncio.sleep(think())
        await seat.refresh()
        first_after = seat.disconnects() > seat.seen_disconnects
        retried = False
        for _ in range(3):
            before = seat.disconnects()
            try:
                if kind == "open":
                    seconds, runs, view = await seat.open(exp.settings.query())
                else:
                    seconds, runs, view = await seat.do(kind, arg)
            except Disconnected as exc:
                if not seat.reconnects():
                    learner.lost.append(f"{kind} ({label}): Disconnected: {exc}"[:300])
                    raise LostClick from exc
                learner.cut_off += 1  # a protocol learner: its socket closed under the action
                await seat.wait_connected()
                later = await seat.after_drop()  # it looks at the page before it clicks again, as a person would
                if later is not None:
                    problems, passed = judge(later)
                    if not problems:  # the action arrived before the drop (or with the reconnect)
                        learner.carried += 1
                        learner.view_kept = True  # its first answer after the drop showed its own view
                        take(kind, label, None, 1, [], passed)
                        seat.seen_disconnects = seat.disconnects()
                        return
                learner.clicked_again += 1
                learner.notes.append(f"{kind}: connection lost during the action ({exc}); clicked again")
                first_after = True
                continue
            except (NoAnswer, OSError) as exc:
                learner.lost.append(f"{kind} ({label}): {type(exc).__name__}: {exc}"[:300])
                raise LostClick from exc
            problems, passed = judge(view)
            if seat.disconnects() > before:  # a Chromium page: it reconnected during the action
                learner.cut_off += 1
                seat.seen_disconnects = seat.disconnects()
                if problems:  # the page may still replay it (an Enter loads itself with its sentence)
                    later = await seat.after_drop()
                    if later is not None and not judge(later)[0]:
                        view, (problems, passed) = later, judge(later)
                if not problems:
                    learner.carried += 1
                    learner.view_kept = True
                else:
                    asked = await seat.asked_again()
                    learner.asked_again += asked
                    learner.lost_silently += not asked
                    what = "the page asked for it again" if asked else "nothing on the page said so"
                    learner.notes.append(f"{kind}: cut off by the drop, {what}; clicked again: {problems[0][:120]}")
                    first_after = False
                    continue
            if problems and first_after and not retried:
                retried = True
                learner.lost_first += 1
                learner.notes.append(f"first {kind} after the reconnect had no effect: {problems[0][:160]}")
                first_after = seat.disconnects() > seat.seen_disconnects
                seat.seen_disconnects = seat.disconnects()
                continue
            take(kind, label, seconds, runs, problems, passed)
            if first_after:
                learner.view_kept = not problems
                seat.seen_disconnects = seat.disconnects()
            return
        learner.lost.append(f"{kind} ({label}): no effect after three tries")
        raise LostClick

    try:
        await act("open", None, 1, "step 1", first_page=True)
        if exp.settings.seed_by_control:  # set in the sidebar's box, as a learner does
            await act("setting", ("seed", exp.settings.seed), 1, "step 1", first_page=True)
        if start is not None:
            await start.wait()
        await act("enter", exp.sentence, 1, "step 1")
        await act("token", exp.wire_labels[exp.i], 1, "step 1")
        for step in range(2, N_STEPS + 1):
            await act("next", None, step, f"step {step}")
        await act("switch", "matrices", None, "matrices")
        await act("switch", "why_scaling", None, "why √d_k")  # a select_slider (bench/protocol.py)
        await act("switch", "step_by_step", 0, "back")
        learner.finished = True
    except LostClick:
        pass


def checks_by_step(learners: Sequence[Learner]) -> str:
    """Number checks passed, summed over ``learners``, per step: "step 1 120, step 2 80, …"."""
    total: dict[str, int] = {}
    for learner in learners:
        for label, n in learner.by_step.items():
            total[label] = total.get(label, 0) + n
    return ", ".join(f"{label} {n}" for label, n in total.items())


def make_learners(
    n: int, mode: str, seed: int, prefix: str = "learner", sentences: int = SENTENCES, offset: int = 0
) -> list[Learner]:
    """``n`` learners, each with settings drawn from ``seed`` and a sentence from a pool of ``sentences``."""
    learners = []
    for k in range(offset, offset + n):
        rng = random.Random(seed * 100_003 + k)
        settings = draw_settings(mode, rng)
        sentence = sentence_for(rng.randrange(sentences))
        learners.append(Learner(f"{prefix}-{k}", expected_lesson(sentence, settings, k), mode))
    return learners


async def run_class(
    learners: list[Learner],
    seats: Sequence[Seat],
    *,
    think: Callable[[], float] | None = None,
    spread: float = 0.0,
    barrier: bool = False,
    during: Callable[[], Coroutine[Any, Any, None]] | None = None,
    before_close: Callable[[], object] | None = None,
) -> float:
    """Walk every learner in its seat at once (``barrier``: every Enter in the same instant after
    all have opened; ``spread``: each starts within that many seconds). ``during``: a coroutine
    function started with the walks (e.g. a fault); ``before_close``: called once the walks are
    over, every learner still connected (e.g. to read memory). Returns the wall time of the
    walks; every seat is closed afterwards."""
    start = asyncio.Event() if barrier else None

    async def one(learner: Learner, seat: Seat) -> None:
        learner.kind = seat.kind
        if spread:
            await asyncio.sleep(random.uniform(0, spread))
        try:
            await walk(learner, seat, think, start)
        except Exception as exc:  # noqa: BLE001 - a learner's failure is a figure, not a crash
            learner.errors.append(f"{type(exc).__name__}: {exc}"[:400])

    t0 = time.perf_counter()
    tasks = [asyncio.create_task(one(learner, seat)) for learner, seat in zip(learners, seats)]
    side = asyncio.create_task(during()) if during is not None else None
    if start is not None:
        while sum(bool(learner.times.get("open")) or bool(learner.lost) for learner in learners) < len(learners):
            if all(task.done() for task in tasks):
                break
            await asyncio.sleep(0.05)
        start.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    if side is not None:
        await side
    if before_close is not None:
        before_close()
    await asyncio.gather(*[seat.close(learner) for learner, seat in zip(learners, seats)], return_exceptions=True)
    return wall


async def preflight(base: str, mode: str, timeout: float, seed: int) -> None:
    """One learner (the run's first settings) walks before the class; any problem stops the run at once."""
    learner = make_learners(1, mode, seed, prefix="preflight", offset=999)[0]
    t0 = time.perf_counter()
    await run_class([learner], [ProtocolSeat(base, timeout)])
    found = learner.errors + [f"lost click: {x}" for x in learner.lost]
    if found:
        lines = "\n  ".join(e[:400] for e in found[:12])
        raise SystemExit(
            f"preflight ({mode}, {learner.own.settings.query()}) failed after "
            f"{time.perf_counter() - t0:.1f} s: the app does not answer as bench/lesson_walk.py expects:\n  {lines}"
        )


# --------------------------------------------------------------------------- the checker can fail


class StubApp:
    """A toy app for ``self_check``: each session computes its lesson with attention_core (toy
    embedder) and answers with the views ``view_of`` would read. ``fault``: None (as it should),
    "sentence_cache" (a lesson cached by its sentence alone) or "leak" (a session computes with
    the settings of the session opened before it)."""

    def __init__(self, fault: str | None = None):
        self.fault = fault
        self.cache: dict[str, Any] = {}
        self.sessions: list[StubSeat] = []


class StubSeat(Seat):
    def __init__(self, app: StubApp):
        self.app, self.step, self.page, self.i = app, 1, "step_by_step", 0
        self.settings: Settings | None = None
        self.sentence = ""
        app.sessions.append(self)

    def _lesson(self):
        from attention_core import build_lesson

        assert self.settings is not None
        settings = self.settings
        if self.app.fault == "leak":  # the session before this one lends it its settings
            k = self.app.sessions.index(self)
            settings = self.app.sessions[k - 1].settings or settings
        key = self.sentence if self.app.fault == "sentence_cache" else f"{self.sentence}|{settings}"
        if key not in self.app.cache:
            self.app.cache[key] = build_lesson(self.sentence, embedder_for("toy"), settings.lesson_settings())
        return self.app.cache[key]

    def _view(self) -> View:
        from attention_core import explain
        from attention_ui.safe import escape_markdown, numbered_labels, token_labels

        lesson = self._lesson()
        tokens = list(lesson.tokens)
        labels = numbered_labels([escape_markdown(t) for t in tokens])
        e, trace = explain(lesson.trace, self.i), lesson.trace
        view: View = {"exceptions": [], "options": labels, "chosen": labels[self.i], "numbers": {}}
        if self.page == "matrices":
            view["weights"] = np.asarray(trace.weights).tolist()
            return view
        if self.page == "why_scaling":
            from attention_core import build_lesson

            flipped = replace(lesson.settings, scaled=not lesson.settings.scaled)
            other = build_lesson(self.sentence, embedder_for("toy"), flipped).trace.weights
            with_scaling, without = (trace.weights, other) if lesson.settings.scaled else (other, trace.weights)
            view["numbers"] = {
                "own_with": np.asarray(with_scaling).tolist(),
                "own_without": np.asarray(without).tolist(),
            }
            return view
        view["step"], view["progress"] = self.step, f"Step {self.step} of {N_STEPS}"
        numbers = {
            1: {},
            2: {"inputs": lesson.inputs, "input_i": lesson.inputs[self.i]},
            3: {"q": trace.q, "k": trace.k, "v": trace.v},
            4: {"products": e.products, "scores": e.scores},
            5: {"scaled": np.where(np.isfinite(e.scaled), e.scaled, 0.0)},
            6: {"weights_row": e.weights},
            7: {"output": e.output},
        }[self.step]
        view["numbers"] = {k: np.asarray(v).tolist() for k, v in numbers.items()}
        if self.step == 7:  # one bar per key token, as the chart names them
            view["numbers"]["contributions"] = list(zip(token_labels(tokens), np.asarray(e.contributions).tolist()))
        view["tokens_table"] = tokens if self.step == 1 else None
        return view

    async def open(self, query: str) -> tuple[float, int, View]:
        params = dict(p.split("=") for p in query.split("&"))
        seed = int(params.get("seed", app_defaults()[0]["seed"]))
        self.settings = Settings("toy", params["lang"], params["w"], seed, int(params["d_k"]), 0, 0)
        self.sentence = app_defaults()[1]
        from attention_core.lesson import default_query

        self.i = default_query(list(self._lesson().tokens))
        return 0.0, 1, self._view()

    async def do(self, kind: str, arg: object = None) -> tuple[float, int, View]:
        from attention_core.lesson import default_query

        if kind == "enter":
            self.sentence, self.step = str(arg), 1
            self.i = default_query(list(self._lesson().tokens))
        elif kind == "token":
            self.i = int(str(arg).split(":")[0]) - 1
        elif kind == "next":
            self.step = min(self.step + 1, N_STEPS)
        elif kind == "switch":
            self.page = str(arg)
        elif kind == "setting" and self.settings is not None and isinstance(arg, tuple):
            self.settings = replace(self.settings, seed=int(arg[1]))
        await asyncio.sleep(0)
        return 0.0, 1, self._view()


def self_check(n: int = 12, seed: int = 7) -> dict[str, int]:
    """Walk ``n`` toy learners against ``StubApp`` without a fault and with each fault; the
    number of failed checks for each (0 only without a fault, when the checker works)."""

    async def one(fault: str | None) -> int:
        app = StubApp(fault)
        learners = make_learners(n, "toy", seed)
        await run_class(learners, [StubSeat(app) for _ in learners])
        return sum(len(learner.errors) for learner in learners)

    return {str(fault): asyncio.run(one(fault)) for fault in (None, "sentence_cache", "leak")}
