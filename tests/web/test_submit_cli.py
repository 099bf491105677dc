"""``referee ladder submit --server URL --token-file F PATH`` from a shell against a running server."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from referee.ladder import Ladder
from tests.web.ladderdata import ROOT, Built


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_submit_from_a_shell(own_ladder: Built, live_server, tmp_path: Path) -> None:
    server = live_server()
    token = tmp_path / "token"
    token.write_text(own_ladder.tokens["alice"] + "\n", encoding="utf-8")
    done = referee(
        "ladder", "submit", "--server", server.url, "--token-file", token, ROOT / "sample_bots" / "montecarlo.py"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"alice#2 submitted to {server.url}: submitted"
    # a folder is packed and sent as an archive
    bot = tmp_path / "mybot"
    (bot / "__pycache__").mkdir(parents=True)
    (bot / "__pycache__" / "junk.pyc").write_bytes(b"\0" * 10)
    (bot / "bot.toml").write_text('command = "python main.py"\n', encoding="utf-8")
    (bot / "main.py").write_bytes((ROOT / "sample_bots" / "greedy.py").read_bytes() + b"\n# mine\n")
    done = referee("ladder", "submit", "--server", server.url, "--token-file", token, bot, "--wait", "1")
    assert done.returncode == 2  # nothing serves the gate here: it stays submitted
    assert done.stdout.strip() == f"alice#3 submitted to {server.url}: submitted"
    assert done.stderr.strip() == "referee ladder submit: error: alice#3 is still submitted after 1 s"
    with Ladder.open(own_ladder.root) as ladder:
        v = ladder.version("alice", 3)
        assert v.command == ("python", "main.py") and v.files == 2


def test_submit_refusals_are_one_line(own_ladder: Built, live_server, tmp_path: Path) -> None:
    server = live_server()
    token = tmp_path / "token"
    token.write_text("lt-1-" + "A" * 43, encoding="utf-8")
    bot = ROOT / "sample_bots" / "greedy.py"
    done = referee("ladder", "submit", "--server", server.url, "--token-file", token, bot)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "referee ladder submit: error: the server refused it (401): the token is not valid: use the one "
        "`referee ladder add` printed"
    )
    token.write_text("", encoding="utf-8")
    done = referee("ladder", "submit", "--server", server.url, "--token-file", token, bot)
    assert "is empty" in done.stderr and done.returncode == 2
    token.write_text(own_ladder.tokens["bob"], encoding="utf-8")
    with socket.socket() as s:  # a port nothing listens on, held bound so that no other process's server takes it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        done = referee("ladder", "submit", "--server", f"http://127.0.0.1:{port}", "--token-file", token, bot)
    assert done.returncode == 2 and done.stderr.startswith(
        f"referee ladder submit: error: cannot reach http://127.0.0.1:{port}"
    )
    assert len(done.stderr.strip().splitlines()) == 1
    done = referee("ladder", "submit", "--server", server.url, bot)
    assert done.returncode == 2 and "--token-file" in done.stderr
