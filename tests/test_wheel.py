"""The library from an installed wheel, outside the checkout (issue #22, item 6).

The wheel is built from a copy of the files it is made of (so the build writes nothing into the
checkout), installed into a fresh virtualenv in a temporary folder, and ``cffair run`` runs the
credit-default example (``examples/credit``) in quick settings from a folder outside the
checkout. The virtualenv is made by the interpreter of this test run (the locked one) and sees
this environment's installed dependencies through a ``.pth`` line naming their folder: a ``.pth``
line adds a folder to ``sys.path`` without running the ``.pth`` files inside it, so the
checkout's editable install of cffair stays invisible and nothing is downloaded.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
CREDIT = ROOT / "examples" / "credit"
#: What the wheel is built from (pyproject.toml's packages, package data and readme).
WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "cffair")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """``(python of the fresh virtualenv, environment to run it in, a work folder outside the checkout)``."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in WHEEL_SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update({"CFFAIR_CACHE": str(tmp / "cache"), "PYTHONNOUSERSITE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    env.pop("CFFAIR_DATASETS", None)
    env.pop("CFFAIR_RESULTS", None)
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
    (wheel,) = (tmp / "dist").glob("cffair-*.whl")

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
            str(wheel),
        ],
        tmp,
        env,
    )
    assert done.returncode == 0, done.stderr[-3000:]

    work = tmp / "work"
    work.mkdir()
    for name in ("spec.yaml", "graph.yaml", "prepare.py"):
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
