"""Which numbers moved between two runs of the grid, by more than their spread over folds, and why.

Reads the records of an earlier run (a git revision's ``results/full/records``) and of the working
tree's, groups each run's records by everything in their configuration but the fold, and compares
each metric's mean over folds. A number *moved* when its means differ by more than the larger of
the two runs' sample standard deviations over folds. A group with one fold has no sd of its own: it
is judged against the median fold sd of the groups of the same dataset and metric that have several
folds (its row says so in ``sd_basis``), and, where there is none, any change counts. For every moved number the records' own fingerprints say what changed
between the runs (:func:`cffair.experiments.diff`: code, data, packages, the content of the twins),
counted over the group's folds, so the reason is read off the records, not guessed; changed inputs
(twins, a pre-trained model: compared by their stored content) and packages are listed first.

    python tools/moved_numbers.py 7985810 [--records results/full/records] [--json moved.json]

Only groups that both runs hold are compared; the counts of groups only in one run are printed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cffair.reporting._names import SCALAR_METRICS

#: Scalar metrics compared: the tables' and claims' numbers, and the predicate's saturation.
METRICS = (*SCALAR_METRICS, "saturation")


def group_key(config: Mapping[str, Any]) -> str:
    """A record's configuration without its fold, as sorted JSON (one key per group of folds).

    >>> group_key({"dataset": "compas", "fold": 3, "setting": "ltn_acc"})
    '{"dataset": "compas", "setting": "ltn_acc"}'
    """
    return json.dumps({k: v for k, v in config.items() if k != "fold"}, sort_keys=True)


def groups(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[int, Mapping[str, Any]]]:
    """``{group key: {fold: record}}``."""
    out: dict[str, dict[int, Mapping[str, Any]]] = defaultdict(dict)
    for r in records:
        out[group_key(r["config"])][int(r["config"]["fold"])] = r
    return dict(out)


def moved(
    old: Mapping[str, Mapping[int, Mapping[str, Any]]],
    new: Mapping[str, Mapping[int, Mapping[str, Any]]],
    metrics: Sequence[str] = METRICS,
    reasons_of: Any = None,
) -> list[dict[str, Any]]:
    """One row per (group, metric) whose mean over folds moved by more than a fold sd (a one-fold
    group: more than :func:`typical_sd` of its dataset and metric).

    ``reasons_of(old_record, new_record)`` lists why two records differ (default:
    :func:`cffair.experiments.diff` of their fingerprints); a row counts each reason over the
    group's folds.

    >>> rec = lambda fold, acc: {"config": {"dataset": "d", "fold": fold}, "metrics": {"accuracy": acc}}
    >>> old = groups([rec(0, 0.70), rec(1, 0.72)])
    >>> new = groups([rec(0, 0.80), rec(1, 0.81)])
    >>> [(r["metric"], r["old"], r["new"], r["reasons"]) for r in moved(old, new, reasons_of=lambda a, b: ["x"])]
    [('accuracy', 0.71, 0.805, {'x': 2})]
    >>> moved(old, groups([rec(0, 0.71), rec(1, 0.72)]), reasons_of=lambda a, b: [])
    []
    """
    if reasons_of is None:
        from cffair.experiments import diff

        def reasons_of(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
            # the inputs compared by their stored content (the twins, a pre-trained model), not by producer
            new_fp = b.get("fingerprint", {})
            contents = {n: i.get("content") for n, i in new_fp.get("inputs", {}).items()}
            found = diff(a.get("fingerprint", {}), new_fp, known_inputs=contents)
            return sorted(found, key=lambda r: (not r.startswith("input"), not r.startswith("package"), r))

    typical = typical_sd(new, metrics)
    rows = []
    for key in sorted(set(old) & set(new)):
        folds = sorted(set(old[key]) & set(new[key]))
        if not folds:
            continue
        dataset = json.loads(key).get("dataset")
        for metric in metrics:
            a = [old[key][f]["metrics"].get(metric) for f in folds]
            b = [new[key][f]["metrics"].get(metric) for f in folds]
            if any(not isinstance(v, (int, float)) for v in a + b):
                continue
            a_arr, b_arr = np.asarray(a, float), np.asarray(b, float)
            if len(folds) > 1:
                sd, basis = max(a_arr.std(ddof=1), b_arr.std(ddof=1)), "fold sd"
            else:
                sd, basis = typical.get((dataset, metric), 0.0), "the dataset's median fold sd"
            delta = float(b_arr.mean() - a_arr.mean())
            if abs(delta) > sd and abs(delta) > 1e-12:
                reasons: Counter[str] = Counter()
                for f in folds:
                    reasons.update(reasons_of(old[key][f], new[key][f]))
                rows.append(
                    {
                        "group": json.loads(key),
                        "metric": metric,
                        "folds": len(folds),
                        "old": round(float(a_arr.mean()), 6),
                        "new": round(float(b_arr.mean()), 6),
                        "delta": round(delta, 6),
                        "fold_sd": round(float(sd), 6),
                        "sd_basis": basis,
                        "reasons": dict(reasons.most_common()),
                    }
                )
    return rows


def typical_sd(
    runs: Mapping[str, Mapping[int, Mapping[str, Any]]], metrics: Sequence[str] = METRICS
) -> dict[tuple[Any, str], float]:
    """The median sample sd over folds of each (dataset, metric), over the groups with several folds:
    the yardstick for a group that ran on one fold.

    >>> rec = lambda s, fold, acc: {"config": {"dataset": "d", "setting": s, "fold": fold}, "metrics": {"accuracy": acc}}
    >>> runs = groups([rec("a", 0, 0.70), rec("a", 1, 0.72), rec("b", 0, 0.5), rec("b", 1, 0.56), rec("c", 0, 0.6)])
    >>> {k: round(v, 4) for k, v in typical_sd(runs, ["accuracy"]).items()}
    {('d', 'accuracy'): 0.0283}
    """
    sds: dict[tuple[Any, str], list[float]] = defaultdict(list)
    for key, folds in runs.items():
        if len(folds) < 2:
            continue
        dataset = json.loads(key).get("dataset")
        for metric in metrics:
            values = [r["metrics"].get(metric) for r in folds.values()]
            if all(isinstance(v, (int, float)) for v in values):
                sds[(dataset, metric)].append(float(np.std(np.asarray(values, float), ddof=1)))
    return {k: float(np.median(v)) for k, v in sds.items()}


def short_reasons(reasons: Mapping[str, int], shown: int = 3) -> str:
    """A row's reasons for a line of text: inputs and packages by name, the changed code as a count of modules.

    >>> short_reasons({"input counterfactuals: its content changed": 2, "code of a changed": 2, "code of b now runs": 1})
    'input counterfactuals: its content changed (2); code: 2 modules changed or newly run'
    """
    code = [k for k in reasons if k.startswith("code of ")]
    other = [f"{k} ({n})" for k, n in reasons.items() if not k.startswith("code of ")][:shown]
    if code:
        other.append(f"code: {len(code)} module{'s' if len(code) != 1 else ''} changed or newly run")
    return "; ".join(other) or "no fingerprint difference"


def records_at(revision: str, folder: str) -> list[dict[str, Any]]:
    """The records under ``folder`` at a git revision (read with ``git show``, nothing checked out)."""
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{revision}:{folder}"], check=True, capture_output=True, text=True
    ).stdout.split()
    out = []
    for name in names:
        if name.endswith(".json"):
            text = subprocess.run(
                ["git", "show", f"{revision}:{folder}/{name}"], check=True, capture_output=True, text=True
            ).stdout
            out.append(json.loads(text))
    return out


def records_in(folder: Path) -> list[dict[str, Any]]:
    """The records of a folder of the working tree."""
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def label(group: Mapping[str, Any]) -> str:
    """A group's short name: ``dataset setting`` and whatever else sets it apart.

    >>> label({"dataset": "compas", "setting": "ltn_acc", "cf_source": "cnf", "tag": "", "profile": "full"})
    'compas ltn_acc'
    """
    usual = {"cf_source": "cnf", "tag": "", "profile": "full", "seed": 0}
    extra = [
        f"{k}={json.dumps(v, sort_keys=True)}"
        for k, v in sorted(group.items())
        if k not in ("dataset", "setting", "weights") and usual.get(k, object()) != v
    ]
    return " ".join([str(group.get("dataset")), str(group.get("setting")), *extra])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the git revision of the earlier run (e.g. a commit)")
    parser.add_argument("--records", default="results/full/records", help="the records folder, in both runs")
    parser.add_argument("--json", help="write the rows to this file as JSON")
    args = parser.parse_args(argv)
    old, new = groups(records_at(args.revision, args.records)), groups(records_in(Path(args.records)))
    rows = moved(old, new)
    several = sum(r["folds"] > 1 for r in rows)
    print(
        f"{len(set(old) & set(new))} groups in both runs, {len(set(old) - set(new))} only in {args.revision}, "
        f"{len(set(new) - set(old))} only in the working tree; {len(rows)} numbers moved by more than a fold sd "
        f"({several} of groups with several folds, {len(rows) - several} of one-fold groups against their "
        "dataset's median fold sd)"
    )
    for r in sorted(rows, key=lambda r: -abs(r["delta"]) / (r["fold_sd"] or 1e-12)):
        print(
            f"{label(r['group'])} {r['metric']} ({r['folds']} fold{'s' if r['folds'] != 1 else ''}): "
            f"{r['old']:.4f} -> {r['new']:.4f} (sd {r['fold_sd']:.4f}): {short_reasons(r['reasons'])}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
