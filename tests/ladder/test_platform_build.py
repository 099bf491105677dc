"""Builds done once per worker platform: the platform tag, the files as submitted kept before the gate's build, and
a worker of another platform than the coordinator's building a version itself, once per machine.

The builds are real (``run_build``, in the sandbox when this machine has one, as the gate runs them).
"""

from __future__ import annotations

import json
import os
import sysconfig
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.contest.schedule import TableBatch
from referee.ladder.botmanifest import BotManifest
from referee.ladder.errors import LadderError, VersionBuildError, VersionShipError
from referee.ladder.intake import TreeSize, freeze, tree_digest
from referee.ladder.lanes_ship import BlocksJob, ShippedVersion, _folder
from referee.ladder.platform_build import BuildLimits, build_here, keep_source, pack
from referee.ladder.platforms import PLATFORM_ENV, platform_tag
from referee.runner import RunnerConfig
from referee.settings import BotSettings

# a build whose output differs each time it runs: a second build is seen in its files
STAMPED = ("sh", "-c", 'cat bot.src > bot.py && echo "# built $(date +%s%N)" >> bot.py')
LIMITS = BuildLimits(30.0, TreeSize(1 << 20, 100))
SETTINGS = BotSettings()


def _source(tmp_path: Path, build: tuple[str, ...] = STAMPED) -> tuple[Path, ShippedVersion]:
    folder = tmp_path / "submitted"
    folder.mkdir()
    (folder / "bot.src").write_text("print('bot')\n")
    freeze(folder)
    manifest = BotManifest(("python", "bot.py"), build)
    digest = tree_digest(folder, manifest)
    return folder, ShippedVersion("ann#1", digest, manifest.command, build, source=digest)


def _run(fn: Any, *args: Any) -> Any:
    return trio.run(fn, *args)


def test_the_platform_tag_names_the_machine_and_an_operator_may_set_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PLATFORM_ENV, raising=False)
    assert platform_tag().startswith(sysconfig.get_platform())
    monkeypatch.setenv(PLATFORM_ENV, "linux-aarch64-glibc2.39")
    assert platform_tag() == "linux-aarch64-glibc2.39"
    monkeypatch.setenv(PLATFORM_ENV, "../x y")
    with pytest.raises(LadderError) as err:
        platform_tag()
    assert "REFEREE_PLATFORM='../x y' is not a platform tag" in str(err.value) and "\n" not in str(err.value)


def test_the_files_as_submitted_are_kept_only_while_the_folder_still_holds_them(tmp_path: Path) -> None:
    folder, v = _source(tmp_path)
    kept = tmp_path / "builds" / f"{v.digest}.source.tar.gz"
    assert keep_source(folder, v.manifest, v.digest, kept)
    assert kept.read_bytes() == pack(folder)
    other = tmp_path / "other.tar.gz"
    os.chmod(folder, 0o755)
    (folder / "bot.py").write_text("built\n")  # a folder built already (shared with a version of the same files)
    assert not keep_source(folder, v.manifest, v.digest, other) and not other.exists()


def test_a_version_is_built_once_per_machine_and_platform_by_the_first_process_that_needs_it(tmp_path: Path) -> None:
    folder, v = _source(tmp_path)
    root = tmp_path / "cache"
    root.mkdir()
    builds: list[Path] = []

    def run(fn: Any, *args: Any) -> Any:
        builds.append(args[0])
        return _run(fn, *args)

    got: list[Path] = []

    def need() -> None:
        got.append(
            build_here(
                v.key, v.digest, STAMPED, root=root, platform="plat-b", worker="w", run_key="serve1",
                source=lambda: folder, settings=SETTINGS, limits=LIMITS, run=run,
            )
        )  # fmt: skip

    threads = [threading.Thread(target=need) for _ in range(3)]  # the machine's worker processes, at once
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and got == [root / f"{v.digest}@plat-b"] * 3
    built = got[0]
    assert (root / f"{v.digest}@plat-b.built").exists() and (built / "bot.py").read_text().startswith("print('bot')")
    assert "# built " in (built / "bot.py").read_text()
    assert not os.access(built, os.W_OK) or os.geteuid() == 0  # read-only (root may write anyway)
    assert (folder / "bot.src").exists() and not (folder / "bot.py").exists()  # the files as submitted untouched


def test_a_build_that_fails_says_so_in_one_line_and_is_not_tried_again_in_the_same_serve(tmp_path: Path) -> None:
    failing = ("sh", "-c", "echo no compiler here >&2; exit 3")
    folder, v = _source(tmp_path, failing)
    root = tmp_path / "cache"
    root.mkdir()
    builds: list[str] = []

    def need(run_key: str) -> Path:
        def run(fn: Any, *args: Any) -> Any:
            builds.append(run_key)
            return _run(fn, *args)

        return build_here(
            v.key, v.digest, failing, root=root, platform="plat-b", worker="tcp://10.0.0.7:40123", run_key=run_key,
            source=lambda: folder, settings=SETTINGS, limits=LIMITS, run=run,
        )  # fmt: skip

    with pytest.raises(VersionBuildError) as err:
        need("serve1")
    said = str(err.value)
    assert "\n" not in said and said.startswith(
        "version ann#1: its build for platform plat-b failed on worker tcp://10.0.0.7:40123: the build failed: "
    ), said
    assert said.endswith("not built again on this platform while this serve runs"), said
    assert "no compiler here" in (root / f"{v.digest}@plat-b.log").read_text()
    assert not (root / f"{v.digest}@plat-b").exists()  # nothing half-built kept
    with pytest.raises(VersionBuildError) as again:
        need("serve1")  # another worker process of the machine, same serve: the failure read, no build
    assert str(again.value) == said and builds == ["serve1"]
    with pytest.raises(VersionBuildError):
        need("serve2")  # a later serve tries again
    assert builds == ["serve1", "serve2"]


def _job(v: ShippedVersion, **rest: Any) -> BlocksJob:
    config = RunnerConfig.of(SETTINGS)
    return BlocksJob("serve1", ((TableBatch(1, ()), (v,)),), config, {}, 2, platform="plat-a", build=LIMITS, **rest)


def test_a_worker_plays_the_built_files_on_the_coordinators_platform_and_builds_them_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import referee.ladder.lanes_ship as ship

    folder, v = _source(tmp_path)
    built = tmp_path / "built"  # the coordinator's build, as it ships it
    built.mkdir()
    (built / "bot.src").write_text("print('bot')\n")
    (built / "bot.py").write_text("print('bot')\n# built on the coordinator\n")
    shipped = replace(v, digest=tree_digest(built, v.manifest))
    packs = {shipped.digest: pack(built), v.digest: pack(folder)}
    asked: list[str] = []

    def scheduler(digest: str) -> bytes:
        asked.append(digest)
        return packs[digest]

    monkeypatch.setattr(ship, "_from_scheduler", scheduler)
    monkeypatch.setenv("REFEREE_VERSION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(PLATFORM_ENV, "plat-a")
    here = _folder(shipped, _job(shipped), "w", [])
    assert here == tmp_path / "cache" / shipped.digest and asked == [shipped.digest]
    monkeypatch.setenv(PLATFORM_ENV, "plat-b")
    monkeypatch.setattr(ship, "_lanes", lambda: type("L", (), {"call": staticmethod(_run)})())
    unbuilt: list[tuple[str, str, str]] = []
    here = _folder(shipped, _job(shipped), "w", unbuilt)
    assert here == tmp_path / "cache" / f"{v.digest}@plat-b" and asked == [shipped.digest, v.digest]
    assert "# built on the coordinator" not in (here / "bot.py").read_text() and unbuilt == []
    # a build the coordinator knows failed on this platform in this serve: not tried, its line said again
    other = replace(shipped, source="f" * 64)
    with pytest.raises(VersionBuildError, match=r"^it failed before$"):
        _folder(other, _job(other, unbuilt=(("f" * 64, "plat-b", "it failed before"),)), "w", unbuilt)
    assert asked == [shipped.digest, v.digest]
    # files as submitted that were not kept: a line saying what to do
    with pytest.raises(VersionShipError, match=r"were not kept on the coordinator.*submit it again"):
        _folder(replace(shipped, source=None), _job(shipped), "w", unbuilt)


def test_a_failed_build_is_sent_back_for_the_coordinator_to_remember(tmp_path: Path, monkeypatch: Any) -> None:
    import referee.ladder.lanes_ship as ship

    failing = ("sh", "-c", "exit 1")
    folder, v = _source(tmp_path, failing)
    monkeypatch.setattr(ship, "_from_scheduler", lambda digest: pack(folder))
    monkeypatch.setattr(ship, "_lanes", lambda: type("L", (), {"call": staticmethod(_run)})())
    monkeypatch.setenv("REFEREE_VERSION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(PLATFORM_ENV, "plat-b")
    unbuilt: list[tuple[str, str, str]] = []
    with pytest.raises(VersionBuildError) as err:
        _folder(v, _job(v), "w", unbuilt)
    assert unbuilt == [(v.digest, "plat-b", str(err.value))]
    failed = json.loads((tmp_path / "cache" / f"{v.digest}@plat-b.failed").read_text())
    assert failed == {"serve": "serve1", "reason": str(err.value)}
