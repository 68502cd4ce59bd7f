"""Presentation mode, for a projector: large type, the sidebar collapsed, content full width.

It is bound to the URL (``?present=true``), so a teacher can open the class link already in
presentation mode. Two calls, meant for ``shell.page_start``:

    present = presentation_toggle()   # inside ``with st.sidebar:``, a toggle bound to ?present=
    apply_presentation(present)       # after st.set_page_config

``apply_presentation`` collapses the sidebar through ``st.set_page_config(initial_sidebar_state=
"collapsed")`` (additive: it changes nothing else of the page config) and adds one constant
style sheet. Once a teacher has opened the sidebar, Streamlit keeps that choice ahead of the page
config, so the route folds it again after each navigation (``lesson_path.fold_after_navigation``). No
learner text ever goes into the CSS. Charts drawn through the chart pipeline
(``attention_ui.charts``) also get larger fonts (``projector``, one of its steps).

On a 1024 × 768 projector the page's main chart must start on the first screen: the title is
smaller, the honesty banner is a closed expander (``shell.honesty_banner``) and pages whose
chart sits under a formula and a paragraph draw those under the chart instead
(``explained_around``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from attention_core.model_choice import model_label
from attention_ui.i18n import t
from attention_ui.internals import PHONE_PX, SCREEN_ONLY, TICK_FONT_PX, testid
from attention_ui.notation import shown
from attention_ui.url_state import url_value

STATE_KEY = "present"
"""Session key and URL parameter of presentation mode."""
FONT_PX = 22
"""Root font size in presentation mode (Streamlit's default is 16 px; its sizes are in rem)."""
CHART_FONT_PX = 18
"""Base font of Plotly charts in presentation mode (Plotly's default is 12 px)."""
CHART_HEIGHT_FACTOR = 1.3
"""Charts with a fixed height grow by this factor in presentation mode."""

FONT_SCALE = CHART_FONT_PX / TICK_FONT_PX
"""How much larger a chart's text is drawn in presentation mode."""
HEADS_PER_ROW = 6
"""A heads grid on a projector shows at most this many heads side by side (``model_figures.heads_grid``'s
``per_row``): twelve in a row were about 55 px wide each at 1024 px."""

_MAIN, _MARKDOWN = testid("stMain"), testid("stMarkdownContainer")
PRESENTATION_CSS = f"""<style>
html {{ font-size: {FONT_PX}px; }}
{testid("stMainBlockContainer")} {{ max-width: 100%; padding: 4rem 2.5rem 3rem 2.5rem; }}
/* a smaller page title, so that the page's chart starts on a 1024 × 768 projector's first screen */
{_MAIN} h1 {{ font-size: 1.75rem; padding: 0 0 0.25rem 0; }}
{_MARKDOWN} p, {_MARKDOWN} li {{ line-height: 1.5; }}
{testid("stCaptionContainer")} {{ font-size: 0.95rem; }}
.katex {{ font-size: 1.2em; }}
.katex-display {{ margin: 0.3em 0; }}
{_MAIN} {testid("stVerticalBlock")} {{ gap: 0.6rem; }}
{testid("stButtonGroup")} button {{ font-size: 0.8rem; min-height: 1.75rem; padding: 0 0.5rem; }}
/* on a phone: a projector's margins and formula type left 280 of 390 px, and a formula ran off it */
@media (max-width: {PHONE_PX - 0.02}px) {{
  {testid("stMainBlockContainer")} {{ padding-left: 1rem; padding-right: 1rem; }}
  .katex-display > .katex.katex {{ font-size: 0.75em; }}
}}
</style>"""
"""The style sheet of presentation mode: a constant, never built from user input."""


def parse_flag(value) -> bool:
    """A URL flag as a bool: "true", "1", "yes", "on" (any case) are on; anything else is off.

    >>> parse_flag("true"), parse_flag("TRUE"), parse_flag("0"), parse_flag(None), parse_flag("<b>")
    (True, True, False, False, False)
    """
    return str(value).strip().lower() in {"true", "1", "yes", "on"}


def is_presenting() -> bool:
    """Whether presentation mode is on in this session (the toggle's value, else ``?present=``)."""
    try:
        if STATE_KEY in st.session_state:
            return bool(st.session_state[STATE_KEY])
        return parse_flag(url_value(STATE_KEY))
    except Exception:  # no session (bare import)
        return False


def presentation_toggle() -> bool:
    """The "Presentation mode" toggle, bound to ``?present=``; call it once per run, in the
    sidebar. Returns whether presentation mode is on."""
    return bool(
        st.toggle(
            t("presentation.toggle"),
            key=STATE_KEY,
            bind="query-params",
            value=False,
            help=t("presentation.toggle_help"),
        )
    )


def apply_presentation(enabled: bool) -> None:
    """Switch the page to presentation mode when ``enabled``; does nothing otherwise.

    Call it after ``st.set_page_config(...)`` (it adds to the page config, it does not
    replace it).
    """
    if not enabled:
        return
    st.set_page_config(layout="wide", initial_sidebar_state="collapsed")
    st.html(PRESENTATION_CSS)  # only <style>: Streamlit puts it in the event container, no space taken


_AXIS = re.compile(r"^[xy]axis\d*$")


def _grown(part: dict | None, key: str, size: float) -> dict:
    """``part`` with its ``key`` font (``tickfont``, ``font``) at ``size``, or its own size
    grown by ``FONT_SCALE`` when it set one."""
    part = dict(part or {})
    font = dict(part.get(key) or {})
    font["size"] = round(font["size"] * FONT_SCALE) if font.get("size") else size
    part[key] = font
    return part


def projector(spec: dict) -> dict:
    """``spec`` (a figure's JSON) with fonts large enough for a projector: a new dict, ``spec``
    is not changed. A step of the chart pipeline (``attention_ui.charts``).

    The layout font grows to ``CHART_FONT_PX`` and a title's to 1.15 times that; so do the
    axes' tick labels and titles, the colour bars' labels, the legend and the panel titles
    (Streamlit's theme would keep them at 12 and 14 px while the page's text grows); cell and
    bar texts that set their own size grow by ``FONT_SCALE``; a fixed height grows by
    ``CHART_HEIGHT_FACTOR``, except a picture's (an axis pinned to the other's scale, whose
    chart would only gain blank sides). A title set above panel titles (``figures.figure``'s
    ``title_above``) rises by ``FONT_SCALE`` with them, into a top margin as much larger: at the
    same room it overlapped "Layer 1, head 1" under it.

    >>> big = projector({"data": [{"type": "heatmap", "textfont": {"size": 12}}], "layout": {"height": 200}})
    >>> big["layout"]["font"]["size"], big["layout"]["height"], big["data"][0]["textfont"]["size"]
    (18, 260, 18)
    >>> big["layout"]["xaxis"]["tickfont"]["size"], big["layout"]["yaxis"]["title"]["font"]["size"]
    (18, 18)
    """
    layout = {name: value for name, value in spec.get("layout", {}).items() if name != "template"}
    layout["font"] = {**layout.get("font", {}), "size": CHART_FONT_PX}
    for name in {"xaxis", "yaxis", *(n for n in layout if _AXIS.match(n))}:
        axis = _grown(layout.get(name), "tickfont", CHART_FONT_PX)
        title = axis.get("title")
        if isinstance(title, str):
            title = {"text": title}
        axis["title"] = _grown(title, "font", CHART_FONT_PX)
        layout[name] = axis
    if "coloraxis" in layout:
        scale = dict(layout["coloraxis"])
        scale["colorbar"] = _grown(scale.get("colorbar"), "tickfont", CHART_FONT_PX)
        layout["coloraxis"] = scale
    for name in [key for key in layout if key.startswith("legend")] or ["legend"]:  # legend, legend2 …
        layout[name] = _grown(layout.get(name), "font", CHART_FONT_PX)
    if layout.get("annotations"):
        layout["annotations"] = [_grown(note, "font", CHART_FONT_PX) for note in layout["annotations"]]
    title = layout.get("title") or {}
    layout["title"] = {**title, "font": {**title.get("font", {}), "size": round(CHART_FONT_PX * 1.15)}}
    pinned = any(isinstance(axis, dict) and axis.get("scaleanchor") for axis in layout.values())
    if layout.get("height") and not pinned:  # larger text needs more room (axis ticks, colour bar labels)
        layout["height"] = round(layout["height"] * CHART_HEIGHT_FACTOR)
    above = (title.get("pad") or {}).get("b")
    if above and title.get("yanchor") == "bottom":  # a title over the panels' own (figures.figure(title_above=))
        more = round(above * (FONT_SCALE - 1))  # both grew by FONT_SCALE: so does the room between them
        layout["title"]["pad"] = {**title["pad"], "b": above + more}
        layout["margin"] = {**layout.get("margin", {}), "t": layout.get("margin", {}).get("t", 0) + more}
        layout["height"] = layout.get("height", 0) and layout["height"] + more
    data = []
    for trace in spec.get("data", []):
        size = (trace.get("textfont") or {}).get("size")
        trace = {**trace, "textfont": {**trace["textfont"], "size": round(size * FONT_SCALE)}} if size else trace
        if trace.get("type") == "heatmap" and not trace.get("coloraxis") and trace.get("showscale") is not False:
            trace = {**trace, "colorbar": _grown(trace.get("colorbar"), "tickfont", CHART_FONT_PX)}
        data.append(trace)
    return {**spec, "data": data, "layout": layout}


def handout_html(lesson, page: str) -> str:
    """What a printed page says on top (``handout``): the app and the page, the sentence (escaped:
    the learner typed it) and the settings its numbers come from. Shown only in print.

    >>> from attention_core import ToyEmbedder, build_lesson
    >>> page = handout_html(build_lesson("the <b>cat</b>", ToyEmbedder()), "matrices")
    >>> "printed from Attention matrices" in page, "the &lt;b&gt;cat&lt;/b&gt;" in page, "<b>cat" in page
    (True, True, False)
    """
    settings = lesson.settings
    state = {True: t("presentation.on"), False: t("presentation.off")}
    parts = [
        t("presentation.handout_embedder_real", model=model_label(lesson.embedder_name))
        if lesson.real_embeddings
        else t("presentation.handout_embedder_toy")
    ]
    kind = lesson.projections.kind
    if kind == "model":
        parts.append(t("presentation.handout_w_trained", layer=shown(settings.layer), head=shown(settings.head)))
    elif kind == "identity":
        parts.append(t("presentation.handout_w_identity", d_k=lesson.trace.d_k))
    else:
        parts.append(t("presentation.handout_w_random", seed=settings.seed, d_k=lesson.trace.d_k))
    parts.append(t("presentation.handout_scaled", state=state[bool(settings.scaled)]))
    if kind != "model":
        parts.append(t("presentation.handout_positional", state=state[bool(settings.positional)]))
    parts.append(t("presentation.handout_tokens", shown=len(lesson.tokens), total=lesson.n_tokens))
    page_name = t(f"shell.nav_{page}")
    colon = html.escape(t("presentation.colon"))
    return (
        '<div class="print-only handout">'
        f"<p><b>{html.escape(t('presentation.handout', page=page_name))}</b></p>"
        f"<p><b>{html.escape(t('presentation.handout_sentence'))}</b>{colon}{html.escape(lesson.text)} "
        f"<br><b>{html.escape(t('presentation.handout_settings'))}</b>{colon}{html.escape(' · '.join(parts))}</p></div>"
    )


def screen_only(name: str):
    """A container for what only a screen needs (how to move a slider, a remote's keys); a printed
    handout leaves it out (``internals.SCREEN_ONLY``, the print style sheet).

    >>> callable(screen_only)
    True
    """
    return st.container(key=SCREEN_ONLY + name)


def about_box(label: str, presenting: bool):
    """Where a page's introduction goes: the page itself, or on a projector (presentation mode) a
    closed expander labelled ``label``, so that what the page teaches (the heads side by side,
    the Train button beside its curves) is on a 1024 × 768 screen, where the intro took all of it.

    >>> callable(about_box)
    True
    """
    return st.expander(label, icon=":material/info:") if presenting else st.container()


def handout(lesson, page: str) -> None:
    """The sentence and the settings on top of a printed page (``handout_html``); nothing on screen."""
    st.html(handout_html(lesson, page))


@contextmanager
def explained_around(explain: Callable[[], None]) -> Iterator[None]:
    """Draw what ``explain`` draws (a formula, a paragraph) above what the ``with`` block
    draws (the chart), or under it in presentation mode, so that on a 1024 × 768 projector
    the chart starts on the first screen.

    >>> with explained_around(lambda: print("formula")):  # outside a Streamlit session: not presenting
    ...     print("chart")
    formula
    chart
    """
    presenting = is_presenting()
    if not presenting:
        explain()
    yield
    if presenting:
        explain()
