"""The web under a hostile bot's logs and hostile clients' bodies, on a real server and real HTTP clients: requests
for a flooding bot's huge game log do not stall the leaderboard (and run at most ``LOGS`` at once); a body that
never ends, or trickles, is cut with 408 within the documented time; a client that goes away mid-upload leaves no
traceback in ``referee ladder serve``'s output."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import statistics
import threading
import time
from functools import partial
from pathlib import Path

import httpx2

from referee.ladder import Ladder
from referee.web import LadderAccess, WebSettings, create_app
from referee.web.server import serve_web
from referee.web.site import LOGS
from tests.web.conftest import InThread, bearer
from tests.web.ladderdata import Built
from tests.web.test_hostile import GREEDY
from tests.web.test_serve_cli import referee, run

#: A flooding bot's line, as the log writer records each line a bot sends.
FLOOD = b'{"event":"recv","t":12.5,"seat":1,"ms":0.0,"line":"{\\"type\\":\\"pass\\"}"}\n'


def _flood_the_log(path: Path, lines: int) -> None:
    """Put ``lines`` of a bot's flood after the header and the players of the game log at ``path`` (plain text)."""
    from referee.runner.logfile import open_log

    with open_log(path) as handle:
        kept = handle.read().splitlines(keepends=True)
    path.write_bytes(b"".join(kept[:2]) + FLOOD * lines + b"".join(kept[2:]))


def _leaderboard_ms(client: httpx2.Client) -> float:
    started = time.perf_counter()
    assert client.get("/api/leaderboard").status_code == 200
    return (time.perf_counter() - started) * 1000


def test_a_flooding_bots_log_does_not_stall_the_leaderboard(own_ladder: Built) -> None:
    with Ladder.open(own_ladder.root) as ladder:
        path = ladder.game_log(own_ladder.clean_game)
    url_log = f"/api/games/{own_ladder.clean_game}/log"
    ladder = Ladder.open(own_ladder.root)
    # as ``referee ladder serve`` runs it: the pages' reads on the web's own loop
    settings = WebSettings(port=0, rate=100_000)
    app = create_app(LadderAccess(ladder, inline=True), settings)
    server = InThread(partial(serve_web, app, settings))
    with server, httpx2.Client(base_url=server.url, timeout=120) as client:
        public = client.get(url_log).text
        _flood_the_log(path, 250_000)  # 17 MB of a bot's lines
        baseline = [_leaderboard_ms(client) for _ in range(10)]
        answers: list[tuple[int, str]] = []
        start = threading.Barrier(7)

        def reader(address: str) -> None:  # six readers, each from an address of its own
            transport = httpx2.HTTPTransport(local_address=address)
            with httpx2.Client(base_url=server.url, timeout=120, transport=transport) as own:
                start.wait()
                r = own.get(url_log)
                answers.append((r.status_code, r.text))

        readers = [threading.Thread(target=reader, args=(f"127.0.0.{n}",)) for n in range(2, 8)]
        for t in readers:
            t.start()
        start.wait()
        during, held = [], []
        while any(t.is_alive() for t in readers):
            during.append(_leaderboard_ms(client))
            held.append(app.state.web.logs.held())
            time.sleep(0.02)
        for t in readers:
            t.join()
    ladder.close()
    # the leaderboard kept answering while they were read (the web's loop never waited for a log)
    bound = max(1000.0, 20 * statistics.median(baseline))
    assert max(during) < bound, (sorted(during)[-5:], baseline)
    # at most LOGS read at once; the others refused at once with a line saying when to come back
    assert max(held) <= LOGS
    served = [text for status, text in answers if status == 200]
    refused = [text for status, text in answers if status != 200]
    assert 1 <= len(served) <= LOGS + 1, [s for s, _ in answers]
    assert all(text == public for text in served)  # the public log: the flood is no part of it
    assert all("are being sent already" in text for text in refused), refused


def _trickle(url: str, head: str, seconds: float) -> tuple[bytes, float]:
    """Send ``head`` (a request's line and headers), then a byte of body a second, without end: the server's answer
    and how long it took."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=1) as s:
        s.sendall(head.encode())
        started = time.monotonic()
        answer = b""
        while time.monotonic() - started < seconds and b"\r\n\r\n" not in answer:
            try:
                s.sendall(b"#")
                answer += s.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
        took = time.monotonic() - started
        s.settimeout(10)
        with contextlib.suppress(OSError):  # the rest of the answer, till the server closes the connection
            while chunk := s.recv(65536):
                answer += chunk
        return answer, took


def test_serve_cuts_endless_bodies_and_says_nothing_of_a_client_gone_mid_upload(tmp_path: Path) -> None:
    run("ladder", "init", tmp_path / "ladder")
    token = run("ladder", "add", tmp_path / "ladder", "alice").split("shown once: ")[1].split()[0]
    proc = referee("ladder", "serve", tmp_path / "ladder", "--listen", "127.0.0.1:0")
    try:
        assert proc.stdout is not None
        url = None
        while url is None:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            found = re.search(r"pages and API on (http://127\.0\.0\.1:\d+)", line)
            url = found.group(1) if found else None
        host = url.removeprefix("http://")
        # a body that never ends, a byte a second, to a form and to the API's submission: 408 within the documented
        # time (upload_idle: 10 s before a second for every 16 KiB), long before the 120 s of the whole
        upload = (
            f"POST /api/versions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Type: "
            "multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n--b\r\nContent-Disposition: "
            'form-data; name="file"; filename="slow.py"\r\n\r\n'
        )
        form = (
            f"POST /signin HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            "Content-Length: 5000\r\n\r\ntoken="
        )
        cut: dict[str, tuple[bytes, float]] = {}
        trickles = [
            threading.Thread(target=lambda k=k, h=h: cut.__setitem__(k, _trickle(url, h, 30)))
            for k, h in (("upload", upload), ("form", form))
        ]
        for t in trickles:
            t.start()
        # meanwhile a client goes away in the middle of an upload
        with socket.create_connection(("127.0.0.1", int(host.split(":")[1]))) as s:
            s.sendall(
                f"POST /api/versions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Type: "
                "multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n--b\r\nContent-Disposition: "
                'form-data; name="file"; filename="bot.py"\r\n\r\n'.encode()
                + b"#" * 100_000
            )
            time.sleep(0.5)
        for t in trickles:
            t.join()
        for kind, (answer, took) in cut.items():
            assert answer.startswith(b"HTTP/1.1 408"), (kind, answer[:300], took)
            assert took < 15, (kind, took)
        assert b"less than 16,384 bytes a second" in cut["upload"][0]
        assert httpx2.get(f"{url}/api/leaderboard").status_code == 200  # still serving
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) <= 2, err


def test_a_paced_read_waits_for_its_share_of_a_core_past_its_free_start(monkeypatch) -> None:
    from referee.web import reads

    clock = {"cpu": 100.0, "wall": 500.0}
    monkeypatch.setattr(reads.time, "thread_time", lambda: clock["cpu"])
    monkeypatch.setattr(reads.time, "monotonic", lambda: clock["wall"])
    pace = reads.Pace(share=0.25, free=0.05)
    clock["cpu"] += 0.04
    clock["wall"] += 0.04
    assert pace.ahead() == 0.0  # a usual log: within its free start, never waits
    clock["cpu"] += 1.01
    clock["wall"] += 1.01  # a flood's log read flat out: 1 s of CPU past the free start
    assert abs(pace.ahead() - (1.0 / 0.25 - 1.05)) < 1e-9  # so it waits until 4 s have passed
    clock["wall"] += 3.0
    assert pace.ahead() < 0  # and then goes on


def test_uploads_at_the_same_moment_keep_to_the_daily_cap(own_ladder: Built, live_server) -> None:
    config = own_ladder.root / "ladder.toml"
    config.write_text(re.sub(r"(?m)^per_day = .*$", "per_day = 4", config.read_text()))
    with Ladder.open(own_ladder.root) as ladder:
        already = len(ladder.versions("alice"))  # submitted when the ladder was made: within the 24 hours
    server = live_server(rate=100_000)
    answers: list[httpx2.Response] = []
    start = threading.Barrier(12)

    def upload(n: int) -> None:
        with httpx2.Client(base_url=server.url, timeout=120) as client:
            start.wait()
            answers.append(
                client.post(
                    "/api/versions",
                    headers=bearer(own_ladder.tokens["alice"]),
                    files={"file": (f"bot{n}.py", GREEDY + f"# {n}\n".encode() + b"#" * 2_000_000)},
                )
            )

    uploads = [threading.Thread(target=upload, args=(n,)) for n in range(12)]
    for t in uploads:
        t.start()
    for t in uploads:
        t.join()
    taken = [r for r in answers if r.status_code == 201]
    assert len(taken) == 4 - already, [r.status_code for r in answers]
    assert all(r.status_code == 409 and "the most allowed" in r.json()["error"] for r in answers if r not in taken)
    with Ladder.open(own_ladder.root) as ladder:
        assert len(ladder.versions("alice")) == 4
    assert server.app.state.web.intakes.keys() == 0


def test_a_crash_looping_bots_stderr_shows_its_newest_files_only(own_ladder: Built, make_client) -> None:
    with Ladder.open(own_ladder.root) as ladder:
        bots = ladder.layout.bots
    for start in range(40):  # one stderr file a start: a bot that crashed 40 times, 100 KB each
        log = bots / f"alice#1.0.{start}.log"
        log.write_text(f"start {start}\n" + "x" * 100_000)
        os.utime(log, (1_000_000 + start, 1_000_000 + start))
    client = make_client(own_ladder.root)
    logs = client.get("/api/entrants/alice/versions/1/stderr", headers=bearer(own_ladder.tokens["alice"])).json()
    ranked = [f for f in logs if f["name"].startswith("alice#1.0.")]
    assert sorted(f["name"] for f in ranked) == sorted(f"alice#1.0.{s}.log" for s in range(32, 40))
    assert len(logs) <= 8 and all(f["truncated"] and len(f["text"]) == 64 * 1024 for f in ranked)
