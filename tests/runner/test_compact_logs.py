"""Compressed and compact game logs: a tournament's logs are one Zstandard frame each (``zstdcat`` prints them), and
every reader reads plain, Zstandard and gzip logs alike; a compact log leaves out the messages and replies and
still verifies and replays; a compressed file cut short, corrupt or inflating without bound is one ``LogError``."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import trio
import zstandard

from referee.cli.options import LOG_LEVELS
from referee.report import read_game_log
from referee.runner import LogError, gamelog, play_game, read_log, verify_log
from referee.runner.gamelog import log_content, read_header
from referee.runner.logfile import LogLevel, log_name
from referee.runner.render import render_log

from .scripted import ScriptedEntrant


def _game(path: Path, *, seed: int = 5, wire: bool = True) -> None:
    players = [ScriptedEntrant("a"), ScriptedEntrant("b"), ScriptedEntrant("c")]
    trio.run(lambda: play_game(players, game_id="g1", seed=seed, log_path=path, log_wire=wire))


def _events(content: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in content.splitlines()]


def _timeless(content: bytes) -> list[str]:
    """The lines without their times, sorted (the times and the order of a round's deals differ between games)."""
    return sorted(json.dumps({k: v for k, v in e.items() if k not in ("t", "ms")}) for e in _events(content))


def test_a_zst_log_is_one_zstandard_frame_of_the_same_lines_and_reads_everywhere(tmp_path: Path) -> None:
    plain, packed = tmp_path / "g.jsonl", tmp_path / "g.jsonl.zst"
    _game(plain)
    _game(packed)
    data = packed.read_bytes()
    assert data[:4] == b"\x28\xb5\x2f\xfd" and len(data) * 5 < plain.stat().st_size
    content = zstandard.ZstdDecompressor().decompress(data, max_output_size=10**8)
    assert _timeless(content) == _timeless(plain.read_bytes())
    assert log_content(packed) == content
    events = read_log(packed)
    assert verify_log(events).ok
    assert render_log(events) and read_header(packed).game == "g1"
    assert read_game_log(packed).scores == read_game_log(plain).scores
    if shutil.which("zstdcat"):  # the plain tool reads it too
        assert subprocess.run(["zstdcat", packed], capture_output=True, check=True).stdout == content


def test_a_log_written_in_pieces_is_one_frame_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gamelog, "HOLD", 1_000)
    packed = tmp_path / "g.jsonl.zst"
    _game(packed)
    assert verify_log(read_log(packed)).ok


def test_gzip_and_plain_logs_of_an_older_folder_read_alike(tmp_path: Path) -> None:
    plain = tmp_path / "g000001.jsonl"
    _game(plain)
    zipped = tmp_path / "g000001.jsonl.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    assert log_content(zipped) == log_content(plain) == plain.read_bytes()
    assert read_log(zipped) == read_log(plain)


def test_a_compact_log_keeps_the_moves_not_the_wire_and_still_verifies(tmp_path: Path) -> None:
    full, compact = tmp_path / "full.jsonl.zst", tmp_path / "compact.jsonl.zst"
    _game(full)
    _game(compact, wire=False)
    kinds = {e["event"] for e in _events(log_content(compact))}
    assert "send" not in kinds and "recv" not in kinds and {"action", "discard", "result"} <= kinds
    assert _events(log_content(compact))[0]["wire"] is False and "wire" not in _events(log_content(full))[0]
    assert len(log_content(compact)) * 3 < len(log_content(full))
    verdict = verify_log(read_log(compact))
    assert verdict.ok and "compact log" in verdict.message
    assert verdict.actions == verify_log(read_log(full)).actions
    assert read_game_log(compact).steps == read_game_log(full).steps
    # a compact log is still checked against the engine: a changed score disagrees
    lines = log_content(compact).decode().splitlines()
    result = json.loads(lines[-1])
    result["scores"][0] += 1
    forged = tmp_path / "forged.jsonl.zst"
    forged.write_bytes(zstandard.compress("\n".join([*lines[:-1], json.dumps(result)]).encode() + b"\n"))
    assert not verify_log(read_log(forged)).ok


def test_a_cut_short_corrupt_or_inflating_compressed_log_is_one_log_error(tmp_path: Path) -> None:
    packed = tmp_path / "g.jsonl.zst"
    _game(packed)
    data = packed.read_bytes()
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(data[: len(data) - 10])
    with pytest.raises(LogError, match=r"cut\.jsonl\.zst.*cut short"):
        read_log(cut)
    bad = tmp_path / "bad.jsonl.zst"
    bad.write_bytes(data[:4] + b"\x00" * 64)
    with pytest.raises(LogError, match=r"bad\.jsonl\.zst is not a readable compressed game log"):
        read_log(bad)
    # 256 MiB of one byte in a few kB: the reader stops at its line limit, never holding the whole of it
    bomb = tmp_path / "bomb.jsonl.zst"
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    chunk = b"a" * (1 << 20)
    bomb.write_bytes(b"".join(compressor.compress(chunk) for _ in range(256)) + compressor.flush())
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(LogError, match="longer than"):
        read_log(bomb)
    gz = tmp_path / "cut.jsonl.gz"
    gz.write_bytes(gzip.compress(log_content(packed))[:-20])
    with pytest.raises(LogError, match=r"cut\.jsonl\.gz"):
        read_log(gz)


def test_the_cli_levels_are_the_log_levels_and_name_their_files() -> None:
    assert tuple(level.value for level in LogLevel) == LOG_LEVELS
    assert log_name("g000001", LogLevel.FULL) == log_name("g000001", LogLevel.COMPACT) == "g000001.jsonl.zst"
    assert log_name("g000001", LogLevel.NONE) is None
