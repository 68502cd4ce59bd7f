"""Canaries for Streamlit's outside lookups (attention_ui/internals.py, its last section) and the
machine's own addresses read without the network (attention_ui/netaddr.py).

Each Python process that must not reach the network runs with an audit hook (``sys.addaudithook``)
that writes every name lookup and connection to a log and refuses those beyond this machine, so
a test can tell that Streamlit would have looked out, without any packet leaving.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit

from attention_ui import internals, netaddr
from tests.helpers import ROOT

STREAMLIT = Path(streamlit.__file__).parent

GUARD = """
import ipaddress, json, socket, sys
SEEN = []
LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr",
           "socket.getnameinfo")
def _local(host):
    if host in (None, "", "localhost") or str(host).startswith("/"):
        return True
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False  # a name: looking it up may ask a DNS server
    return ip.is_loopback or ip.is_unspecified
def _guard(event, args):
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        host = args[1][0] if isinstance(args[1], tuple) else args[1]
    elif event in LOOKUPS:
        host = args[0][0] if isinstance(args[0], tuple) else args[0]
    else:
        return
    if isinstance(host, bytes):
        host = host.decode()
    if not _local(host):
        SEEN.append(f"{event} {host}")
        raise PermissionError(f"blocked by the test: {event} {host}")
sys.addaudithook(_guard)
"""
"""Python run first in a child process: records (SEEN) and refuses every lookup or connection
beyond this machine. Audit hooks cannot be removed, so they live in child processes only."""


def run_guarded(code: str) -> dict:
    """Run ``code`` after ``GUARD`` in a fresh Python; it prints one JSON line, returned with
    the blocked calls under "seen"."""
    program = GUARD + code + "\nprint(json.dumps({**RESULT, 'seen': SEEN}))\n"
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


FOREIGN_KNOCK = """
from streamlit.web.server import server_util
RESULT = {"allowed": server_util.is_url_from_allowed_origins("http://another-site.example:80")}
"""


def test_a_foreign_origin_makes_bare_streamlit_look_outside():
    """The canary's other half: without our patch Streamlit does look out for a foreign Origin
    (here refused by the guard, so nothing leaves), so the test below can fail."""
    found = run_guarded(FOREIGN_KNOCK)
    assert found["allowed"] is False
    assert any("8.8.8.8" in call for call in found["seen"]), found["seen"]  # get_internal_ip's connect
    assert any("checkip.amazonaws.com" in call for call in found["seen"]), found["seen"]  # get_external_ip


def test_kept_local_a_foreign_origin_is_refused_without_any_lookup():
    found = run_guarded(
        "from attention_ui.internals import keep_streamlit_local\nkeep_streamlit_local()\n"
        + FOREIGN_KNOCK
        + "from streamlit import net_util\n"
        + "RESULT['internal'] = net_util.get_internal_ip()\n"
        + "RESULT['lan'] = server_util.is_url_from_allowed_origins(f\"http://{RESULT['internal']}:8501\")\n"
    )
    assert found["seen"] == [], found["seen"]
    assert found["allowed"] is False, "a foreign origin must still be refused"
    assert found["internal"] == (netaddr.primary_address() or "127.0.0.1")
    assert found["lan"] is True, "a page at the machine's own LAN address is still allowed, as before"


def _outside_calls() -> set[tuple[str, str]]:
    """(file, what the code says) for every line of Streamlit's Python code that can reach another
    machine, found by the patterns of the calls that do."""
    pattern = re.compile(
        r"requests\.(?:get|post|put|request)\(|urlopen\(|\.connect\(\(|socket\.create_connection\(|"
        r"net_util\.get_(?:internal|external)_ip|^\s*import (?:httpx|aiohttp|urllib3)"
    )
    found = set()
    for path in STREAMLIT.rglob("*.py"):
        relative = path.relative_to(STREAMLIT).as_posix()
        if relative.startswith(("testing/", "proto/")):
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            for match in pattern.finditer(line):
                found.add((relative, match.group(0).strip()))
    return found


def test_streamlit_reaches_outside_only_where_internals_says():
    found = _outside_calls()
    known = set(internals.STREAMLIT_OUTSIDE_CALLS)
    assert found == known, (
        f"Streamlit {streamlit.__version__} reaches other machines from other places than "
        f"attention_ui/internals.py's STREAMLIT_OUTSIDE_CALLS (checked with {internals.CHECKED_WITH}).\n"
        f"new: {sorted(found - known)}\ngone: {sorted(known - found)}\n"
        "Read each new one: if it can run in this app (headless, a file, the settings in "
        ".streamlit/config.toml), route it around in keep_streamlit_local; then update the table."
    )


def test_every_caller_looks_the_addresses_up_at_call_time():
    """keep_streamlit_local replaces ``net_util.get_*_ip`` on the module: that works only while the
    callers write ``net_util.get_internal_ip`` (a lookup on the module at call time), never a name
    imported before the patch (``from streamlit.net_util import get_internal_ip``)."""
    imported = [
        path.relative_to(STREAMLIT).as_posix()
        for path in STREAMLIT.rglob("*.py")
        if "from streamlit.net_util import" in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert imported == [], f"these import net_util's functions by name, past the patch: {imported}"


# --------------------------------------------------------------------------- netaddr


def test_the_lan_addresses_need_no_network():
    found = run_guarded(
        "from attention_ui import netaddr\n"
        "RESULT = {'lan': netaddr.lan_addresses(), 'primary': netaddr.primary_address()}\n"
    )
    assert found["seen"] == [], found["seen"]
    assert found["lan"] == netaddr.lan_addresses()
    assert found["primary"] == (found["lan"][0] if found["lan"] else None)


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("ip") is None, reason="needs iproute2")
def test_the_lan_addresses_are_what_iproute2_lists():
    """The reference: iproute2's ``ip -4 -o addr show up`` (netlink), less loopback and
    link-local addresses; and the default route's interface first (``ip route``)."""
    listing = subprocess.run(["ip", "-4", "-o", "addr", "show", "up"], capture_output=True, text=True, check=True)
    expected = set()
    for line in listing.stdout.splitlines():
        address = line.split()[3].split("/")[0]
        if not address.startswith(("127.", "169.254.")):
            expected.add(address)
    found = netaddr.lan_addresses()
    assert set(found) == expected and len(found) == len(expected)
    routes = subprocess.run(["ip", "-4", "route", "show", "default"], capture_output=True, text=True, check=True)
    via = re.search(r"\bdev (\S+)", routes.stdout)
    if via and found:
        shown = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", via.group(1)], capture_output=True, text=True)
        assert found[0] == shown.stdout.split()[3].split("/")[0], "the default route's address comes first"
