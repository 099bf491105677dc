"""Submissions are hostile input: every refusal is one line naming the entry, and nothing refused is kept."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from referee.ladder.errors import IntakeError
from referee.ladder.intake import IntakeLimits, discard, stage

BOT = b"import sys\nprint('hello')\n"
MANIFEST = b'command = "python bot.py"\n'


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def _file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def _special(name: str, kind: bytes, target: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def _zip(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return path


def _refused(source: Path, incoming: Path, limits: IntakeLimits | None = None) -> str:
    with pytest.raises(IntakeError) as err:
        stage(source, incoming, limits or IntakeLimits())
    message = str(err.value)
    assert "\n" not in message
    assert not list(incoming.iterdir()), "a refused submission left files behind"
    return message


@pytest.fixture
def incoming(tmp_path: Path) -> Path:
    folder = tmp_path / "incoming"
    folder.mkdir()
    return folder


def test_a_tar_gz_with_bot_toml_is_unpacked_and_hashed(tmp_path: Path, incoming: Path) -> None:
    archive = _tar(
        tmp_path / "bot.tar.gz", [_file("bot.toml", MANIFEST), _file("bot.py", BOT), _file("lib/x.txt", b"x")]
    )
    staged = stage(archive, incoming)
    assert staged.kind == "tar"
    assert staged.manifest.command == ("python", "bot.py")
    assert (staged.folder / "lib" / "x.txt").read_bytes() == b"x"
    again = stage(archive, incoming)
    assert again.digest == staged.digest  # content-addressed: the same bot, the same digest
    discard(again.staging)
    other = _tar(tmp_path / "b2.tar.gz", [_file("bot.toml", MANIFEST), _file("bot.py", BOT + b"#")])
    assert stage(other, incoming).digest != staged.digest


def test_an_archive_packing_one_folder_uses_that_folder(tmp_path: Path, incoming: Path) -> None:
    archive = _tar(tmp_path / "bot.tgz", [_file("mybot/bot.toml", MANIFEST), _file("mybot/bot.py", BOT)])
    staged = stage(archive, incoming)
    assert (staged.folder / "bot.py").is_file()


def test_a_zip_and_a_folder_and_a_lone_file(tmp_path: Path, incoming: Path) -> None:
    z = _zip(
        tmp_path / "bot.zip", [("bot.toml", b'command = ["./run"]\n', 0o100644), ("run", b"#!/bin/sh\n", 0o100755)]
    )
    staged = stage(z, incoming)
    assert staged.kind == "zip" and os.access(staged.folder / "run", os.X_OK)
    folder = tmp_path / "src"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text("ref")
    (folder / "bot.toml").write_bytes(MANIFEST)
    (folder / "bot.py").write_bytes(BOT)
    staged = stage(folder, incoming)
    assert staged.kind == "folder" and not (staged.folder / ".git").exists()
    lone = tmp_path / "solo.py"
    lone.write_bytes(BOT)
    staged = stage(lone, incoming)
    assert staged.kind == "file" and staged.manifest.command == ("python", "solo.py")


@pytest.mark.parametrize(
    ("member", "words"),
    [
        (_file("/etc/evil", b"x"), "absolute path"),
        (_file("../evil", b"x"), "out of the archive"),
        (_file("a/../../evil", b"x"), "out of the archive"),
        (_file("a\\b", b"x"), "backslash"),
        (_file("bad\x1bname", b"x"), "unprintable"),
        (_special("link", tarfile.SYMTYPE, "/etc/passwd"), "symbolic link"),
        (_special("link", tarfile.SYMTYPE, "../../outside"), "out of the archive"),
        (_special("hard", tarfile.LNKTYPE, "bot.py"), "hard link"),
        (_special("dev", tarfile.CHRTYPE), "device"),
        (_special("blk", tarfile.BLKTYPE), "device"),
        (_special("fifo", tarfile.FIFOTYPE), "FIFO"),
    ],
)
def test_each_hostile_tar_entry_is_refused_by_name(
    tmp_path: Path, incoming: Path, member: tuple[tarfile.TarInfo, bytes | None], words: str
) -> None:
    archive = _tar(tmp_path / "bot.tar.gz", [_file("bot.toml", MANIFEST), _file("bot.py", BOT), member])
    message = _refused(archive, incoming)
    assert words in message
    assert message.startswith("bot.tar.gz: entry ")


def test_a_chain_of_links_out_of_the_archive_is_refused(tmp_path: Path, incoming: Path) -> None:
    # d/c -> .. is the archive's top; x -> d/c/d/c/.. climbs out only when the links are followed
    folder = tarfile.TarInfo("d")
    folder.type = tarfile.DIRTYPE
    archive = _tar(
        tmp_path / "bot.tar.gz",
        [
            _file("bot.toml", MANIFEST),
            _file("bot.py", BOT),
            (folder, None),
            _special("d/c", tarfile.SYMTYPE, ".."),
            _special("x", tarfile.SYMTYPE, "d/c/d/c/.."),
        ],
    )
    assert "symbolic link out of the archive" in _refused(archive, incoming)


def test_an_entry_below_a_link_and_a_duplicate_are_refused(tmp_path: Path, incoming: Path) -> None:
    below = _tar(
        tmp_path / "b.tar.gz",
        [_file("bot.toml", MANIFEST), _special("l", tarfile.SYMTYPE, "."), _file("l/bot.py", BOT)],
    )
    assert "below a symbolic link" in _refused(below, incoming)
    twice = _tar(tmp_path / "t.tar.gz", [_file("bot.toml", MANIFEST), _file("bot.py", BOT), _file("bot.py", BOT)])
    assert "appears twice" in _refused(twice, incoming)


def test_zip_symlinks_devices_and_traversal_are_refused(tmp_path: Path, incoming: Path) -> None:
    base = [("bot.toml", MANIFEST, 0o100644), ("bot.py", BOT, 0o100644)]
    cases = [
        (("up", b"../../etc", stat.S_IFLNK | 0o777), "symbolic link"),
        (("fifo", b"", stat.S_IFIFO | 0o644), "FIFO"),
        (("dev", b"", stat.S_IFCHR | 0o644), "device"),
        (("../x", b"x", 0o100644), "out of the archive"),
        (("/abs", b"x", 0o100644), "absolute path"),
    ]
    for i, (member, words) in enumerate(cases):
        assert words in _refused(_zip(tmp_path / f"c{i}.zip", [*base, member]), incoming)


def test_caps_on_size_count_and_ratio(tmp_path: Path, incoming: Path) -> None:
    many = _tar(tmp_path / "many.tar.gz", [_file("bot.toml", MANIFEST)] + [_file(f"f{i}", b"") for i in range(30)])
    assert "more than 20 entries" in _refused(many, incoming, IntakeLimits(max_files=20))
    big = _tar(tmp_path / "big.tar.gz", [_file("bot.toml", MANIFEST), _file("blob", os.urandom(5000))])
    assert "more than 4,000 bytes" in _refused(big, incoming, IntakeLimits(max_unpacked=4000))
    bomb = _tar(tmp_path / "bomb.tar.gz", [_file("bot.toml", MANIFEST), _file("zeros", b"\0" * (8 << 20))])
    assert "times its size" in _refused(bomb, incoming)
    zbomb = _zip(tmp_path / "bomb.zip", [("bot.toml", MANIFEST, 0o100644), ("zeros", b"\0" * (8 << 20), 0o100644)])
    assert "times its size" in _refused(zbomb, incoming)
    assert "more than the 1,000 accepted" in _refused(big, incoming, IntakeLimits(max_bytes=1000))


def test_a_zip_that_lies_about_its_sizes_is_caught_while_unpacking(tmp_path: Path, incoming: Path) -> None:
    z = _zip(tmp_path / "lie.zip", [("bot.toml", MANIFEST, 0o100644), ("blob", b"a" * 50_000, 0o100644)])
    data = bytearray(z.read_bytes())
    # shrink the declared size in the central directory (the local header too): 50,000 -> 100
    for field in (struct_le(50_000),):
        data = data.replace(field, struct_le(100))
    z.write_bytes(bytes(data))
    message = _refused(z, incoming)
    assert "blob" in message


def struct_le(n: int) -> bytes:
    return n.to_bytes(4, "little")


def test_bad_manifests_are_refused_by_field(tmp_path: Path, incoming: Path) -> None:
    cases = [
        (None, "no bot.toml"),
        (b"command = 3\n", "command must be a string"),
        (b'command = "python bot.py"\nnetwork = true\n', "unknown field 'network'"),
        (b'command = "/usr/bin/python3 bot.py"\n', "must be a program name"),
        (b'command = "../bot"\n', "must be a program name"),
        (b'command = "no-such-program-here bot"\n', "not installed"),
        (b'command = "./missing"\n', "not a file of the bot"),
        (b'command = "./bot.py"\n', "not executable"),
        (b"command = [\n", "not TOML"),
        # written for a shell, which runs neither (the Go kit's build line, copied as it is)
        (b'command = "python bot.py"\nbuild = "CGO_ENABLED=0 go build -o bot ."\n', "build is not run by a shell"),
        (b'command = "python bot.py"\nbuild = "make && strip bot"\n', "holds '&&', which only a shell reads"),
        (b'command = "python bot.py 2>&1"\n', "command is not run by a shell"),
    ]
    for i, (manifest, words) in enumerate(cases):
        members = [_file("bot.py", BOT)] + ([] if manifest is None else [_file("bot.toml", manifest)])
        message = _refused(_tar(tmp_path / f"m{i}.tar.gz", members), incoming)
        assert words in message, message


def test_a_lone_file_that_is_not_a_bot_is_refused(tmp_path: Path, incoming: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert "neither .py, .js nor executable" in _refused(notes, incoming)


def test_a_damaged_archive_is_one_line(tmp_path: Path, incoming: Path) -> None:
    good = _tar(tmp_path / "g.tar.gz", [_file("bot.toml", MANIFEST), _file("bot.py", BOT * 200)])
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(good.read_bytes()[:60])
    assert "not a readable tar archive" in _refused(cut, incoming)
