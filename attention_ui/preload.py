"""Load the charts' code before the first chart needs it (issue 31, no waits).

A new session's browser loads Streamlit's chart element, with Plotly in it (about 4.7 MB of
JavaScript, ``internals.plotly_chunk``), only when the session draws its first chart. On Step by
step that is the first Next (step 1 has no chart): measured with ``bench/bench_fresh.py``, the
first Next took 1.33–1.41 s against 0.61–0.99 s when the chunk was already imported. So the
sidebar asks the browser to import it while the learner reads the first screen: the same module
the app would import later (resolved against the main bundle's own address, so the browser keeps
one copy), a moment after the page is drawn, when the browser is idle. Nothing happens when the
chunk cannot be found (an upgrade renamed it: ``tests/test_internals.py`` says so).

>>> "import(" in PRELOAD_SCRIPT or PRELOAD_SCRIPT == ""
True
"""

from __future__ import annotations

import json

from .internals import MAIN_BUNDLE, plotly_chunk

DELAY_MS = 300
"""How long after the page's first drawing the import is asked for (then when the browser idles)."""


def preload_script(chunk: str | None) -> str:
    """The ``<script>`` that imports ``chunk`` (a file beside Streamlit's main bundle) once per
    browser page; empty for no chunk. Built from the installed Streamlit's file name only.

    >>> "PlotlyChart.x.js" in preload_script("PlotlyChart.x.js"), preload_script(None)
    (True, '')
    """
    if not chunk:
        return ""
    return f"""<script>
(() => {{
  if (window.attentionLabPreload) return;
  window.attentionLabPreload = true;
  const main = document.querySelector({json.dumps(MAIN_BUNDLE)});
  if (!main) return;
  const url = new URL({json.dumps(chunk)}, main.src).href;
  const load = () => import(url).catch(() => {{}});
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  setTimeout(() => idle(load, {{ timeout: 3000 }}), {DELAY_MS});
}})();
</script>"""


PRELOAD_SCRIPT = preload_script(plotly_chunk())
"""The script the sidebar sends (``sidebar.CLIENT_SCRIPT``). A constant: no learner text in it."""
