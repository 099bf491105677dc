"""Attacks of a hostile entrant on the sandbox itself: code in the launcher, kernel channels between sandboxes,
the writable space, and what a bot can see of a contest kept in a system folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from referee.tournament import load_manifest

from .helpers import BOTS, HAVE_BWRAP, assert_verified, config, new_mark, processes_with, run_games

pytestmark = [pytest.mark.sandbox, pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap absent")]

EVIL_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void evil(void) {
    char exe[4096] = {0};
    char line[4200];
    if (readlink("/proc/self/exe", exe, sizeof exe - 1) < 0) strcpy(exe, "?");
    int n = snprintf(line, sizeof line, "preloaded in %s\n", exe);
    int fd = open(MARKER, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) { write(fd, line, n); close(fd); }
    write(2, line, n);
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc absent")
def test_a_manifest_ld_preload_never_runs_outside_the_sandbox(tmp_path: Path) -> None:
    """``env = { LD_PRELOAD = "./evil.so" }`` in an entrant's table: the library's constructor tries to write a
    marker file on the host. The launcher (bwrap) runs with a fixed environment, so it never loads the library;
    the bot's program inside the sandbox does (its environment is the manifest's), but cannot write the marker."""
    entrant = tmp_path / "entrant"
    entrant.mkdir()
    shutil.copy(BOTS / "honest.py", entrant / "bot.py")
    marker = tmp_path / "outside" / "marker"
    marker.parent.mkdir()
    (tmp_path / "evil.c").write_text(EVIL_C)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", f'-DMARKER="{marker}"', "-o", str(entrant / "evil.so"), str(tmp_path / "evil.c")],
        check=True,
        capture_output=True,
    )
    mark = new_mark()
    manifest = tmp_path / "bots.toml"
    manifest.write_text(
        "[[bot]]\n"
        'name = "evil"\ncommand = "bot.py"\ncwd = "entrant"\n'
        f'env = {{ LD_PRELOAD = "./evil.so", REFEREE_TEST_MARK = "{mark}" }}\n'
        "[[bot]]\n"
        f'name = "honest"\ncommand = "{BOTS / "honest.py"}"\nenv = {{ REFEREE_TEST_MARK = "{mark}" }}\n'
    )
    specs = load_manifest(manifest)
    (result,), _ = run_games(specs, config("bwrap"), tmp_path)
    assert not marker.exists(), marker.read_text()  # nothing ran outside the sandbox
    said = (tmp_path / "seat0.evil.stderr.log").read_text()
    assert "preloaded in" in said and "bwrap" not in said  # it ran, inside, as the bot's own program
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []
