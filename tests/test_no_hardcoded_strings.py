"""No prose in the UI code: every word a learner reads comes from the catalogs via t().

An AST scan of pages/*.py and attention_ui/*.py (i18n.py excepted) fails on a string literal
that looks like prose — two words of letters in a row, or any CJK character — and on a
single word handed to a Streamlit display call (``st.button("Next")``) or as a ``title=``.

What is never prose (the allow-rules, all of them):
1. docstrings (and comments, which the AST does not keep);
2. anything inside ``*.latex(...)`` — formulas are language-neutral;
3. widget keys and settings: the value of ``key=``, ``bind=``, ``language=`` and other
   keyword names in NOT_TEXT_KEYWORDS, and subscripts (``st.session_state["token"]``);
4. the text of ``raise`` statements (developer errors; pages show catalog messages instead);
5. the Plotly option values in PLOTLY_VALUES (e.g. ``textposition="top center"``), and
   Plotly's own English toolbar words there, which ``exports.plotly_config`` translates
   (``"Download plot as a PNG"``, as keys of Plotly's locale dictionary);
6. HTML/CSS/JS markup itself: tags, <style> and <script> blocks are removed before the check
   (the text between tags is still checked), and so are CSS rules that begin with
   ``@media`` or ``@container``;
7. sample input the learner edits (text, not interface): values assigned to an upper-case name
   containing DEFAULT, EXAMPLE or SENTENCE (``DEFAULT_SENTENCE = "The cat sat ..."``);
8. file paths (``"pages/home.py"``) and catalog keys (the first argument of t()/tr()/translate());
9. for the single-word rule only: inline math ``$...$`` inside Markdown;
10. Python source shown as code: text that parses as Python and assigns or calls something
    (``"trace = self_attention(a, projections)"``) — code, like LaTeX, is language-neutral.

An f-string is checked whole, with each ``{...}`` replaced by ``{}``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from attention_ui.registry import PAGES

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*ROOT.glob("pages/*.py"), *(p for p in ROOT.glob("attention_ui/*.py") if p.name != "i18n.py")])

CJK = re.compile(r"[\u2e80-\u2fdf\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
TWO_WORDS = re.compile(r"[^\W\d_]{2,}[,;:!?.)'\"]*\s+[('\"]*[^\W\d_]{2,}")
PATH = re.compile(r"^[\w{}.-]*/[\w{}./-]*\.\w+$")
CATALOG_CALLS = {"t", "tr", "translate"}
PAGE_IDS = {entry.id for entry in PAGES}
SAMPLE_NAME = re.compile(r"^[A-Z_]*(DEFAULT|EXAMPLE|SENTENCE)[A-Z_]*$")
INLINE_MATH = re.compile(r"\$[^$]*\$")
MARKUP = re.compile(
    r"<style\b.*?</style>|<script\b.*?</script>|^\s*(?:/\*.*?\*/\s*)?@(?:media|container|page)\b.*|<[^>]*>", re.DOTALL
)
"""Markup and style sheets (a sheet may open with a comment and an at-rule), which no learner reads."""
SELECTOR = re.compile(r"^\s*(?:html|body|\{\})?(?:[.#\[][\w{-]|:(?:has|is|not)\()")
"""A CSS selector or rule (".cell-matrix td.h1 { … }", "[data-testid=…]", "html[data-x] …",
"{}:has(> …)" with the element's selector put in): prose never starts so."""
WORD = re.compile(r"[^\W\d_]{3,}")
DISPLAY_CALLS = {
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "text",
    "write",
    "info",
    "warning",
    "error",
    "success",
    "toast",
    "button",
    "link_button",
    "page_link",
    "metric",
    "tabs",
    "expander",
    "toggle",
    "checkbox",
    "radio",
    "selectbox",
    "multiselect",
    "slider",
    "select_slider",
    "number_input",
    "text_input",
    "text_area",
    "segmented_control",
    "pills",
    "spinner",
    "progress",
    "download_button",
    "popover",
    "status",
}
TEXT_KEYWORDS = {"label", "help", "title", "text", "placeholder", "name", "caption", "y_title", "x_title"}
NOT_TEXT_KEYWORDS = {
    "key",
    "bind",
    "language",
    "selection_mode",
    "label_visibility",
    "width",
    "layout",
    "textposition",
    "mode",
    "barmode",
    "type",
    "icon",
    "page_icon",
    "url_path",
}
PLOTLY_VALUES = {
    "top center",
    "bottom center",
    "middle center",
    "Download plot as a PNG",
    "Download plot",
    '"Source Sans", sans-serif',  # the charts' font family (chart_theme.FONT)
}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.add(id(first.value))
        # a bare string statement right after an assignment documents it (module attribute docstrings)
        for stmt in getattr(node, "body", []) if isinstance(getattr(node, "body", None), list) else []:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                out.add(id(stmt.value))
    return out


def _strings(node: ast.AST):
    """Every str constant and f-string below node (an f-string's own parts are not repeated)."""
    inner = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.JoinedStr):
            inner.update(id(v) for v in sub.values)
            yield sub
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in inner:
            yield sub


def _direct_strings(node: ast.AST):
    """The strings that make up ``node`` itself (``"a" + f"b"``, ``x if c else "d"``), not those
    passed to calls inside it (``t("ns.key")`` is a key, not a label)."""
    if isinstance(node, ast.Call):
        return
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        yield from _strings(node)
        return
    for child in ast.iter_child_nodes(node):
        yield from _direct_strings(child)


def _is_code(text: str) -> bool:
    """Python statements with an assignment or a call (prose never parses into one)."""
    try:
        tree = ast.parse(text.replace("{}", "_"))
    except SyntaxError:
        return False
    return any(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)) for n in ast.walk(tree))


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return node.value


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def prose_literals(source: str, filename: str = "<snippet>") -> list[tuple[int, str]]:
    """(line, text) of every literal in ``source`` that a learner would read as words."""
    tree = ast.parse(source, filename)
    skip = _docstring_nodes(tree)
    single_word_targets: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name == "latex":
                skip.update(id(s) for s in _strings(node))
                continue
            for kw in node.keywords:
                if kw.arg in NOT_TEXT_KEYWORDS:
                    skip.update(id(s) for s in _strings(kw.value))
                elif kw.arg in TEXT_KEYWORDS:
                    single_word_targets.update(id(s) for s in _direct_strings(kw.value))
            if name == "page_link" and isinstance(node.args[0] if node.args else None, ast.Constant):
                if node.args[0].value in PAGE_IDS:  # a page's id (registry.page_link), not its label
                    skip.add(id(node.args[0]))
            if name in DISPLAY_CALLS and node.args:
                single_word_targets.update(id(s) for s in _direct_strings(node.args[0]))
            if name in CATALOG_CALLS and node.args:
                skip.update(id(s) for s in _strings(node.args[0]))
        elif isinstance(node, ast.Subscript):
            skip.update(id(s) for s in _strings(node.slice))
        elif isinstance(node, ast.Raise):
            skip.update(id(s) for s in _strings(node))
        elif isinstance(node, ast.Assign) and any(
            isinstance(n, ast.Name) and SAMPLE_NAME.search(n.id) for n in node.targets
        ):
            skip.update(id(s) for s in _strings(node.value))
    found = []
    for node in _strings(tree):
        text = MARKUP.sub(" ", _text(node))
        if id(node) in skip or text.strip() in PLOTLY_VALUES or PATH.match(text) or SELECTOR.match(text):
            continue
        if _is_code(_text(node)):
            continue
        if (
            CJK.search(text)
            or TWO_WORDS.search(text)
            or (id(node) in single_word_targets and WORD.search(INLINE_MATH.sub(" ", text)))
        ):
            found.append((node.lineno, text))
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_prose_outside_the_catalogs(path):
    found = prose_literals(path.read_text(encoding="utf-8"), str(path))
    listing = "\n".join(f"  {path.relative_to(ROOT)}:{line}: {text!r}" for line, text in found)
    assert not found, f"user-visible text belongs in attention_ui/locales/*/<ns>.toml via t():\n{listing}"


@pytest.mark.parametrize(
    "snippet",
    [
        'st.markdown("Hello learner world")',
        'st.button("Next")',
        'c1.plotly_chart(fig(title="Weights"))',
        'st.caption(f"Each point: {n} random queries")',
        'x = "注意力"',
        'st.info("Type a sentence, please.")',
        'html = "<b>Read this first</b>"',
        'st.warning("not available here")',
        'st.info("Loading the model (print it) now")',
        'st.markdown("... and the next word")',
    ],
    ids=[
        "markdown",
        "one-word button",
        "one-word title",
        "f-string",
        "CJK",
        "info",
        "text inside markup",
        "prose that parses",
        "prose with parentheses",
        "prose after an ellipsis",
    ],
)
def test_the_scan_catches_planted_prose(snippet):
    assert prose_literals("import streamlit as st\n" + snippet), f"not caught: {snippet}"


@pytest.mark.parametrize(
    "snippet",
    [
        '"""A docstring with many words."""',
        'st.latex(r"\\mathrm{Attention}(Q, K, V) \\text{ where it is}")',
        'st.toggle(t("shell.toy"), key="toy", bind="query-params")',
        'st.session_state["keep this key"] = 1',
        'st.markdown(t("home.intro"))',
        'fig = heatmap(z, rows, cols, title="W^Q")',
        'fig.add_trace(go.Scatter(textposition="top center"))',
        'raise ValueError(f"weights must have shape (L, H, T, T), got {shape}")',
        'label = f"{n}: {token}"',
        'hover = "%{customdata[0]:.2f}<extra></extra>"',
        'css = f"<div style=\\"font-size:{size}px; border-left:4px solid #f0b400\\">{word}</div>"',
        'DEFAULT_SENTENCE = "The cat sat on the mat"',
        'js = "<script>document.addEventListener(click, (event) => close.click())</script>"',
        'css = "@container cells (max-width: 600px) { .heatmap-label { display: none; } }"',
        'css = "/* handouts */\\n@page { margin: 12mm; }"',
        'FILL = ".heatmaplayer image, .cbfill"',
        'rule = f"  .{cls} td.h{n} {{ background: color-mix(in srgb, {hue} {p}%, #fff); }}"',
        'EXAMPLES = {"zh": "猫坐在垫子上", "en": "A tired cat"}',
        "st.markdown(rf\"| {t('a.b')} | $\\alpha_{{ij}} = q_i \\cdot k_j$ |\")",
        'st.page_link("pages/step_by_step.py", label=t("home.link_step"))',
        'call(f"q, k, v = project(a, projections)\\ntrace = self_attention(a, projections{scale})")',
    ],
    ids=[
        "docstring",
        "latex",
        "widget key",
        "subscript",
        "catalog",
        "symbol title",
        "plotly value",
        "raise",
        "format",
        "hovertemplate",
        "markup",
        "sample sentence",
        "script",
        "css rule",
        "sheet with a comment",
        "selector",
        "rule with a selector",
        "examples",
        "inline math",
        "path and key",
        "python code",
    ],
)
def test_the_scan_allows_what_is_not_prose(snippet):
    assert not prose_literals("import streamlit as st\n" + snippet), snippet
