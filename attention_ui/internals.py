"""What the app assumes about Streamlit's, Plotly's and Chromium's insides, in one place.

Nothing here is public API of those projects: the names of Streamlit's page elements
(``data-testid``), the class it gives a keyed container, its breakpoints, the look its chart
theme gives a Plotly figure, the width of its font's letters, the class names Plotly gives what
it draws and how Chromium writes the colours Plotly sets. An upgrade may change any of them
without notice; each has a canary test that fails with a message naming the value and what to
do (``tests/test_internals.py`` reads the installed packages and Streamlit's frontend bundle;
``tests/browser/test_internals_browser.py`` asks Chromium). Every other module takes these
values from here.

``CHECKED_WITH`` names the versions the values were last checked against: after an upgrade,
run both canary files, fix what they name, and update it.

>>> testid("stMain"), key_class("fig_w"), key_prefix("cells600_")
('[data-testid="stMain"]', 'st-key-fig_w', '[class*="st-key-cells600_"]')
"""

from __future__ import annotations

import functools
from pathlib import Path

import plotly.graph_objects as go
import streamlit

CHECKED_WITH = {"streamlit": "1.67.0", "plotly": "7.1.0"}
"""The versions every value below was checked against (the canaries say when one moved)."""

# --------------------------------------------------------------------------- Streamlit's page

CONTROLS = (
    "stButton",
    "stButtonGroup",
    "stPopover",
    "stDownloadButton",
    "stCheckbox",
    "stRadio",
    "stSlider",
    "stSelectbox",
    "stMultiSelect",
    "stTextInput",
    "stTextArea",
    "stNumberInput",
    "stLinkButton",
    "stFileUploader",
    "stColorPicker",
    "stDateInput",
    "stTimeInput",
    "stChatInput",
    "stPageLink",
)
"""The ``data-testid`` of each of Streamlit's controls (buttons, choices, toggles, sliders, inputs,
links to other pages): what a sheet of paper cannot click (``style.print_css`` leaves each out of a printed page)."""

TEST_IDS = (
    "stMain",
    "stMainBlockContainer",
    "stSidebar",
    "stSidebarCollapseButton",
    "stExpandSidebarButton",
    "stPageLink",
    "stHorizontalBlock",
    "stLayoutWrapper",
    "stHtml",
    "stVerticalBlock",
    "stColumn",
    "stPlotlyChart",
    "stFullScreenFrame",
    "stMarkdownContainer",
    "stCaptionContainer",
    "stApp",
    "stAppViewContainer",
    "stHeader",
    "stToolbar",
    "stStatusWidget",
    "stConnectionStatus",
    "stElementToolbar",
    "stCode",
    "stMetricLabel",
    "stWidgetLabel",
    "stElementContainer",
    "InputInstructions",
    *CONTROLS,  # every control a printed page leaves out (style.print_css)
    "stBottom",
    "stAlertContainer",
    # named only by the browser tests, the benches and the scripts:
    "stAlertContent",
    "stException",
    "stExpander",
    "stForm",
    "stMainMenuButton",
    "stMainMenuList",
    "stMetric",
    "stMetricValue",
    "stNumberInputStepDown",
    "stNumberInputStepUp",
    "stPopoverBody",
    "stProgress",
    "stSidebarContent",
    "stSkeleton",
)
"""The ``data-testid`` values of Streamlit's elements that the app's style sheets and scripts,
the browser tests, the benches and the scripts name, each through ``testid`` (canary: each
occurs in the installed frontend bundle)."""


def testid(name: str) -> str:
    """The CSS selector of Streamlit's element ``name`` (one of ``TEST_IDS``)."""
    if name not in TEST_IDS:
        raise ValueError(f"{name!r} is not in TEST_IDS: add it there, so that its canary watches it")
    return f'[data-testid="{name}"]'


KEY_CLASS = "st-key-"
"""Streamlit gives an element made with ``key=k`` the class ``st-key-k`` (letters, digits,
``_`` and ``-``; anything else becomes ``-``)."""


def key_class(key: str) -> str:
    """The class Streamlit gives the element keyed ``key``."""
    return KEY_CLASS + key


SCREEN_ONLY = "screen_only_"
"""Containers keyed ``screen_only_<name>`` hold what only a screen needs (how to use a control,
the keys of a remote): the print style sheet leaves them out."""


def key_prefix(prefix: str) -> str:
    """A selector of every element whose key starts with ``prefix``."""
    return f'[class*="{KEY_CLASS}{prefix}"]'


PHONE_PX = 640
"""Streamlit stacks every column below this window width (its ``columns`` breakpoint)."""
SIDEBAR_OVERLAY_PX = 768
"""Below this window width Streamlit's sidebar lies over the page (its ``md`` breakpoint)."""
BREAKPOINTS = {"columns": PHONE_PX, "md": SIDEBAR_OVERLAY_PX}
"""The two breakpoints by Streamlit's own names (canary: the bundle defines them so)."""

TABLE_LINE = ("#e8e5e2", "#3a3834")
"""The lines of Streamlit's own tables, in the light and the dark theme (``style``'s tables)."""

# --------------------------------------------------------------------------- Streamlit's app root, inputs and buttons

APP_ROOT = testid("stApp")
"""The app's root element, on which Streamlit marks whether a script runs (``SCRIPT_STATE``)."""
SCRIPT_STATE = "data-test-script-state"
"""The attribute of ``APP_ROOT`` that says whether the session's script runs: ``initial``,
``running``, ``rerunRequested``, ``notRunning``, ``stopRequested`` or ``compilationError``
(Streamlit's ``ScriptRunState``; the browser tests' idle check reads it too)."""
CONNECTION_STATUS = testid("stConnectionStatus")
"""Streamlit's "Connecting" / "Error" badge in the header: in the page only while it is not
connected to the server (a dropped connection, a reconnect under way). ``busy.BUSY_SCRIPT`` reads
it to tell a click cut off by a drop (canary: ``tests/browser/test_reconnect.py``)."""
RUNNING_STATES = ("running", "rerunRequested")
"""The values of ``SCRIPT_STATE`` while a run is under way or asked for."""
INPUT_INSTRUCTIONS = testid("InputInstructions")
"""The "Press Enter to apply" / "Press Ctrl+Enter to apply" line and character count that
Streamlit lays over the end of a text input's or text area's text while it has the focus."""
BUTTON = f"{testid('stButton')} button"
"""An ``st.button`` (a click on it always asks for a run)."""
ERROR_ALERT = '[data-testid="stAlertContentError"]'
"""The inside of an ``st.error`` box: Streamlit names it ``stAlertContent`` and the kind, capitalised."""

# --------------------------------------------------------------------------- Streamlit's sidebar, folded

SIDEBAR_CHOICE_KEY = "stSidebarCollapsed-"
"""Streamlit keeps a learner's own folding or opening of the sidebar in the browser's
``localStorage`` under this prefix (and the app's address), and reads that choice before the
page config's ``initial_sidebar_state``: once a teacher has opened the sidebar, the
``"collapsed"`` of presentation mode no longer folds it on the next page. So presentation mode
folds it as the teacher would, with the sidebar's own « button (``fold_sidebar_script``), which
Streamlit draws only while the sidebar is open and whose click it keeps as the new choice.
(canary: the bundle still names the key, and draws the button only while the sidebar is open)"""


def fold_sidebar_script(nonce: int) -> str:
    """A script that folds the sidebar if it is open, by a click on its « button, so that
    Streamlit keeps it folded until the teacher opens it again. ``nonce`` (a whole number that
    changes with each navigation) makes the script new, so that the browser runs it again. On
    the first page of a session the sidebar may not be drawn yet: the script looks again every
    100 ms for two seconds.

    >>> "stSidebarCollapseButton" in fold_sidebar_script(3), "/* 3 */" in fold_sidebar_script(3)
    (True, True)
    """
    return f"""<script>/* {int(nonce)} */
(() => {{
  let tries = 20;
  const fold = () => {{
    if (!document.querySelector('{testid("stSidebar")}')) {{
      if (tries-- > 0) setTimeout(fold, 100);
      return;
    }}
    const close = document.querySelector('{testid("stSidebarCollapseButton")} button');
    if (close) close.click();
  }};
  fold();
}})();
</script>"""


# --------------------------------------------------------------------------- Streamlit's frontend files

STATIC_JS = Path(streamlit.__file__).parent / "static" / "static" / "js"
"""Where the installed Streamlit keeps its frontend's JavaScript files."""
MAIN_BUNDLE = 'script[type="module"][src*="/static/js/index."]'
"""The ``<script>`` of Streamlit's main bundle in its page (``static/index.html``)."""


def plotly_chunk() -> str | None:
    """The file name of the frontend chunk that holds Plotly and Streamlit's chart element
    (about 4.7 MB, loaded by the browser when a session draws its first chart), or None when
    the installed Streamlit has not exactly one (then nothing is loaded early: ``preload``).

    >>> (plotly_chunk() or "PlotlyChart.js").startswith("PlotlyChart.")
    True
    """
    found = sorted(path.name for path in STATIC_JS.glob("PlotlyChart.*.js"))
    return found[0] if len(found) == 1 else None


# --------------------------------------------------------------------------- Streamlit's chart theme

FONT = '"Source Sans", sans-serif'
"""The charts' font family (Streamlit's ``bodyFont``)."""
TICK_FONT_PX = 12
"""Tick labels, legends, hover text and the layout's font (Streamlit's ``fontSizes.twoSm``)."""
TITLE_FONT_PX = 14
"""Axis and colour-bar titles (``fontSizes.sm``)."""
CHART_TITLE_PX = 16
"""Chart titles (``fontSizes.md``)."""
TEXT = "#808495"
"""Tick labels, axis titles, colour bars, hover text (light theme)."""
TITLE = "#2F2D2B"
"""Chart titles."""
LEGEND = "#262730"
LINE = "#e6eaf1"
"""Grid, zero and tick lines."""
PAPER = "#FFFFFF"
HOVER_BORDER = "#DCD8D4"

DARK = {
    TEXT: "#e6eaf1",
    TITLE: "#EDEBE8",
    LEGEND: "#fafafa",
    LINE: "#31333F",
    PAPER: "#171614",
    HOVER_BORDER: "#4A4742",
}
"""The dark theme's colour for each light one."""

COLORWAY = [
    "#0068c9",
    "#83c9ff",
    "#ff2b2b",
    "#ffabab",
    "#29b09d",
    "#7defa1",
    "#ff8700",
    "#ffd16a",
    "#6d3fc0",
    "#d5dae5",
]
SEQUENTIAL = [
    "#e4f5ff",
    "#c7ebff",
    "#a6dcff",
    "#83c9ff",
    "#60b4ff",
    "#3d9df3",
    "#1c83e1",
    "#0068c9",
    "#0054a3",
    "#004280",
]
DIVERGING = [
    "#7d353b",
    "#bd4043",
    "#ff4b4b",
    "#ff8c8c",
    "#ffc7c7",
    "#a6dcff",
    "#60b4ff",
    "#1c83e1",
    "#0054a3",
    "#004280",
]


def _scale(colours: list[str]) -> list[list]:
    return [[i / (len(colours) - 1), c] for i, c in enumerate(colours)]


SEQUENTIAL_SCALE = _scale(SEQUENTIAL)

_AXIS = {
    "color": LINE,  # the tick marks' colour where Plotly draws some (Streamlit's tickcolor turns them on everywhere)
    "zerolinecolor": LINE,
    "gridcolor": LINE,
    "tickfont": {"color": TEXT, "size": TICK_FONT_PX},
    "automargin": True,
}
AXES = {
    "x": {
        **_AXIS,
        "showgrid": False,
        "zeroline": False,
        "title": {"font": {"color": TEXT, "size": TITLE_FONT_PX}, "standoff": 20},
    },
    "y": {
        **_AXIS,
        "ticklabelposition": "outside",
        "title": {"font": {"color": TEXT, "size": TITLE_FONT_PX}, "standoff": 24},
    },
}
"""What Streamlit's theme gives every x and every y axis."""
COLORAXIS = {
    "colorscale": SEQUENTIAL_SCALE,
    "colorbar": {
        "thickness": 16,
        "xpad": 24,
        "ticklabelposition": "outside",
        "outlinecolor": "rgba(0,0,0,0)",
        "outlinewidth": 8,
        "len": 0.75,
        "y": 0.5745,
        "title": {"font": {"color": TEXT, "size": TITLE_FONT_PX}},
        "tickfont": {"color": TEXT, "size": TICK_FONT_PX},
    },
}
"""What Streamlit's theme gives every colour axis."""
LAYOUT = {
    "font": {"color": TEXT, "family": FONT, "size": TICK_FONT_PX, "weight": 400},
    "title": {
        "font": {"family": FONT, "size": CHART_TITLE_PX, "color": TITLE},
        "pad": {"l": 4},
        "xanchor": "left",
        "x": 0,
    },
    "legend": {
        "title": {"font": {"size": TICK_FONT_PX, "color": TEXT}, "side": "top"},
        "valign": "top",
        "bordercolor": "rgba(0,0,0,0)",
        "borderwidth": 0,
        "font": {"size": TICK_FONT_PX, "color": LEGEND},
    },
    "paper_bgcolor": PAPER,
    "plot_bgcolor": PAPER,
    "margin": {"pad": 8, "r": 0, "l": 0},
    "hoverlabel": {
        "bgcolor": PAPER,
        "bordercolor": HOVER_BORDER,
        "font": {"color": TEXT, "family": FONT, "size": TICK_FONT_PX},
    },
    "colorway": COLORWAY,
    "colorscale": {
        "sequential": SEQUENTIAL_SCALE,
        "sequentialminus": SEQUENTIAL_SCALE,
        "diverging": _scale(DIVERGING),
    },
}
"""What Streamlit's theme gives a figure's layout (its ``layout.template.layout`` in the light
theme; canary: a chart Streamlit draws with ``theme="streamlit"`` carries these values)."""
BOLD_TITLE = True
"""Streamlit's chart component wraps a chart's title in ``<b>`` (``chart_theme`` does it too)."""


class SentAsIs(go.Figure):
    """A figure's JSON that ``st.plotly_chart`` sends exactly as it is.

    ``st.plotly_chart`` asks a Plotly figure (``BaseFigure``) for ``to_dict()`` and sends that;
    a plain dict it would validate into a new ``go.Figure`` first (a few ms more, and Plotly's
    default template added back). So this stands in for a figure with the one method Streamlit
    calls; nothing else of ``go.Figure`` works on it (canary: what an ``st.plotly_chart`` of it
    sends equals the dict).

    >>> SentAsIs({"data": [], "layout": {"height": 200}}).to_dict()
    {'data': [], 'layout': {'height': 200}}
    """

    def __init__(self, spec: dict):  # no go.Figure.__init__: it would validate
        object.__setattr__(self, "_spec", spec)

    def to_dict(self) -> dict:
        return self._spec


# --------------------------------------------------------------------------- Plotly's JSON and drawing


PLOT = ".js-plotly-plot"
"""The element Plotly draws a chart in."""
PLOT_SVG = ".js-plotly-plot .main-svg"
"""Its SVG layers (the first carries the paper's background)."""
CELL_NUMBERS = ".heatmap-label"
"""The numbers Plotly prints in a heatmap's cells."""
HEATMAP_FILL = ".heatmaplayer image, .cbfill"
"""The picture of a heatmap's coloured cells (Plotly draws them as one image, under ``CELL_NUMBERS``),
and its colour bar's gradient."""
X_AXIS_LAYER = ".xaxislayer-above"
"""The layer of the x axes' tick labels (``text`` elements)."""
BAR_TEXT = ".bartext"
"""A value Plotly prints on a bar."""
BAR_VALUE = ".bars .point:nth-of-type({n}) " + BAR_TEXT
"""The value printed on bar ``n`` (from 1) of a bar trace: one ``g.point`` per bar, in order."""
CHART_TITLE = ".js-plotly-plot .gtitle"
"""A chart's title."""
TOOLBAR_GROUPS = ".js-plotly-plot .modebar-group"
"""The groups of the chart's toolbar (the first holds the camera)."""
SHAPE = '.shape-group[data-index="{index}"] path'
"""The path Plotly draws for ``layout.shapes[index]``."""
HOVER_LAYER = ".hoverlayer"
"""The hover box."""
SVG_BOX = ".js-plotly-plot .svg-container"
"""The box of a chart's SVG layers, sized in px by Plotly (its ``main-svg`` children are the layers)."""
MODEBAR = ".modebar-container"
"""The chart's toolbar."""
DRAW_PASS_MARK = "_pushmarginIds={}"
"""Source text of the small function Plotly's ``_doPlot`` calls once per drawing pass in the
bundle Streamlit serves (``tests/browser/test_drawn_once.py`` counts its calls)."""
PLOTLY_CLASSES = (
    "js-plotly-plot",
    "main-svg",
    "svg-container",
    "modebar-container",
    "heatmap-label",
    "heatmaplayer",
    "cbfill",
    "xaxislayer-above",
    "gtitle",
    "modebar-group",
    "shape-group",
    "hoverlayer",
)
"""The class names above (canary: each occurs in the Plotly bundle Streamlit serves)."""


def rgb(hex_colour: str) -> str:
    """How Chromium writes a colour that Plotly set in a ``style`` attribute.

    >>> rgb("#808495")
    'rgb(128, 132, 149)'
    """
    value = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(value[k : k + 2], 16) for k in (0, 2, 4)))


def styled(prop: str, hex_colour: str) -> str:
    """A selector of what Plotly drew with ``prop`` (fill, stroke, background) set to
    ``hex_colour`` in its inline style, as Chromium writes that style (browser canary: a drawn
    chart's tick labels match it).

    >>> styled("fill", "#808495")
    '[style*="fill: rgb(128, 132, 149)"]'
    """
    return f'[style*="{prop}: {rgb(hex_colour)}"]'


# --------------------------------------------------------------------------- Source Sans in Chromium

TEXT_EM = {
    **dict.fromkeys(" ", 0.2),
    **dict.fromkeys("|ij',.:;l·", 0.255),
    **dict.fromkeys("I!f", 0.292),
    **dict.fromkeys("()[]{}-", 0.311),
    **dict.fromkeys("trs/\\", 0.419),
    **dict.fromkeys('*?z"xc', 0.456),
    **dict.fromkeys("vyYJLFke0123456789#$+<=>^~_−", 0.5),
    **dict.fromkeys("agXVESTZ`ohunbdpqA", 0.555),
    **dict.fromkeys("PRCKB&DGα√", 0.617),
    **dict.fromkeys("UNHOQ", 0.664),
    **dict.fromkeys("wM", 0.786),
    **dict.fromkeys("W%m@…", 0.948),
}
"""Advance widths in ems of Source Sans (Streamlit's chart font) in Chromium, each rounded up
to its group's widest (browser canary: measured again, each lies within its group)."""
OTHER_EM = 0.7
"""Any other letter (Greek, accented, Cyrillic…): a little wider than most."""
WIDE_EM = 1.0
"""A CJK letter (East Asian wide or full width), drawn in the CJK fallback font."""
LINE_EM = 1.3
"""The height of a line of text in ems, as Plotly spaces ``<br>`` lines."""

# --------------------------------------------------------------------------- Plotly's layout, as drawn

PAD_PX = 2
"""Plotly pads what pushes a margin by the smallest margin, up to 12 px; the rooms below were
measured with 10 px margins, and margins that fit are all 12 px or more."""
LEFT_PX = {(False, False): 21, (False, True): 55, (True, False): 28, (True, True): 61}
"""Room (px) left of a plot beside its widest y label, by (a heatmap's axis, with a title).
Plotly gives a heatmap's axes outside ticks; a title (even "") takes a line and its standoff.
These and the rooms below are what Plotly took in Chromium with Streamlit's theme (10 px
margins, so its pad was 10 px), measured on every chart of the app (canary:
``tests/browser/test_drawn_once.py`` fails where one is short)."""
BELOW_FLAT_PX = {(False, False): 21, (False, True): 51, (True, False): 58, (True, True): 58}
"""Room (px) below a plot beside the height of its flat x labels, keyed as ``LEFT_PX``."""
BELOW_TILTED_PX = {False: 51, True: 58.5}
"""Room (px) below a plot beside ``sin 45° × (width + height)`` of the widest label tilted by
45°, for a bar chart and for a heatmap."""
COLORBAR_LABEL_PX = 11
"""Between a colour bar and its labels (its ticks and their padding)."""
COLORBAR_GROW_PX = 20
"""What a colour bar's room grows by per step of font growth (measured in presentation mode,
18 px: Streamlit's padding grows too)."""
COLORBAR_DEFAULTS = {"thickness": 30, "xpad": 10, "x": 1.02}
"""Plotly's own colour bar: its thickness and padding (px) and where it sits (plot widths)."""
COLORAXIS_XPAD = 28
"""The padding a shared colour axis' bar takes with Streamlit's theme (its ``xpad`` and more)."""


# ===========================================================================================
# Streamlit's outside lookups (issue 44). A section of its own, apart from the chart pipeline's
# values above; its canaries are in tests/test_internals_network.py.
# ===========================================================================================

STREAMLIT_OUTSIDE_CALLS = (
    ("net_util.py", "requests.get("),  # get_external_ip: asks checkip.amazonaws.com (HTTP, then HTTPS)
    ("net_util.py", ".connect(("),  # get_internal_ip: a UDP connect toward 8.8.8.8 (no packet, but a connect)
    ("web/bootstrap.py", "net_util.get_internal_ip"),  # the banner's Network URL (not printed: browser.serverAddress)
    ("web/bootstrap.py", "net_util.get_external_ip"),  # the banner's External URL (not printed: browser.serverAddress)
    ("web/server/server_util.py", "net_util.get_internal_ip"),  # the origin check of a foreign Origin's websocket
    ("web/server/server_util.py", "net_util.get_external_ip"),  # the same check, after the internal address
    ("runtime/credentials.py", "requests.get("),  # the e-mail prompt of a first interactive start (never headless)
    ("runtime/credentials.py", "requests.post("),  # the same prompt's answer
    ("web/cli.py", "requests.get("),  # `streamlit run <URL>` (the app runs a file)
    ("config_util.py", "urlopen("),  # a theme file given as a URL (the app's theme is in config.toml)
)
"""Every place in Streamlit's Python code that can reach another machine, as (file under the
streamlit package, what the code says); the comment says when it runs. ``tests/test_internals_network.py``
finds exactly these in the installed Streamlit. The two lookups of this machine's address run
whenever a websocket comes from a foreign ``Origin`` (``is_url_from_allowed_origins`` tries the
internal, then the external address before it refuses), which any web page a learner visits
can make happen; ``keep_streamlit_local`` routes them around the network. The others never run
in this app's settings (headless, a file, no theme URL)."""


def _no_external_address() -> None:
    """Streamlit's ``get_external_ip`` without asking anyone: unknown (an origin at the public
    address is refused; the same-origin websocket of a learner's page never needs it)."""
    return None


def _internal_address() -> str:
    """Streamlit's ``get_internal_ip`` read from the interfaces (``netaddr``), not by a connect."""
    from attention_ui.netaddr import primary_address

    return primary_address() or "127.0.0.1"  # Streamlit's own answer when it finds none


def keep_streamlit_local() -> None:
    """Route Streamlit's two lookups of this machine's addresses (``streamlit.net_util``) around
    the network: the external address is unknown, the internal one is read from the interfaces.
    Every caller looks them up on the module at call time (the canary checks), so this takes
    effect at once, for the origin check of every later websocket. Safe to call again.

    ``shell.run_app`` calls it on every script run (a server's first run patches it);
    ``attention_ui.launch`` calls it before the server starts, so that a foreign knock before any
    page has run cannot look out either.
    """
    from streamlit import net_util

    net_util.get_external_ip = _no_external_address
    net_util.get_internal_ip = _internal_address


# --------------------------------------------------------------------------- Streamlit's fragments, after a restart

_RESCUES_FRAGMENT_RERUNS = "_attention_lab_rescues_fragment_reruns"
"""The mark ``rescue_lost_fragment_reruns`` leaves on the method it installs (so it installs once)."""


def rescue_lost_fragment_reruns() -> None:
    """Make a click inside a part of the page that reruns alone (``fragments.page_part``, a
    Streamlit fragment) count even when the session does not hold that fragment: run the whole
    app with the click's widget states instead of dropping it. Safe to call again.

    Why: after a server restart (an update, the Cloud waking up) the open page reconnects to a
    new session, whose fragment storage is empty until a whole run has drawn the page. The
    page's first click inside a part asks for a rerun of that fragment, and Streamlit 1.67's
    ``AppSession.request_rerun`` drops a request naming a fragment the session does not hold
    ("The fragment with id … does not exist anymore"): Next did nothing. The same request
    without its ``fragment_id`` is an ordinary click of the whole app: its ``widget_states``
    are every widget's on the page (the clicked button's trigger included), so the run takes
    the click as a page without fragments would (``step_by_step.clicked_without_callback``).
    A timed auto-rerun (``run_every``) of a fragment gone is still dropped, as Streamlit means.

    Importing ``attention_ui`` calls it (its ``__init__``), once per process: so does
    ``python -m attention_ui.launch`` before the server starts, and every page's first line.
    Canary: ``tests/test_internals_fragments.py`` (the method, its drop, ``has_fragment``).
    """
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession

    original = AppSession.request_rerun
    if getattr(original, _RESCUES_FRAGMENT_RERUNS, False):
        return

    @functools.wraps(original)
    def request_rerun(self: AppSession, client_state: ClientState | None) -> None:
        if client_state and lost_fragment(self, client_state):
            _log_rescue(client_state.fragment_id)
            whole = ClientState()
            whole.CopyFrom(client_state)
            whole.ClearField("fragment_id")  # the whole app, with the same widget states
            client_state = whole
        original(self, client_state)

    setattr(request_rerun, _RESCUES_FRAGMENT_RERUNS, True)
    AppSession.request_rerun = request_rerun  # type: ignore[method-assign]


RESCUE_LOG = "fragment_rerun_rescued %s"
"""The operator's log line for a rescued click: a rerun of a fragment this session does not hold,
run as a whole-app run (terse, like the other log lines of the app)."""


def _log_rescue(fragment_id: str) -> None:
    import logging

    logging.getLogger("streamlit.attention_lab").info(RESCUE_LOG, fragment_id)


def lost_fragment(session, client_state) -> bool:
    """Whether ``client_state`` asks for a learner's rerun of a fragment ``session`` does not hold
    (the request Streamlit 1.67 would drop)."""
    fragment_id = client_state.fragment_id
    return bool(fragment_id) and not client_state.is_auto_rerun and not session.has_fragment(fragment_id)


RECONNECT_ANCHOR_S = 86_400
"""The interval of ``ask_for_a_run_on_reconnect``'s empty fragment: a day (a timer that, in a
lesson, never fires; when it does, it reruns a fragment that draws nothing)."""


@streamlit.fragment(run_every=RECONNECT_ANCHOR_S)
def _reconnect_anchor() -> None:
    """Draws nothing: its ``run_every`` is what counts (``ask_for_a_run_on_reconnect``)."""


def ask_for_a_run_on_reconnect() -> None:
    """Make the browser ask for a run of the whole app as soon as it reconnects, before the
    learner's first click: an empty fragment with a timer (``run_every``). Draws nothing.

    Why: Streamlit 1.67's frontend asks for a run on reconnecting only if a run was under way,
    the last run was a fragment's, or a fragment has a timer (``handleConnectionStateChanged``:
    ``autoRerunIntervals.size>0``). Otherwise, after a server restart, the first message the new
    session gets is the learner's click; a click inside a part of the page (a fragment) then
    reaches a process where no script has run yet, so ``rescue_lost_fragment_reruns`` is not
    installed and Streamlit drops it. With the timer, the reconnect runs the app (which installs
    the rescue and draws every part) first; a click during that run is rescued.
    ``route.run_app`` calls it on every run. Canary: ``tests/test_internals_fragments.py``.
    """
    _reconnect_anchor()
