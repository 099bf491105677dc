"""Versions shipped by digest: a worker unpacks a version's files, checks them against the digest and keeps them
read-only in its cache; files that do not hash to the digest are refused and never put in place."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from referee.ladder.botmanifest import BotManifest
from referee.ladder.errors import VersionShipError
from referee.ladder.intake import freeze, tree_digest
from referee.ladder.lanes_ship import ShippedVersion, fetch, pack


def _version(tmp_path: Path) -> tuple[Path, ShippedVersion]:
    folder = tmp_path / "stored"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "lib" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(folder / "lib" / "run.sh", 0o755)
    os.symlink("lib/run.sh", folder / "run")
    freeze(folder)
    manifest = BotManifest(("python", "bot.py"), None)
    return folder, ShippedVersion("ann#1", tree_digest(folder, manifest), manifest.command, manifest.build)


def test_a_version_is_fetched_once_checked_against_its_digest_and_kept_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_VERSION_CACHE", str(tmp_path / "cache"))
    folder, version = _version(tmp_path)
    asked: list[str] = []

    def get(digest: str) -> bytes:
        asked.append(digest)
        return pack(folder)

    here = fetch(version, get)
    assert here == tmp_path / "cache" / version.digest
    assert tree_digest(here, version.manifest) == version.digest
    assert os.readlink(here / "run") == "lib/run.sh" and os.access(here / "lib" / "run.sh", os.X_OK)
    assert not os.access(here / "bot.py", os.W_OK) or os.geteuid() == 0
    assert fetch(version, get) == here and asked == [version.digest]  # the second block uses the cached copy


def test_files_that_do_not_match_the_digest_are_refused_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_VERSION_CACHE", str(tmp_path / "cache"))
    _, version = _version(tmp_path)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = b"print('something else')\n"
        info = tarfile.TarInfo("bot.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(VersionShipError, match=r"version ann#1: the files fetched hash to .*not to its digest"):
        fetch(version, lambda _: buffer.getvalue())
    with pytest.raises(VersionShipError, match="cannot unpack its files here"):
        fetch(version, lambda _: b"not a tar")
    assert list((tmp_path / "cache").iterdir()) == []  # nothing half-unpacked or unchecked left behind
