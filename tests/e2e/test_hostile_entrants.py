"""Attacks of a hostile entrant on the sandbox itself: code in the launcher, kernel channels between sandboxes,
the writable space, and what a bot can see of a contest kept in a system folder."""

from __future__ import annotations

import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from referee.runner import BotSpec, Limits, parse_bot_spec
from referee.runner.sandbox import LAUNCHER_ENV, bot_argv
from referee.runner.syscall_filter import filter_fd, filter_problem
from referee.tournament import load_manifest

from .helpers import BOTS, HAVE_BWRAP, assert_verified, bot, config, new_mark, processes_with, run_games

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
    shutil.copy(BOTS / "honest.py", tmp_path / "honest.py")
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
        f'name = "honest"\ncommand = "honest.py"\nenv = {{ REFEREE_TEST_MARK = "{mark}" }}\n'
    )
    specs = load_manifest(manifest)
    (result,), _ = run_games(specs, config("bwrap"), tmp_path)
    assert not marker.exists(), marker.read_text()  # nothing ran outside the sandbox
    said = (tmp_path / "seat0.evil.stderr.log").read_text()
    assert "preloaded in" in said and "bwrap" not in said  # it ran, inside, as the bot's own program
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []


def _lock_game(mode: str, tmp_path: Path) -> tuple[str, str]:
    mark = new_mark()
    holder = replace(bot("lock_signal", mark, LOCK_ROLE="hold"), name="holder")
    prober = replace(bot("lock_signal", mark, LOCK_ROLE="probe"), name="prober")
    (result,), _ = run_games([holder, prober], config(mode), tmp_path)
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []
    return (tmp_path / "seat0.holder.stderr.log").read_text(), (tmp_path / "seat1.prober.stderr.log").read_text()


def test_bots_cannot_signal_each_other_through_file_locks(tmp_path: Path) -> None:
    """Two bots playing at once share /etc/passwd (read-only in both sandboxes). One locks it (flock, a POSIX
    record lock, an open-file-description lock); the other looks for the locks. Inside bubblewrap (the seccomp
    filter) taking a lock succeeds and does nothing, and asking about one fails with EPERM, so the second bot
    learns nothing, and both play on."""
    held, probed = _lock_game("bwrap", tmp_path)
    for what in ("flock", "posix", "ofd"):
        assert f"hold: {what} took" in held
    assert "probe: flock saw nothing" in probed
    for what in ("posix", "ofd"):
        assert f"probe: {what} refused (Operation not permitted)" in probed
    assert "saw a lock" not in probed


def test_lock_signal_bots_get_through_without_sandbox(tmp_path: Path) -> None:
    """The control: outside the sandbox the same two bots do pass the signal."""
    held, probed = _lock_game("none", tmp_path)
    for what in ("flock", "posix", "ofd"):
        assert f"hold: {what} took" in held
        assert f"probe: {what} saw a lock" in probed


def _vsock_game(mode: str, tmp_path: Path, way: str = "socket") -> tuple[str, str]:
    mark, port = new_mark(), str(40000 + os.getpid() % 20000 + (way == "uring"))
    holder = replace(bot("vsock_signal", mark, VSOCK_ROLE="hold", VSOCK_PORT=port, VSOCK_WAY=way), name="holder")
    prober = replace(bot("vsock_signal", mark, VSOCK_ROLE="probe", VSOCK_PORT=port, VSOCK_WAY=way), name="prober")
    (result,), _ = run_games([holder, prober], config(mode), tmp_path)
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []
    return (tmp_path / "seat0.holder.stderr.log").read_text(), (tmp_path / "seat1.prober.stderr.log").read_text()


def _vsock_works() -> bool:
    try:
        with socket.socket(40, socket.SOCK_STREAM) as sock:  # AF_VSOCK
            sock.bind((0xFFFFFFFF, 0xFFFFFFFF))  # any free port
    except OSError:
        return False
    return True


@pytest.mark.skipif(filter_problem() is not None or platform.machine() != "x86_64", reason="no seccomp filter")
@pytest.mark.parametrize(
    ("way", "refusal"),
    [("socket", "Address family not supported by protocol"), ("uring", "Operation not permitted")],
)
def test_bots_cannot_signal_each_other_through_vsock_ports(tmp_path: Path, way: str, refusal: str) -> None:
    """vsock's ports are one space for the whole machine, whatever the network namespace: a bot binding one is
    seen by any other that tries it. Inside bubblewrap the seccomp filter refuses a vsock socket (EAFNOSUPPORT),
    and an io_uring (whose socket operation would get round that rule) with EPERM, so neither bot gets one, and
    both play on."""
    held, probed = _vsock_game("bwrap", tmp_path, way)
    assert f"hold: refused ({refusal})" in held
    assert f"probe: refused ({refusal})" in probed


@pytest.mark.skipif(not _vsock_works() or platform.machine() != "x86_64", reason="no vsock on this machine")
@pytest.mark.parametrize("way", ["socket", "uring"])
def test_vsock_signal_bots_get_through_without_sandbox(tmp_path: Path, way: str) -> None:
    """The control: where the machine has vsock, the same two bots outside the sandbox do pass the signal, with a
    socket of either way."""
    held, probed = _vsock_game("none", tmp_path, way)
    assert "hold: bound" in held
    assert "probe: port taken" in probed


FILTER_PROBE = r"""
import ctypes, errno, os, struct
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *args):
    ok = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args]) >= 0
    return "ok" if ok else errno.errorcode[ctypes.get_errno()]
fd = os.open("/etc/passwd", os.O_RDONLY)
buf = ctypes.create_string_buffer(struct.pack("hhqqi4x", 1, 0, 0, 0, 0))
addr = ctypes.addressof(buf)
print("inotify_init1", call(294, 0))                     # x86_64 system call numbers
print("keyctl", call(250, 0, -3, 0, 0, 0))
print("getlk", call(72, fd, 5, addr))
print("ofd_getlk_high_bits", call(72, fd, (1 << 32) | 36, addr))
print("setlease", call(72, fd, 1024, 0))
print("shmget", call(29, 0, 1 << 20, 0o1600))                # IPC_PRIVATE, 1 MiB, IPC_CREAT | 0600
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="system call numbers of x86_64")
def test_the_filter_refuses_watches_keyrings_lock_queries_and_shared_memory(tmp_path: Path) -> None:
    """The calls the filter refuses fail with EPERM inside the sandbox, and a command with high bits set (which
    the kernel drops) cannot slip past it."""
    spec = BotSpec("probe", (sys.executable, "-c", FILTER_PROBE), tmp_path)
    fd = filter_fd()
    assert fd is not None, filter_problem()
    try:
        argv = bot_argv(spec, "bwrap", seccomp_fd=fd)
        done = subprocess.run(argv, pass_fds=(fd,), capture_output=True, text=True, timeout=60, env=LAUNCHER_ENV)
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    said = dict(line.split() for line in done.stdout.splitlines())
    calls = ("inotify_init1", "keyctl", "getlk", "ofd_getlk_high_bits", "setlease", "shmget")
    assert said == dict.fromkeys(calls, "EPERM")


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_memfd_memory_is_capped_inside_the_sandbox(tmp_path: Path, mode: str) -> None:
    """A memfd holds memory outside every mapping and file system, so outside the address-space limit and the
    sandbox's size cap: the bot asks for 64 MiB of them. In the sandbox memfd_create fails with ENOSYS (as on a
    kernel without it), and the bot plays on; with --sandbox none (trusted bots) it holds them all, as README says."""
    mark = new_mark()
    specs = [bot("memfd_hog", mark), bot("honest", mark)]
    (result,), _ = run_games(specs, config(mode), tmp_path)
    assert result.faults == ()
    said = (tmp_path / "seat0.memfd_hog.stderr.log").read_text()
    assert said.strip() == ("memfd: refused (ENOSYS)" if mode == "bwrap" else "memfd: held 64 MiB")
    assert processes_with(mark) == []


SAMPLE = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot.py"


@pytest.fixture(params=["/opt", "/usr/local"])
def system_contest(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A contest kept under a system folder (which the sandbox used to bind whole): a manifest, a one-file spy and
    a one-file victim sharing ``bots/``, a folder bot with a secret, and the results of an earlier run."""
    contest = Path(tempfile.mkdtemp(prefix="referee-test-", dir=request.param))
    try:
        bots = contest / "bots"
        (bots / "folderbot").mkdir(parents=True)
        shutil.copy(BOTS / "spy.py", bots / "spy.py")
        shutil.copy(SAMPLE, bots / "victim.py")
        shutil.copy(SAMPLE, bots / "folderbot" / "bot.py")
        (bots / "folderbot" / "secret.txt").write_text("the folder bot's secret\n")
        (contest / "old-results" / "games").mkdir(parents=True)
        (contest / "old-results" / "results.sqlite").write_bytes(b"SQLite format 3\0")
        (contest / "old-results" / "games" / "g000001.jsonl").write_text('{"type": "deal"}\n')
        (contest / "bots.toml").write_text(
            '[[bot]]\ncommand = "bots/spy.py"\n\n[[bot]]\ncommand = "bots/victim.py"\n\n'
            '[[bot]]\nname = "folderbot"\ncommand = "bot.py"\ncwd = "bots/folderbot"\n'
        )
        yield contest
    finally:
        shutil.rmtree(contest, ignore_errors=True)


def test_a_contest_under_a_system_folder_is_hidden_from_its_bots(system_contest: Path) -> None:
    """Kept under /opt or /usr/local, the contest is still out of every bot's sight: the spy (one file sharing
    ``bots/`` with another entrant) reads neither that entrant's file, the folder bot's folder, the manifest, the
    results (database, game logs, while the tournament runs) nor an earlier run's results."""
    said = _spy_run(system_contest / "bots.toml", system_contest / "results")
    assert said.count("spy: blocked") >= 10, said
    assert "spy: read" not in said


def _spy_run(manifest: Path, results: Path) -> str:
    """Run the contest of ``manifest`` in bubblewrap; what the spy said."""
    options = ["-n", "1", "--sandbox", "bwrap", "-o", str(results), "-j", "1", "--seed", "5"]
    done = subprocess.run(
        [sys.executable, "-m", "referee", "run", "--manifest", str(manifest), *options],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return "".join(p.read_text() for p in (results / "bots").glob("spy.*.log"))


def test_every_writable_place_of_the_sandbox_is_inside_one_cap(tmp_path: Path) -> None:
    """A bot that fills each place it can write (/, /tmp, /dev, /dev/shm, its folder, every mount point) writes
    at most the one cap in all: /tmp and /dev/shm share it, everything else is read-only."""
    mark = new_mark()
    cap = 8 * 1024 * 1024
    specs = [bot("space_filler", mark), bot("honest", mark)]
    (result,), _ = run_games(specs, config("bwrap", limits=Limits(tmp_size=cap)), tmp_path)
    assert result.faults == ()
    said = (tmp_path / "seat0.space_filler.stderr.log").read_text()
    assert "fill /tmp: " in said and "fill /dev/shm: " in said and "fill /: 0 MiB" in said
    assert 0 < float(said.split("fill total MiB: ")[1].split()[0]) <= cap / 2**20
    assert processes_with(mark) == []


def test_the_manifest_and_a_neighbours_file_are_hidden_from_a_bot_beside_them(tmp_path: Path) -> None:
    """One-file bots kept beside their manifest: a bot's folder holds the manifest (every entrant's command and
    environment), the other entrant's file and the contest's repository (every entrant's files, every version); the
    sandbox covers all three."""
    shutil.copy(BOTS / "spy.py", tmp_path / "spy.py")
    shutil.copy(SAMPLE, tmp_path / "victim.py")
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    shutil.copy(SAMPLE, tmp_path / ".git" / "objects" / "victim-blob")
    targets = f"{tmp_path / 'bots.toml'}:{tmp_path / 'victim.py'}:{tmp_path / '.git'}"
    (tmp_path / "bots.toml").write_text(
        f'[[bot]]\ncommand = "spy.py"\nenv = {{ SPY_PATHS = "{targets}" }}\n\n[[bot]]\ncommand = "victim.py"\n'
    )
    said = _spy_run(tmp_path / "bots.toml", tmp_path / "results")
    assert said.count("spy: blocked") >= 3 and "spy: read" not in said, said


def test_earlier_results_kept_in_a_bots_folder_are_hidden_from_it(tmp_path: Path) -> None:
    """A bot's folder holding the results of earlier runs (a results folder, ``referee-logs/`` of ``referee play``):
    the game logs there name every hand of those deals; the sandbox covers them."""
    folder = tmp_path / "mybot"
    for old in (folder / "old-results" / "games", folder / "referee-logs"):
        old.mkdir(parents=True)
        (old / "g000001.jsonl").write_text('{"event": "deal"}\n' * 3)
    (folder / "old-results" / "results.sqlite").write_bytes(b"SQLite format 3\0")
    for name in ("log_reader.py", "_base.py"):
        shutil.copy(BOTS / name, folder / name)
    mark = new_mark()
    reader = replace(parse_bot_spec(str(folder / "log_reader.py")), env={"REFEREE_TEST_MARK": mark})
    (result,), _ = run_games([reader, bot("honest", mark)], config("bwrap"), tmp_path / "out")
    assert result.faults == ()
    said = (tmp_path / "out" / "seat0.log_reader.stderr.log").read_text()
    assert said and all(line == "log_reader: 0 deal lines" for line in said.splitlines()), said
