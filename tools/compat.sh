#!/usr/bin/env bash
# make compat: the wheel of cffair installed into fresh virtualenvs of other Pythons (pyenv's),
# outside the checkout, and the fast tests run against that installed copy.
#
#   tools/compat.sh [VERSION ...]      (default: 3.12 3.13)
#
# Each version gets a virtualenv under $COMPAT_DIR (default: a temporary folder), the wheel built
# from this checkout, its declared dependencies (the ranges of pyproject.toml, not the lock) and
# its test, book, slurm and notebooks extras; then `pytest -m "not slow and not book"` runs from the checkout's tests/ while importing
# the installed cffair (the script checks which copy is imported). The benchmark CSVs ship inside
# the wheel (cffair/data/datasets/), so the dataset tests load them on every version. Then, per
# version, a chapter downloaded from the book runs where only the wheel is installed, and at the end
# fresh virtualenvs with nothing but the wheel and the datasets' four dependencies load each dataset.
# Each step prints one line "compat <version>: <pytest summary>"; the exit status is non-zero when
# any step fails.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VERSIONS=("$@")
[ ${#VERSIONS[@]} -eq 0 ] && VERSIONS=(3.12 3.13)
COMPAT_DIR=${COMPAT_DIR:-$(mktemp -d -t cffair-compat-XXXX)}
PY=${PY:-.venv/bin/python}
mkdir -p "$COMPAT_DIR/dist"
rm -f "$COMPAT_DIR"/dist/cffair-*.whl
"$PY" -m pip wheel --quiet --no-deps --no-build-isolation -w "$COMPAT_DIR/dist" . || { echo "compat: building the wheel failed"; exit 1; }
WHEEL=$(ls "$COMPAT_DIR"/dist/cffair-*.whl)
status=0
results=()
for v in "${VERSIONS[@]}"; do
  interp=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v"*/bin/python"$v" 2>/dev/null | sort -V | tail -1)
  [ -z "$interp" ] && interp=$(command -v "python$v")
  if [ -z "$interp" ]; then echo "compat $v: no python$v found (pyenv install $v)"; status=1; continue; fi
  venv="$COMPAT_DIR/py$v"
  [ -x "$venv/bin/python" ] || "$interp" -m venv "$venv"  # kept between runs under one COMPAT_DIR: the wheel is reinstalled
  pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
  if ! "${pip[@]}" "cffair[test,book,slurm,notebooks] @ file://$WHEEL" > "$venv.install.log" 2>&1; then
    echo "compat $v: installing the wheel failed (see $venv.install.log)"; tail -5 "$venv.install.log"; status=1; continue
  fi
  "${pip[@]}" --force-reinstall --no-deps "$WHEEL" >> "$venv.install.log" 2>&1
  where=$(cd "$COMPAT_DIR" && "$venv/bin/python" -c "import cffair, torch, sys; print(cffair.__file__, cffair.__version__, torch.__version__, sys.version.split()[0])")
  case "$where" in "$ROOT"*) echo "compat $v: imports the checkout, not the wheel ($where)"; status=1; continue ;; esac
  echo "compat $v: $where"
  log="$venv.pytest.log"
  (cd "$ROOT" && "$venv/bin/pytest" -q -p no:cacheprovider -m "not slow and not book" tests) > "$log" 2>&1
  rc=$?
  summary=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$log" | tail -1)
  echo "compat $v: $summary (exit $rc; log $log)"
  results+=("{\"python\": \"$(cd "$COMPAT_DIR" && "$venv/bin/python" -c 'import sys; print(sys.version.split()[0])')\", \"torch\": \"$(cd "$COMPAT_DIR" && "$venv/bin/python" -c 'import torch; print(torch.__version__)')\", \"exit\": $rc, \"summary\": \"$summary\"}")
  [ $rc -eq 0 ] || { grep -E "^(FAILED|ERROR)" "$log" | head -20; status=1; }
  # a chapter as the book offers it for download, run where only the wheel is installed: tests/package/test_wheel.py
  # on this Python builds the wheel, installs it into a fresh virtualenv (no checkout on the path) and executes
  # the downloaded notebook of "LTN in ten minutes" there, install cell first
  chapter_log="$venv.chapter.log"
  "${pip[@]}" "setuptools>=68" wheel >> "$venv.install.log" 2>&1
  (cd "$ROOT" && "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/package/test_wheel.py \
      -k "downloaded_chapter or loads_each_dataset_from_its_own_data") > "$chapter_log" 2>&1
  rc=$?
  echo "compat $v: downloaded chapter from the wheel: $(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$chapter_log" | tail -1) (exit $rc; log $chapter_log)"
  [ $rc -eq 0 ] || status=1
done
# the datasets on a bare interpreter: the wheel alone (no checkout, no other cffair dependency than the four the
# datasets need) in fresh virtualenvs of the same versions, each dataset loaded with the checkout's row hashes
fresh_log="$COMPAT_DIR/fresh.pytest.log"
CFFAIR_COMPAT=1 "$PY" -m pytest -q -p no:cacheprovider tests/package/test_wheel.py -k fresh_python > "$fresh_log" 2>&1
rc=$?
echo "compat datasets from the wheel alone: $(grep -E '^[0-9]+ (passed|failed|skipped)|^=+ .*(passed|failed|skipped)' "$fresh_log" | tail -1) (exit $rc; log $fresh_log)"
[ $rc -eq 0 ] || status=1
# shown on the book's Reproducing page
( IFS=,; printf '{"command": "make compat", "date": "%s", "commit": "%s", "runs": [%s]}\n' "$(date -u +%Y-%m-%d)" \
    "$(git rev-parse --short HEAD)" "${results[*]}" ) > benchmarks/results/compat.json
exit $status
