"""The Reproducing page's account of the pre-registered protocol (``cffair/data/protocol.yaml``): the file,
the commit that last changed it (from git, never fixed text) and what it fixes, in a few sentences."""

from __future__ import annotations

from pathlib import Path

from cffair.experiments._protocol import Protocol, load_protocol, protocol_commit
from cffair.reporting import dataset_name, method_name

__all__ = ["protocol_paragraph"]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def protocol_paragraph(root: str | Path, plan: Protocol | None = None, commit: str | None = "git") -> str:
    """Markdown: which file holds the protocol, at which commit it was last changed, and what it fixes.

    Args:
        root: the checkout (the file's path is shown relative to it).
        plan: the protocol (default: the committed file's).
        commit: ``"git"`` (ask git for the file's last commit) or a commit given by the caller (``None``: not in a
            git checkout, which the text says).
    """
    plan = plan or load_protocol()
    root = Path(root)
    try:
        shown = plan.path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = plan.path.name
    sha = protocol_commit(root, plan.path) if commit == "git" else commit
    when = (
        f"last changed at commit `{sha[:10]}`"
        if sha
        else "not yet committed in this checkout (or outside a git checkout), so no commit can be named"
    )
    reps = sorted({plan.repeats(d) for d in plan.repetitions})
    cv = (
        f"{reps[0]} × {plan.folds}-fold cross-validation on {_and([dataset_name(d) for d in plan.repetitions])}"
        if len(reps) == 1
        else "; ".join(f"{dataset_name(d)} {n} × {plan.folds} folds" for d, n in plan.repetitions.items())
    )
    base = [f"{method_name(b)} on {_and([dataset_name(d) for d in ds])}" for b, ds in plan.baseline_seeded.items()]
    r = plan.rules
    test = "the corrected resampled t-test" if r.test == "corrected" else "the plain paired t-test"
    return (
        f"The protocol of the full mode is data, committed before its runs: `{shown}`, {when}. The grid "
        f"(`cffair.experiments.paper_grid`) and the claims engine (`cffair.reporting._verdicts`) read it "
        f"(`cffair.experiments._protocol`). It fixes {cv}; {plan.seeds} training seeds per fold for every LTN setting "
        f"({_and([method_name(s) for s in plan.ltn_seeded])}) and for {_and(base)} (elsewhere a baseline runs "
        "one seed), the seeds of a fold averaged before a test and their sd shown beside the sd over folds; "
        f"the twins as a design factor, the settings that learn from the flow's twins trained and scored on "
        f"{_and([repr(t) for t in plan.twins])} (the paper's for the tables beside the paper, the sound "
        f"'{plan.answer}' for the answer); and the rules: {test} over every paired fold, "
        f"{'Holm within a claim' if r.holm else 'no correction within a claim'} at α = {r.alpha:g}, COMPAS(age) "
        f"{'counted everywhere' if r.count_shared else 'counted only where its subgroups make it differ from COMPAS'}."
    )
