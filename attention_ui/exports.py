"""Exports for teachers: every figure as PNG or SVG, every matrix as CSV, a link to the view.

Images are rendered in the learner's browser by Plotly itself (the camera button of the
chart's toolbar). Server-side rendering (kaleido) needs a Chrome on the server, which
Streamlit Community Cloud does not have, so it is not used. Plotly's toolbar has exactly one
download button, whose format comes from ``config["toImageButtonOptions"]["format"]``; the
small "Download" menu under each chart holds the PNG / SVG switch that sets it (one
preference for the whole session), says to press the camera, and holds the CSV download.
The camera's tooltip names the chosen format in the learner's language.

``matrix_csv`` is pure (no Streamlit) and safe for learner-typed token labels: the csv
module quotes commas, quotes and newlines, and a label that a spreadsheet would read as a
formula (leading ``= + - @``, tab or carriage return) gets a leading apostrophe.

``show_figure`` is the chart pipeline's ``charts.draw`` (which makes the chart draw once)
with this download menu under the chart. Example (what a page calls instead of
``st.plotly_chart``)::

    show_figure(fig, "fig_weights", matrix=trace.weights, row_labels=tokens,
                col_labels=tokens, filename="attention_weights")
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from attention_ui.charts import draw, drawn_as_table
from attention_ui.i18n import t
from attention_ui.presentation import screen_only
from attention_ui.url_state import url_params

IMAGE_FORMATS = ("png", "svg")
"""The figure formats offered; Plotly renders both client-side."""
PNG_SCALE = 2
"""PNG exports at twice the on-screen resolution: sharp on slides and in print."""
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")
"""First characters that make a spreadsheet run a cell as a formula (OWASP CSV injection),
plus the apostrophe itself, so that "strip one leading apostrophe" always restores a label."""
FORMAT_STATE = "export_format"
"""Session key of the chosen image format, shared by every figure."""

_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9_-]+")


def safe_filename(name: str, default: str = "figure") -> str:
    """A file name stem made of ASCII letters, digits, ``_`` and ``-`` only.

    >>> safe_filename("weights α̂ <row 3>"), safe_filename("///")
    ('weights_row_3', 'figure')
    """
    stem = _UNSAFE_FILENAME.sub("_", str(name)).strip("_")
    return stem[:80] or default


MODEBAR_REMOVED = ("select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d")
"""Toolbar buttons the lessons do not need: the toolbar keeps the camera, zoom, pan and reset."""


def plotly_config(filename: str, image_format: str = "png", camera_title: str | None = None) -> dict:
    """The ``config`` for ``st.plotly_chart``: the camera button downloads ``image_format``,
    and its tooltip says ``camera_title`` (Plotly's own words otherwise).

    The tooltip goes through Plotly's dictionary for the "en-US" locale (Plotly's default,
    so numbers keep their format): the strings it looks up for the camera are "Download
    plot as a PNG" for PNG and "Download plot" for every other format.

    >>> plotly_config("attention weights", "svg")["toImageButtonOptions"]
    {'format': 'svg', 'filename': 'attention_weights', 'scale': 1}
    >>> plotly_config("w", "svg", "Download as SVG")["locales"]["en-US"]["dictionary"]
    {'Download plot': 'Download as SVG'}
    >>> plotly_config("w", "gif")
    Traceback (most recent call last):
    ...
    ValueError: image_format must be one of ('png', 'svg'), got 'gif'
    """
    if image_format not in IMAGE_FORMATS:
        raise ValueError(f"image_format must be one of {IMAGE_FORMATS}, got {image_format!r}")
    config = {
        "toImageButtonOptions": {
            "format": image_format,
            "filename": safe_filename(filename),
            "scale": PNG_SCALE if image_format == "png" else 1,  # SVG is vector: no scale
        },
        "displaylogo": False,
        "modeBarButtonsToRemove": list(MODEBAR_REMOVED),
    }
    if camera_title:
        plotly_words = "Download plot as a PNG" if image_format == "png" else "Download plot"
        config["locale"] = "en-US"
        config["locales"] = {"en-US": {"dictionary": {plotly_words: camera_title}}}
    return config


def csv_safe(label: str) -> str:
    """A label a spreadsheet shows as text, never runs as a formula.

    >>> csv_safe("=HYPERLINK(1)"), csv_safe("-"), csv_safe("cat"), csv_safe("'x")
    ("'=HYPERLINK(1)", "'-", 'cat', "''x")
    """
    label = str(label)
    return "'" + label if label.startswith(FORMULA_START) else label


def matrix_csv(matrix, row_labels: Sequence[str], col_labels: Sequence[str], corner: str = "") -> str:
    """The 2-D ``matrix`` as CSV text: a header row of ``col_labels``, then one row per
    ``row_labels`` entry followed by its numbers.

    Numbers are written with ``repr`` (the shortest text that reads back as the same float),
    so the file holds exactly the numbers on screen; -inf (a masked score) is ``-inf``.
    Labels pass through ``csv_safe``. Lines end with ``\\r\\n`` (RFC 4180).

    >>> text = matrix_csv([[0.25, 0.75], [1.0, 0.0]], ["the", "cat"], ["the", "=cat"], corner="q/k")
    >>> text.splitlines()
    ["q/k,the,'=cat", 'the,0.25,0.75', 'cat,1.0,0.0']
    """
    z = np.asarray(matrix, dtype=np.float64)  # (rows, cols)
    if z.ndim == 1:
        z = z[None, :]  # (1, cols)
    if z.ndim != 2:
        raise ValueError(f"matrix must be 1-D or 2-D, got shape {z.shape}")
    if len(row_labels) != z.shape[0] or len(col_labels) != z.shape[1]:
        raise ValueError(
            f"matrix has shape {z.shape} but {len(row_labels)} row labels and {len(col_labels)} column labels"
        )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_safe(corner)] + [csv_safe(c) for c in col_labels])
    for label, row in zip(row_labels, z):
        writer.writerow([csv_safe(label)] + [repr(float(x)) for x in row])
    return out.getvalue()


def panels_csv(panels, col_labels: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """The panels of a ``heatmaps.heatmap_row`` side by side for one CSV: their matrices joined
    column-wise, each column named "<panel title> · <column label>".

    >>> matrix, columns = panels_csv([("α", np.zeros((2, 2))), ("α̂", np.ones((2, 2)))], ["1: a", "2: b"])
    >>> matrix.shape, columns
    ((2, 4), ['α · 1: a', 'α · 2: b', 'α̂ · 1: a', 'α̂ · 2: b'])
    """
    matrix = np.hstack([np.asarray(z, dtype=np.float64) for _, z in panels])  # (rows, n_panels · cols)
    return matrix, [f"{name} · {label}" for name, _ in panels for label in col_labels]


def view_url(base: str | None, params: dict) -> str:
    """The address of the current view: ``base`` (the page URL) plus its query parameters.

    >>> view_url("http://localhost:8501/exercises", {"ex_seed": "7", "lang": "zh"})
    'http://localhost:8501/exercises?ex_seed=7&lang=zh'
    >>> view_url(None, {"sentence": "a b&c"})
    '?sentence=a+b%26c'
    """
    query = urlencode({k: v for k, v in params.items()}, doseq=True)
    base = (base or "").split("?")[0].split("#")[0]
    return f"{base}?{query}" if query else base


# --------------------------------------------------------------------------- Streamlit part


def _current_format() -> str:
    chosen = st.session_state.get(FORMAT_STATE)
    return chosen if chosen in IMAGE_FORMATS else IMAGE_FORMATS[0]


def _remember_format(widget_key: str) -> None:
    chosen = st.session_state.get(widget_key)
    if chosen in IMAGE_FORMATS:
        st.session_state[FORMAT_STATE] = chosen


def show_figure(
    fig,
    key: str,
    *,
    matrix=None,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    filename: str | None = None,
    corner: str = "",
    alt: str | None = None,
    defer_csv: bool = False,
    on_click=None,
    table: bool = False,
) -> None:
    """Draw ``fig`` with one small export menu under it: PNG or SVG through the chart's
    camera and, given ``matrix``, a CSV download.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    key : str
        The chart's Streamlit key (``<key>_present`` in presentation mode, ``_svg`` added
        while SVG is chosen: a new key draws the toolbar afresh, so the camera's tooltip
        names the format it gives); the format switch and CSV button use ``<key>_format``
        and ``<key>_csv``.
    matrix : array_like (rows, cols) or (cols,), optional
        The numbers the figure shows, exported as CSV with ``row_labels``/``col_labels``
        (raw token text, not escaped: CSV needs no HTML escaping).
    filename : str, optional
        Download file name without extension (made safe); defaults to ``key``.
    corner : str
        Top-left cell of the CSV (e.g. "query i \\ key j").
    alt : str, optional
        The chart's accessible name; by default its title (``charts.alt_text``).
    defer_csv : bool
        Write the CSV only when the button is clicked (Streamlit runs the callable then, on
        its own thread), not on every rerun: for wide matrices (12 × 1536 numbers) writing and
        holding it on every click anywhere on the page is not free.
    on_click : callable, optional
        ``on_click(point)`` runs before the rerun when the learner clicks a marker of the
        figure (``figures.click_targets``); ``point`` is Plotly's point as Streamlit reports
        it (``point["customdata"]``, ``point["x"]`` …).
    table : bool
        Draw a matrix that carries its ``Cells`` as an HTML table (``charts.drawn_as_table``);
        its menu then holds the CSV only (a table has no camera).

    The chart goes through the chart pipeline (``charts.draw``): a heatmap whose cells print
    numbers hides them, with the note "hover for the values", where the chart is too narrow.

    Use it as ``with column: show_figure(...)`` inside columns.
    """
    stem = safe_filename(filename or key)
    fmt_key = f"{key}_format"
    fmt = _current_format()
    tabled = drawn_as_table(fig, table)
    draw(
        fig,
        key,
        config=plotly_config(stem, fmt, t(f"exports.camera_{fmt}")),
        alt=alt,
        on_click=on_click,
        fresh="" if fmt == IMAGE_FORMATS[0] else f"_{fmt}",  # the camera's tooltip names the format it gives
        table=table,
    )
    if tabled and matrix is None:
        return  # nothing to download: a table has no camera
    with screen_only(f"download_{key}"), st.container(horizontal=True, horizontal_alignment="right"):  # not on paper
        menu_help = t("exports.menu_help_table" if tabled else "exports.menu_help")
        with st.popover(t("exports.menu"), icon=":material/download:", help=menu_help):
            if not tabled:
                st.session_state[fmt_key] = fmt  # every switch shows the session's choice
                st.segmented_control(
                    t("exports.image_format"),
                    list(IMAGE_FORMATS),
                    format_func=lambda f: t(f"exports.format_{f}"),
                    key=fmt_key,
                    required=True,
                    on_change=_remember_format,
                    args=(fmt_key,),
                )
                st.caption(t("exports.image_help", format=t(f"exports.format_{fmt}")))
            if matrix is not None:
                z = np.asarray(matrix, dtype=np.float64)  # (rows, cols) or (cols,)
                n_rows = 1 if z.ndim == 1 else z.shape[0]
                n_cols = z.shape[-1]
                rows = list(row_labels) if row_labels is not None else [str(i) for i in range(n_rows)]
                cols = list(col_labels) if col_labels is not None else [str(j) for j in range(n_cols)]

                def data() -> bytes:
                    return matrix_csv(z, rows, cols, corner=corner).encode("utf-8-sig")  # BOM: Excel reads UTF-8

                st.download_button(
                    t("exports.csv"),
                    data=data if defer_csv else data(),
                    file_name=f"{stem}.csv",
                    mime="text/csv",
                    key=f"{key}_csv",
                    on_click="ignore",
                    icon=":material/download:",
                    help=t("exports.csv_help"),
                )


def current_view_url() -> str:
    """The URL of this exact view: the page address and every query parameter now set."""
    return view_url(st.context.url, url_params())


def view_link(label_key: str = "exports.view_link") -> str:
    """Show the link to this exact view in a code block (which has a copy button)."""
    url = current_view_url()
    st.caption(t(label_key))
    st.code(url, language=None, wrap_lines=True)
    return url


def view_link_expander(label: str, key: str, *, box=None, note: str | None = None) -> None:
    """An expander (in ``box``, default the current container) that draws ``view_link`` only
    while it is open: opening it reruns the page (``on_change="rerun"``; its state under
    ``key``). The link is a code block, and Streamlit's code block makes a new learner's browser
    load its syntax highlighter: 0.5–1.0 s of a first visit's main thread (``bench_fresh
    --trace``, a V8 profile) for a link nobody had asked for. ``note``: a caption above it.
    Example: ``view_link_expander(t("shell.share"), "share_open", box=st.sidebar)``."""
    share = (box or st).expander(label, icon=":material/link:", key=key, on_change="rerun")
    if share.open:
        with share:
            if note:
                st.caption(note)
            view_link()
