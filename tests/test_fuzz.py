"""Bad input is normal: fuzz the core with hypothesis and every page with a fixed list of nasty strings.

(a) The core — clean_text, simple_tokenize, build_lesson with the ToyEmbedder, explain — on
    any text hypothesis can make (surrogates, controls, RTL, emoji, CJK, huge): it raises
    nothing but the documented ValueError (and only when the text has no token), and every
    lesson it returns has finite numbers and weight rows summing to 1, checked against a
    softmax written out in this file.
(b) Every page in attention_ui.registry.PAGES through AppTest with the toy embedder: no exception,
    and no markup from the input reaching the page unescaped (no ``<script``, ``<img``,
    ``<a``, ``](javascript:`` in any displayed text, markdown or Plotly label).
(c) Hand-typed URL parameters on every page: no exception, settings clamped to safe values.

The page fuzz is a bounded, fixed list (a new AppTest per page, one rerun per string), so the
suite stays fast; hypothesis drives only the pure core.
"""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from attention_core import MAX_TOKENS, LessonSettings, ToyEmbedder, build_lesson, clean_text, explain, simple_tokenize
from attention_ui.i18n import LANGS
from attention_ui.registry import PAGES as REGISTERED
from attention_ui.settings import DEFAULTS
from attention_ui.sidebar import D_K_RANGE
from tests.helpers import errors, open_link

# The real error in AppTest's exception element, not the redacted one (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("full_error_details")

NASTY = [
    "",
    " " * 50,
    "\t\n\r \x0b\x0c",
    "!!! ??? ... ,,, ;;; ---",
    "word " * 5000,  # 25 000 characters (the text input stops at MAX_CHARS; the core must not care)
    "a" * 20000,  # one huge word
    "\x00\x01\x07\x1b[31mred\x1b[0m\x7f",  # NUL, bell, ANSI escape, DEL
    "zero\u200bwidth\u200c\u200djoin\ufeff\u2060",
    "\u202eevil\u202c RTL \u2067override\u2069 \u200f",  # RTL override and isolates
    "👩🏽‍💻 👍🏿 🏳️‍🌈 ❤️ 🇨🇳 🧑‍🤝‍🧑",  # emoji with skin-tone modifiers, ZWJ sequences, flags
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<b>bold</b> <a href='javascript:alert(1)'>x</a> <iframe src=//x></iframe>",
    "{{ }} {0} {x} {{{{ % }}}}",
    "$$ \\ $$ $x$ \\frac{1}{0} \\(a\\)",
    "\\begin{equation} x \\end{document} \\def\\x{\\x}\\x",
    "**bold** __u__ `code` # head [x](javascript:alert(1)) ![i](x) | a | b |",
    "'; DROP TABLE students; -- \" OR 1=1 /*",
    "注意力机制让每个词元关注句子中的其他词元。",
    "猫 sat 在 the 垫子上 😀 <b>混合</b> 123",
    "שלום עולם مرحبا بالعالم",
    "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫg̢̹͎o̘͝",  # combining marks
    "\ud800 lone \udfff surrogates",
    "%s %n %x ${7*7} #{7*7}",
]

# A bounded list for the pages (every page gets each one): markup, format strings, LaTeX,
# invisible characters, emoji, Chinese, empty, huge.
PAGE_NASTY = [
    "",
    "<script>alert(1)</script> attention",
    "<img src=x onerror=alert(1)> cat",
    "<b>bold</b> <a href='javascript:alert(1)'>x</a>",
    "**x** [x](javascript:alert(1)) {{ }} {0} $$ \\ $$ \\begin{x}",
    "\u202eevil\u202c zero\u200bwidth \x00\x1b[31m",
    "👩🏽‍💻 👍🏿 注意力机制 mixed 混合",
    "   ",
    "!!! ???",
    "'; DROP TABLE t; --",
    "שלום עולם",  # a right-to-left script
    "word " * 200,  # the text input's max_chars cuts this to MAX_CHARS
]

# ---------------------------------------------------------------------------- (a) the core

# Every code point, lone surrogates included (Python strings can hold them; browsers cannot send them).
ANY_CHAR = st.characters(codec=None, exclude_categories=())
NASTY_PIECES = st.sampled_from([s for s in NASTY if len(s) < 200] + ["the", "cat", " ", "猫", "\u200b"])
TEXTS = st.one_of(
    st.text(ANY_CHAR, max_size=300),
    st.lists(st.one_of(NASTY_PIECES, st.text(ANY_CHAR, max_size=8)), max_size=40).map(" ".join),
)
LESSON_SETTINGS = st.builds(
    LessonSettings,
    d_k=st.integers(1, 32),
    projection=st.sampled_from(["random", "identity"]),
    seed=st.integers(0, 10_000),
    scaled=st.booleans(),
    positional=st.booleans(),
    max_tokens=st.integers(1, 40),
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_weights(scaled: np.ndarray) -> np.ndarray:
    """softmax of each row, written out with Python floats (independent of attention_core)."""
    out = []
    for row in scaled.tolist():
        m = max(row)
        exps = [math.exp(x - m) for x in row]
        total = sum(exps)
        out.append([e / total for e in exps])
    return np.array(out)


@FUZZ
@given(TEXTS)
@example("\ud800")
@example("\u202e\u200b\ufeff")
def test_clean_text_is_idempotent_and_leaves_no_control_characters(text):
    cleaned = clean_text(text)
    assert clean_text(cleaned) == cleaned
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert not re.search(r"[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]", cleaned)
    cleaned.encode("utf-8")  # no lone surrogate survives: the text can go to the browser and a hash


@FUZZ
@given(TEXTS)
def test_simple_tokenize_gives_non_blank_tokens(text):
    tokens = simple_tokenize(text)
    assert all(isinstance(t, str) and t and not t.isspace() for t in tokens)
    assert "".join(tokens).replace(" ", "") == clean_text(text).replace(" ", "")  # nothing lost, nothing invented


def check_lesson(text: str, lesson_settings: LessonSettings) -> None:
    """The property every sentence must have: a ValueError only for "no token", else sound numbers."""
    try:
        lesson = build_lesson(text, ToyEmbedder(dim=8), lesson_settings)
    except ValueError as exc:
        assert not simple_tokenize(text), f"ValueError for a text with tokens {simple_tokenize(text)!r}: {exc}"
        assert str(exc)  # a message to show
        return
    t = lesson.trace
    T = len(lesson.tokens)
    assert 1 <= T <= lesson_settings.max_tokens
    assert lesson.n_tokens == len(simple_tokenize(text))
    assert lesson.tokens == simple_tokenize(text)[:T]
    for name in ("q", "k", "v", "scores", "scaled", "weights", "outputs"):
        assert np.isfinite(getattr(t, name)).all(), name
    assert t.weights.shape == (T, T)
    np.testing.assert_allclose(t.weights.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(t.weights, reference_weights(t.scaled), atol=1e-12)
    assert ((t.weights >= 0) & (t.weights <= 1)).all()
    for i in {0, T - 1}:
        e = explain(t, i)
        assert np.isfinite(e.output).all() and np.isfinite(e.contributions).all()
        np.testing.assert_allclose(e.contributions.sum(axis=0), e.output, atol=1e-12)
        np.testing.assert_allclose(e.weights, t.weights[i], atol=0)


@FUZZ
@given(TEXTS, LESSON_SETTINGS)
def test_build_lesson_and_explain_on_any_text(text, lesson_settings):
    check_lesson(text, lesson_settings)


@pytest.mark.parametrize("text", NASTY, ids=range(len(NASTY)))
def test_build_lesson_on_the_nasty_list(text):
    check_lesson(text, LessonSettings())
    check_lesson(text, LessonSettings(projection="identity", scaled=False, positional=False))


def test_explain_rejects_a_bad_index_with_value_error_or_index_error():
    lesson = build_lesson("the cat", ToyEmbedder(dim=8))
    with pytest.raises((ValueError, IndexError)):
        explain(lesson.trace, 5)


def test_the_real_model_on_the_nasty_list():
    """The same property with the bundled model's tokenizer and word vectors (loads the model once)."""
    from attention_core.model import ModelEmbedder, ModelUnavailable

    try:
        embedder = ModelEmbedder()
        embedder.dim  # noqa: B018 - loads the model
    except ModelUnavailable as exc:
        pytest.skip(f"the real model is not available here: {exc}")
    for text in NASTY:
        try:
            lesson = build_lesson(text, embedder, LessonSettings())
        except ValueError:
            assert not clean_text(text) or not simple_tokenize(text) or not embedder.embed(clean_text(text)).tokens
            continue
        w = lesson.trace.weights
        assert np.isfinite(w).all() and len(lesson.tokens) <= MAX_TOKENS, text
        np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)


# ---------------------------------------------------------------------------- (b) every page

PAGES = [entry.file for entry in REGISTERED]

# Displayed elements whose own text is the learner's, shown as plain text, not markup: the
# text box holds the sentence; a dataframe's cells, a code block and a selectbox's options are plain text.
PLAIN_TEXT_TYPES = {
    "code",
    "text_input",
    "text_area",
    "arrow_data_frame",
    "dataframe",
    "selectbox",
    "multiselect",
    "number_input",
    "slider",
}
# Markup that must never come from the input (our own figures use <br>, <extra>, <b> never
# with learner text; these tags are what an attacker would send).
DANGEROUS = re.compile(
    r"<\s*(script|img|iframe|svg|a\s|object|embed)|\]\(\s*javascript:|javascript:alert|<b>bold", re.IGNORECASE
)


def _strings(value):
    """Every string inside a protobuf message, list or JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif hasattr(value, "ListFields"):
        for field, v in value.ListFields():
            if field.name == "spec":  # a Plotly figure as JSON: look at its strings as Plotly sees them
                yield from _strings(json.loads(v))
            elif isinstance(v, (str, bytes)) or hasattr(v, "ListFields"):
                yield from _strings(v)
            else:  # a repeated field (upb containers have no __iter__ attribute, but list() works)
                try:
                    items = list(v)
                except TypeError:  # a number or a bool
                    continue
                yield from _strings(items)


def _unescaped(text: str) -> str:
    """What markdown renders as markup: drop backslash-escaped characters (\\< shows a literal <)."""
    return re.sub(r"\\.", "", text, flags=re.DOTALL)


class _Markup(HTMLParser):
    """What a browser makes of an HTML string: its elements (tag, attributes) and, per element,
    the text directly in it. Escaped text (``&lt;a href=…&gt;``) is text here, not an element."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.texts: list[tuple[str, str]] = []
        self._open: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        self._open.append(tag)

    def handle_endtag(self, tag):
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data):
        self.texts.append((self._open[-1] if self._open else "", data))


def _html_hit(text: str) -> str | None:
    """Input markup that an HTML string (an ``st.html`` body) really carries as markup: a tag an
    attacker would send, a ``javascript:`` address in an attribute, the input's ``<b>bold``
    bold. The same words as escaped text are harmless (the print handout shows the sentence)."""
    markup = _Markup(text)
    for tag, attrs in markup.elements:
        if tag in ("script", "img", "iframe", "svg", "a", "object", "embed"):
            return f"<{tag}>"
        if any("javascript:" in value.lower() for value in attrs.values()):
            return f"<{tag} …javascript:>"
    if ("b", "bold") in markup.texts:
        return "<b>bold"
    return None


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _app_own_html() -> set[str]:
    """The app's constant style sheets and script, which carry no learner text."""
    from attention_ui.busy import busy_css
    from attention_ui.clicker import CLICKER_SCRIPT
    from attention_ui.i18n import LANGS, translate
    from attention_ui.presentation import PRESENTATION_CSS
    from attention_ui.route import page_scripts
    from attention_ui.sentence_box import BOX_CSS
    from attention_ui.sidebar import CLIENT_SCRIPT
    from attention_ui.style import APP_CSS, SIDEBAR_SCRIPT

    busy = {busy_css(translate(lang, "shell.busy"), translate(lang, "shell.click_lost")) for lang in LANGS}
    return {
        APP_CSS,
        SIDEBAR_SCRIPT,
        PRESENTATION_CSS,
        CLICKER_SCRIPT,
        BOX_CSS,
        CLIENT_SCRIPT,
        *busy,
        *(page_scripts(lang, None) for lang in LANGS),
    }


def _app_own_scripts(body: str) -> bool:
    """The route's script element on a navigation in presentation mode: its constant parts and
    the fold's number (``route.page_scripts``), nothing else."""
    from attention_ui.i18n import LANGS
    from attention_ui.route import page_scripts

    fold = re.search(r"<script>/\* (\d+) \*/", body)
    return bool(fold) and body in {page_scripts(lang, int(fold.group(1))) for lang in LANGS}


def assert_no_injected_markup(at: AppTest, sentence: str) -> None:
    own = _app_own_html()
    for node in _nodes(at._tree):
        if getattr(node, "type", "") in PLAIN_TEXT_TYPES or getattr(node, "proto", None) is None:
            continue
        body = getattr(node.proto, "body", None)
        if node.type == "html" and (body in own or _app_own_scripts(str(body))):
            continue  # exactly one of the app's constants: no learner text can be in it
        for text in _strings(node.proto):
            if node.type == "html":  # HTML: what the browser parses as markup, not the escaped text
                hit = _html_hit(text)
            else:
                found = DANGEROUS.search(_unescaped(text))
                hit = found and found.group(0)
            assert not hit, (
                f"{node.type} shows input markup {hit!r} unescaped for sentence {sentence[:60]!r}: {text[:300]!r}"
            )
        # Markdown with HTML allowed must not hold the raw sentence at all; an HTML body (where
        # Markdown means nothing) not one with characters that HTML parses.
        raw = sentence.strip()[:20]
        if getattr(node.proto, "allow_html", False) or (node.type == "html" and re.search(r"[<>&]", raw)):
            assert raw not in "".join(_strings(node.proto)) or not raw, (
                f"{node.type} with HTML allowed contains the raw sentence"
            )


@pytest.mark.timeout(600)
@pytest.mark.parametrize("page", PAGES)
def test_every_page_survives_nasty_sentences_without_injected_markup(page):
    at = open_link(page)
    for sentence in PAGE_NASTY:
        at.text_area(key="sentence").set_value(sentence)
        at.run()
        assert not at.exception, f"{page} with {sentence[:60]!r}: {errors(at)}"
        assert at.title, f"{page} lost its title with {sentence[:60]!r}"
        assert_no_injected_markup(at, sentence)


@pytest.mark.parametrize("page", ["pages/step_by_step.py", "pages/matrices.py"])
def test_markup_sentence_tokens_reach_the_charts_escaped(page):
    """The check above must be able to fail: the tokens are on the page, only escaped."""
    at = open_link(page, sentence="<img src=x onerror=alert(1)> cat")
    shown = " ".join(
        s
        for n in _nodes(at._tree)
        if getattr(n, "proto", None) is not None and getattr(n, "type", "") not in PLAIN_TEXT_TYPES
        for s in _strings(n.proto)
    )
    assert "&lt;" in shown or "\\<" in shown, "the token '<' should be shown (escaped) somewhere"
    assert DANGEROUS.search("<img src=x>") and DANGEROUS.search(_unescaped("[x](javascript:alert(1))"))
    assert not DANGEROUS.search(_unescaped("\\<img src=x\\> \\[x\\]\\(javascript\\:"))


# ---------------------------------------------------------------------------- (c) hand-typed URLs

BAD_PARAMS = {
    "token": "999",
    "d_k": "-3",
    "lang": "xx",
    "seed": "abc",
    "step": "-1",
    "layer": "99",
    "head": "x",
    "toy": "maybe",
}


@pytest.mark.parametrize("page", PAGES)
def test_hand_typed_url_parameters_give_safe_defaults(page):
    at = open_link(page, **BAD_PARAMS)
    assert at.title
    assert at.session_state["lang"] in LANGS
    assert at.query_params.get("lang") in LANGS
    for slider in [s for s in at.slider if s.key == "d_k"]:  # drawn for random W only
        assert D_K_RANGE[0] <= slider.value <= D_K_RANGE[1]
    assert at.number_input(key="seed").value == DEFAULTS["seed"]
    assert at.toggle(key="toy").value in (True, False)
    for name in ("token", "step", "layer", "head"):  # a position the page read: a number shown, or left out
        if name in at.session_state and name in at.query_params:
            assert re.fullmatch(r"\d+", str(at.query_params[name])), f"{page}: ?{name}={at.query_params[name]}"
    assert not sliders_out_of_range(at.slider), f"{page}: {sliders_out_of_range(at.slider)}"
    at.run()  # and it keeps working on the next run
    assert not at.exception


def sliders_out_of_range(sliders) -> list[tuple]:
    """(key, value, min, max) of every slider showing a value outside its range; a range slider
    (value a pair) is checked at both ends."""
    out = []
    for slider in sliders:
        ends = slider.value if isinstance(slider.value, tuple) else (slider.value,)
        if not all(slider.min <= end <= slider.max for end in ends):
            out.append((slider.key, slider.value, slider.min, slider.max))
    return out


def test_the_slider_check_sees_both_ends_of_a_range():
    """The check above must be able to fail for a range slider: one end out is found."""
    from types import SimpleNamespace as Slider

    inside, one_end_out = Slider(key="a", value=(2, 8), min=0, max=10), Slider(key="b", value=(2, 12), min=0, max=10)
    assert sliders_out_of_range([inside, Slider(key="c", value=5, min=0, max=10)]) == []
    assert sliders_out_of_range([inside, one_end_out]) == [("b", (2, 12), 0, 10)]


def test_the_markup_check_catches_unescaped_input():
    """A page that shows the sentence raw must fail assert_no_injected_markup (the check can fail)."""

    def leaky():
        import streamlit as st

        st.markdown(st.query_params.get("s", ""))

    for raw in ("<script>alert(1)</script>", "[x](javascript:alert(1))", "<img src=x onerror=alert(1)>"):
        at = AppTest.from_function(leaky)
        at.query_params["s"] = raw
        at.run()
        with pytest.raises(AssertionError, match="unescaped"):
            assert_no_injected_markup(at, raw)
