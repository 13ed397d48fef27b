"""Every file cffair writes goes through here: atomically, and with one-line errors for the disk's faults.

:func:`atomic_path` (and its wrappers :func:`atomic_write`, :func:`write_text_atomic`, and
:func:`cffair._support.utils.write_json_atomic`) writes into a temporary file in the target's own folder, flushes it
to the disk (``fsync``) and renames it over the target (``os.replace``, atomic on POSIX). A
reader therefore sees the old file or the new one, never half of one, and a write that fails,
for whatever reason, removes its temporary file and leaves the old file as it was.

A write that fails because of the environment, not because of cffair, raises
:class:`~cffair.errors.StorageError` with one line that names the path, what is wrong and the
fix:

* a read-only file system (``EROFS``) or a folder one may not write to (``EACCES``, ``EPERM``);
* a full disk or quota (``ENOSPC``, ``EDQUOT``), also when the writer is torch or pyarrow,
  which report it in their own words (torch: ``unexpected pos``, ``file write failed``);
* a file where a folder should be (``ENOTDIR``, ``EEXIST``), or a folder where the file
  should be (``EISDIR``);
* a device, a named pipe or a socket (``/dev/null``, ``/dev/stdout``), which a rename would
  replace with a regular file: refused before anything is written (:func:`special_file`).

A symbolic link is written through: the file it points at is replaced (atomically, in that
file's folder) and the link stays a link.

:func:`writable_dir` checks a folder *before* hours of work, without creating it;
:func:`ensure_dir` creates one with the same errors; :func:`store_lock` lets one process at
a time write a results store.

Nothing here changes a number, so the module is exempt from record fingerprints.
"""

from __future__ import annotations

__all__ = [
    "StorageError",
    "atomic_path",
    "atomic_write",
    "ensure_dir",
    "special_file",
    "storage_error",
    "store_lock",
    "writable_dir",
    "write_text_atomic",
]

import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from cffair.errors import StorageError, StoreLockedError

FINGERPRINT_EXEMPT = True  # where and how bytes reach the disk changes no number in them

#: errno → (what is wrong, how to fix it).
_FAULTS: dict[int, tuple[str, str]] = {
    errno.EROFS: ("the file system is read-only", "choose a folder on a writable disk"),
    errno.ENOSPC: ("no space is left on the device", "free some space or choose a folder on another disk"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space or choose a folder on another disk"),
    errno.EACCES: ("permission denied", "choose a folder you may write to, or change its permissions"),
    errno.EPERM: ("the operation is not permitted", "choose a folder you may write to, or change its permissions"),
    errno.ENOTDIR: ("a file is in the way", "move that file away or choose another path"),
    errno.EEXIST: ("a file is in the way", "move that file away or choose another path"),
    errno.EISDIR: ("it is a folder", "remove that folder or choose another file name"),
}

#: Words with which writers that do not set ``errno`` report a fault (pyarrow, torch).
_FAULT_WORDS: tuple[tuple[str, int], ...] = (
    ("no space left on device", errno.ENOSPC),
    ("[errno 28]", errno.ENOSPC),
    ("disk quota exceeded", errno.EDQUOT),
    ("read-only file system", errno.EROFS),
    ("[errno 30]", errno.EROFS),
    ("permission denied", errno.EACCES),
    ("[errno 13]", errno.EACCES),
)

#: What torch's serialiser says when it cannot write all of a file (it hides the errno).
_TORCH_WRITE_FAILED = ("unexpected pos", "file write failed", "pytorchstreamwriter failed")

#: Below this many free bytes a folder's disk counts as full (to explain a writer's vague error).
_NEARLY_FULL = 1 << 20


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


# ============================================================================ errors
def _blocker(path: Path) -> Path | None:
    """The nearest existing ancestor of ``path`` (or ``path``) that is not a folder: the file in the way."""
    for p in (path, *path.parents):
        if p.exists() or p.is_symlink():
            return None if p.is_dir() else p
    return None


def _fault_of(exc: BaseException, folder: Path | None) -> int | None:
    """The errno of a disk fault behind ``exc`` (``None``: not one this module explains)."""
    if isinstance(exc, StorageError):
        return exc.errno
    if isinstance(exc, OSError) and exc.errno in _FAULTS:
        return exc.errno
    if not isinstance(exc, (OSError, RuntimeError)):
        return None
    text = str(exc).lower()
    for words, code in _FAULT_WORDS:
        if words in text:
            return code
    if isinstance(exc, RuntimeError) and any(w in text for w in _TORCH_WRITE_FAILED):
        return errno.ENOSPC if folder is not None and _free_bytes(folder) < _NEARLY_FULL else errno.EIO
    if isinstance(exc, OSError) and exc.errno is None and folder is not None and _free_bytes(folder) < _NEARLY_FULL:
        return errno.ENOSPC  # pyarrow's "Error writing bytes to file" without an errno
    return None


def _free_bytes(folder: Path) -> int:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return 1 << 62


def storage_error(
    exc: BaseException,
    path: str | os.PathLike[str],
    *,
    what: str = "",
    hint: str = "",
    action: str = "write",
    folder: str | os.PathLike[str] | None = None,
) -> StorageError | None:
    """A one-line :class:`~cffair.errors.StorageError` for a disk fault behind ``exc``, else ``None``.

    Args:
        exc: what the write raised.
        path: what was being written (a file, or a folder for ``action="create"``).
        what: what it holds, for the message (``"checkpoint"``).
        hint: a further fix that the caller knows (``"or pass --no-cache"``).
        action: the verb of the message: ``"write"``, ``"create"``, ``"write into"``.
        folder: the folder on whose disk the write happened (default: ``path``'s folder).
    """
    path = Path(path)
    disk = Path(folder) if folder is not None else (path if action == "create" else path.parent)
    code = _fault_of(exc, disk if disk.exists() else None)
    if code is None:
        if not (isinstance(exc, OSError) and exc.errno is not None):
            return None  # not a disk fault: the caller raises ``exc`` itself
        code = exc.errno
        reason, fix = (exc.strerror or os.strerror(code)).lower(), "check the folder and the disk, then try again"
    elif code == errno.EIO:
        reason, fix = f"the write failed ({_one_line(exc)[:160]})", "check the disk (is it full?) and try again"
    else:
        reason, fix = _FAULTS[code] if code in _FAULTS else (os.strerror(code).lower(), "check the disk and try again")
    where = ""
    if code in (errno.ENOTDIR, errno.EEXIST):
        blocker = _blocker(path)
        if blocker is not None:
            where = f" ({blocker} is a file, not a folder)"
    elif code in (errno.EROFS, errno.EACCES, errno.EPERM):
        where = f" (in {_nearest_existing(disk)})"
    label = f"{what} {path}" if what else str(path)
    message = f"cannot {action} {label}: {reason}{where}; {fix}"
    if hint:
        message += f" ({hint})"
    return StorageError(message, path=path, errno=code)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _nearest_existing(path: Path) -> Path:
    for p in (path, *path.parents):
        if p.exists():
            return p
    return path


# ============================================================================ folders
def ensure_dir(path: str | os.PathLike[str], *, what: str = "folder", hint: str = "") -> Path:
    """Create the folder ``path`` (and its parents) unless it exists; a fault is a :class:`StorageError`."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        err = storage_error(exc, path, what=what, hint=hint, action="create")
        if err is None:
            raise
        raise err from exc
    return path


def writable_dir(
    path: str | os.PathLike[str], *, what: str = "folder", hint: str = "", file: str | None = None
) -> Path:
    """Check, without creating anything, that the folder ``path`` exists or can be made, and takes files.

    The nearest existing ancestor must be a folder (not a file in the way), on a writable file
    system, writable by this user; a tiny probe file is created and removed there to be sure
    (permissions alone do not tell, for root or on a read-only mount). A full disk is only
    found by the write itself.

    Args:
        what: what the folder is, for the message (``"results folder"``).
        hint: a further fix the caller knows, for the message.
        file: the file that will be written into the folder, named by the message instead of
            the folder (``"--save runs/a.pt"``).

    Raises:
        StorageError: one line naming the path, the fault and the fix.
    """
    path = Path(path)
    label = file or f"{what} {path}"
    blocker = _blocker(path)
    if blocker is not None:
        raise StorageError(
            f"cannot {'write' if file else 'use'} {label}: a file is in the way ({blocker} is a file, not a folder); "
            f"move that file away or choose another path" + (f" ({hint})" if hint else ""),
            path=path,
            errno=errno.ENOTDIR,
        )
    base = _nearest_existing(path)
    try:
        fd, probe = tempfile.mkstemp(prefix=".cffair-probe.", dir=base)
    except OSError as exc:
        err = (
            storage_error(exc, file, hint=hint, folder=base)
            if file
            else storage_error(exc, path, what=what, hint=hint, action="write into", folder=base)
        )
        if err is None:
            raise
        raise err from exc
    os.close(fd)
    os.unlink(probe)
    return path


# ============================================================================ files
#: Folders of the kernel's special files (devices, processes; ``/dev/shm`` excepted): nothing in
#: them is a file to replace (``/dev/stdout`` names whatever the standard output is).
_SPECIAL_FOLDERS: tuple[str, ...] = ("/dev", "/proc", "/sys")


def special_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it is no place for an atomic write, else ``None``.

    An atomic write renames a new regular file over its target: over a device (``/dev/full``),
    a named pipe, a socket or a kernel file (``/dev/stdout``, ``/proc/...``) it would replace the
    special file with a regular one instead of writing into it. A symbolic link is followed
    (a link to a regular file is written through, see :func:`atomic_path`).

    >>> special_file("/dev/null")
    'a character device'
    >>> special_file("results/table.csv") is None
    True
    """
    real = os.path.realpath(os.fspath(path))
    try:
        mode = os.stat(real).st_mode
    except OSError:
        mode = None
    if mode is not None:
        for test, words in (
            (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"),
            (stat.S_ISFIFO, "a named pipe (FIFO)"),
            (stat.S_ISSOCK, "a socket"),
        ):
            if test(mode):
                return words
    for p in (os.path.abspath(os.fspath(path)), real):
        if p == "/dev/shm" or p.startswith("/dev/shm/"):  # a file system in memory: its files are files
            continue
        for folder in _SPECIAL_FOLDERS:
            if p == folder or p.startswith(folder + "/"):
                return f"a special file of {folder}"
    return None


def _fsync(path: Path, *, directory: bool = False) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        if directory:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not directory:  # some file systems cannot sync a folder; the rename is done all the same
            raise
    finally:
        os.close(fd)


def _mode_for(target: Path) -> int:
    """The permission bits of the new file: the old file's, else what ``open`` would give (``0o666 & ~umask``)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, what: str = "", hint: str = "") -> Iterator[Path]:
    """Yield a temporary path next to ``path``; fsync it and move it into place only on success.

    The caller writes the whole file to the yielded path (``torch.save(obj, tmp)``,
    ``pq.write_table(t, tmp)``, ``tmp.write_text(s)``). If anything raises, the temporary file is
    removed and ``path`` keeps its old content (or stays absent); a disk fault becomes a
    :class:`~cffair.errors.StorageError`, anything else is raised unchanged.

    A symbolic link is written through: the file it points at is replaced and the link kept.

    A process killed while it writes (``kill -9``, a lost machine) cannot remove its temporary
    file. Each temporary file's name says which host and process wrote it
    (``.{name}.{host}-{pid}.{random}.tmp``), and the next write of the same file removes those of
    this host whose process is gone, so no half-written copy stays behind.

    Args:
        path: the file to write; its folder is created if missing.
        what: what the file holds, for the error message (``"checkpoint"``).
        hint: a further fix the caller knows, for the error message.

    Raises:
        cffair.errors.StorageError: for a disk fault, a folder at ``path``, or a device, pipe, socket or
            kernel file at ``path`` (:func:`special_file`), which a rename would replace.
    """
    special = special_file(path)
    if special is not None:
        raise StorageError(
            f"cannot write {(what + ' ') if what else ''}{path}: it is {special}, not a regular file, and an atomic "
            "write would replace it; give the path of a regular file" + (f" ({hint})" if hint else ""),
            path=Path(path),
            errno=errno.EINVAL,
        )
    target = Path(os.path.realpath(os.fspath(path)))  # through a symbolic link: replace the file, keep the link
    folder = ensure_dir(target.parent, hint=hint)
    if target.is_dir():
        raise StorageError(
            f"cannot write {(what + ' ') if what else ''}{target}: it is a folder; "
            "remove that folder or choose another file name" + (f" ({hint})" if hint else ""),
            path=target,
            errno=errno.EISDIR,
        )
    _sweep_stale(folder, target.name)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{_writer()}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        err = storage_error(exc, target, what=what, hint=hint)
        if err is None:
            raise
        raise err from exc
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        os.chmod(tmp_path, _mode_for(target))
        yield tmp_path
        _fsync(tmp_path)
        os.replace(tmp_path, target)
        _fsync(folder, directory=True)
    except BaseException as exc:
        err = storage_error(exc, target, what=what, hint=hint) if isinstance(exc, Exception) else None
        _remove(tmp_path)
        if err is None:
            raise
        raise err from exc
    finally:
        _remove(tmp_path)


def _writer() -> str:
    """``host-pid`` of this process, as the temporary files of :func:`atomic_path` name it."""
    import socket

    host = "".join(c if c.isalnum() else "_" for c in socket.gethostname()) or "host"
    return f"{host}-{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _sweep_stale(folder: Path, name: str) -> list[Path]:
    """Remove the temporary files of ``name`` in ``folder`` that a process of this host left when it
    was killed (its pid no longer runs); the paths removed. Another host's files are left alone."""
    host = _writer().rsplit("-", 1)[0]
    prefix = f".{name}.{host}-"
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
                continue
            pid = entry.name[len(prefix) :].split(".", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                _remove(Path(entry.path))
                removed.append(Path(entry.path))
    return removed


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def atomic_write(
    path: str | os.PathLike[str], write: Callable[[Path], object], *, what: str = "", hint: str = ""
) -> Path:
    """``write(tmp)`` into a temporary file next to ``path``, then move it into place (see :func:`atomic_path`)."""
    with atomic_path(path, what=what, hint=hint) as tmp:
        write(tmp)
    return Path(path)


def write_text_atomic(path: str | os.PathLike[str], text: str, *, what: str = "", hint: str = "") -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), what=what, hint=hint)


# ============================================================================ one writer at a time
#: The lock file a results store holds while a run writes it.
LOCK_NAME = ".cffair.lock"


@contextlib.contextmanager
def store_lock(
    folder: str | os.PathLike[str],
    timeout: float = 0.0,
    *,
    who: str = "another cffair run",
    say: Callable[[str], None] | None = None,
) -> Iterator[Path]:
    """Hold the lock of the results folder ``folder`` (the file ``LOCK_NAME`` in it) while the block runs.

    The lock is an OS lock (``flock``, through :mod:`filelock`): it is released when the holder
    exits, even when it is killed, so a stale lock never blocks a later run.

    Args:
        timeout: seconds to wait for another holder; ``0`` refuses at once, ``inf`` waits for ever.
        who: who would hold it, for the message.
        say: called with a line before waiting (default: print on stderr).

    Raises:
        StoreLockedError: another process holds it (after ``timeout`` seconds).
        StorageError: the folder cannot be created or written.
    """
    import filelock

    folder = ensure_dir(folder, what="results folder")
    path = folder / LOCK_NAME
    lock = filelock.FileLock(str(path), timeout=0)
    if say is None:
        say = lambda msg: print(f"cffair: {msg}", file=sys.stderr)
    try:
        try:
            lock.acquire(timeout=0)
        except filelock.Timeout:
            if timeout <= 0:
                raise StoreLockedError(
                    f"{folder} is in use: {who} is writing it (it holds {path}); wait until it has finished, "
                    "or pass --lock-timeout SECONDS to wait for it"
                ) from None
            say(
                f"{folder} is in use by {who} (it holds {path}); waiting "
                + ("until it has finished" if timeout == float("inf") else f"up to {timeout:g} s")
                + " ..."
            )
            try:
                lock.acquire(timeout=-1 if timeout == float("inf") else timeout)
            except filelock.Timeout:
                raise StoreLockedError(
                    f"{folder} is still in use after {timeout:g} s: {who} is writing it (it holds {path}); "
                    "wait until it has finished, or pass a longer --lock-timeout"
                ) from None
    except OSError as exc:
        err = storage_error(exc, path, what="lock file")
        if err is None:
            raise
        raise err from exc
    try:
        yield path
    finally:
        lock.release()
