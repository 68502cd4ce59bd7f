"""Plain helpers shared by the AppTest test modules: page openers and readers of what a page shows.

Test modules import them by name (``from tests.helpers import APP, run_page``); fixtures live
in ``tests/conftest.py``, which pytest finds by itself. No test module imports another one.
"""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


# --------------------------------------------------------------------------- opening a page


def open_link(page: str, lang: str = "en", *, toy: bool = True, **params) -> AppTest:
    """Page ``page`` (its id, "matrices", or its file, "pages/matrices.py") opened from a shared
    link: the learner's first request. The link's URL parameters are ``lang``, ``toy=true`` (the toy
    embedder; ``toy=False`` leaves the real model) and ``params`` (``sentence="the cat sat"``,
    ``w="random"`` …); the page's first run reads them. Fails the test if the page raises.

    Every AppTest of the app opens so: like a server's first request, each of its runs goes
    through Streamlit's legacy ``pages/`` router, and the page file runs the app's route itself
    (``attention_ui.registry``). To go to another page, ``follow_link``."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.switch_page(page_file(page))  # before the first run: Streamlit finds the page by its file name
    for name, value in ({"lang": lang} | ({"toy": "true"} if toy else {}) | params).items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, errors(at)
    return at


def follow_link(at: AppTest, page: str) -> AppTest:
    """What a click on the sidebar's link to ``page`` opens, as a new session: the link's URL
    parameters (the shared settings it carries) and the sidebar's settings bound to the URL, which
    the browser writes into the address itself (``settings.BOUND``, presentation mode).

    A new session, because AppTest cannot switch to a page that ``st.navigation`` runs as a
    function once a run has registered the pages (it looks pages up by their file): what a
    session keeps across pages besides the URL is left behind, and the link must carry the rest."""
    from attention_ui.registry import PAGES

    page_id = Path(page).stem
    target = "" if page_id == PAGES[0].id else page_id
    links = [link.proto for link in at.sidebar.get("page_link") if link.proto.page == target]
    assert links, f"no sidebar link to {page_id!r}"
    return open_page_link(at, links[0])


def open_page_link(at: AppTest, link) -> AppTest:
    """What a click on the page link ``link`` (a ``PageLink`` proto of ``at``) opens, as a new
    session (see ``follow_link``)."""
    from attention_ui.presentation import STATE_KEY
    from attention_ui.registry import PAGES
    from attention_ui.settings import BOUND, DEFAULTS, url_text

    defaults = DEFAULTS | {STATE_KEY: False}
    bound = {name: at.session_state[name] for name in (*BOUND, STATE_KEY) if name in at.session_state}
    params = {name: url_text(name, value) for name, value in bound.items() if value != defaults[name]}
    params |= dict(parse_qsl(link.query_string, keep_blank_values=True))
    return open_link(link.page or PAGES[0].id, toy=params.pop("toy", None) == "true", **params)


def path_links(at: AppTest) -> dict:
    """The lesson path's links under the page (``attention_ui.lesson_path``), as ``PageLink``
    protos: {"back": …, "next": …}, each only when the page has it."""
    from attention_ui.clicker import PATH_BACK_KEY, PATH_KEY, PATH_NEXT_KEY

    rows = [node for node in at.main.children.values() if str(getattr(node.proto, "id", "")).endswith(f"-{PATH_KEY}")]
    assert len(rows) <= 1, "the lesson path is drawn more than once"
    found = {}
    for node in rows[0].children.values() if rows else ():
        for name, key in (("back", PATH_BACK_KEY), ("next", PATH_NEXT_KEY)):
            links = [link.proto for link in node.get("page_link")]
            if str(node.proto.id).endswith(f"-{key}") and links:
                found[name] = links[0]
    return found


def page_file(page: str) -> str:
    """The file of page ``page``, given by its id or its file."""
    return page if page.endswith(".py") else f"pages/{page}.py"


def errors(at: AppTest) -> str:
    """The page's exceptions with the end of their stack traces (the real ones under the
    ``full_error_details`` fixture; the app's config redacts them otherwise)."""
    return "\n".join(f"{e.message}\n" + "\n".join(e.stack_trace[-6:]) for e in at.exception)


# --------------------------------------------------------------------------- the page's charts


def plotly_array(value) -> np.ndarray:
    """A figure's array as Streamlit sends it, as float64 NumPy: Plotly's typed-array JSON
    (``{"dtype", "bdata", "shape"}``, base64) or a plain list (``None`` becomes NaN).

    >>> plotly_array({"dtype": "i1", "bdata": "AQID", "shape": "3"}), plotly_array([0.5, None])
    (array([1., 2., 3.]), array([0.5, nan]))
    """
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            arr = arr.reshape([int(s) for s in str(value["shape"]).split(",")])
        return arr.astype(np.float64)
    return np.array(value, dtype=np.float64)


def charts(at) -> dict[str, dict]:
    """Plotly figures on the page by their title text (without the ``<br>`` of a long one, nor
    the ``<b>`` that ``chart_theme.themed`` puts around every title, as Streamlit's theme did)."""
    out = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        out[title_text(spec)] = spec
    return out


def title_text(spec: dict, breaks: bool = False) -> str:
    """A sent figure's title without the ``<b>`` that ``chart_theme.themed`` wraps it in (as
    Streamlit's theme did) and, unless ``breaks``, without its ``<br>`` line breaks."""
    text = spec["layout"].get("title", {}).get("text", "").removeprefix("<b>").removesuffix("</b>")
    return text if breaks else text.replace("<br>", "")


def figures_by_key(at) -> dict[str, dict]:
    """The page's Plotly figures by their Streamlit key (the end of the element id)."""
    return {chart.proto.id.rsplit("-", 1)[-1]: json.loads(chart.proto.spec) for chart in at.get("plotly_chart")}


def z_of(fig: dict) -> np.ndarray:
    """The z matrix of a figure's first trace."""
    return plotly_array(fig["data"][0]["z"])


class TableReader(HTMLParser):
    """Reads one ``tables.table_html`` table: headers, row labels and cells as a learner reads
    them (entities decoded), each number cell as its full ``data-value`` and its shown text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.header, self.labels, self.rows, self.shown = [], [], [], []
        self._cell, self._text, self._part = None, [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "thead":
            self._part = "head"
        elif tag == "tbody":
            self._part = "body"
        elif tag == "tr" and self._part == "body":
            self.rows.append([])
            self.shown.append([])
        elif tag in ("th", "td"):
            self._cell, self._text = (tag, attrs.get("scope"), attrs.get("data-value")), []

    def handle_data(self, data):
        if self._cell is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag not in ("th", "td") or self._cell is None:
            return
        (kind, scope, value), text = self._cell, "".join(self._text)
        self._cell = None
        if self._part == "head":
            self.header.append(text)
        elif kind == "th" and scope == "row":
            self.labels.append(text)
        else:
            number = value if value is None else int(value) if re.fullmatch(r"-?\d+", value) else float(value)
            self.rows[-1].append(text if number is None else number)
            self.shown[-1].append(text)


class MatrixReader(HTMLParser):
    """Each ``<table>`` of a ``tables.matrix_html`` page: its title (the caption's first part),
    column labels, row labels, and per cell the text a learner reads, the exact ``data-value``
    and the inline style."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self._cell, self._text, self._part = [], None, [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append({"title": "", "cols": [], "rows": [], "cells": [], "class": attrs.get("class")})
        elif tag == "span" and attrs.get("class") == "cm-title":
            self._cell, self._text = ("title", attrs), []
        elif tag in ("thead", "tbody"):
            self._part = tag
        elif tag == "tr" and self._part == "tbody":
            self.tables[-1]["cells"].append([])
        elif tag in ("th", "td") and self._part in ("thead", "tbody"):
            self._cell, self._text = (tag, attrs), []

    def handle_data(self, data):
        if self._cell is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag not in ("th", "td", "span") or self._cell is None or (tag == "span") != (self._cell[0] == "title"):
            return
        (kind, attrs), text = self._cell, "".join(self._text)
        self._cell, table = None, self.tables[-1]
        if kind == "title":
            table["title"] = text
        elif self._part == "thead" and kind == "th":
            table["cols"].append(text)
        elif kind == "th" and attrs.get("scope") == "row":
            table["rows"].append(text)
        elif self._part == "tbody":
            table["cells"][-1].append((text, float(attrs["data-value"]), attrs.get("style")))


def matrix_tables(at, *, print_only: bool = False) -> dict[str, dict]:
    """The matrices the page draws as HTML tables (``tables.matrix_html``) by their title: each
    ``{"z": (rows, cols) array of the cells' exact values, "texts", "rows", "cols"}``. Only the
    tables shown on screen, or with ``print_only`` only the print twins under Plotly charts."""
    out = {}
    for element in at.get("html"):
        body = element.proto.body
        if not body.startswith('<div class="cell-matrix-box') or ("print-only" in body.split(">", 1)[0]) != print_only:
            continue
        reader = MatrixReader()
        reader.feed(body)
        table = reader.tables[0]  # the matrix; a spotlight row follows it
        out[table["title"]] = {
            "z": np.array([[value for _, value, _ in row] for row in table["cells"]], dtype=np.float64),
            "texts": [[text for text, _, _ in row] for row in table["cells"]],
            "rows": table["rows"],
            "cols": table["cols"],
        }
    return out


def tables(at) -> list:
    """The page's tables (``tables.number_table``, sent as HTML) as frames: headers, row labels
    and text as a learner reads them, numbers with every digit (a cell's ``data-value``). Checks
    on the way that each number cell shows its value, rounded to the digits it shows."""
    import pandas as pd

    out = []
    for element in at.html:
        if 'class="num-table"' not in element.value:
            continue
        reader = TableReader()
        reader.feed(element.value)
        for row, texts in zip(reader.rows, reader.shown):
            for cell, text in zip(row, texts):
                if not isinstance(cell, str) and np.isfinite(cell):
                    mantissa, _, exponent = text.partition("e")
                    last = int(exponent or 0) - len(mantissa.partition(".")[2])  # the place of the last digit shown
                    assert abs(float(text) - cell) <= 0.5 * 10.0**last * (1 + 1e-9), (text, cell)
        header = reader.header[1:] if reader.labels else reader.header  # the corner above the labels
        out.append(pd.DataFrame(reader.rows, columns=header, index=reader.labels or None))
    return out


def grid_geometry(fig: dict, n_layers: int, n_heads: int) -> tuple[int, int]:
    """(T, gap) of a ``heads_grid`` figure as sent, read from its heatmap's shape (the figure's
    ``layout.meta`` stays on the server): rows = L·(T+gap) − gap, columns = H·(T+gap) − gap.
    The gap must be the builder's ``grid_gap(T)``."""
    from attention_ui.model_figures import grid_gap

    rows, cols = z_of(fig).shape
    assert n_heads != n_layers and (cols - rows) % (n_heads - n_layers) == 0, (rows, cols)
    step = (cols - rows) // (n_heads - n_layers)
    gap = n_heads * step - cols
    t = step - gap
    assert gap == grid_gap(t), (t, gap)
    return t, gap


def grid_thumbnails(fig: dict, n_layers: int, n_heads: int) -> np.ndarray:
    """The (n_layers, n_heads, T, T) thumbnails of a ``heads_grid`` figure: blocks of its one
    heatmap, T cells square and ``grid_gap(T)`` NaN cells apart. The gap cells must be NaN."""
    z = z_of(fig)
    t, gap = grid_geometry(fig, n_layers, n_heads)
    step = t + gap
    assert z.shape == (n_layers * step - gap, n_heads * step - gap), z.shape
    blocks = np.stack(
        [[z[r * step : r * step + t, h * step : h * step + t] for h in range(n_heads)] for r in range(n_layers)]
    )  # (L, H, T, T)
    assert np.isnan(z).sum() == z.size - blocks.size, "only the gaps are empty"
    return blocks


# --------------------------------------------------------------------------- the page's words

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_PROSE = re.compile(r"[A-Za-z]{3,}[,.;:]?\s+[A-Za-z]{3,}")
NOT_PROSE = re.compile(
    r"\$[^$]*\$|`[^`]*`|Attention Lab|all-MiniLM-L6-v2|sentence-transformers/\S+|streamlit run app\.py|"
    r"\[(CLS|SEP|UNK)\]|softmax|\b(?:d_k|d_model|W\^[QKV])\b|"
    r"（(?:scaled dot-product attention|unknown token)）"  # the standard English term after the Chinese one
)


def page_texts(at) -> list[str]:
    """Everything a learner reads on the page body and sidebar (not the chart internals)."""
    out = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        out += [str(el.value) for el in at.get(kind)]
    for kind in (
        "button",
        "toggle",
        "slider",
        "select_slider",
        "text_input",
        "number_input",
        "radio",
        "selectbox",
        "metric",
        "expander",
        "tab",
    ):
        out += [str(getattr(el, "label", "")) for el in at.get(kind)]
    return [text for text in out if text]


def chart_words(at) -> list[str]:
    """Chart titles and axis titles."""
    out = []
    for spec in charts(at).values():
        layout = spec["layout"]
        out.append(layout.get("title", {}).get("text", ""))
        for name, axis in layout.items():
            if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
                out.append(axis.get("title", {}).get("text", ""))
    return [text for text in out if text]


def english_prose(texts, allowed_words=()) -> list[str]:
    """Texts that still contain English prose once formulas, code, model names and the
    learner's own tokens are taken out."""
    found = []
    for text in texts:
        cleaned = NOT_PROSE.sub(" ", text)
        for word in allowed_words:
            cleaned = cleaned.replace(word, " ")
        if ENGLISH_PROSE.search(cleaned):
            found.append(text)
    return found
