"""Notices (``ladder.notices``): kept when a version fails its gate, is suspended or starts faulting, and sent on by
serve's courier (``ladder.courier``) to a webhook (a local HTTP server here) and through an SMTP relay (a local
sink); a webhook that hangs or refuses never slows serve."""

from __future__ import annotations

import json
import socket
import socketserver
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.ladder import BlockKind, Ladder, VersionState
from referee.ladder.notices import NoticeKind, notices_of, recent_notices
from referee.ladder.rating import LiveRating
from referee.ladder.serve import ServeOptions, serve
from referee.ladder.settle import settle_block
from referee.ladder.store import GameRow
from tests.ladder.fakes import FakeFault, Fakes, bot_text
from tests.ladder.test_serve_fakes import _submit


@dataclass
class Hook:
    """A webhook receiver: the bodies it was posted; it answers 500 to the first post (a retry must follow), or
    holds every request until ``release`` is set (``hang``)."""

    hang: bool = False
    bodies: list[dict[str, Any]] = field(default_factory=list)
    posts: int = 0
    release: threading.Event = field(default_factory=threading.Event)
    reached: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def hook(request: pytest.FixtureRequest) -> Iterator[tuple[str, Hook]]:
    state = Hook(hang=getattr(request, "param", False))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.posts += 1
            state.reached.set()
            if state.hang:
                state.release.wait(90)
            first = state.posts == 1
            if not first:
                state.bodies.append(body)
            self.send_response(500 if first else 204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/notices", state
    state.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def smtp() -> Iterator[tuple[int, list[tuple[str, list[str], str]]]]:
    """A local SMTP sink: (port, [(from, to, message)]) — the least of RFC 5321 smtplib needs."""
    got: list[tuple[str, list[str], str]] = []

    class Session(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            sender, to = "", []
            self.wfile.write(b"220 sink\r\n")
            while line := self.rfile.readline():
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    self.wfile.write(b"250 sink\r\n")
                elif verb == b"MAIL":
                    sender = line.decode().split(":", 1)[1].strip().strip("<>")
                    self.wfile.write(b"250 ok\r\n")
                elif verb == b"RCPT":
                    to.append(line.decode().split(":", 1)[1].strip().strip("<>"))
                    self.wfile.write(b"250 ok\r\n")
                elif verb == b"DATA":
                    self.wfile.write(b"354 go on\r\n")
                    data = b""
                    while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                        data += chunk
                    got.append((sender, to, data.decode()))
                    sender, to = "", []
                    self.wfile.write(b"250 kept\r\n")
                elif verb == b"QUIT":
                    self.wfile.write(b"221 bye\r\n")
                    return
                else:
                    self.wfile.write(b"250 ok\r\n")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Session)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], got
    server.shutdown()
    server.server_close()


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port that refuses every connection while the test runs: bound, never listening. (A port closed at once
    may be taken by another test process's server meanwhile: a bind to port 0 draws a given free port about once in
    15,000 here.)"""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def _ladder(tmp_path: Path, notices: str) -> Path:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text(
        "[matchmaking]\nplacement_blocks = 2\n[epochs]\nblocks = 4000\n[serve]\njobs = 2\n"
        f"[faults]\nrecent_games = 40\nsuspend_share = 0.25\n[notices]\n{notices}"
    )
    made.close()
    lad = tmp_path / "lad"
    for i, name in enumerate(["ann", "bob", "cat"]):
        _submit(lad, name, bot_text(strength=i), tmp_path)
    _submit(lad, "dan", bot_text(strength=1, failgate=True), tmp_path)  # fails its gate
    _submit(lad, "eve", bot_text(strength=1, fault=1.0), tmp_path)  # forfeits every game: suspended at once
    _submit(lad, "fay", bot_text(strength=1, fault=0.1), tmp_path)  # forfeits now and then: starts faulting
    return lad


async def _serve(lad: Path, done: Any, lines: list[str], seconds: float = 60) -> float:
    """Serve until ``done(ladder)``; the seconds the stop took."""
    fakes = Fakes()
    options = ServeOptions(announce=lines.append, poll=0.02, play=fakes.play, factory=fakes.factory, check=fakes.check)
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(serve, lad, options)
        with trio.fail_after(seconds):
            while not await trio.to_thread.run_sync(done, ladder):
                await trio.sleep(0.02)
        stop = time.monotonic()
        nursery.cancel_scope.cancel()
    return time.monotonic() - stop


def _kinds(lad: Path) -> dict[str, set[NoticeKind]]:
    with Ladder.open(lad) as ladder:
        out: dict[str, set[NoticeKind]] = {}
        for n in recent_notices(ladder.store, 500):
            out.setdefault(n.entrant, set()).add(n.kind)
        return out


def test_notices_are_kept_and_sent_to_the_webhook_and_by_mail(
    tmp_path: Path, hook: tuple[str, Hook], smtp: tuple[int, list[Any]]
) -> None:
    url, state = hook
    port, mails = smtp
    lad = _ladder(
        tmp_path,
        f'webhook = "{url}"\ntimeout = 5\ntries = 3\nsmtp_host = "127.0.0.1"\nsmtp_port = {port}\n'
        'mail_from = "ladder@example.org"\nmail_to = ["org@example.org"]\nentrant_mail = {eve = "eve@example.org"}\n',
    )
    wanted = {"dan": {NoticeKind.GATE_FAILED}, "eve": {NoticeKind.SUSPENDED}, "fay": {NoticeKind.FAULTING}}

    seen: set[int] = set()

    def all_sent(ladder: Ladder) -> bool:
        found = recent_notices(ladder.store, 500)
        seen.clear()
        seen.update(n.id for n in found)  # (one recorded after this look may still be on its way)
        kinds = {e: {n.kind for n in found if n.entrant == e} for e in wanted}
        return all(wanted[e] <= kinds[e] for e in wanted) and all(n.webhook and n.mail for n in found)

    lines: list[str] = []
    trio.run(_serve, lad, all_sent, lines)
    kinds = _kinds(lad)
    assert set(kinds) == {"dan", "eve", "fay"}, kinds  # nothing for the quiet ones
    with Ladder.open(lad) as ladder:
        found = [n for n in recent_notices(ladder.store, 500) if n.id in seen]
        assert all(n.webhook.startswith("sent ") and n.mail.startswith("sent ") for n in found), found
        dan = notices_of(ladder.store, ladder.entrant("dan").id)
        assert [n.text for n in dan] == ["dan#1 failed its gate: fake_check: scripted"]
        eve = next(n for n in found if n.kind == NoticeKind.SUSPENDED and n.entrant == "eve")
        assert eve.text.startswith("eve#1 suspended: forfeited") and eve.version == "eve#1"
    # the webhook: the first post was answered 500 and tried again; every notice arrived once, as JSON
    posted = [b["notice"] for b in state.bodies]
    assert state.posts == len(posted) + 1 and len(set(posted)) == len(posted) and seen <= set(posted)
    body = next(b for b in state.bodies if b["kind"] == "gate failed")
    assert body["entrant"] == "dan" and body["version"] == "dan#1" and body["page"] == "/entrants/dan/versions/1"
    # the mail: every notice to the organiser, eve's own to eve too
    assert len(mails) >= len(found) and all(m[0] == "ladder@example.org" for m in mails)
    assert all("org@example.org" in m[1] for m in mails)
    to_eve = [m for m in mails if "eve@example.org" in m[1]]
    assert to_eve and all("Subject: [referee ladder] eve#1: " in m[2] for m in to_eve)
    assert not [m for m in mails if "eve@example.org" in m[1] and "eve#1" not in m[2]]


@pytest.mark.parametrize("hook", [True], indirect=True)
def test_a_webhook_that_hangs_or_a_relay_that_refuses_does_not_slow_serve(
    tmp_path: Path, hook: tuple[str, Hook], refused_port: int
) -> None:
    url, state = hook
    lad = _ladder(
        tmp_path,
        f'webhook = "{url}"\ntimeout = 60\ntries = 2\nsmtp_host = "127.0.0.1"\nsmtp_port = {refused_port}\n'
        'mail_to = ["org@example.org"]\n',
    )
    marks: dict[str, Any] = {}

    def played_on_while_it_hangs(ladder: Ladder) -> bool:
        if not state.reached.is_set():
            return False
        blocks = ladder.store.block_count()
        marks.setdefault("at", blocks)
        found = recent_notices(ladder.store, 500)
        marks["seen"] = {n.id for n in found}  # (a notice recorded after this look is not given up yet)
        return blocks >= marks["at"] + 40 and all(n.mail and n.mail.startswith("gave up") for n in found)

    lines: list[str] = []
    stop = trio.run(_serve, lad, played_on_while_it_hangs, lines, 50)
    assert not state.release.is_set() and state.posts == 1  # the first post still hangs: 40 blocks played meanwhile
    assert stop < 10.0, stop  # and a stop does not wait for it (60 s)
    with Ladder.open(lad) as ladder:
        found = [n for n in recent_notices(ladder.store, 500) if n.id in marks["seen"]]
        assert found and all(n.webhook is None for n in found)  # not sent: the next serve sends them
        assert all("after 2 tries: ConnectionRefusedError" in (n.mail or "") for n in found), found
    assert any("): mail gave up" in line and "after 2 tries: ConnectionRefusedError" in line for line in lines), lines


def _settled(ladder: Ladder, seats: list[int], lost_games: dict[int, int]) -> Any:
    """A block of ``seats`` (every rotation) in which version v forfeits its first ``lost_games[v]`` games."""
    store = ladder.store
    epoch = store.open_epoch_now() or store.open_epoch("test", "0" * 64, "00" * 32)
    block = store.create_block(epoch.id, BlockKind.RANKED, seats, lambda b: b)
    versions = store.versions_by_id(seats)
    games = []
    for r in range(len(seats)):
        order = tuple(seats[r:] + seats[:r])
        lost = tuple(r < lost_games.get(v, 0) for v in order)
        scores = tuple(10 + 30 * f for f in lost)
        ranks = tuple(1 + sum(o < s for o in scores) for s in scores)
        games.append(
            GameRow(r, order, scores, ranks, lost, tuple(FakeFault(i) for i, f in enumerate(lost) if f), None, 0.1)
        )
    return settle_block(store, LiveRating(ladder.config.rating), block, games, versions, ladder.config.faults)


def test_a_version_starts_faulting_once_after_a_quiet_run(tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text("[faults]\nrecent_games = 9\nsuspend_share = 0.5\n")
    made.close()
    with Ladder.open(tmp_path / "lad") as ladder:
        store = ladder.store
        seats = []
        for name in ("ann", "bob", "cat"):
            entrant = store.add_entrant(name, "scrypt$none")
            v = store.add_version(entrant.id, digest=name, command=("./bot",), build=None, kind="file", files=1, size=1)
            store.set_version_state(v.id, VersionState.RANKED)
            seats.append(v.id)
        ann = seats[0]
        assert _settled(ladder, seats, {}).faulting == {}
        first = _settled(ladder, seats, {ann: 1})
        assert first.faulting == {ann: "forfeited 1 of its 3 games in block 2: crash 1"} and not first.suspended
        assert _settled(ladder, seats, {ann: 1}).faulting == {}  # faulting still: no new notice
        for _ in range(3):  # a quiet run of 9 games
            assert _settled(ladder, seats, {}).faulting == {}
        again = _settled(ladder, seats, {ann: 2})
        assert set(again.faulting) == {ann}  # it starts again
        suspended = _settled(ladder, seats, {ann: 3})
        assert suspended.faulting == {} and ann in suspended.suspended  # the suspension is a notice of its own


def test_a_ladder_made_before_notices_gets_their_table(tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "lad")
    made.close()
    with sqlite3.connect(tmp_path / "lad" / "ladder.sqlite") as db:
        db.execute("DROP TABLE notices")  # as a ladder made before them: its schema's steps stopped at the sums
        db.execute("PRAGMA user_version = 3")
    with Ladder.open(tmp_path / "lad") as ladder:
        entrant, _ = ladder.add_entrant("ann")
        ladder.suspend("ann", "a look at its logs")
        assert [n.text for n in notices_of(ladder.store, entrant.id)] == [
            "ann suspended by the organiser: a look at its logs"
        ]
