"""Taking in a submitted bot: a lone file, a folder, or a ``.tar.gz``/``.tgz``/``.tar``/``.zip`` archive with a
``bot.toml`` (``botmanifest``), copied into a staging folder of the ladder and hashed.

Everything submitted is hostile input. An entry is refused, with one line naming it, when its path is absolute,
climbs out (``..``), holds a NUL, a backslash or another unprintable character, is too deep or too long, appears
twice, or lies below a symbolic link; when it is a hard link, a device, a FIFO or a socket; when a symbolic link
leads out of the bot's folder (checked on the unpacked tree, so chains of links are caught too). The whole is
capped: the file submitted (``max_bytes``), the bytes unpacked (``max_unpacked``, counted as they are written,
whatever the archive declares, and also over the tar headers read), the entries (``max_files``) and the ratio of
unpacked to packed bytes (``max_ratio``, beyond the first MiB: a small archive cannot be a bomb). Nothing is ever
extracted by the archive libraries themselves: each member is read as a stream and written by this module, under
the checks above.

The version's *digest* is the SHA-256 of its command, its build command and every file (path, executable bit,
content) and symbolic link (path, target), in path order: the same bot submitted twice has the same digest.
Version-control folders (``.git``...) and ``__pycache__`` of a submitted folder are not copied.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import json
import lzma
import os
import shutil
import stat
import tarfile
import uuid
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from referee.ladder.botmanifest import MANIFEST_MAX, MANIFEST_NAME, BotManifest, command_for_file, parse_manifest
from referee.ladder.errors import IntakeError
from referee.runner.safe_text import visible

__all__ = ["IntakeLimits", "Staged", "TreeSize", "discard", "freeze", "stage", "thaw", "tree_digest", "tree_size"]

_CHUNK = 1 << 16
_NAME_MAX = 255
#: Below this many unpacked bytes the ratio is not checked.
_RATIO_FLOOR = 1 << 20
_SKIPPED = frozenset({".git", ".hg", ".svn", ".bzr", "__pycache__"})
_DIGEST_SCHEME = b"referee-version/1\n"


@dataclass(frozen=True, slots=True)
class IntakeLimits:
    """The caps of one submission (bytes, entries, a ratio, path depth and length)."""

    max_bytes: int = 16 * 1024 * 1024
    max_unpacked: int = 64 * 1024 * 1024
    max_files: int = 1000
    max_ratio: float = 100.0
    max_depth: int = 32
    max_path: int = 1024


@dataclass(frozen=True, slots=True)
class Staged:
    """A submission unpacked and checked: ``folder`` (inside the staging area; ``discard`` it when not kept), what
    it runs, its digest, how many files and bytes it holds, and what it was (file, folder, tar, zip)."""

    folder: Path
    manifest: BotManifest
    digest: str
    files: int
    size: int
    kind: str
    staging: Path


class _Tree:
    """The staging folder being filled, entry by entry, under the caps."""

    def __init__(self, root: Path, limits: IntakeLimits, label: str, packed: int | None) -> None:
        self.root = root
        self.limits = limits
        self.label = label
        self.packed = packed
        self.entries = 0
        self.size = 0
        self.seen: set[PurePosixPath] = set()
        self.links: list[PurePosixPath] = []

    def refuse(self, entry: str, why: str) -> IntakeError:
        return IntakeError(f"{self.label}: entry {visible(entry)!r}: {why}")

    def clean(self, name: str) -> PurePosixPath:
        """The entry's path, relative and checked (see the module's docstring)."""
        if not name or "\0" in name or not name.isprintable():
            raise self.refuse(name, "a name with a NUL or another unprintable character")
        if "\\" in name:
            raise self.refuse(name, "a name with a backslash (archive paths use /)")
        if name.startswith("/"):
            raise self.refuse(name, "an absolute path")
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise self.refuse(name, "a path out of the archive (..)")
        if not parts:
            raise self.refuse(name, "an empty path")
        if len(parts) > self.limits.max_depth:
            raise self.refuse(name, f"deeper than {self.limits.max_depth} folders")
        if any(len(p.encode()) > _NAME_MAX for p in parts) or len(name.encode()) > self.limits.max_path:
            raise self.refuse(name, f"a name over {_NAME_MAX} bytes or a path over {self.limits.max_path}")
        path = PurePosixPath(*parts)
        for parent in path.parents:
            if parent in self.links:
                raise self.refuse(name, "an entry below a symbolic link")
        return path

    def count(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_files:
            raise self.refuse(name, f"more than {self.limits.max_files} entries in all")

    def claim(self, name: str, path: PurePosixPath) -> Path:
        if path in self.seen:
            raise self.refuse(name, "appears twice")
        self.seen.add(path)
        target = self.root.joinpath(*path.parts)
        for parent in reversed(path.parents):
            if parent != PurePosixPath(".") and self.root.joinpath(*parent.parts).is_file():
                raise self.refuse(name, f"below {str(parent)!r}, which is a file")
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def folder(self, name: str) -> None:
        self.count(name)
        if name.rstrip("/") == ".":
            return  # "./": the archive's own top (``tar -czf bot.tar.gz .`` writes it first)
        path = self.clean(name)
        target = self.root.joinpath(*path.parts)
        if target.is_file() or target.is_symlink():
            raise self.refuse(name, "a folder of the same name as a file")
        target.mkdir(parents=True, exist_ok=True)

    def file(self, name: str, stream: IO[bytes], executable: bool, declared: int | None = None) -> None:
        self.count(name)
        path = self.clean(name)
        if declared is not None and self.size + declared > self.limits.max_unpacked:
            raise self.refuse(name, f"unpacks to more than {self.limits.max_unpacked:,} bytes in all")
        target = self.claim(name, path)
        written = 0
        with open(target, "xb") as out:
            while True:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                written += len(chunk)
                self.size += len(chunk)
                if self.size > self.limits.max_unpacked:
                    raise self.refuse(name, f"unpacks to more than {self.limits.max_unpacked:,} bytes in all")
                self.ratio(name)
                out.write(chunk)
        if declared is not None and written != declared:
            raise self.refuse(name, f"holds {written} bytes where the archive says {declared}")
        os.chmod(target, 0o755 if executable else 0o644)

    def ratio(self, name: str) -> None:
        if self.packed is None or self.size <= _RATIO_FLOOR:
            return
        if self.size > self.limits.max_ratio * max(self.packed, 1):
            raise self.refuse(name, f"the archive unpacks to more than {self.limits.max_ratio:g} times its size")

    def symlink(self, name: str, target: str) -> None:
        self.count(name)
        path = self.clean(name)
        if not target or "\0" in target or not target.isprintable() or target.startswith("/"):
            raise self.refuse(name, f"a symbolic link to {visible(target)!r} (only relative links inside the bot)")
        if len(target.encode()) > self.limits.max_path:
            raise self.refuse(name, "a symbolic link with a target over the path limit")
        joined = os.path.normpath(os.path.join(str(path.parent), target))
        if joined == ".." or joined.startswith("../"):
            raise self.refuse(name, f"a symbolic link out of the archive (to {visible(target)!r})")
        where = self.claim(name, path)
        os.symlink(target, where)
        self.links.append(path)

    def check_links(self) -> None:
        """Every symbolic link, resolved on the unpacked tree (chains included), stays inside it."""
        root = os.path.realpath(self.root)
        for path in self.links:
            real = os.path.realpath(self.root.joinpath(*path.parts))
            if real != root and not real.startswith(root + os.sep):
                raise self.refuse(str(path), "a symbolic link out of the archive (through other links)")


class _Capped:
    """A read-only stream that refuses to yield more than ``limit`` bytes in all (the tar headers included)."""

    def __init__(self, raw: BinaryIO, limit: int, tree: _Tree) -> None:
        self.raw = raw
        self.limit = limit
        self.read_bytes = 0
        self.tree = tree

    def read(self, size: int = -1) -> bytes:
        want = self.limit - self.read_bytes + 1 if size is None or size < 0 else size
        data = self.raw.read(min(want, self.limit - self.read_bytes + 1))
        self.read_bytes += len(data)
        if self.read_bytes > self.limit:
            raise IntakeError(f"{self.tree.label}: unpacks to more than {self.limit:,} bytes with its headers")
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.raw.close()


def _open_compressed(raw: BinaryIO) -> BinaryIO:
    head = raw.read(6)
    raw.seek(0)
    if head.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if head.startswith(b"BZh"):
        return bz2.BZ2File(raw, mode="rb")  # type: ignore[return-value]
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw, mode="rb")  # type: ignore[return-value]
    return raw


def _unpack_tar(source: Path, tree: _Tree) -> None:
    headers = 1024 * (tree.limits.max_files + 16)  # a header block or two per entry, and the end blocks
    with open(source, "rb") as raw:
        stream = _Capped(_open_compressed(raw), tree.limits.max_unpacked + headers * 4, tree)
        try:
            with tarfile.open(fileobj=stream, mode="r|") as tar:  # type: ignore[call-overload]
                for member in tar:
                    _tar_member(tar, member, tree)
        except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
            raise IntakeError(f"{tree.label}: not a readable tar archive ({exc})") from None


def _tar_member(tar: tarfile.TarFile, member: tarfile.TarInfo, tree: _Tree) -> None:
    name = member.name
    if member.isdir():
        tree.folder(name)
    elif member.issym():
        tree.symlink(name, member.linkname)
    elif member.islnk():
        raise tree.refuse(name, "a hard link (store the file itself)")
    elif member.ischr() or member.isblk():
        raise tree.refuse(name, "a device")
    elif member.isfifo():
        raise tree.refuse(name, "a FIFO")
    elif member.isreg() and not member.issparse():
        data = tar.extractfile(member)
        if data is None:  # pragma: no cover - a regular member always has data
            raise tree.refuse(name, "unreadable")
        tree.file(name, data, bool(member.mode & 0o111), member.size)
    else:
        raise tree.refuse(name, "an entry of a kind a bot does not need (only files, folders, relative links)")


def _unpack_zip(source: Path, tree: _Tree) -> None:
    try:
        with zipfile.ZipFile(source) as archive:
            infos = archive.infolist()
            if len(infos) > tree.limits.max_files:
                raise IntakeError(f"{tree.label}: more than {tree.limits.max_files} entries")
            for info in infos:
                _zip_member(archive, info, tree)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as exc:
        if isinstance(exc, IntakeError):
            raise
        raise IntakeError(f"{tree.label}: not a readable zip archive ({exc})") from None


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, tree: _Tree) -> None:
    name = info.filename
    mode = info.external_attr >> 16 if info.create_system == 3 else 0
    if info.flag_bits & 0x1:
        raise tree.refuse(name, "encrypted")
    if stat.S_ISLNK(mode):
        if info.file_size > tree.limits.max_path:
            raise tree.refuse(name, "a symbolic link with a target over the path limit")
        with archive.open(info) as f:
            tree.symlink(name, f.read(tree.limits.max_path + 1).decode("utf-8", "replace"))
    elif info.is_dir() or stat.S_ISDIR(mode):
        tree.folder(name)
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise tree.refuse(name, "a device")
    elif stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise tree.refuse(name, "a FIFO or socket")
    else:
        with archive.open(info) as f:
            tree.file(name, f, bool(mode & 0o111), info.file_size)


def _copy_folder(source: Path, tree: _Tree) -> None:
    def walk(folder: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            raise IntakeError(f"{tree.label}: cannot read {visible(prefix or '.')}: {exc.strerror}") from None
        for entry in entries:
            name = f"{prefix}{entry.name}"
            if entry.name in _SKIPPED:
                continue
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                tree.symlink(name, os.readlink(entry.path))
            elif stat.S_ISDIR(st.st_mode):
                tree.folder(name)
                walk(Path(entry.path), name + "/")
            elif stat.S_ISREG(st.st_mode):
                with open(entry.path, "rb") as f:
                    tree.file(name, f, bool(st.st_mode & 0o111))
            else:
                raise tree.refuse(name, "neither a file, a folder nor a symbolic link")

    walk(source, "")


def _kind(source: Path) -> str:
    """``folder``, ``zip``, ``tar`` or ``file``: by what the file is (its first bytes), not by its name alone."""
    if source.is_dir():
        return "folder"
    try:
        with open(source, "rb") as f:
            head = f.read(512)
    except OSError as exc:
        raise IntakeError(f"cannot read {visible(str(source))}: {exc.strerror}") from None
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")) or head[257:262] == b"ustar":
        return "tar"
    return "file"


def _root(staging: Path) -> Path:
    """The bot's folder in the unpacked tree: the top, or its one folder when the archive packed a folder."""
    if (staging / MANIFEST_NAME).exists() or (staging / MANIFEST_NAME).is_symlink():
        return staging
    entries = list(staging.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return staging


def _manifest(root: Path, label: str) -> BotManifest:
    path = root / MANIFEST_NAME
    if path.is_symlink() or not path.is_file():
        raise IntakeError(f'{label}: no {MANIFEST_NAME} at its top (a file with command = "python bot.py")')
    if path.stat().st_size > MANIFEST_MAX:
        raise IntakeError(f"{label}: {MANIFEST_NAME} is larger than {MANIFEST_MAX // 1024} KiB")
    manifest = parse_manifest(path.read_bytes(), f"{label}: {MANIFEST_NAME}")
    program = manifest.command[0]
    if "/" in program and manifest.build is None:
        target = root / program
        real = os.path.realpath(target)
        if not (real.startswith(os.path.realpath(root) + os.sep) and os.path.isfile(real)):
            raise IntakeError(f"{label}: {MANIFEST_NAME}: command {visible(program)!r} is not a file of the bot")
        if not os.access(real, os.X_OK):
            raise IntakeError(
                f"{label}: {MANIFEST_NAME}: command {visible(program)!r} is not executable (chmod +x it before packing)"
            )
    return manifest


def stage(source: Path, incoming: Path, limits: IntakeLimits = IntakeLimits(), *, label: str | None = None) -> Staged:
    """Unpack or copy ``source`` into a new folder below ``incoming`` under ``limits``, read its manifest and hash it
    (the caller moves ``folder`` where it keeps it and ``freeze``s it there).

    ``label`` names the submission in refusals (default: the file's name). Raises ``IntakeError`` (one line,
    naming the entry) for anything refused; nothing of a refused submission is left in ``incoming``.
    """
    label = visible(label or source.name or str(source))
    try:
        info = source.lstat()
    except OSError as exc:
        raise IntakeError(f"{label}: cannot read it ({exc.strerror})") from None
    if stat.S_ISLNK(info.st_mode):
        source = source.resolve()
        info = source.stat()
    kind = _kind(source)
    if kind != "folder" and not stat.S_ISREG(info.st_mode):
        raise IntakeError(f"{label}: neither a file nor a folder")
    if kind != "folder" and info.st_size > limits.max_bytes:
        raise IntakeError(f"{label}: {info.st_size:,} bytes, more than the {limits.max_bytes:,} accepted")
    incoming.mkdir(parents=True, exist_ok=True)
    staging = incoming / uuid.uuid4().hex
    staging.mkdir()
    tree = _Tree(staging, limits, label, info.st_size if kind in ("tar", "zip") else None)
    try:
        if kind == "tar":
            _unpack_tar(source, tree)
        elif kind == "zip":
            _unpack_zip(source, tree)
        elif kind == "folder":
            _copy_folder(source, tree)
        else:
            name = tree.clean(source.name)
            if len(name.parts) != 1:  # pragma: no cover - a file's own name has no /
                raise tree.refuse(source.name, "a file name with a /")
            manifest = command_for_file(str(name), bool(info.st_mode & 0o111))
            with open(source, "rb") as f:
                tree.file(str(name), f, bool(info.st_mode & 0o111))
        tree.check_links()
        root = staging if kind == "file" else _root(staging)
        if kind != "file":
            manifest = _manifest(root, label)
        digest = tree_digest(root, manifest)
    except BaseException:
        discard(staging)
        raise
    return Staged(root, manifest, digest, tree.entries, tree.size, kind, staging)


def _walk(root: Path) -> Iterator[tuple[str, os.stat_result, Path]]:
    """(relative path, lstat, path) of everything below ``root``, in path order, links not followed."""
    stack = [(root, "")]
    out: list[tuple[str, os.stat_result, Path]] = []
    while stack:
        folder, prefix = stack.pop()
        for entry in os.scandir(folder):
            path = Path(entry.path)
            st = path.lstat()
            rel = f"{prefix}{entry.name}"
            out.append((rel, st, path))
            if stat.S_ISDIR(st.st_mode):
                stack.append((path, rel + "/"))
    yield from sorted(out, key=lambda t: t[0])


def tree_digest(root: Path, manifest: BotManifest) -> str:
    """The version's content hash (see the module's docstring)."""
    h = hashlib.sha256(_DIGEST_SCHEME)
    h.update(json.dumps([list(manifest.command), None if manifest.build is None else list(manifest.build)]).encode())
    for rel, st, path in _walk(root):
        if stat.S_ISLNK(st.st_mode):
            h.update(b"\nL" + rel.encode() + b"\0" + os.readlink(path).encode())
        elif stat.S_ISREG(st.st_mode):
            content = hashlib.sha256()
            with open(path, "rb") as f:
                while chunk := f.read(1 << 20):
                    content.update(chunk)
            flag = b"X" if st.st_mode & 0o111 else b"F"
            h.update(b"\n" + flag + rel.encode() + b"\0" + content.digest())
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class TreeSize:
    """What a folder holds: ``bytes`` of regular files (their lengths, as ``max_unpacked`` counts them) and
    ``entries`` (files, folders and links, as ``max_files`` counts them)."""

    bytes: int
    entries: int


def tree_size(root: Path, stop: TreeSize | None = None) -> TreeSize:
    """What ``root`` holds (links not followed); the count stops as soon as it is past ``stop`` in either (a build
    that made millions of files is not walked to the end). Entries that vanish meanwhile are not counted."""
    size = entries = 0
    stack = [str(root)]
    while stack:
        try:
            scan = os.scandir(stack.pop())
        except OSError:
            continue
        with scan:
            for entry in scan:
                entries += 1
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    stack.append(entry.path)
                elif stat.S_ISREG(st.st_mode):
                    size += st.st_size
                if stop is not None and (size > stop.bytes or entries > stop.entries):
                    return TreeSize(size, entries)
    return TreeSize(size, entries)


def freeze(root: Path) -> None:
    """Make the tree read-only (files 0444 or 0555, folders 0555), so that nobody edits a version by mistake."""
    for _, st, path in _walk(root):
        if stat.S_ISREG(st.st_mode):
            os.chmod(path, 0o555 if st.st_mode & 0o111 else 0o444)
    for _, st, path in reversed(list(_walk(root))):
        if stat.S_ISDIR(st.st_mode):
            os.chmod(path, 0o555)
    os.chmod(root, 0o555)


def thaw(root: Path) -> None:
    """Make a frozen tree writable by its owner again (before a build, or before removing it)."""
    with contextlib.suppress(OSError):
        os.chmod(root, 0o755)
    for _, st, path in _walk(root):
        if stat.S_ISDIR(st.st_mode):
            with contextlib.suppress(OSError):
                os.chmod(path, 0o755)


def discard(path: Path) -> None:
    """Remove a staged or frozen tree (and its read-only folders)."""
    if not path.exists() and not path.is_symlink():
        return
    thaw(path)
    shutil.rmtree(path, ignore_errors=True)
