"""The human seat through a real terminal: ``referee play --human`` in a pseudo-terminal, against a sample bot, to
the end of the game. The person discards, sees the others' actions and the numbered moves with their cost, picks
moves by number and by shorthand, and is told the engine's reason for an illegal one."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "sample_bots" / "random_bot.py"
PROMPTS = re.compile(rb"(Discard \d+ cards \(not the 1\), e\.g\. '([\d ]*)': |Your move \(.*?\): )$")
LISTED = re.compile(r"(\d+)\) (\S+)\s")


class Terminal:
    """A child process on a pseudo-terminal: everything it wrote, and lines typed at its prompts."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, close_fds=True)
        os.close(slave)
        self.seen = b""

    def until_prompt(self, timeout: float = 60) -> re.Match[bytes] | None:
        """Read until the output ends in a prompt (returned) or the child ends (None)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            match = PROMPTS.search(self.seen)
            if match is not None:
                return match
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    return None
                if not chunk:
                    return None
                self.seen += chunk.replace(b"\r\n", b"\n")
            elif self.proc.poll() is not None:
                return None
        raise AssertionError("no prompt within the time:\n" + self.seen[-2000:].decode(errors="replace"))

    def type(self, text: str) -> bytes:
        """Answer the prompt; the output so far is kept apart from what comes next (returned)."""
        shown, self.seen = self.seen, b""
        os.write(self.master, text.encode() + b"\n")
        return shown

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        os.close(self.master)


def test_a_person_plays_a_whole_game_in_a_terminal(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "referee", "play", "--human", str(BOT), "--seed", "11", "--sandbox", "none"]
    term = Terminal([*argv, "--log", str(tmp_path / "game.jsonl")], tmp_path)
    screens: list[str] = []
    tried = {"illegal": False, "shorthand": False, "bad number": False}
    try:
        while (prompt := term.until_prompt()) is not None:
            if prompt.group(1).startswith(b"Discard"):
                screens.append(term.type(prompt.group(2).decode()).decode())
                continue
            screen = term.seen.decode()
            moves = LISTED.findall(screen[screen.rfind("Your moves") :])
            plays = [(n, m) for n, m in moves if "x" in m]
            if not tried["bad number"]:
                tried["bad number"] = True
                answer = str(len(moves) + 1)
            elif not tried["illegal"]:
                tried["illegal"] = True
                answer = "23x4+3"  # nobody holds four 23s
            elif plays and not tried["shorthand"]:
                tried["shorthand"] = True
                answer = plays[-1][1]  # the shorthand of the last listed play, not its number
            else:
                answer = plays[0][0] if plays else "drop"
            screens.append(term.type(answer).decode())
        screens.append(term.seen.decode())
        term.proc.wait(timeout=30)
    finally:
        term.close()
    text = "".join(screens)
    assert term.proc.returncode == 0, text[-3000:]
    assert all(tried.values()), tried
    # The moves are numbered, each with its cost; a number past the list and an illegal move are explained.
    assert re.search(r"^\s*1\) \S+\s+-?\d+ chips?", text, re.M)
    assert re.search(r"there is no move \d+: pick a number from 1 to \d+", text), text[:3000]
    assert "23x4+3 is not legal: you spend 3 bonus chips but hold" in text or "23x4+3 is not legal: you hold" in text
    # The others' actions since the person's last turn.
    assert re.search(r"^  seat 1 random_bot (played|passed|dropped)", text, re.M)
    # The game ends in the terminal, with the result.
    assert "=== game over ===" in text and "rank" in text
    assert "cannot read" not in text  # the shorthand was read
    assert "Traceback" not in text
