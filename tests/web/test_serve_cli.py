"""``referee ladder serve DIR --listen HOST:PORT`` as a user runs it: one process serving the pages and the API
beside the scheduler, stopped by Ctrl-C; a bad or taken address is one line."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2

from referee.ladder import Ladder
from tests.web.ladderdata import ROOT


def referee(*args: object, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", *map(str, args)], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw,  # type: ignore[call-overload]
    )  # fmt: skip


def run(*args: object) -> str:
    done = subprocess.run([sys.executable, "-m", "referee", *map(str, args)], cwd=ROOT, text=True, capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readmes_three_commands_serve_the_web(tmp_path: Path) -> None:
    """README, "An open contest": init, add, serve; then the entrant's token works on the served API."""
    admin = run("ladder", "init", tmp_path / "ladder").split("shown once: ")[1].split()[0]
    token = run("ladder", "add", tmp_path / "ladder", "alice").split("shown once: ")[1].split()[0]
    proc = referee("ladder", "serve", tmp_path / "ladder", "--listen", "127.0.0.1:0")
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            # every line of serve's is stamped with its UTC second
            stamped = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ladder: "
            found = re.match(stamped + r"pages and API on (http://127\.0\.0\.1:\d+)", line)
            url = found.group(1) if found else None
        assert url is not None
        assert httpx2.get(f"{url}/api/leaderboard").json()["ranked"] == []
        assert httpx2.get(f"{url}/api/me", headers={"Authorization": f"Bearer {admin}"}).json()["admin"] is True
        me = httpx2.get(f"{url}/api/me", headers={"Authorization": f"Bearer {token}"}).json()
        assert me == {"name": "alice", "admin": False}
        # a second serve of the folder is refused before it takes any port
        second = referee("ladder", "serve", tmp_path / "ladder", "--listen", "127.0.0.1:0")
        _, err = second.communicate(timeout=60)
        assert second.returncode != 0 and "referee ladder serve: error:" in err and len(err.strip().splitlines()) == 1
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "stopped" in err


def test_bad_or_taken_addresses_are_one_line(tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "ladder")
    made.close()
    bad = referee("ladder", "serve", tmp_path / "ladder", "--listen", "localhost")
    _, err = bad.communicate(timeout=60)
    assert bad.returncode == 2
    assert err.strip() == (
        "referee ladder serve: error: --listen 'localhost': expected HOST:PORT, for example 127.0.0.1:8023 or "
        "[::1]:8023"
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = referee("ladder", "serve", tmp_path / "ladder", "--listen", f"127.0.0.1:{port}")
        _, err = busy.communicate(timeout=60)
    assert busy.returncode == 2, err
    assert err.strip().startswith(f"referee ladder serve: error: cannot listen on 127.0.0.1:{port}: ")
    assert len(err.strip().splitlines()) == 1
