"""Tables and figures of the book, the paper's published numbers, and its claims checked.

A package by what it makes; the modules import one way only (names ← paper ←
records/describe/reproduction ← tables/figures ← claims):

* :mod:`.names` — display names, keys and orders (the paper's notation).
* :mod:`.paper` — the paper's published numbers (:func:`paper_tables`, :func:`paper_value`).
* :mod:`.records` — result records as frames (:func:`records_frame`, :func:`results_long`,
  :func:`summarise_folds`, :func:`paired_folds`, ...): data shaping only.
* :mod:`.describe` — the datasets and their causal graphs as frames (the datasets page).
* :mod:`.tables` — HTML tables (:func:`format_table`), ours next to the paper's
  (:func:`compare`, :func:`comparison_table`) and Tables 3–6.
* :mod:`.style` — the figures' size, resolution, fonts, colour-blind palette and markers.
* :mod:`.figures` — every ``plot_*`` function (seaborn and matplotlib are imported when one is called).
* :mod:`.stats` — the tests behind the verdicts: the corrected resampled t-test (Nadeau–Bengio),
  the plain paired t-test, the exact sign-flip test and Holm's correction.
* :mod:`.verdicts` — the five verdicts and the fold-paired rules that decide them.
* :mod:`.investigations` — why the failing claims fail: summaries, findings and figures.
* :mod:`.why` — why Q1.4, Q1.5, Q2.2, Q2.3, Q3.5, Q3.6, A.1 and A.2 fail, tested on the protocol's own records.
* :mod:`.registry` — a claim and its verdict, :func:`claims_table`, :func:`claims_tally`, the
  registry of checks, :func:`evaluate_claims` and the robustness table.
* :mod:`.claims` — the paper's claims, one check each (registered in :mod:`.registry`).
* :mod:`.reproduction` — the run's provenance and the benchmarks (the Reproducing page).
* :mod:`.report` — the self-contained HTML report of a run on one's own data (``cffair run``).
* :mod:`.rulers` — appendix C: the synthetic suite's scores and Table 1 on three rulers.
* :mod:`.dependence` — appendix C: the headline claims re-decided per factor (ruler, twins, semantics, GAN), and the saturation.

Everything public is available from here (``from cffair import reporting;
reporting.compare(...)``).
"""

from __future__ import annotations

from cffair.reporting.beyond import (  # noqa: E402
    ADAPTIVE_VARIANTS,
    INTERSECTION_VARIANTS,
    NOTION_METRICS,
    NOTION_VARIANTS,
    RECOURSE_GROUPS,
    VARIANT_LABELS,
    adaptive_frame,
    beyond_frame,
    findings,
    headline,
    intersection_frame,
    mean_table,
    plot_adaptive,
    plot_notions,
    plot_recourse,
    recourse_frame,
)
from cffair.reporting.claims import (
    CLAIM_CHECKS,
    ROBUSTNESS_RULES,
    Claim,
    ClaimCheck,
    ClaimsTally,
    claim_check,
    claim_status,
    claims_table,
    claims_tally,
    evaluate_claims,
    robustness_frame,
    robustness_table,
)
from cffair.reporting.dependence import (
    DEPENDENCE_LEVELS,
    HEADLINE_CLAIMS,
    Level,
    dependence_frame,
    dependence_table,
    factor_paragraph,
    factor_world,
    plot_dependence,
    saturation_finding,
    saturation_frame,
)
from cffair.reporting.describe import (
    GRAPH_COLOURS,
    adjacency_frame,
    balance_frame,
    clip_to_box,
    data_files_frame,
    describe_spec,
    graph_layers,
    graph_summary_frame,
    graph_title,
    layered_positions,
    node_roles,
    row_counts_frame,
    short_source,
    spec_frame,
    subgroup_sizes_frame,
    subgroup_sizes_table,
)
from cffair.reporting.figures import (
    plot_causal_graph,
    plot_cf_mse_settings,
    plot_subgroup_cf_mse,
    plot_subgroup_sizes,
    plot_tradeoff,
    plot_undesirable_ratio,
    plot_weight_trend,
)
from cffair.reporting.investigations import (
    cke_finding,
    pareto_front,
    plot_explanation_imbalances,
    plot_threshold_sweep,
    plot_variants,
    q2_finding,
    q2_summary,
    q2_table,
    query_finding,
    query_summary,
    weight_finding,
)
from cffair.reporting.names import (
    DATASET_NAMES,
    DATASET_ORDER,
    EXTRA_BASELINES,
    FIGURE4_SETTINGS,
    HIGHER_IS_BETTER,
    METHOD_NAMES,
    METRIC_NAMES,
    METRIC_ORDER,
    NOTEBOOK_PAGES,
    Q1_SETTINGS,
    RESULT_COLUMNS,
    SCALAR_METRICS,
    TABLE_METHODS,
    abbreviate_subgroup,
    dataset_name,
    method_name,
    metric_name,
    order_key,
    ordinal_order,
    performance_metric,
)
from cffair.reporting.paper import PAPER_TABLE3_AXIOMS, TABLE4_COLUMNS, TABLE4_PAPER_SAT, paper_tables, paper_value
from cffair.reporting.records import (
    VARIANT_OPTIONS,
    check_results,
    cke_candidates,
    explanation_frame,
    find_record,
    fine_weight_frame,
    folds_per_dataset,
    is_investigation,
    mean_by_method,
    mean_sd,
    options_text,
    paired_folds,
    query_frame,
    record_method,
    record_repeat,
    records_frame,
    results_long,
    select_records,
    subgroup_frame,
    summarise_folds,
    threshold_sweep_frame,
    undesirable_ratio_frame,
    variants_frame,
    weight_grid_frame,
)
from cffair.reporting.report import (  # noqa: E402
    best_methods,
    cke_frame,
    constant_runs,
    eq3_frame,
    figure_html,
    method_frame,
    per_fold_frame,
    render_report,
    subgroup_summary,
    verdict_frame,
    write_report,
)
from cffair.reporting.reproduction import (
    baseline_seconds_frame,
    core_seconds_frame,
    flow_benchmark_frame,
    gan_mmd_frame,
    group_seconds_frame,
    husband_flip_frame,
    load_benchmarks,
    load_provenance,
    ltn_seconds_frame,
    provenance_notes,
    reproduction_facts,
    scaling_frame,
    stage_seconds_frame,
)
from cffair.reporting.rulers import (
    RULER_CLAIMS,
    RULER_LABELS,
    RULER_METHODS,
    SYNTHETIC_FILE,
    SYNTHETIC_TREATMENTS,
    plot_transition_tables,
    ruler_claims,
    ruler_claims_table,
    ruler_coverage,
    ruler_frame,
    ruler_records,
    ruler_table,
    ruler_verdict_line,
    synthetic_best,
    synthetic_scores,
    synthetic_table,
    transition_tables,
)
from cffair.reporting.stats import (
    DEFAULT_TEST,
    MAX_EXACT,
    TEST_NAMES,
    TESTS,
    FoldTest,
    corrected_t,
    fold_test,
    holdout_ratio,
    holm,
    holm_adjusted,
    min_sign_flip_p,
    plain_t,
    sign_flip_p,
)
from cffair.reporting.style import (
    BODY_PX,
    COLUMN_PX,
    DPI,
    FONT_PT,
    MARKERS,
    MAX_WIDTH_IN,
    book_style,
    finish,
    legend_below,
    line_handles,
    palette,
    patch_handles,
    series_colours,
    setting_colours,
    setting_markers,
)
from cffair.reporting.tables import (
    CAPTION_STYLE,
    HTMLTable,
    axiom_label,
    best_cells,
    compare,
    comparison_table,
    delta_summary,
    eq3_table,
    format_cell,
    format_delta,
    format_table,
    paper_table,
    query_profiles,
    query_sat_table,
    query_table,
    results_table,
    side_by_side,
    table3_comparison,
    table5_frame,
    table6_frame,
    tidy_table,
)
from cffair.reporting.verdicts import (
    ALPHA,
    BY_CONSTRUCTION,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    MIN_TREND_POINTS,
    PENDING,
    SHARED_DATASETS,
    SUBGROUP_METHODS,
    SUBGROUP_METRICS,
    VACUOUS,
    VERDICT_RULE,
    VERDICTS,
    Basis,
    Decision,
    Evidence,
    Paired,
    Rules,
    Trend,
    combine,
    current_rules,
    decide,
    fmt,
    folds_text,
    p_text,
    paired,
    paired_series,
    rules,
    spearman_exact,
)
from cffair.reporting.why import (  # noqa: E402
    cke_steps_finding,
    cke_threshold_finding,
    flip_ruler_finding,
    frontier_finding,
    gan_twins_finding,
    line_at,
    plot_frontier,
    shared_runs_finding,
    subgroup_drop_finding,
    subgroup_drop_frame,
)

__all__ = [
    "DEPENDENCE_LEVELS",
    "HEADLINE_CLAIMS",
    "Level",
    "dependence_frame",
    "dependence_table",
    "factor_paragraph",
    "factor_world",
    "plot_dependence",
    "saturation_finding",
    "saturation_frame",
    # names
    "DATASET_NAMES", "DATASET_ORDER", "EXTRA_BASELINES", "FIGURE4_SETTINGS", "HIGHER_IS_BETTER", "METHOD_NAMES",
    "METRIC_NAMES", "METRIC_ORDER", "NOTEBOOK_PAGES", "Q1_SETTINGS", "RESULT_COLUMNS", "SCALAR_METRICS", "TABLE_METHODS",
    "abbreviate_subgroup", "dataset_name", "method_name", "metric_name", "order_key", "ordinal_order", "performance_metric",
    # paper
    "PAPER_TABLE3_AXIOMS", "TABLE4_COLUMNS", "TABLE4_PAPER_SAT", "paper_tables", "paper_value",
    # records
    "check_results", "cke_candidates", "find_record", "folds_per_dataset", "mean_by_method", "mean_sd", "paired_folds",
    "record_method", "record_repeat", "records_frame", "results_long", "select_records", "subgroup_frame", "summarise_folds",
    "VARIANT_OPTIONS", "explanation_frame", "fine_weight_frame", "is_investigation", "options_text", "query_frame",
    "threshold_sweep_frame", "variants_frame",
    "undesirable_ratio_frame", "weight_grid_frame",
    # describe
    "GRAPH_COLOURS", "adjacency_frame", "balance_frame", "clip_to_box", "data_files_frame", "describe_spec", "graph_layers",
    "graph_summary_frame", "graph_title", "layered_positions", "node_roles", "row_counts_frame", "short_source",
    "spec_frame", "subgroup_sizes_frame", "subgroup_sizes_table",
    # tables
    "CAPTION_STYLE", "HTMLTable", "axiom_label", "best_cells", "compare", "comparison_table", "delta_summary", "eq3_table", "format_cell",
    "format_delta", "format_table", "paper_table", "query_profiles", "query_sat_table", "query_table", "results_table", "side_by_side",
    "table3_comparison", "table5_frame", "table6_frame", "tidy_table",
    # style
    "BODY_PX", "COLUMN_PX", "DPI", "FONT_PT", "MARKERS", "MAX_WIDTH_IN", "book_style", "finish", "legend_below",
    "line_handles", "palette", "patch_handles", "series_colours", "setting_colours", "setting_markers",
    # figures
    "plot_causal_graph", "plot_cf_mse_settings", "plot_subgroup_cf_mse", "plot_subgroup_sizes", "plot_tradeoff",
    "plot_undesirable_ratio", "plot_weight_trend",
    # claims and their registry
    "CLAIM_CHECKS", "ROBUSTNESS_RULES", "Claim", "ClaimCheck", "ClaimsTally", "claim_check", "claim_status", "claims_table",
    "claims_tally", "evaluate_claims", "robustness_frame", "robustness_table",
    # stats
    "DEFAULT_TEST", "MAX_EXACT", "TEST_NAMES", "TESTS", "FoldTest", "corrected_t", "fold_test", "holdout_ratio", "holm",
    "holm_adjusted", "min_sign_flip_p", "plain_t", "sign_flip_p",
    # verdicts
    "ALPHA", "BY_CONSTRUCTION", "FAILS", "HOLDS", "INCONCLUSIVE", "MIN_TREND_POINTS", "PENDING", "SHARED_DATASETS",
    "SUBGROUP_METHODS", "SUBGROUP_METRICS", "VACUOUS", "VERDICT_RULE", "VERDICTS",
    "Basis", "Decision", "Evidence", "Paired", "Rules", "Trend", "combine", "current_rules", "decide", "fmt", "folds_text",
    "p_text", "paired", "paired_series", "rules", "spearman_exact",
    # investigations
    "cke_finding", "pareto_front", "plot_explanation_imbalances", "plot_threshold_sweep", "plot_variants", "q2_finding",
    "q2_summary", "q2_table", "query_finding", "query_summary", "weight_finding",
    "cke_steps_finding", "cke_threshold_finding", "flip_ruler_finding", "frontier_finding", "gan_twins_finding", "line_at",
    "plot_frontier", "shared_runs_finding", "subgroup_drop_finding", "subgroup_drop_frame",
    # reproduction
    "baseline_seconds_frame", "core_seconds_frame", "flow_benchmark_frame", "gan_mmd_frame", "group_seconds_frame", "husband_flip_frame",
    "load_benchmarks",
    "load_provenance", "ltn_seconds_frame", "provenance_notes", "reproduction_facts", "scaling_frame",
    "stage_seconds_frame",
    # rulers (appendix C)
    "RULER_CLAIMS", "RULER_LABELS", "RULER_METHODS", "SYNTHETIC_FILE", "SYNTHETIC_TREATMENTS", "plot_transition_tables",
    "ruler_claims", "ruler_claims_table", "ruler_coverage", "ruler_frame", "ruler_records", "ruler_table", "ruler_verdict_line",
    "synthetic_best", "synthetic_scores", "synthetic_table", "transition_tables",
    # beyond the paper (section 8) and the own-data report
    "ADAPTIVE_VARIANTS", "RECOURSE_GROUPS", "INTERSECTION_VARIANTS", "NOTION_METRICS", "NOTION_VARIANTS", "VARIANT_LABELS", "adaptive_frame", "beyond_frame", "findings", "headline", "intersection_frame", "mean_table", "plot_adaptive", "plot_notions", "plot_recourse", "recourse_frame", "best_methods", "cke_frame", "constant_runs", "eq3_frame", "figure_html", "method_frame", "per_fold_frame", "render_report", "subgroup_summary", "verdict_frame", "write_report",
]
