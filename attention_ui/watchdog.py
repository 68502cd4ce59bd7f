"""A page that stays disconnected from a server that answers: reload it (issue 44, item 4).

Streamlit's page reconnects by itself when its connection drops: it pings ``/_stcore/health``
with a back-off of at most 4 s and opens a new websocket once the server answers. But its
websocket code (Streamlit 1.67's frontend bundle) ends in ``DISCONNECTED_FOREVER`` on any error
it calls fatal: a message that is not binary, a cached message it no longer holds ("Cached
ForwardMsg MISS"), a failure while handling a message. In that state it never tries again (the
header's badge says "Error"), and only a reload brings the page back.

In a class behind ``deploy/serve.sh``, one Chromium page of four whose process was killed seemed
never to open a new websocket. That was most likely the fault bench's own reading: its clock
waited for the end of a run cut off on the dead websocket, and a page's new websockets were not
counted after such a wait (both fixed, ``bench/pageclock.py``); pages recorded around a kill since
then reconnected within a second, without an error. The state above remains possible, and the
fix from our side is public: ``WATCHDOG_SCRIPT``
looks every ``CHECK_S`` seconds whether Streamlit's connection badge (``CONNECTION_STATUS``,
in the page only while it is not connected) is up; while it is, it asks the server's health
endpoint itself (through the same proxy, with the same route cookie); when the server has
answered for ``STUCK_S`` seconds and the page is still not connected, a live page would have
reconnected long before (4 s of back-off and a ping), so it reloads the page. The address bar
holds the view (sentence, token, step, settings), so the reload brings the same view back on a
fresh session. A click that was waiting for its run when the page went down is remembered over
the reload (``sessionStorage``), and the page asks for it again (``busy.LOST_ATTR``).

>>> "location.reload()" in WATCHDOG_SCRIPT and str(STUCK_S * 1000) in WATCHDOG_SCRIPT
True
"""

from __future__ import annotations

from .busy import LOST_ATTR
from .internals import CONNECTION_STATUS

CHECK_S = 2
"""Seconds between two looks at the connection badge."""
STUCK_S = 12
"""Seconds the server must answer its health check, the page still showing the badge, before
the page is reloaded: three times Streamlit's longest back-off (4 s), so a page that reconnects
by itself is never reloaded."""
LOST_KEY = "attentionLabLostBeforeReload"
"""The ``sessionStorage`` key that carries a click in flight over the reload (its address)."""

WATCHDOG_SCRIPT = f"""<script>
(() => {{
  if (window.attentionLabWatchdog) return;
  window.attentionLabWatchdog = true;
  const root = document.documentElement, here = () => location.pathname + location.search;
  try {{  // a click in flight when this page was reloaded by the watchdog: ask for it again
    const lost = sessionStorage.getItem("{LOST_KEY}");
    sessionStorage.removeItem("{LOST_KEY}");
    if (lost && lost === here()) root.setAttribute("{LOST_ATTR}", "");
  }} catch (e) {{}}
  let answering = null;  // since when the server answers while the page is not connected
  const look = async () => {{
    if (document.querySelector('{CONNECTION_STATUS}') === null) {{ answering = null; return; }}
    let ok = false;
    try {{
      const r = await fetch(new URL("_stcore/health", location.href), {{cache: "no-store", credentials: "same-origin",
                                                                        signal: AbortSignal.timeout(4000)}});
      ok = r.ok;
    }} catch (e) {{}}
    if (!ok) {{ answering = null; return; }}
    if (answering === null) {{ answering = Date.now(); return; }}
    if (Date.now() - answering < {STUCK_S * 1000}) return;
    try {{
      const waiting = window.attentionLabBusy && window.attentionLabBusy.waitingAt();
      if (waiting) sessionStorage.setItem("{LOST_KEY}", waiting);
    }} catch (e) {{}}
    location.reload();
  }};
  setInterval(look, {CHECK_S * 1000});
}})();
</script>"""
"""Reloads a page that stays disconnected from a server that answers. A constant: no learner
text in it."""
