"""This machine's network (LAN) addresses, read from its own interfaces: no packet, no lookup.

The usual tricks ask the network: a UDP ``connect`` toward a public address to see which
source address the kernel picks (Streamlit's ``net_util.get_internal_ip`` aims at 8.8.8.8), or
``getaddrinfo(gethostname())``, which may ask a DNS server. A school server must do neither
(docs/deploy.md, "Nothing leaves the school"). Here the kernel is asked directly, on Linux:
the interfaces (``socket.if_nameindex``), whether each is up and not loopback, and its IPv4
address (``ioctl`` SIOCGIFFLAGS and SIOCGIFADDR on a socket that is never connected), with the
interface of the default route (``/proc/net/route``) first. Elsewhere (macOS, Windows) a UDP
socket is "connected" to a private address (10.255.255.255): that sends no packet and looks up
no name, and the kernel names the source address it would use; None when it has none.

Example, on a machine whose default route goes through eth0 with 192.168.1.20 and that also
runs docker0 with 172.17.0.1: ``lan_addresses()`` → ``["192.168.1.20", "172.17.0.1"]`` and
``primary_address()`` → ``"192.168.1.20"``, the address to print in a link for learners.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys
from pathlib import Path

SIOCGIFFLAGS = 0x8913  # Linux <linux/sockios.h>: an interface's flags
SIOCGIFADDR = 0x8915  # an interface's IPv4 address
IFF_UP = 0x1
IFF_LOOPBACK = 0x8
ROUTES = Path("/proc/net/route")


def _ioctl(sock: socket.socket, request: int, name: str) -> bytes:
    """One interface request (``struct ifreq``: 16 bytes of name, 24 of answer)."""
    import fcntl

    return fcntl.ioctl(sock.fileno(), request, struct.pack("256s", name.encode()[:15]))


def default_route_interfaces(routes: str | None = None) -> list[str]:
    """The interfaces that carry a default route (destination 0.0.0.0), lowest metric first.

    >>> default_route_interfaces("Iface\\tDestination\\tGateway\\tFlags\\tRefCnt\\tUse\\tMetric\\n"
    ...                          "wlan0\\t00000000\\t0101A8C0\\t0003\\t0\\t0\\t600\\n"
    ...                          "eth0\\t00000000\\t0100000A\\t0003\\t0\\t0\\t100\\n"
    ...                          "eth0\\t0000000A\\t00000000\\t0001\\t0\\t0\\t100\\n")
    ['eth0', 'wlan0']
    """
    if routes is None:
        try:
            routes = ROUTES.read_text()
        except OSError:
            return []
    found = []
    for line in routes.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 7 and fields[1] == "00000000" and fields[6].isdigit():
            found.append((int(fields[6]), fields[0]))
    return [name for _, name in sorted(found)]


def _usable(address: str) -> bool:
    """Not loopback, not link-local (169.254.x.x: no DHCP answer), not unspecified."""
    ip = ipaddress.IPv4Address(address)
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified)


def _routed_address() -> str | None:
    """The source address the kernel would pick toward a private address: no packet is sent
    (UDP ``connect`` only sets the peer), no name looked up. For systems without Linux's ioctls."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("10.255.255.255", 1))
            return sock.getsockname()[0]
        except OSError:
            return None


def lan_addresses() -> list[str]:
    """The IPv4 addresses of this machine's interfaces that are up, the default route's first
    (elsewhere than Linux: the one address the kernel would send from, or []). Never touches
    the network."""
    if not sys.platform.startswith("linux"):
        routed = _routed_address()
        return [routed] if routed and _usable(routed) else []
    addresses: dict[str, str] = {}  # interface -> address
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:  # only a handle for ioctl
        for _, name in socket.if_nameindex():
            try:
                flags = struct.unpack_from("H", _ioctl(sock, SIOCGIFFLAGS, name), 16)[0]
                if not flags & IFF_UP or flags & IFF_LOOPBACK:
                    continue
                address = socket.inet_ntoa(_ioctl(sock, SIOCGIFADDR, name)[20:24])
            except OSError:  # no IPv4 address on it, or gone meanwhile
                continue
            if _usable(address):
                addresses[name] = address
    first = [addresses[name] for name in default_route_interfaces() if name in addresses]
    return list(dict.fromkeys(first + list(addresses.values())))


def primary_address() -> str | None:
    """The address learners on the same network would use: the default route's interface's,
    else any other usable one, else None."""
    found = lan_addresses()
    return found[0] if found else None
