"""Links a room of phones can open: the address they reach, the class links, the QR code.

A teacher often runs the app on the laptop at the projector and opens it at
``http://localhost:8501``: a link built from that address opens nothing on a phone. So a link
for the room starts from the first of

1. the base-URL setting ``$ATTENTION_LAB_BASE_URL`` (``deploy/serve.sh --base-url``): what a
   school's server is called, e.g. ``http://lab.school.example:8080/attention-lab``;
2. the address the teacher's browser shows, when it is not a loopback address (the teacher
   reached the server by a name or an address, so can the room);
3. ``browser.serverAddress`` when it is not loopback, with the browser's port and path;
4. this machine's network address (the one ``streamlit run`` prints as its Network URL), with
   the browser's port and path;

and ``reachable_base`` says why a link may still fail: no network address known, or a server
that listens on loopback only. Pure functions, no Streamlit, except ``page_base``.

>>> reachable_base("http://localhost:8501/class", network_ip="192.168.1.20").base
'http://192.168.1.20:8501'
>>> reachable_base("https://lab.school.example/attention/class?x=1").base
'https://lab.school.example/attention'
>>> student_url("http://10.0.0.5:8080", "K7M3PQ")
'http://10.0.0.5:8080/exercises?class=K7M3PQ'
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from html import escape
from urllib.parse import urlencode, urlsplit, urlunsplit

BASE_URL_ENV = "ATTENTION_LAB_BASE_URL"
STUDENT_PAGE = "exercises"
TEACHER_PAGE = "class"
PAGE_NAMES = ("class", "exercises")
"""Pages whose name ends a browser URL's path (cut off to find the app's base)."""


@dataclass(frozen=True)
class Reachable:
    """The base URL for links to this app (no trailing slash), and a problem: None,
    ``"no_address"`` (a loopback address and no network address known) or ``"local_only"``
    (the server listens on loopback only: phones reach it only through a proxy)."""

    base: str
    problem: str | None = None


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` names this machine only.

    >>> is_loopback("localhost"), is_loopback("127.0.1.1"), is_loopback("[::1]"), is_loopback("10.1.2.3")
    (True, True, True, False)
    """
    if not host:
        return True
    host = host.strip("[]").lower()
    if host in ("localhost", "0.0.0.0", "::") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def app_base(url: str | None) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, base path) of a page URL of this app: the path without its page
    name, query or fragment.

    >>> app_base("http://localhost:8080/attention-lab/class?class=K7M3PQ")
    ('http', 'localhost', 8080, '/attention-lab')
    """
    parts = urlsplit(url or "")
    path = parts.path.rstrip("/")
    if path.rsplit("/", 1)[-1] in PAGE_NAMES:
        path = path.rsplit("/", 1)[0]
    return parts.scheme or "http", parts.hostname or "", parts.port, path


def _join(scheme: str, host: str, port: int | None, path: str) -> str:
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, path.rstrip("/"), "", ""))


def reachable_base(
    browser_url: str | None,
    *,
    base_url: str | None = None,
    server_address: str | None = None,
    network_ip: str | None = None,
    listen_address: str | None = None,
    server_port: int | None = None,
) -> Reachable:
    """The base of links that phones in the room can open (see the module's docstring).

    browser_url : the page's URL in the teacher's browser (``st.context.url``)
    base_url : the base-URL setting, if any
    server_address : Streamlit's ``browser.serverAddress``
    network_ip : this machine's network address (``network_address()``)
    listen_address, server_port : Streamlit's ``server.address`` and ``server.port``: a server
        bound to loopback, reached on its own port, is out of the phones' reach

    >>> reachable_base("http://localhost:8501/class").problem
    'no_address'
    >>> reachable_base("http://127.0.0.1:8501/", network_ip="10.0.0.9", listen_address="127.0.0.1",
    ...                server_port=8501).problem
    'local_only'
    >>> reachable_base("http://localhost:8080/", network_ip="10.0.0.9", listen_address="127.0.0.1",
    ...                server_port=8081).problem is None  # through serve.sh's nginx on 8080
    True
    """
    if base_url and base_url.strip():
        return Reachable(base_url.strip().rstrip("/"))
    scheme, host, port, path = app_base(browser_url)
    if not is_loopback(host):
        return Reachable(_join(scheme, host, port, path))
    problem = None
    if listen_address and is_loopback(listen_address) and listen_address not in ("0.0.0.0", "::"):
        if port is None or port == server_port:
            problem = "local_only"
    for candidate in (server_address, network_ip):
        if candidate and not is_loopback(candidate):
            return Reachable(_join(scheme, candidate, port, path), problem)
    return Reachable(_join(scheme, host or "localhost", port, path), problem or "no_address")


def network_address() -> str | None:
    """This machine's address on its network (not loopback), found without a request or a name
    lookup (``netaddr.primary_address``); None when there is none."""
    from attention_ui.netaddr import primary_address

    return primary_address()


EXERCISE_PARAMS = ("ex_seed", "ex_kind", "ex_source", "lang")
"""What an exercise link keeps: the exercise and the language."""
LESSON_PARAMS = (
    "sentence",
    "toy",
    "w",
    "layer",
    "head",
    "d_k",
    "seed",
    "scaled",
    "positional",
    "cjk",
    "model",
    "first",
)
"""The sidebar's lesson settings: kept only by a link to an exercise on the learner's own sentence."""


def exercise_url(base: str, params: dict[str, list[str]], *, uses_sentence: bool, source: str | None) -> str:
    """The link that gives the Exercises page's exercise to a class: the exercise's own
    parameters and the language, the sentence and its settings only when the exercise is asked
    on it (``uses_sentence``), never ``present`` (a phone in projector type) or anything else.
    ``source`` (the attend exercise's sentence, when asked) is written out: its default differs
    between a trained head and the toy embedder.

    >>> exercise_url("http://10.0.0.5:8501", {"ex_seed": ["7"], "present": ["true"], "sentence": ["a b"],
    ...              "lang": ["zh"]}, uses_sentence=False, source=None)
    'http://10.0.0.5:8501/exercises?ex_seed=7&lang=zh'
    >>> exercise_url("http://h", {"sentence": ["a b"], "toy": ["true"]}, uses_sentence=True, source="lesson")
    'http://h/exercises?ex_source=lesson&sentence=a+b&toy=true'
    """
    keep = EXERCISE_PARAMS + (LESSON_PARAMS if uses_sentence else ())
    chosen = {name: values for name, values in params.items() if name in keep}
    if source is not None:
        chosen["ex_source"] = [source]
    ordered = {name: chosen[name] for name in keep if name in chosen}
    return f"{base.rstrip('/')}/{STUDENT_PAGE}" + (f"?{urlencode(ordered, doseq=True)}" if ordered else "")


def student_url(base: str, code: str) -> str:
    """The link a student opens (and the QR code holds): the Exercises page with the class."""
    return f"{base.rstrip('/')}/{STUDENT_PAGE}?{urlencode({'class': code})}"


def teacher_url(base: str, code: str, token: str) -> str:
    """The teacher's own link: the Class page with the class and its secret token.

    >>> teacher_url("http://h:1", "K7M3PQ", "s3cret")
    'http://h:1/class?class=K7M3PQ&teacher=s3cret'
    """
    return f"{base.rstrip('/')}/{TEACHER_PAGE}?{urlencode({'class': code, 'teacher': token})}"


def qr_image(url: str, alt: str) -> str:
    """The QR code of ``url`` as an ``<img>`` of an SVG data URI (Streamlit's HTML sanitiser
    drops inline SVG), black on white with its quiet zone, no fixed size (the page's style
    sizes it). Error correction M: a projector's glare may hide part of it. ``alt``: plain text.

    >>> html = qr_image("http://10.0.0.5:8080/exercises?class=K7M3PQ", 'QR "code"')
    >>> html.startswith('<img class="al-qr-img" alt="QR &quot;code&quot;" src="data:image/svg+xml')
    True
    """
    import segno

    code = segno.make(url, error="m", micro=False)
    uri = code.svg_data_uri(scale=10, border=4, dark="#000", light="#fff")
    return f'<img class="al-qr-img" alt="{escape(alt, quote=True)}" src="{escape(uri, quote=True)}">'


def base_url_setting() -> str | None:
    """The base-URL setting (``$ATTENTION_LAB_BASE_URL``), if set."""
    return os.environ.get(BASE_URL_ENV) or None


def page_base() -> Reachable:
    """The base for links to this app as phones will see it, from this session's browser URL
    and this server's settings (Streamlit's ``browser.serverAddress``, ``server.address``,
    ``server.port``)."""
    import streamlit as st

    return reachable_base(
        st.context.url,
        base_url=base_url_setting(),
        server_address=st.get_option("browser.serverAddress"),
        network_ip=network_address(),
        listen_address=st.get_option("server.address"),
        server_port=st.get_option("server.port"),
    )
