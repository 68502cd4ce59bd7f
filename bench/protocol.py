"""A learner's browser without the browser: Streamlit's websocket protocol, spoken as Chromium speaks it.

Used by ``bench_server.py``, ``bench_load.py`` (its protocol peers) and ``bench_proxy.py``.
``python -m bench.bench_server --check-protocol`` drives one Chromium page and one ``Client``
through the same actions and compares, message by message, what each sent.

What Chromium sends (Streamlit 1.67, read from its websocket frames), and so what ``Client`` sends:

* Opening a page: a GET of the page (cookies: a proxy's route cookie, Streamlit's XSRF cookie),
  then the websocket ``/_stcore/stream`` (subprotocols ``streamlit``, the XSRF token, and on a
  reconnect the old session id), then one BackMsg ``rerun_script`` with the URL's query string,
  the page's name and no widget state.
* Every later action: ``rerun_script`` with the URL's query string as it is now (the server
  changes it with ``page_info_changed``; a widget bound to the URL that the learner changes is
  written into it first), the current page's script hash, the hashes of the messages it keeps
  cached, and the state of *every* widget it shows (not only the one that changed): its
  value as the server last set it (``set_value``) or its default, or what the learner chose;
  a button's ``trigger_value`` only in the message of its click.
* A page link: the link's page hash and query string, after the parameters of the current URL
  that belong to the sidebar's URL-bound widgets (all of them: a parameter the link carries too
  is then in the URL twice, as in Chromium); the widgets of the page being left are no longer sent.
* A widget inside a popover that was never opened (a chart's Download menu) has no state; a
  segmented control whose options changed (a new sentence's tokens) takes its new default.
* After a run that ended normally, widgets the run did not draw are forgotten.
* A dropped connection: it asks ``/_stcore/health`` until it answers, opens a new websocket
  with the old session id, and sends nothing until the learner acts again.

Answers are read up to the ``script_finished`` that ends the run (a run that ends early because
the script asked for a rerun is followed to its successor). Cached messages (``ref_hash``) are
resolved from the client's own cache, as the browser does.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import http.cookiejar
import json
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.typing import Origin, Subprotocol

from attention_ui.url_state import SENTENCE_POSITIONS  # the sentence box's script drops these with the old sentence

FINISHED_SUCCESSFULLY, FINISHED_WITH_COMPILE_ERROR, FINISHED_EARLY_FOR_RERUN, FINISHED_FRAGMENT = 0, 1, 2, 3
XSRF_COOKIE = "_streamlit_xsrf"
CONTEXT = {"timezone": "UTC", "timezone_offset": 0, "locale": "en-US", "is_embedded": False, "color_scheme": "light"}


class Disconnected(ConnectionError):
    """The websocket closed while an answer was awaited."""


class NoAnswer(TimeoutError):
    """The server did not finish the run within the client's timeout."""


# --------------------------------------------------------------------------- Plotly figures


def plotly_value(value):
    """A Plotly JSON value with its typed arrays ({"dtype", "bdata", "shape"}) decoded to lists."""
    import numpy as np

    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if shape:
            dims = [int(x) for x in str(shape).split(",")] if isinstance(shape, str) else list(shape)
            flat = flat.reshape(dims)
        return flat.tolist()
    if isinstance(value, list):
        return [plotly_value(v) for v in value]
    return value


@dataclass
class Chart:
    """One ``st.plotly_chart`` of an answer: its traces (type, name, x, y, z) and axes' tick texts."""

    key: str
    spec: str  # the figure's JSON, parsed on first use
    _parsed: dict | None = None

    def _figure(self) -> dict:
        if self._parsed is None:
            self._parsed = json.loads(self.spec)
        return self._parsed

    @property
    def traces(self) -> list[dict]:
        return [
            {k: plotly_value(t.get(k)) for k in ("type", "name", "x", "y", "z", "mode")}
            for t in self._figure().get("data", [])
        ]

    def ticktext(self, axis: str = "yaxis") -> list[str] | None:
        ax = self._figure().get("layout", {}).get(axis) or {}
        return ax.get("ticktext")


class _MatrixParser(HTMLParser):
    """Reads the first ``<table>`` of a ``tables.matrix_html`` body: its caption's title, the row
    labels as a learner reads them, and each cell's exact ``data-value``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.title, self.rows, self.z = "", [], []
        self._into, self._text, self._tables = None, [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._tables += 1
        if self._tables != 1:
            return
        if tag == "span" and attrs.get("class") == "cm-title":
            self._into, self._text = "title", []
        elif tag == "th" and attrs.get("scope") == "row":
            self._into, self._text = "row", []
            self.z.append([])
        elif tag == "td" and "data-value" in attrs:
            self.z[-1].append(float(attrs["data-value"]))

    def handle_data(self, data):
        if self._into is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if self._into == "title" and tag == "span":
            self.title, self._into = "".join(self._text), None
        elif self._into == "row" and tag == "th":
            self.rows.append("".join(self._text))
            self._into = None


@dataclass
class Table:
    """A matrix the page draws as an HTML table (``tables.matrix_html``), shown on screen (not a
    print twin): its title, row labels as a learner reads them, and every cell's exact value.

    >>> table = Table.parse('<div class="cell-matrix-box"><div><table><caption><span class="cm-title">w</span>'
    ...                     '</caption><tbody><tr><th scope="row">1: &lt;b&gt;</th><td data-value="0.25">0.25</td>'
    ...                     "</tr></tbody></table></div></div>")
    >>> table.title, table.rows, table.z
    ('w', ['1: <b>'], [[0.25]])
    """

    title: str
    rows: list[str]
    z: list[list[float]]

    PREFIX = '<div class="cell-matrix-box">'
    """How the body of a matrix table shown on screen starts (a print twin's class says ``print-only``)."""

    @classmethod
    def parse(cls, body: str) -> Table:
        parser = _MatrixParser()
        parser.feed(body)
        return cls(parser.title, parser.rows, parser.z)


# --------------------------------------------------------------------------- widgets


@dataclass
class Widget:
    """A widget as the browser keeps it: its id, the value it would send, its URL binding."""

    id: str
    kind: str  # the element's type: button_group, text_input, checkbox, ...
    field: str | None  # the WidgetState field it is sent in; None for buttons (triggers only)
    value: object = None
    default: object = None
    script_hash: str = ""  # the script that drew it (app.py's sidebar or the page)
    query_key: str = ""  # bound to ?query_key=
    options: list[str] = dataclasses.field(default_factory=list)  # (``field`` above is a name of this class)

    @property
    def key(self) -> str:
        """The widget's ``key=`` (ids look like ``$$ID-<hash>-<key>``)."""
        return self.id.split("-", 2)[2] if self.id.startswith("$$ID-") else self.id


def _widget_of(kind: str, proto) -> Widget | None:
    """The browser's view of a widget element (or a block with an id), with its initial value."""
    wid = getattr(proto, "id", "")
    if not wid:
        return None
    options = [o.content if hasattr(o, "content") else str(o) for o in getattr(proto, "options", [])]

    def has(name: str) -> bool:
        return bool(proto.HasField(name)) if hasattr(proto, "HasField") else False

    set_value = bool(getattr(proto, "set_value", False))
    w = Widget(id=wid, kind=kind, field=None, options=options, query_key=getattr(proto, "query_param_key", ""))
    if kind == "button_group" or kind == "multiselect":
        w.field = "string_array_value"
        w.default = [options[i] for i in proto.default if i < len(options)]
        w.value = list(proto.raw_values) if set_value else list(w.default)
    elif kind in ("text_input", "text_area", "color_picker"):
        w.field = "string_value"
        w.default = proto.default if (kind == "color_picker" or has("default")) else None
        w.value = proto.value if set_value else w.default
        if w.value is None:
            w.field = None
    elif kind == "checkbox":
        w.field = "bool_value"
        w.default = bool(proto.default)
        w.value = bool(proto.value) if set_value else w.default
    elif kind == "number_input":
        w.field = "int_value" if proto.data_type == proto.INT else "double_value"
        w.default = proto.default if has("default") else None
        w.value = proto.value if set_value and has("value") else w.default
        if w.value is None:
            w.field = None
        elif w.field == "int_value":
            w.value, w.default = int(w.value), None if w.default is None else int(w.default)
    elif kind == "slider":
        if options:  # select_slider: its default is option indices, sent as doubles (1.0)
            w.field = "string_array_value"
            w.default = [options[int(i)] for i in proto.default if 0 <= int(i) < len(options)]
            w.value = list(proto.raw_value) if set_value else list(w.default)
        else:
            w.field = "double_array_value"
            w.default = list(proto.default)
            w.value = list(proto.value) if set_value else list(w.default)
    elif kind in ("selectbox", "radio"):
        w.field = "string_value"
        w.default = options[proto.default] if has("default") and proto.default < len(options) else None
        w.value = proto.raw_value if set_value and has("raw_value") else w.default
        if w.value is None:
            w.field = None
    elif kind == "expandable":  # Chromium sends no state for an expander the learner never opened or closed
        w.field, w.default = "bool_value", bool(proto.expanded)
        w.value = None
    elif kind == "popover":
        w.field, w.default, w.value = "bool_value", False, bool(getattr(proto, "open", False))
    elif kind == "tab_container":
        w.field, w.default = "string_value", proto.default_tab_label or None
        w.value = w.default
        if w.value is None:
            w.field = None
    elif kind in ("button", "download_button", "page_link"):
        w.field = None
    else:
        return None
    return w


def _url_text(w: Widget) -> str | None:
    """A bound widget's value as the browser writes it into the URL (None: left out)."""
    v = w.value
    if v is None or v == w.default:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(str(x) for x in v) if v else None
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# --------------------------------------------------------------------------- one answer


@dataclass
class Answer:
    """What the server sent for one action, up to the end of its run."""

    seconds: float = 0.0
    runs: int = 0  # script runs (a run that ended early for a rerun counts too)
    status: int | None = None  # the last script_finished status
    messages: int = 0
    bytes: int = 0
    widgets: dict[str, Widget] = field(default_factory=dict)  # by key, as drawn in this run
    charts: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)  # matrices drawn as HTML tables, on screen
    html: list[str] = field(default_factory=list)  # the body of every st.html element, in order
    progress: str = ""
    headings: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    query: str = ""  # the URL's query string after the run
    page: str = ""  # the page's url path after the run

    def options(self, key: str) -> list[str]:
        w = self.widgets.get(key)
        return list(w.options) if w else []

    def chosen(self, key: str):
        w = self.widgets.get(key)
        return None if w is None else w.value

    def chart(self, key: str) -> Chart | None:
        return next((c for c in self.charts if c.key == key), None)


# --------------------------------------------------------------------------- the client


class Client:
    """One learner's browser tab, as Streamlit's frontend behaves, over the websocket.

    ``base`` is the app's URL with a trailing slash (a single process, or a proxy, with or
    without a base path). Every wait is bounded by ``timeout`` seconds (``NoAnswer``); a
    connection lost while an answer is awaited raises ``Disconnected`` at once. ``reconnect``:
    after a drop, reconnect in the background as the browser does (else the next action fails).
    """

    def __init__(self, base: str, *, timeout: float = 60.0, reconnect: bool = False):
        self.base = base if base.endswith("/") else base + "/"
        parts = urllib.parse.urlsplit(self.base)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.ws_url = ("wss" if parts.scheme == "https" else "ws") + f"://{parts.netloc}{parts.path}_stcore/stream"
        self.timeout = timeout
        self.auto_reconnect = reconnect
        self.jar = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.ws: ClientConnection | None = None
        self.session_id = ""
        self.widgets: dict[str, Widget] = {}  # by id
        self.query = ""
        self.path = ""
        self.page_hash = ""
        self.main_hash = ""
        self.links: dict[str, tuple[str, str]] = {}  # page url path -> (page script hash, link query string)
        self.closed: set[tuple[int, ...]] = set()  # delta paths of popovers that are closed (this run)
        self.cache: dict[str, list] = {}  # hash -> [ForwardMsg, run count when last used]
        self.max_age = 2  # the server's config.maxCachedMessageAge
        self.run_count = 0
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.connected = asyncio.Event()
        self.closing = False
        self.disconnects = 0
        self.reconnects: list[float] = []  # seconds from each drop to the new websocket
        self.sent: list[BackMsg] = []  # every BackMsg, for --check-protocol
        self.keep_sent = False
        self._reader_task: asyncio.Task | None = None
        self._reconnect_task: asyncio.Task | None = None

    # ----------------------------------------------------------------- connection

    @property
    def cookies(self) -> dict[str, str]:
        return {c.name: c.value or "" for c in self.jar}

    def _get(self, url: str, timeout: float) -> int:
        with self._opener.open(url, timeout=timeout) as r:
            r.read()
            return r.status

    async def _connect(self) -> None:
        cookies = self.cookies
        protocols = ["streamlit", cookies.get(XSRF_COOKIE, "")]
        if self.session_id:
            protocols = [protocols[0], protocols[1] or "none", self.session_id]
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
        self.ws = await connect(
            self.ws_url,
            subprotocols=[Subprotocol(p) for p in protocols if p],
            origin=Origin(self.origin),
            additional_headers=headers,
            max_size=None,
            open_timeout=self.timeout,
            ping_interval=None,  # the browser sends no websocket pings
            close_timeout=2,
        )
        self.connected.set()
        self._reader_task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        ws = self.ws
        assert ws is not None, "connected"
        try:
            async for raw in ws:
                self.inbox.put_nowait(raw)
        except ConnectionClosed:
            pass
        self.connected.clear()
        self.inbox.put_nowait(None)  # wakes a waiting action
        if not self.closing:
            self.disconnects += 1
            if self.auto_reconnect and self._reconnect_task is None:
                self._reconnect_task = asyncio.create_task(self._reconnect())

    async def _reconnect(self) -> None:
        """As the browser: ask /_stcore/health until it answers, then a new websocket with the old session id."""
        t0 = time.perf_counter()
        delay = 0.2
        try:
            while not self.closing:
                try:
                    if await asyncio.to_thread(self._get, self.base + "_stcore/health", 2.0) == 200:
                        await self._connect()
                        self.reconnects.append(time.perf_counter() - t0)
                        return
                except (OSError, InvalidHandshake, InvalidStatus, TimeoutError):
                    pass
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
        finally:
            self._reconnect_task = None

    async def wait_connected(self, timeout: float | None = None) -> None:
        if not self.connected.is_set() and not self.auto_reconnect:
            raise Disconnected("the connection is closed (and this client does not reconnect)")
        try:
            await asyncio.wait_for(self.connected.wait(), timeout or self.timeout)
        except TimeoutError as exc:
            raise Disconnected(f"no connection within {timeout or self.timeout:.0f} s") from exc

    async def close(self) -> None:
        self.closing = True
        if self._reconnect_task is not None:
            self._reconnect_task.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader_task, 3)

    # ----------------------------------------------------------------- the browser's actions

    async def open(self, path: str, query: str = "") -> Answer:
        """Type the page's address: ``open("step_by_step", "lang=en")``."""
        url = self.base + path + ("?" + query if query else "")
        status = await asyncio.to_thread(self._get, url, self.timeout)
        if status != 200:
            raise ConnectionError(f"GET {url}: HTTP {status}")
        self.path, self.query = path, query
        await self._connect()
        msg = self._rerun(page_name=path)
        return await self._send(msg)

    async def type_text(self, key: str, text: str) -> Answer:
        """Type ``text`` into text input ``key`` and press Enter."""
        return await self._change(key, text)

    async def choose(self, key: str, option: str) -> Answer:
        """Click option ``option`` (its label as the server sent it) of a segmented control,
        radio or selectbox ``key``."""
        w = self._by_key(key)
        if option not in w.options:
            raise ValueError(f"{key}: no option {option!r} among {w.options}")
        return await self._change(key, [option] if w.field == "string_array_value" else option)

    async def toggle(self, key: str, on: bool) -> Answer:
        return await self._change(key, bool(on))

    async def enter_number(self, key: str, number: int) -> Answer:
        """Type a whole number into number input ``key`` and press Enter (e.g. the sidebar's seed)."""
        return await self._change(key, int(number))

    async def look(self) -> Answer:
        """Run the page again with every widget as it is, as the browser does once it has
        reconnected: the answer is the page as the server now has it (an action cut off by the
        drop may have arrived, or not)."""
        return await self._send(self._rerun())

    async def click(self, key: str) -> Answer:
        """Click button ``key``."""
        w = self._by_key(key)
        return await self._send(self._rerun(trigger=w.id))

    async def switch_page(self, path: str) -> Answer:
        """Click the sidebar's link to page ``path`` (e.g. "matrices")."""
        if path not in self.links:
            raise KeyError(f"no page link to {path!r} on this page (links: {sorted(self.links)})")
        page_hash, link_query = self.links[path]
        # The widgets of the page being left are dropped; the URL is the link's, after the
        # sidebar's URL-bound widgets that differ from their default.
        self.widgets = {i: w for i, w in self.widgets.items() if w.script_hash == self.main_hash}
        bound = {w.query_key for w in self.widgets.values() if w.query_key}
        params = [(k, v) for k, v in urllib.parse.parse_qsl(self.query, keep_blank_values=True) if k in bound]
        params += urllib.parse.parse_qsl(link_query, keep_blank_values=True)
        self.query = urllib.parse.urlencode(params)
        self.path, self.page_hash = path, page_hash
        return await self._send(self._rerun())

    # ----------------------------------------------------------------- messages

    def _by_key(self, key: str) -> Widget:
        found = [w for w in self.widgets.values() if w.key == key]
        if not found:
            raise KeyError(
                f"no widget with key {key!r} on this page (keys: {sorted(w.key for w in self.widgets.values())})"
            )
        return found[-1]

    async def _change(self, key: str, value) -> Answer:
        w = self._by_key(key)
        w.value = value
        if w.query_key:  # the browser writes a bound widget's new value into the URL first
            dropped = {w.query_key, *(SENTENCE_POSITIONS if w.query_key == "sentence" else ())}
            params = [(k, v) for k, v in urllib.parse.parse_qsl(self.query, keep_blank_values=True) if k not in dropped]
            text = _url_text(w)
            if text is not None:
                params.append((w.query_key, text))
            self.query = urllib.parse.urlencode(sorted(params, key=lambda kv: kv[0]))
        return await self._send(self._rerun())

    def _rerun(self, trigger: str | None = None, page_name: str = "") -> BackMsg:
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        if page_name:
            rerun.page_name = page_name
        else:
            rerun.page_script_hash = self.page_hash
            rerun.cached_message_hashes.extend(self.cache)
            for w in self.widgets.values():
                if w.field is None or w.value is None:
                    continue
                state = rerun.widget_states.widgets.add()
                state.id = w.id
                if w.field in ("string_array_value", "double_array_value"):
                    getattr(state, w.field).data.extend(w.value)
                else:
                    setattr(state, w.field, w.value)
            if trigger is not None:
                state = rerun.widget_states.widgets.add()
                state.id = trigger
                state.trigger_value = True
        ctx = rerun.context_info
        for name, value in CONTEXT.items():
            setattr(ctx, name, value)
        ctx.url = self.base + self.path + ("?" + self.query if self.query else "")
        return msg

    async def _send(self, msg: BackMsg) -> Answer:
        if not self.connected.is_set():
            await self.wait_connected()
        while not self.inbox.empty():  # what arrived unasked since the last answer
            raw = self.inbox.get_nowait()
            if raw is not None:
                self._take(ForwardMsg.FromString(raw), Answer(), set())
        if self.keep_sent:
            self.sent.append(msg)
        answer = Answer()
        seen: set[str] = set()
        t0 = time.perf_counter()
        try:
            assert self.ws is not None, "connected"
            await self.ws.send(msg.SerializeToString())
        except ConnectionClosed as exc:
            raise Disconnected(f"the connection closed before the message was sent: {exc}") from exc
        deadline = t0 + self.timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise NoAnswer(f"no end of the script run within {self.timeout:.0f} s")
            try:
                raw = await asyncio.wait_for(self.inbox.get(), left)
            except TimeoutError:
                raise NoAnswer(f"no end of the script run within {self.timeout:.0f} s") from None
            if raw is None:
                raise Disconnected("the connection closed while the answer was coming")
            answer.messages += 1
            answer.bytes += len(raw)
            fwd = ForwardMsg.FromString(raw)
            if self._take(fwd, answer, seen):
                break
        answer.seconds = time.perf_counter() - t0
        answer.query, answer.page = self.query, self.path
        return answer

    def _take(self, msg: ForwardMsg, answer: Answer, seen: set[str]) -> bool:
        """Apply one ForwardMsg to the client's state and the answer; True at the end of the run."""
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            cached = self.cache.get(msg.ref_hash)
            if cached is None:
                answer.exceptions.append(f"a reference to a message this client never had ({msg.ref_hash})")
                return False
            cached[1] = self.run_count
            full = ForwardMsg()
            full.CopyFrom(cached[0])
            full.metadata.CopyFrom(msg.metadata)
            msg, kind = full, full.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            self.cache[msg.hash] = [msg, self.run_count]
        if kind == "new_session":
            self.closed = set()
            ns = msg.new_session
            self.session_id = ns.initialize.session_id or self.session_id
            self.main_hash = ns.main_script_hash
            self.page_hash = ns.page_script_hash
            if ns.config.max_cached_message_age:
                self.max_age = ns.config.max_cached_message_age
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "navigation":
            nav = msg.navigation
            if nav.page_script_hash:
                self.page_hash = nav.page_script_hash
            for p in nav.app_pages:
                if p.page_script_hash == self.page_hash:
                    self.path = p.url_pathname
        elif kind == "delta":
            self._take_delta(msg, answer, seen)
        elif kind == "script_finished":
            answer.runs += 1
            status = msg.script_finished
            answer.status = status
            if status == FINISHED_EARLY_FOR_RERUN:
                return False
            self.run_count += 1
            self.cache = {h: e for h, e in self.cache.items() if self.run_count - e[1] <= self.max_age}
            if status == FINISHED_SUCCESSFULLY:  # widgets this run did not draw are gone
                self.widgets = {i: w for i, w in self.widgets.items() if i in seen}
            return True
        return False

    def _take_delta(self, msg: ForwardMsg, answer: Answer, seen: set[str]) -> None:
        delta = msg.delta
        dkind = delta.WhichOneof("type")
        kind: str | None
        if dkind == "new_element":
            el = delta.new_element
            kind = el.WhichOneof("type")
            if kind is None:
                return
            proto = getattr(el, kind)
        elif dkind == "add_block":
            block = delta.add_block
            kind = block.WhichOneof("type")
            if kind is None:
                return
            proto = getattr(block, kind)
            if kind == "popover" and not proto.open:
                self.closed.add(tuple(msg.metadata.delta_path))  # its children are not mounted until it opens
            if not getattr(proto, "id", ""):
                return
        else:
            return
        if kind == "page_link":
            query = proto.query_string if hasattr(proto, "query_string") else ""
            self.links[proto.page or ""] = (proto.page_script_hash, query)
            return
        if kind == "plotly_chart":
            key = proto.id.split("-", 2)[2] if proto.id.startswith("$$ID-") else proto.id
            answer.charts.append(Chart(key=key, spec=proto.spec))
        elif kind == "html":
            answer.html.append(proto.body)
            if proto.body.startswith(Table.PREFIX):
                answer.tables.append(Table.parse(proto.body))
        elif kind == "progress":
            answer.progress = proto.text
        elif kind == "heading":
            answer.headings.append(proto.body)
        elif kind == "exception":
            answer.exceptions.append(f"{proto.type}: {proto.message}"[:300])
        w = _widget_of(kind, proto)
        if w is None:
            return
        w.script_hash = msg.metadata.active_script_hash or self.page_hash
        path = tuple(msg.metadata.delta_path)
        if any(path[: len(c)] == c for c in self.closed if len(c) < len(path)):
            return
        known = self.widgets.get(w.id)
        if known is not None and known.options != w.options:
            known = None  # new options: the browser takes the new default (or the value set)
        if known is not None and not getattr(proto, "set_value", False):
            w.value = known.value  # the browser keeps what the learner chose
            if w.field is None and known.field is not None:
                w.field = known.field
        seen.add(w.id)
        self.widgets[w.id] = w
        answer.widgets[w.key] = w
