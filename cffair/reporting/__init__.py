"""Tables and figures of the paper's results, its published numbers, and the statistics behind them.

What a library user needs to read result records and compare methods: numbers, data frames,
tables and figures. What the book *says* about them (the claims and their notes, why the failing
claims fail, the chapters' boxes) lives in the book package ``cffair_book``, which the wheel does
not ship. The modules import one way only (names ← paper ← records/describe ← tables/figures/
verdicts ← comparison ← report):

* :mod:`._names` — display names, keys and orders (the paper's notation).
* :mod:`._paper` — the paper's published numbers (:func:`paper_tables`, :func:`paper_value`).
* :mod:`._records` — result records as frames (:func:`records_frame`, :func:`results_long`,
  :func:`summarise_folds`, :func:`paired_folds`, ...): data shaping only.
* :mod:`._describe` — the datasets and their causal graphs as frames.
* :mod:`._tables` — tables (:func:`format_table`, :func:`results_table`); Tables 3–6 are :mod:`._chapter_tables`'.
* :mod:`._comparison` — ours next to the paper's (:func:`~cffair.reporting.compare`, each cell
  judged on the folds behind both means; :func:`comparison_table`, :func:`delta_summary`).
* :mod:`._style` — the figures' size, resolution, fonts, colour-blind palette and markers.
* :mod:`._figures` — every ``plot_*`` function (seaborn and matplotlib are imported when one is called).
* :mod:`._stats` — the corrected resampled t-test (Nadeau–Bengio), the plain paired t-test, the
  exact sign-flip test and Holm's correction.
* :mod:`._verdicts` — the five verdicts and the fold-paired rules that decide them.
* :mod:`._model_selection` — choosing among candidates (a scikit-learn search or one's own runs):
  never a collapsed one, accurate enough, then the fairest, with the choice's fold noise.
* :mod:`._report` — the self-contained HTML report of a run on one's own data (``cffair run``).

The modules are private: what a user needs is importable from here
(``from cffair import reporting; reporting.compare(...)``); the book's own helpers (``cffair_book``) also use
the modules' other names.
"""

from __future__ import annotations

from cffair.reporting._chapter_tables import (
    axiom_label,
    eq3_table,
    fold_coverage,
    query_profiles,
    query_sat_table,
    query_table,
    table3_comparison,
    table5_frame,
    table6_frame,
)
from cffair.reporting._comparison import (
    AGREEMENT_ALPHA,
    compare,
    comparison_table,
    delta_summary,
    paper_table,
    side_by_side,
)
from cffair.reporting._datafigures import plot_causal_graph, plot_subgroup_sizes
from cffair.reporting._describe import (
    adjacency_frame,
    balance_frame,
    data_sources_frame,
    describe_spec,
    graph_summary_frame,
    graph_title,
    row_counts_frame,
    spec_frame,
    subgroup_sizes_frame,
    subgroup_sizes_table,
)
from cffair.reporting._figures import (
    plot_cf_mse_settings,
    plot_subgroup_cf_mse,
    plot_tradeoff,
    plot_undesirable_ratio,
    plot_weight_trend,
)
from cffair.reporting._investigation_frames import (
    explanation_frame,
    fine_weight_frame,
    query_frame,
    threshold_sweep_frame,
    variants_frame,
)
from cffair.reporting._model_selection import (
    Candidate,
    FairestWithinTolerance,
    Selection,
    collapsed_scorer,
    majority_rate_scorer,
    scoring,
    select,
)
from cffair.reporting._names import (
    DATASET_NAMES,
    DATASET_ORDER,
    EXTRA_BASELINES,
    FIGURE4_SETTINGS,
    HIGHER_IS_BETTER,
    METHOD_NAMES,
    METRIC_NAMES,
    METRIC_ORDER,
    Q1_SETTINGS,
    RESULT_COLUMNS,
    TABLE_METHODS,
    abbreviate_subgroup,
    dataset_name,
    method_name,
    metric_name,
    performance_metric,
)
from cffair.reporting._paper import (
    PAPER_FOLDS,
    TABLE4_PAPER_SAT,
    paper_tables,
    paper_value,
)
from cffair.reporting._records import (
    check_results,
    cke_candidates,
    find_record,
    folds_per_dataset,
    mean_by_method,
    paired_folds,
    records_frame,
    results_long,
    select_records,
    subgroup_frame,
    summarise_folds,
    undesirable_ratio_frame,
    weight_grid_frame,
)
from cffair.reporting._report import (
    best_methods,
    cke_frame,
    eq3_frame,
    method_frame,
    render_report,
    subgroup_summary,
    write_report,
)
from cffair.reporting._scores import SCORES, Score, score_metrics, score_records
from cffair.reporting._stats import (
    corrected_t,
    fold_test,
    fold_trend,
    holm,
    holm_adjusted,
    min_detectable_difference,
    partition_sign_flip_p,
    plain_t,
    sign_flip_p,
)
from cffair.reporting._tables import (
    HTMLTable,
    folded,
    format_cell,
    format_delta,
    format_table,
    results_table,
    tidy_table,
)
from cffair.reporting._verdicts import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    VERDICTS,
    Decision,
    Evidence,
    Paired,
    Rules,
    decide,
    paired,
    rules,
    spearman_exact,
)

__all__ = [
    # names
    "DATASET_NAMES",
    "DATASET_ORDER",
    "EXTRA_BASELINES",
    "FIGURE4_SETTINGS",
    "HIGHER_IS_BETTER",
    "METHOD_NAMES",
    "METRIC_NAMES",
    "METRIC_ORDER",
    "Q1_SETTINGS",
    "RESULT_COLUMNS",
    "TABLE_METHODS",
    "abbreviate_subgroup",
    "dataset_name",
    "method_name",
    "metric_name",
    "performance_metric",
    # paper
    "PAPER_FOLDS",
    "TABLE4_PAPER_SAT",
    "paper_tables",
    "paper_value",
    # records
    "check_results",
    "cke_candidates",
    "explanation_frame",
    "find_record",
    "fine_weight_frame",
    "fold_coverage",
    "folds_per_dataset",
    "paired_folds",
    "query_frame",
    "records_frame",
    "results_long",
    "select_records",
    "subgroup_frame",
    "summarise_folds",
    "threshold_sweep_frame",
    "undesirable_ratio_frame",
    "variants_frame",
    "weight_grid_frame",
    # describe
    "adjacency_frame",
    "balance_frame",
    "describe_spec",
    "graph_summary_frame",
    "row_counts_frame",
    "spec_frame",
    "subgroup_sizes_frame",
    # comparison
    "AGREEMENT_ALPHA",
    "compare",
    "comparison_table",
    "delta_summary",
    # tables
    "HTMLTable",
    "axiom_label",
    "eq3_table",
    "format_cell",
    "folded",
    "format_delta",
    "format_table",
    "paper_table",
    "query_profiles",
    "query_sat_table",
    "query_table",
    "results_table",
    "side_by_side",
    "table3_comparison",
    "table5_frame",
    "table6_frame",
    "tidy_table",
    # figures
    "plot_causal_graph",
    "plot_cf_mse_settings",
    "plot_subgroup_cf_mse",
    "plot_subgroup_sizes",
    "plot_tradeoff",
    "plot_undesirable_ratio",
    "plot_weight_trend",
    # stats
    "corrected_t",
    "fold_test",
    "holm",
    "holm_adjusted",
    "plain_t",
    "sign_flip_p",
    "SCORES",
    "Score",
    "fold_trend",
    "min_detectable_difference",
    "partition_sign_flip_p",
    "score_metrics",
    "score_records",
    # verdicts
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "VERDICTS",
    "Decision",
    "Paired",
    "Rules",
    "decide",
    "paired",
    "rules",
    "spearman_exact",
    # report
    "render_report",
    "write_report",
    "data_sources_frame",
    "graph_title",
    "subgroup_sizes_table",
    "mean_by_method",
    "Evidence",
    # model selection
    "Candidate",
    "FairestWithinTolerance",
    "Selection",
    "collapsed_scorer",
    "majority_rate_scorer",
    "scoring",
    "select",
    # report frames
    "best_methods",
    "cke_frame",
    "eq3_frame",
    "method_frame",
    "subgroup_summary",
]
