"""Where a webhook may send (docs/guides/events.rst, "Webhook addresses"): https only, to
public addresses only, checked when the webhook is saved and again at every delivery
(a name may resolve elsewhere by then), and the delivery connects to the address that
was checked. ``WEBHOOK_ALLOW_HTTP`` and ``WEBHOOK_ALLOW_PRIVATE`` lift the two rules
(development, a receiver on the same host or network)."""

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

# Ranges no webhook may reach: besides what ``ipaddress`` calls private, loopback,
# link-local (169.254.169.254, the clouds' metadata service, is one), multicast, reserved
# and unspecified, the shared address space of carrier-grade NAT and the metadata
# addresses some clouds give on IPv6.
REFUSED_NETWORKS = tuple(
    ipaddress.ip_network(network) for network in ("100.64.0.0/10", "fd00:ec2::254/128")
)


class UrlRefused(ValueError):
    """The URL may not be a webhook's; ``str()`` says why, in words a client is shown."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as written in the URL (the Host header, the TLS server name)
    port: int
    path: str  # with the query
    address: str  # the checked address to connect to


# IPv6 forms that carry an IPv4 address, the address a packet may end up at: NAT64
# (64:ff9b::/96, and the local-use 64:ff9b:1::/48) and the deprecated IPv4-compatible
# ::a.b.c.d, in their last 32 bits (6to4 and Teredo: ``ipaddress`` decodes them).
WRAPPING_NETWORKS = tuple(
    ipaddress.ip_network(network) for network in ("64:ff9b::/96", "64:ff9b:1::/48", "::/96")
)


def _embedded(ip):
    """The IPv4 addresses an IPv6 address wraps (6to4, Teredo, NAT64, compatible)."""
    if isinstance(ip, ipaddress.IPv4Address):
        return []
    wrapped = [ip.sixtofour, *(ip.teredo or ())]
    if any(ip in network for network in WRAPPING_NETWORKS):
        wrapped.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [address for address in wrapped if address is not None]


def _refused_ip(ip):
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or any(ip in network for network in REFUSED_NETWORKS)
    )


def _refused_address(address):
    """Whether ``address``, or an IPv4 address it wraps, is not public."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return _refused_ip(ip) or any(_refused_ip(inner) for inner in _embedded(ip))


def parse(url, allow_http):
    """The URL's scheme, host, port and path; :class:`UrlRefused` if it cannot be a
    webhook's."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UrlRefused("not a valid URL") from None
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in schemes:
        raise UrlRefused("must be https" if not allow_http else "must be http or https")
    if not parts.hostname:
        raise UrlRefused("has no host")
    if parts.username is not None or parts.password is not None:
        raise UrlRefused("must not hold a user name or password")
    port = port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def resolve(url, allow_http, allow_private):
    """The :class:`Target` to send to; :class:`UrlRefused` when the URL is refused or any
    address its host resolves to is not public (unless ``allow_private``)."""
    scheme, host, port, path = parse(url, allow_http)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UrlRefused("its host name does not resolve") from None
    addresses = [info[4][0] for info in infos]
    if not allow_private and any(_refused_address(address) for address in addresses):
        raise UrlRefused("resolves to a private, loopback or link-local address")
    return Target(scheme, host, port, path, addresses[0])
