"""Hostile clients: oversized and slow uploads, archive bombs and path tricks, bad file names, bad tokens, another
entrant's submissions, oversized forms, floods. Each gets a clear status and one line, and nothing stored changes."""

from __future__ import annotations

import io
import socket
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.ladder import Ladder
from referee.web import WebSettings
from tests.web.conftest import bearer, count_token_checks
from tests.web.ladderdata import ROOT, Built

GREEDY = (ROOT / "sample_bots" / "greedy.py").read_bytes()


def stored(root: Path) -> tuple[int, list[str], list[str]]:
    """What a refusal must not change: the versions, the version folders, what is left in incoming/ and temp."""
    with Ladder.open(root) as ladder:
        versions = sum(len(ladder.versions(e.name)) for e in ladder.entrants())
        folders = sorted(p.name for p in ladder.layout.versions.iterdir())
        incoming = sorted(p.name for p in ladder.layout.incoming.iterdir())
    leftovers = sorted(p.name for p in Path(tempfile.gettempdir()).glob("referee-upload-*"))
    return versions, folders, incoming + leftovers


def tar_gz(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    return info


def bot_archive(extra: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    return tar_gz([(member("bot.toml"), b'command = "python greedy.py"\n'), (member("greedy.py"), GREEDY), *extra])


def test_a_file_and_an_archive_are_submitted(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root)
    alice = bearer(own_ladder.tokens["alice"])
    r = client.post(
        "/api/versions",
        headers=alice,
        files={"file": ("heuristic.py", (ROOT / "sample_bots" / "heuristic.py").read_bytes())},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["key"] == "alice#2" and body["state"] == "submitted" and body["command"] == ["python", "heuristic.py"]
    assert r.headers["location"] == "/api/entrants/alice/versions/2"
    assert client.get(r.headers["location"]).json()["state"] == "submitted"
    archive = tar_gz([(member("bot.toml"), b'command = "python main.py"\n'), (member("main.py"), GREEDY + b"\n# v3\n")])
    r = client.post("/api/versions", headers=alice, files={"file": ("bot.tar.gz", archive)})
    assert r.status_code == 201, r.text
    assert r.json()["key"] == "alice#3" and r.json()["command"] == ["python", "main.py"]
    # the organiser submits for an entrant by name; an entrant only for itself
    r = client.post(
        "/api/versions?entrant=bob", headers=bearer(own_ladder.admin), files={"file": ("b.py", GREEDY + b"#b")}
    )
    assert r.status_code == 201 and r.json()["key"] == "bob#2"
    r = client.post("/api/versions?entrant=bob", headers=alice, files={"file": ("b.py", GREEDY + b"#c")})
    assert r.status_code == 403 and r.json()["error"] == "a token of alice submits only versions of alice"


@pytest.mark.parametrize(
    ("upload", "status", "says"),
    [
        (("bot.tar.gz", bot_archive([(member("../evil.py"), b"x")])), 422, "../evil.py"),
        (("bot.tar.gz", bot_archive([(member("/etc/evil.py"), b"x")])), 422, "/etc/evil.py"),
        (("bot.tar.gz", bot_archive([(member("out", tarfile.SYMTYPE, "/etc/passwd"), None)])), 422, "out"),
        (("bot.tar.gz", bot_archive([(member("dev", tarfile.CHRTYPE), None)])), 422, "dev"),
        (("bot.tar.gz", b"\x1f\x8b not really gzip"), 422, "bot.tar.gz"),
        (("notes.txt", b"not a bot"), 422, "notes.txt"),
        (("..", GREEDY), 400, "'..'"),
        (("bot<script>.py", GREEDY), 400, "bot<script>.py"),
        (("empty.py", b""), 400, "empty"),
    ],
    ids=["dotdot", "absolute", "symlink-out", "device", "bad-gzip", "not-a-bot", "name-dotdot", "name-markup", "empty"],
)
def test_hostile_submissions_are_refused_and_store_nothing(
    own_ladder: Built, make_client, upload, status, says
) -> None:
    client: TestClient = make_client(own_ladder.root)
    before = stored(own_ladder.root)
    r = client.post("/api/versions", headers=bearer(own_ladder.tokens["alice"]), files={"file": upload})
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert says in error and "\n" not in error and "Traceback" not in error
    assert stored(own_ladder.root) == before


def test_an_archive_bomb_is_refused(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("bot.toml", 'command = "python greedy.py"\n')
        z.writestr("greedy.py", GREEDY)
        z.writestr("zeros.bin", b"\0" * (40 * 1024 * 1024))  # 40 MiB in about 40 KiB: past the ratio of 100
    before = stored(own_ladder.root)
    r = client.post(
        "/api/versions", headers=bearer(own_ladder.tokens["alice"]), files={"file": ("bomb.zip", bomb.getvalue())}
    )
    assert r.status_code == 422 and "zeros.bin" in r.json()["error"], r.text
    assert stored(own_ladder.root) == before


def test_oversized_uploads_are_refused_before_storing(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root, WebSettings(max_upload=64 * 1024))
    alice = bearer(own_ladder.tokens["alice"])
    before = stored(own_ladder.root)
    big = GREEDY + b"#" * (200 * 1024)
    r = client.post("/api/versions", headers=alice, files={"file": ("big.py", big)})
    assert r.status_code == 413 and "65,536 bytes" in r.json()["error"] and "smaller" in r.json()["error"]
    # without a Content-Length (chunked): cut as it passes the cap

    def chunks():
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.py"\r\n\r\n'
        for _ in range(100):
            yield b"#" * 4096

    r = client.post(
        "/api/versions", headers={**alice, "Content-Type": "multipart/form-data; boundary=b"}, content=chunks()
    )
    assert r.status_code == 413, r.text
    assert stored(own_ladder.root) == before
    # the other bodies are small: a sign-in form of 100 KB is refused
    r = client.post(
        "/signin", content=b"token=" + b"x" * 100_000, headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert r.status_code == 413
    assert (
        client.post(
            "/api/versions",
            headers=alice,
            content=b"x",
        ).status_code
        == 415
    )


def _slow_upload(url: str, token: str, pauses: list[float]) -> bytes:
    """Send a submission's headers and the start of its body, then a byte after each pause; the server's answer."""
    host, port = url.removeprefix("http://").split(":")
    body_start = b'--b\r\nContent-Disposition: form-data; name="file"; filename="slow.py"\r\n\r\n'
    head = (
        f"POST /api/versions HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=20) as s:
        s.sendall(head + body_start)
        for pause in pauses:
            time.sleep(pause)
            try:
                s.sendall(b"#")
            except OSError:
                break
        s.settimeout(20)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


def test_slow_uploads_are_cut(own_ladder: Built, live_server) -> None:
    server = live_server(upload_idle=0.5, upload_total=1.5)
    before = stored(own_ladder.root)
    idle = _slow_upload(server.url, own_ladder.tokens["alice"], [1.5])
    assert idle.startswith(b"HTTP/1.1 408"), idle[:200]
    assert b"too slow" in idle
    trickle = _slow_upload(server.url, own_ladder.tokens["alice"], [0.3] * 8)
    assert trickle.startswith(b"HTTP/1.1 408"), trickle[:200]
    assert stored(own_ladder.root) == before


def test_bad_tokens_are_refused(client: TestClient, built: Built) -> None:
    for token in (
        "",
        "nonsense",
        "lt-1-" + "A" * 43,
        "lt-999-" + "A" * 43,
        "lt-admin-" + "A" * 43,
        built.tokens["alice"] + "x",
        "x" * 5000,
    ):
        r = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401, token
        assert r.json()["error"] in (
            "the token is not valid: use the one `referee ladder add` printed",
            "sign in first: send Authorization: Bearer TOKEN, or sign in on /signin",
        )
    assert client.get("/api/me", headers={"Authorization": f"Basic {built.tokens['alice']}"}).status_code == 401
    # a wrong cookie only means signed out
    client.cookies.set("referee_token", "lt-1-" + "A" * 43)
    assert client.get("/").status_code == 200
    assert 'id="signin-link"' in client.get("/").text


def test_floods_get_429_per_caller(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root, WebSettings(rate=20))
    codes = [client.get("/api/epochs").status_code for _ in range(25)]
    assert codes[:20] == [200] * 20 and set(codes[20:]) == {429}
    r = client.get("/api/epochs")
    assert int(r.headers["retry-after"]) >= 1 and r.json()["error"].startswith("too many requests: at most 20 a minute")
    # a signed-in author has its own allowance
    assert client.get("/api/epochs", headers=bearer(own_ladder.tokens["bob"])).status_code == 200


def test_a_flood_of_wrong_tokens_costs_few_checks(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root, WebSettings(rate=40))
    checked = count_token_checks(client)
    codes = [client.get("/api/me", headers=bearer(f"lt-1-{i:043d}")).status_code for i in range(10)]
    assert codes[:4] == [401] * 4 and set(codes[4:]) == {429}
    assert len(checked) == 4  # a tenth of the rate: each costs a scrypt
    # a token verified once is not checked again
    for _ in range(3):
        assert client.get("/api/me", headers=bearer(own_ladder.tokens["carol"])).status_code in (200, 429)


def test_behind_a_proxy_the_rate_limit_counts_clients(own_ladder: Built, live_server) -> None:
    import httpx2

    server = live_server(behind_proxy=True, rate=5)
    # what the proxy adds: the client's address (documentation addresses, RFC 5737) and the scheme
    one = {"X-Forwarded-For": "192.0.2.1", "X-Forwarded-Proto": "https"}
    codes = [httpx2.get(f"{server.url}/api/epochs", headers=one).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    assert httpx2.get(f"{server.url}/api/epochs", headers={"X-Forwarded-For": "192.0.2.2"}).status_code == 200
    signed = httpx2.post(
        f"{server.url}/signin", data={"token": own_ladder.tokens["bob"]}, headers={"X-Forwarded-For": "192.0.2.3"}
    )
    assert signed.status_code == 303 and "Secure" in signed.headers["set-cookie"]
