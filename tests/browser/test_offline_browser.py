"""Nothing leaves the school, browsers included: every page, opened in Chromium, asks for nothing
at another address than the app's own.

What used to leave: a ``:material/…:`` tab icon (``st.set_page_config(page_icon=…)``, or an
``st.Page`` icon, which becomes the tab's icon when a page opens) makes Streamlit's frontend point
the favicon at Google's font server: 2 requests per page view, with the school server's address as
Referer (58 over the pages walked, measured before the fix). The tab's icon is now a file the app
serves itself (``attention_ui.release.FAVICON``), and the hidden st.navigation has no icons.

The walk over every page is the one of ``test_drawn_once.py`` (every page and a few more views at
1400 px, in English and in Chinese, each a fresh page load on the real model): its two tabs carry
an ``Outside`` recorder, and it asserts 0 outside requests and the app's own tab icon on every
page. (This module walked the pages once more, each in one language only, with Playwright's
routing on, which turns Chromium's cache off: 16 more page loads per run.)

The recorder can fail: ``test_a_request_outside_is_recorded`` has a page ask for an outside
address and sees it recorded.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from harness import wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

OUTSIDE_IMAGE_JS = """(url) => { const i = new Image(); i.src = url; document.body.append(i); }"""
FAVICON_JS = """() => document.querySelector("link[rel='shortcut icon']")?.href || ''"""
"""The tab's icon: Streamlit points it at ``page_icon``'s address."""


def _origin(url: str) -> str:
    parts = urlsplit(url.replace("ws://", "http://", 1).replace("wss://", "https://", 1))
    return f"{parts.scheme}://{parts.netloc}"


class Outside:
    """Records every request of a page's browser context, and every websocket the page opens,
    that goes anywhere but ``server``'s origin (data: and blob: URLs never reach the network).

    It listens to Playwright's request events and routes nothing: routing would turn Chromium's
    cache off, and every page load of a walk would fetch and compile Streamlit's scripts anew.
    """

    def __init__(self, page, server: str):
        self.page, self.own = page, _origin(server)
        self.seen: list[str] = []  # the addresses asked for outside the server, in order
        page.context.on("request", self._request)
        page.on("websocket", self._websocket)

    def _request(self, request):
        url = request.url
        if not url.startswith(("data:", "blob:")) and _origin(url) != self.own:
            self.seen.append(url)

    def _websocket(self, ws):
        if _origin(ws.url) != self.own:
            self.seen.append(ws.url)

    def remove(self):
        self.page.context.remove_listener("request", self._request)
        self.page.remove_listener("websocket", self._websocket)


def test_a_request_outside_is_recorded(tab, server):
    """The recorder is not blind: a page that asks for an outside image is seen asking (the
    request is blocked here, so that the test reaches no network)."""
    page = tab()
    outside = Outside(page, server)
    page.context.route("https://example.org/**", lambda route: route.abort("blockedbyclient"))
    try:
        page.goto(server + "?lang=en")
        wait_for_app(page)
        assert outside.seen == []
        page.evaluate(OUTSIDE_IMAGE_JS, "https://example.org/pixel.png")
        page.wait_for_function(
            "(url) => [...document.images].some((i) => i.src === url && i.complete)",
            arg="https://example.org/pixel.png",
        )
        assert outside.seen == ["https://example.org/pixel.png"]
    finally:
        page.context.unroute("https://example.org/**")
        outside.remove()
