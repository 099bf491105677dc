"""The courier: ``serve``'s task that sends the notices (``notices``) on to the webhook and the mail relay of
``[notices]`` in ladder.toml.

It never holds up the ladder: each channel is a task of its own (a webhook that hangs holds up no mail), and each
call (an HTTP POST with ``urllib``, a mail with ``smtplib``) runs in a worker thread, one at a time per channel,
bounded by ``timeout`` seconds per network operation, the thread abandoned at once when serve stops. A call that
fails is tried again 2, 4, 8... seconds later, other notices going meanwhile, up to ``tries`` attempts; then the
notice's channel is marked ``gave up: WHY`` and serve says so in one line. A notice not sent when serve stops is
sent by the next one.
"""

from __future__ import annotations

import json
import os
import smtplib
import ssl
import urllib.request
from collections.abc import Callable
from email.message import EmailMessage

import trio

from referee import __version__
from referee.ladder.config import NoticesSection
from referee.ladder.notices import OFF, Channel, Notice, pending, settle
from referee.ladder.store import LadderStore, now

__all__ = ["Courier", "mail_notice", "post_notice"]


def post_notice(url: str, notice: Notice, timeout: float) -> None:
    """POST the notice's JSON to ``url``. Raises ``OSError`` (``urllib.error.URLError``/``HTTPError`` for a refused
    connection or a status of 400 or more, ``TimeoutError``)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(notice.to_json()).encode(),
        headers={"Content-Type": "application/json", "User-Agent": f"referee/{__version__}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        response.read(4096)


def mail_notice(section: NoticesSection, notice: Notice) -> None:
    """Mail the notice through the relay to ``mail_to`` and its entrant's own address. Raises ``OSError``
    (``smtplib.SMTPException`` is one) or ``ValueError`` (a header the message refuses)."""
    to = [*section.mail_to]
    own = section.entrant_mail.get(notice.entrant)
    if own is not None and own not in to:
        to.append(own)
    message = EmailMessage()
    message["From"] = section.mail_from
    message["To"] = ", ".join(to)
    message["Subject"] = f"[referee ladder] {notice.version or notice.entrant}: {notice.kind.value}"
    message.set_content(f"{notice.text}\n\nAt {notice.at}; its page: {notice.page}\n")
    with smtplib.SMTP(section.smtp_host, section.smtp_port, timeout=section.timeout) as smtp:
        if section.smtp_starttls:
            smtp.starttls(context=ssl.create_default_context())
        if section.smtp_user:
            password = os.environ.get(section.smtp_password_env) if section.smtp_password_env else ""
            if password is None:
                raise ValueError(f"[notices] smtp_password_env: the variable {section.smtp_password_env} is not set")
            smtp.login(section.smtp_user, password)
        smtp.send_message(message)


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


class Courier:
    """Sends the store's pending notices with ``section``'s channels (see the module's docstring); ``announce`` takes
    a line for each channel that gave up; ``poll``: seconds between looks at the store."""

    def __init__(
        self, store: LadderStore, section: NoticesSection, announce: Callable[[str], None], poll: float = 1.0
    ) -> None:
        self.store = store
        self.section = section
        self.announce = announce
        self.poll = poll
        self._tries: dict[tuple[int, Channel], tuple[int, float]] = {}  # attempts so far, next attempt at

    def _configured(self, channel: Channel) -> bool:
        return bool(self.section.webhook) if channel is Channel.WEBHOOK else self.section.mails()

    async def run(self) -> None:
        """Until cancelled: each channel in a task of its own (a webhook that hangs holds up no mail), sending what is
        pending and looking again every ``poll`` seconds."""
        async with trio.open_nursery() as nursery:
            for channel in Channel:
                nursery.start_soon(self._channel, channel)

    async def _channel(self, channel: Channel) -> None:
        limiter = trio.CapacityLimiter(1)
        while True:
            await self.round(channel, limiter)
            await trio.sleep(self.poll)

    async def round(self, channel: Channel, limiter: trio.CapacityLimiter) -> None:
        """One look at the store: each pending notice of ``channel`` that is due is tried once."""
        for notice in pending(self.store):  # a quick read, as serve's others
            if (notice.webhook if channel is Channel.WEBHOOK else notice.mail) is None:
                await self._attempt(notice, channel, limiter)

    async def _attempt(self, notice: Notice, channel: Channel, limiter: trio.CapacityLimiter) -> None:
        key = (notice.id, channel)
        if not self._configured(channel):
            settle(self.store, notice.id, channel, OFF)  # configured when it was recorded, no more
            return
        tried, due = self._tries.get(key, (0, 0.0))
        if trio.current_time() < due:
            return
        send = (
            (lambda: post_notice(self.section.webhook, notice, self.section.timeout))
            if channel is Channel.WEBHOOK
            else (lambda: mail_notice(self.section, notice))
        )
        try:
            await trio.to_thread.run_sync(send, limiter=limiter, abandon_on_cancel=True)
        except (OSError, ValueError, smtplib.SMTPException) as exc:
            tried += 1
            if tried < self.section.tries:
                self._tries[key] = (tried, trio.current_time() + 2.0**tried)
                return
            self._tries.pop(key, None)
            outcome = f"gave up {now()} after {tried} tries: {_why(exc)}"
            settle(self.store, notice.id, channel, outcome)
            about = notice.version or notice.entrant
            self.announce(f"notice {notice.id} ({notice.kind.value}, {about}): {channel.value} {outcome}")
            return
        self._tries.pop(key, None)
        settle(self.store, notice.id, channel, f"sent {now()}")
