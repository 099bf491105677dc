"""How the ladder's web side listens and what it accepts: one record, and every default.

``WebSettings`` is what ``referee ladder serve`` takes from its options; ``parse_listen`` reads ``--listen
HOST:PORT``. This module imports nothing of the web stack.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from referee.engine.errors import RefereeError

__all__ = ["DEFAULT_LISTEN", "ListenError", "WebSettings", "parse_listen"]

#: Loopback by default: an open contest is put behind a reverse proxy with TLS (docs/web.md), never bare.
DEFAULT_LISTEN = "127.0.0.1:8023"


class ListenError(RefereeError, ValueError):
    """``--listen`` is not ``HOST:PORT`` (an IPv6 host in brackets: ``[::1]:8023``), or the address cannot be
    listened on (taken, not this machine's); one line."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` → (host, port); port 0 asks the system for a free one. Raises ``ListenError`` naming the value
    and the expected form."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) < 65536:
        raise ListenError(f"--listen {text!r}: expected HOST:PORT, for example {DEFAULT_LISTEN} or [::1]:8023")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ListenError(f"--listen {text!r}: {host!r} in brackets is not an IPv6 address") from None
    elif ":" in host:
        raise ListenError(f"--listen {text!r}: put an IPv6 address in brackets, for example [::1]:8023")
    return host, int(port_text)


@dataclass(frozen=True, slots=True)
class WebSettings:
    """The web side's limits. Every upload, page and API call is bounded by these.

    ``max_upload``: bytes of one submission as sent (an archive or a single file); a larger body is refused
    with 413 before anything is stored. ``upload_idle``: seconds an upload (or any other request body) may send
    nothing before it is cut (408); ``upload_rate``: bytes a second it must send on average past its first
    ``upload_idle`` seconds (408 as soon as it falls behind); ``upload_total``: seconds the whole body may take.
    ``rate``: requests per minute per token (or per client address when signed out), ``burst`` of them at once;
    more get 429 with ``Retry-After``.
    ``behind_proxy``: the server sits behind one reverse proxy on this machine that terminates TLS (docs/web.md):
    the client's address is taken from the proxy's ``X-Forwarded-For`` (so rate limits count clients, not the
    proxy) and the sign-in cookie is marked ``Secure``.
    ``poll_seconds``: how often an open leaderboard or version page asks for news.
    """

    host: str = "127.0.0.1"
    port: int = 8023
    max_upload: int = 8 * 1024 * 1024
    upload_idle: float = 10.0
    upload_total: float = 120.0
    upload_rate: int = 16 * 1024
    rate: int = 120
    burst: int = 30
    behind_proxy: bool = False
    poll_seconds: float = 2.0
    title: str = "referee ladder"

    def __post_init__(self) -> None:
        for name in ("max_upload", "rate", "burst", "upload_rate"):
            if getattr(self, name) < 1:
                raise ValueError(f"web setting {name} must be at least 1, not {getattr(self, name)}")
        for name in ("upload_idle", "upload_total", "poll_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"web setting {name} must be a positive number of seconds, not {getattr(self, name)}")
