"""Faults of the environment: a read-only folder, a full disk, a file in the way, no permission.

Every write of cffair goes through :mod:`cffair._support.io`. For each fault, and for each command that
writes (``train --save``, ``counterfactuals generate --out``, ``run --out``, a cold cache), the
command exits with status 2 and one line ``cffair: error: ...`` naming the path and the fix,
never a traceback, and leaves nothing behind: the target is absent or unchanged and no
temporary file is left. ``cffair results`` only reads (a read-only store works; a missing one
is reported, and nothing is created). Two runs into one results folder: the second is refused,
or waits with a message.

The faults are real: a 1 MB tmpfs filled to the last byte, a tmpfs remounted read-only,
permissions enforced by dropping root's ``CAP_DAC_OVERRIDE`` (``setpriv``). Tests that need
those skip, saying why, where they cannot mount or drop the capability.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cffair._support.io import (
    LOCK_NAME,
    atomic_write,
    store_lock,
    writable_dir,
    write_text_atomic,
)
from cffair.cli import main
from cffair.errors import StorageError, StoreLockedError
from cffair.experiments import ResultsStore

ROOT = Path(__file__).resolve().parents[2]

# ============================================================================ fixtures
SPEC = "name: tiny\ntarget: y\ntarget_kind: binary\nsensitive: s\ngraph: graph.yaml\n"
GRAPH = "edges:\n  s: [x]\n"
#: The fewest epochs every stage allows: the point is the write at the end, not the model.
TRAIN = ["--flow-epochs", "1", "--pretrain-epochs", "1", "--fair-epochs", "1", "--quiet"]
GENERATE = ["--epochs", "1", "--quiet"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 60-row CSV of one's own, its spec and graph (S → x), in a folder every user may read."""
    folder = tmp_path_factory.mktemp("tiny")
    rows = ["y,s,x"] + [f"{i % 2},{'ab'[i % 3 == 0]},{i * 0.5}" for i in range(60)]
    (folder / "tiny.csv").write_text("\n".join(rows) + "\n")
    (folder / "spec.yaml").write_text(SPEC)
    (folder / "graph.yaml").write_text(GRAPH)
    return folder


def _data(tiny: Path) -> list[str]:
    return ["--data", str(tiny / "tiny.csv"), "--spec", str(tiny / "spec.yaml")]


class Mounts:
    """tmpfs mounts made by a test, unmounted at its end."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.points: list[Path] = []

    def tmpfs(
        self,
        name: str,
        *,
        size: str = "1m",
        files: dict[str, str] | None = None,
        readonly: bool = False,
        full: bool = False,
    ) -> Path:
        """A fresh tmpfs at ``base/name`` holding ``files``; remounted read-only, or filled to the last byte."""
        if os.geteuid() != 0:
            pytest.skip("needs root to mount a tmpfs (a real read-only or full file system)")
        point = self.base / name
        point.mkdir(parents=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        self.points.append(point)
        for rel, text in (files or {}).items():
            (point / rel).parent.mkdir(parents=True, exist_ok=True)
            (point / rel).write_text(text)
        if full:
            _fill(point)
        if readonly:
            done = subprocess.run(
                ["mount", "-o", "remount,ro", str(point)], capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                pytest.skip(f"cannot remount a tmpfs read-only here: {done.stderr.strip()}")
        return point

    def close(self) -> None:
        for point in reversed(self.points):
            subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)


@pytest.fixture
def mounts(tmp_path: Path) -> Iterator[Mounts]:
    m = Mounts(tmp_path / "mnt")
    yield m
    m.close()


def _fill(folder: Path) -> None:
    """Write a filler file until the disk of ``folder`` is full."""
    chunk = b"\0" * 4096
    with open(folder / "filler", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    with open(folder / "filler", "ab", buffering=0) as fh:  # the last bytes of the last block
        try:
            while True:
                fh.write(b"\0")
        except OSError:
            pass
    assert shutil.disk_usage(folder).free == 0


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its content (temporary files would show up here)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_error(code: int, err: str, *needles: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cffair: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    err = "\n".join(line for line in captured.err.splitlines() if not line.startswith("cffair: warning:"))
    return code, err


def _no_privilege() -> list[str]:
    """A command prefix that runs as root without the capabilities that bypass file permissions."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to enforce file permissions on root")
    drop = "-dac_override,-dac_read_search"
    prefix = ["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}"]
    if subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("setpriv cannot drop CAP_DAC_OVERRIDE here")
    return prefix


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("CFFAIR_DEBUG", None)
    env.update(extra)
    return env


# ============================================================================ the helper itself
def test_a_writer_that_raises_midway_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    target.write_text("old")

    def half(tmp: Path) -> None:
        tmp.write_text("new, half writ")
        raise ValueError("the writer broke")

    with pytest.raises(ValueError, match="the writer broke"):  # not a disk fault: raised as it is
        atomic_write(target, half)
    assert _tree(tmp_path) == {"record.json": b"old"}
    atomic_write(target, lambda tmp: tmp.write_text("new"))
    assert _tree(tmp_path) == {"record.json": b"new"}


def test_a_new_file_gets_the_umask_and_a_rewritten_one_keeps_its_mode(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    os.umask(mask)
    write_text_atomic(tmp_path / "a.txt", "a")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o666 & ~mask
    os.chmod(tmp_path / "a.txt", 0o640)
    write_text_atomic(tmp_path / "a.txt", "b")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640


def test_read_only_folder(mounts: Mounts) -> None:
    ro = mounts.tmpfs("ro", files={"keep.txt": "old"}, readonly=True)
    before = _tree(ro)
    for target in (ro / "keep.txt", ro / "new.txt", ro / "sub" / "new.txt"):
        with pytest.raises(StorageError) as info:
            write_text_atomic(target, "new")
        msg = str(info.value)
        assert "\n" not in msg and "read-only" in msg and "writable" in msg and str(ro) in msg
        assert info.value.errno == errno.EROFS and isinstance(info.value, OSError)
    with pytest.raises(StorageError, match="read-only"):
        writable_dir(ro / "out")
    assert _tree(ro) == before


@pytest.mark.parametrize("writer", ["text", "torch", "parquet"])
def test_full_disk(writer: str, mounts: Mounts) -> None:
    full = mounts.tmpfs("full", files={"target": "old"}, full=True)
    before = _tree(full)

    def write(tmp: Path) -> None:
        if writer == "text":
            tmp.write_text("x" * 100_000)
        elif writer == "torch":  # torch says "unexpected pos", not ENOSPC
            import torch

            torch.save(torch.zeros(100_000), tmp)
        else:  # pyarrow's OSError
            import pandas as pd
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pandas(pd.DataFrame({"a": range(100_000)})), tmp)

    with pytest.raises(StorageError) as info:
        atomic_write(full / "target", write, what="checkpoint")
    msg = str(info.value)
    assert "\n" not in msg and f"checkpoint {full / 'target'}" in msg and "no space" in msg and "free some space" in msg
    assert info.value.errno == errno.ENOSPC
    assert _tree(full) == before  # old content, no temporary file


def test_a_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "runs").write_text("a file where a folder should be")
    before = _tree(tmp_path)
    for target in (tmp_path / "runs" / "a.pt", tmp_path / "runs" / "deeper" / "a.pt"):
        with pytest.raises(StorageError) as info:
            write_text_atomic(target, "x")
        assert f"{tmp_path / 'runs'} is a file, not a folder" in str(info.value) and "move that file" in str(info.value)
    with pytest.raises(StorageError, match="is a file, not a folder"):
        writable_dir(tmp_path / "runs" / "out")
    (tmp_path / "folder.pt").mkdir()
    with pytest.raises(StorageError, match="it is a folder"):
        write_text_atomic(tmp_path / "folder.pt", "x")
    assert _tree(tmp_path) == before


def _kind(path: str | Path) -> str:
    import stat

    mode = os.lstat(path).st_mode
    return "link" if stat.S_ISLNK(mode) else "char" if stat.S_ISCHR(mode) else "fifo" if stat.S_ISFIFO(mode) else "file"


@pytest.mark.parametrize("target", ["/dev/null", "/dev/full", "/dev/stdout", "/proc/self/fd/1", "fifo"])
def test_special_files_are_refused_not_replaced(target: str, tmp_path: Path) -> None:
    """outcome class: error (one StorageError line); the device or pipe is left as it was (as root,
    a rename used to replace /dev/full with a regular file)."""
    if target == "fifo":
        target = str(tmp_path / "pipe")
        os.mkfifo(target)
    before = _kind(target) if os.path.exists(target) or os.path.islink(target) else None
    with pytest.raises(StorageError) as info:
        write_text_atomic(target, "row,decision\n")
    message = str(info.value)
    assert "\n" not in message and f"cannot write {target}: it is " in message and "not a regular file" in message
    assert _kind(target) == before
    assert [p.name for p in Path(target).parent.iterdir() if p.name.startswith(f".{Path(target).name}.")] == []


def test_a_symbolic_link_is_written_through(tmp_path: Path) -> None:
    """outcome class: accepted (the file the link names gets the content; the link stays a link)."""
    (tmp_path / "real.csv").write_text("old")
    os.symlink("real.csv", tmp_path / "link.csv")
    write_text_atomic(tmp_path / "link.csv", "new")
    assert _kind(tmp_path / "link.csv") == "link" and os.readlink(tmp_path / "link.csv") == "real.csv"
    assert (tmp_path / "real.csv").read_text() == "new"
    os.symlink("absent.csv", tmp_path / "dangling.csv")  # a link to a file not yet there: created there
    write_text_atomic(tmp_path / "dangling.csv", "made")
    assert (tmp_path / "absent.csv").read_text() == "made" and _kind(tmp_path / "dangling.csv") == "link"


def test_writable_dir_creates_nothing(tmp_path: Path) -> None:
    assert writable_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert list(tmp_path.iterdir()) == []


def test_permission_denied(tmp_path: Path) -> None:
    prefix = _no_privilege()
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "keep.txt").write_text("old")
    locked.chmod(0o555)
    os.chmod(tmp_path, 0o755)
    probe = textwrap.dedent(f"""
        from cffair._support.io import write_text_atomic
        from cffair.errors import StorageError
        for name in ("keep.txt", "new.txt"):
            try:
                write_text_atomic({str(locked)!r} + "/" + name, "new")
            except StorageError as exc:
                print(exc.errno, exc)
    """)
    out = subprocess.run(
        [*prefix, sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and all(
        line.startswith(f"{errno.EACCES} ") and "permission denied" in line for line in lines
    ), lines
    assert str(locked) in lines[0] and "choose a folder you may write to" in lines[0]
    assert _tree(locked) == {"keep.txt": b"old"}


# ============================================================================ the commands
def test_train_save_read_only_and_file_in_the_way_fail_before_training(
    tiny: Path,
    tmp_path: Path,
    private_cache: Path,
    mounts: Mounts,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("training started although --save cannot be written")

    monkeypatch.setattr("cffair.cli._train._fit", boom)
    ro = mounts.tmpfs("ro", readonly=True)
    code, err = _cli(["train", *_data(tiny), *TRAIN, "--save", str(ro / "m.pt")], capsys)
    _one_line_error(code, err, f"--save {ro / 'm.pt'}", "read-only", "writable")
    (tmp_path / "runs").write_text("x")
    code, err = _cli(["train", *_data(tiny), *TRAIN, "--save", str(tmp_path / "runs" / "m.pt")], capsys)
    _one_line_error(code, err, f"{tmp_path / 'runs'} is a file, not a folder")
    code, err = _cli(["train", *_data(tiny), *TRAIN, "--save", str(tmp_path)], capsys)
    _one_line_error(code, err, "it is a folder")
    assert _tree(ro) == {} and not private_cache.exists()


def test_train_save_on_a_full_disk(
    tiny: Path, private_cache: Path, mounts: Mounts, capsys: pytest.CaptureFixture[str]
) -> None:
    full = mounts.tmpfs("full", full=True)
    code, err = _cli(["train", *_data(tiny), *TRAIN, "--no-cache", "--save", str(full / "m.pt")], capsys)
    _one_line_error(code, err, f"cannot write {full / 'm.pt'}", "no space", "free some space")
    assert set(_tree(full)) == {"filler"}


def test_train_save_without_permission(tiny: Path, tmp_path: Path) -> None:
    prefix = _no_privilege()
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    locked.chmod(0o555)
    os.chmod(tmp_path, 0o755)
    out = subprocess.run(
        [
            *prefix,
            sys.executable,
            "-m",
            "cffair.cli",
            "train",
            *_data(tiny),
            *TRAIN,
            "--no-cache",
            "--save",
            str(locked / "m.pt"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
        check=False,
    )
    _one_line_error(out.returncode, out.stderr, f"--save {locked / 'm.pt'}", "permission denied")
    assert list(locked.iterdir()) == []


def test_counterfactuals_out_read_only_and_file_in_the_way(
    tiny: Path,
    tmp_path: Path,
    private_cache: Path,
    mounts: Mounts,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("generation started although --out cannot be written")

    monkeypatch.setattr("cffair.causal._flow.generate", boom)
    ro = mounts.tmpfs("ro", readonly=True)
    code, err = _cli(["counterfactuals", "generate", *_data(tiny), *GENERATE, "--out", str(ro / "cf.parquet")], capsys)
    _one_line_error(code, err, f"--out {ro / 'cf.parquet'}", "read-only")
    (tmp_path / "cf").write_text("x")
    code, err = _cli(
        ["counterfactuals", "generate", *_data(tiny), *GENERATE, "--out", str(tmp_path / "cf" / "a.parquet")], capsys
    )
    _one_line_error(code, err, f"{tmp_path / 'cf'} is a file, not a folder")
    assert _tree(ro) == {} and not private_cache.exists()


def test_counterfactuals_out_on_a_full_disk(
    tiny: Path, private_cache: Path, mounts: Mounts, capsys: pytest.CaptureFixture[str]
) -> None:
    full = mounts.tmpfs("full", files={"cf.parquet": "old"}, full=True)
    before = _tree(full)
    code, err = _cli(
        ["counterfactuals", "generate", *_data(tiny), *GENERATE, "--no-cache", "--out", str(full / "cf.parquet")],
        capsys,
    )
    _one_line_error(code, err, f"cannot write {full / 'cf.parquet'}", "no space", "free some space")
    assert _tree(full) == before


def test_a_cold_cache_that_cannot_be_written(
    tiny: Path, tmp_path: Path, mounts: Mounts, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "cf.parquet"
    ro = mounts.tmpfs("ro", readonly=True)
    monkeypatch.setenv("CFFAIR_CACHE", str(ro / "cache"))
    code, err = _cli(["counterfactuals", "generate", *_data(tiny), *GENERATE, "--out", str(out)], capsys)
    _one_line_error(code, err, f"cache folder {ro / 'cache'}", "read-only", "--no-cache")
    (tmp_path / "cachefile").write_text("x")
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cachefile" / "cffair"))
    code, err = _cli(["train", *_data(tiny), *TRAIN], capsys)
    _one_line_error(code, err, f"{tmp_path / 'cachefile'} is a file, not a folder", "--no-cache")
    # a full disk shows only when the fitted flow is written into the cache (torch: "unexpected pos")
    full = mounts.tmpfs("full", full=True)
    monkeypatch.setenv("CFFAIR_CACHE", str(full / "cache"))
    code, err = _cli(["counterfactuals", "generate", *_data(tiny), *GENERATE, "--out", str(out)], capsys)
    _one_line_error(code, err, str(full / "cache" / "flows"), "no space", "it is in the cache", "--no-cache")
    assert set(_tree(full)) == {"filler"} and not out.exists()


def test_run_out_read_only_and_file_in_the_way(
    tiny: Path,
    tmp_path: Path,
    private_cache: Path,
    mounts: Mounts,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cffair.datasets import _registry as registry

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("work started although --out cannot be written")

    monkeypatch.setattr("cffair.experiments._pipeline.counterfactuals.prepare_counterfactuals", boom)
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})
    base = ["run", *_data(tiny), "--quick", "--folds", "2", "--settings", "acc", "--baselines", "unaware", "--quiet"]
    ro = mounts.tmpfs("ro", readonly=True)
    code, err = _cli([*base, "--out", str(ro / "out")], capsys)
    _one_line_error(code, err, f"results folder {ro / 'out'}", "read-only", "--out")
    (tmp_path / "runs").write_text("x")
    code, err = _cli([*base, "--out", str(tmp_path / "runs" / "tiny")], capsys)
    _one_line_error(code, err, f"{tmp_path / 'runs'} is a file, not a folder")
    assert _tree(ro) == {} and (tmp_path / "runs").read_text() == "x"


def test_run_out_on_a_full_disk(
    tiny: Path, private_cache: Path, mounts: Mounts, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cffair.datasets import _registry as registry

    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})
    full = mounts.tmpfs("full", full=True)
    code, err = _cli(
        [
            "run",
            *_data(tiny),
            "--quick",
            "--folds",
            "2",
            "--counterfactuals-only",
            "--quiet",
            "--out",
            str(full / "out"),
        ],
        capsys,
    )
    _one_line_error(code, err, str(full / "out"), "no space")
    assert set(_tree(full)) == {"filler"}


# ============================================================================ cffair results only reads
def _store_files(results: Path) -> dict[str, bytes]:
    return _tree(results) if results.exists() else {}


def test_results_on_a_read_only_store(
    mounts: Mounts, private_cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ro = mounts.tmpfs("results", files={"quick/records/.keep": ""}, readonly=True)
    monkeypatch.setenv("CFFAIR_RESULTS", str(ro))
    before = _tree(ro)
    code = main(["results", "--mode", "quick", "--only", "q1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("results/quick: ") and "missing" in out and "Traceback" not in err
    assert _tree(ro) == before and not private_cache.exists()


def test_results_on_a_missing_store_says_so_and_creates_nothing(tmp_path: Path, private_cache: Path) -> None:
    results = tmp_path / "nowhere"
    out = subprocess.run(
        [sys.executable, "-m", "cffair.cli", "results", "--mode", "full"],
        capture_output=True,
        text=True,
        env=_env(CFFAIR_RESULTS=str(results), CFFAIR_CACHE=str(private_cache)),
        timeout=300,
        check=False,
    )
    _one_line_error(
        out.returncode, out.stderr, f"no results store at {results / 'full'}", "cffair reproduce --mode full"
    )
    assert not results.exists() and not private_cache.exists() and out.stdout == ""


def test_a_store_opened_for_reading_creates_nothing(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "store", create=False)
    assert not store.exists and store.records() == [] and store.corrupt() == []
    assert not (tmp_path / "store").exists()


# ============================================================================ one run per results folder
HOLD = """
import sys, time
from cffair._support.io import store_lock
with store_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _holder(folder: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), str(seconds)], stdout=subprocess.PIPE, text=True, env=_env()
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_reproduce_into_the_same_folder_is_refused(
    tmp_path: Path, private_cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("work started although another run holds the results folder")

    monkeypatch.setattr("cffair.experiments._pipeline.prepare_inputs", boom)
    monkeypatch.setenv("CFFAIR_RESULTS", str(tmp_path / "results"))
    folder = tmp_path / "results" / "quick"
    holder = _holder(folder, 60)
    try:
        argv = ["reproduce", "--mode", "quick", "--only", "q1", "--no-notebooks", "--datasets", "compas"]
        code, err = _cli(argv, capsys)
        _one_line_error(code, err, f"{folder} is in use", "another `cffair reproduce`", LOCK_NAME, "--lock-timeout")
        t0 = time.perf_counter()
        code = main([*argv, "--lock-timeout", "0.5"])
        err = capsys.readouterr().err
        assert time.perf_counter() - t0 >= 0.5
        assert (
            code == 2 and "waiting up to 0.5 s" in err and "still in use after 0.5 s" in err and "Traceback" not in err
        )
    finally:
        holder.kill()
        holder.wait()


def test_the_second_holder_waits_for_the_first(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    holder = _holder(folder, 1.0)
    said: list[str] = []
    try:
        with pytest.raises(StoreLockedError, match="is in use"), store_lock(folder, 0):
            pass
        t0 = time.perf_counter()
        with store_lock(folder, 60, say=said.append):
            waited = time.perf_counter() - t0
    finally:
        holder.wait(timeout=60)
    assert len(said) == 1 and "waiting up to 60 s" in said[0]
    assert 0.2 < waited < 30
    with store_lock(folder, 0):  # released: free again at once
        pass


def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    holder = _holder(folder, 60)
    holder.kill()
    holder.wait()
    with store_lock(folder, 0):
        pass


def test_lock_timeout_option_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _cli(["reproduce", "--lock-timeout", "-1"], capsys)
    _one_line_error(code, err, "argument --lock-timeout", ">= 0 or inf")


def test_a_storage_error_survives_the_trip_back_from_a_worker() -> None:
    import pickle

    err = pickle.loads(pickle.dumps(StorageError("cannot write x: no space", path=Path("x"), errno=errno.ENOSPC)))
    assert isinstance(err, OSError) and str(err) == "cannot write x: no space"
    assert err.errno == errno.ENOSPC and err.path == Path("x")


def test_a_writer_killed_mid_write_leaves_no_temporary_file_after_the_next_write(tmp_path: Path) -> None:
    """kill -9 while writing leaves the target untouched and a temporary file behind; the next
    write of the same file removes that file (its process is gone) but not a live writer's."""
    from cffair._support.io import _writer, atomic_path

    target = tmp_path / "models" / "acc.cffair"
    code = textwrap.dedent(
        f"""
        import os, signal, time
        from cffair._support.io import atomic_path
        with atomic_path({str(target)!r}) as tmp:
            tmp.write_bytes(b"half")
            print(tmp, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == -9
    left = Path(run.stdout.strip())
    assert left.exists() and not target.exists()  # the target was never half-written
    host = _writer().rsplit("-", 1)[0]
    live = target.parent / f".{target.name}.{host}-{os.getpid()}.abc.tmp"  # this process: alive
    live.write_bytes(b"in use")
    other_host = target.parent / f".{target.name}.elsewhere-1.abc.tmp"
    other_host.write_bytes(b"another machine's")
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"whole")
    assert target.read_bytes() == b"whole"
    assert not left.exists() and live.exists() and other_host.exists()
    assert sorted(p.name for p in target.parent.iterdir()) == sorted([target.name, live.name, other_host.name])
