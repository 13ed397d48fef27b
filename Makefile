# cffair — the two README commands are `make book` and `make test`; both set everything up.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.cffair-installed
JOBS ?= 2
MODE ?= quick
## Sphinx reads (and so executes) the pages in this many processes, and pytest runs the tests in this many workers
## (pytest-xdist): two at a time on 2 cores.
SPHINX_JOBS ?= 2
TEST_JOBS ?= 2

REMOTE ?= origin

.PHONY: install book book-student pdf test test-fast test-portable reproduce bench browser lab publish clean compat test-slurm lint

## The editable install of this checkout: the library (cffair/) and the book package (cffair_book/), which the
## notebooks import wherever Jupyter Book, papermill or JupyterLab runs them. pip byte-compiles on one core; here
## compileall does it on every core (90 -> 66 s on 2): the workers of a reproduction run with `python -B`, which
## writes no bytecode, so without it each worker would compile every module it imports again. A file that compiles
## only on a newer Python (one of torch's test helpers) fails there as it does under pip, and is let pass.
install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) (Python 3.11) on PATH"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements.lock
	@$(PY) -m compileall -q -j 0 $(VENV)/lib cffair cffair_book > /dev/null || true
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(PY) -m pip check
	@touch $@

## The book is built by Sphinx (conf.py; the table of contents is _toc.yml), warnings as errors (-W), every
## cross-reference checked (-n), every page read and executed again (-E: Sphinx's incremental build would keep
## a page whose source is unchanged although the records it reads changed). Each build keeps its doctrees and
## executed notebooks beside its output folder: <dir>/.doctrees, <dir>/jupyter_execute.
SPHINX_BUILD = $(VENV)/bin/sphinx-build -W -n -E -j $(SPHINX_JOBS)

## Build the book (render mode: reads the committed results) into _build/html. The stamp
## (cffair_book/build_stamp.py: the inputs hashed before and after) lets `make test` browse this book instead of
## building it again while the inputs stay the same.
book: install
	rm -rf _build/html
	$(PY) cffair_book/build_stamp.py start _build/html
	CFFAIR_MODE=render $(SPHINX_BUILD) -b html -d _build/.doctrees . _build/html
	$(PY) cffair_book/build_stamp.py finish _build/html

## The student edition: the same book without solutions and discussion notes (book/_ext/course_kit.py).
book-student: install
	rm -rf _build/student
	CFFAIR_MODE=render CFFAIR_EDITION=student $(SPHINX_BUILD) -b html -d _build/student/_build/.doctrees . _build/student/_build/html

## The whole book as one PDF (EDITION=instructor|student): one HTML page printed by headless Chromium.
EDITION ?= instructor
pdf: install browser
	rm -rf _build/pdf
	CFFAIR_MODE=render CFFAIR_EDITION=$(EDITION) $(SPHINX_BUILD) -b singlehtml -d _build/pdf/_build/.doctrees . _build/pdf/_build/singlehtml
	$(PY) tools/book_pdf.py _build/pdf/_build/singlehtml/intro.html _build/pdf/cffair-book$(if $(filter student,$(EDITION)),-student).pdf

## Headless Chromium for the browser test of the book (Debian package).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

## Lint: ruff's checks and ruff format's layout of the code, tests, benchmarks and tools, and mypy's types of the
## library and the book's package (rules in pyproject.toml).
lint: install
	$(VENV)/bin/ruff check conf.py cffair cffair_book tests benchmarks tools
	$(VENV)/bin/ruff format --check conf.py cffair cffair_book tests benchmarks tools
	$(VENV)/bin/mypy

## Run the whole test suite (lint, unit, property, doctests, notebooks in quick mode, book build, browser check).
## The book test browses `make book`'s _build/html when its stamp matches the inputs at hand, else builds its own
## (CFFAIR_BOOK_REBUILD=1: always builds).
test: install browser lint
	$(PY) -m pytest -q -n $(TEST_JOBS)

## The unit tests without the slow ones and the book (a few minutes): for the edit-test loop.
test-fast: install
	$(PY) -m pytest -q -n $(TEST_JOBS) -m "not slow and not book"

## The suite with PyTorch's kernels forced to another instruction set (CPU=avx2, or default), as on a machine without
## AVX-512: no test may depend on the last digits one instruction set gives. Not part of CI's budget; run before a
## release.
CPU ?= avx2
test-portable: install
	ATEN_CPU_CAPABILITY=$(CPU) $(PY) -m pytest -q -n $(TEST_JOBS) -m "not book"

## Recompute every result (MODE=quick|full) with JOBS worker processes.
reproduce: install
	$(VENV)/bin/cffair reproduce --mode $(MODE) --jobs $(JOBS)

## A single-node SLURM cluster here (Debian's slurm-wlm, munge), the quick grid through it, records compared with a local run.
test-slurm: install
	tools/test_slurm.sh

## The wheel in fresh Python 3.12 and 3.13 virtualenvs (pyenv's), the fast tests run against it.
compat: install
	tools/compat.sh $(COMPAT_VERSIONS)

bench: install
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

## Open the notebooks in JupyterLab, from the locked environment (jupytext opens the .md files as notebooks).
lab: install
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks

## Publish the built book (_build/html) to the gh-pages branch of $(REMOTE) with ghp-import.
publish:
	@git remote get-url $(REMOTE) >/dev/null 2>&1 || { \
	  echo "make publish: this repository has no git remote '$(REMOTE)' to push the gh-pages branch to."; \
	  echo "Add one (git remote add $(REMOTE) <url>) or name another (make publish REMOTE=<name>), then run it again."; \
	  exit 1; }
	@test -f _build/html/index.html || { echo "make publish: no built book in _build/html; run 'make book' first."; exit 1; }
	$(VENV)/bin/ghp-import --no-jekyll --push --force --remote $(REMOTE) --branch gh-pages _build/html

## Release VERSION: one version in pyproject.toml, cffair/__init__.py, CITATION.cff and .zenodo.json, the
## changelog's unreleased heading finalised, a commit and an annotated tag v$(VERSION) (tools/release.py;
## a clean tree only; pushes nothing).
.PHONY: release
release:
	@test -n "$(VERSION)" || { echo "make release: name the version, as in make release VERSION=x.y.z"; exit 2; }
	python3 tools/release.py $(VERSION)

clean:
	rm -rf _build .pytest_cache
