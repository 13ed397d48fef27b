"""The Reproducing page's account of the pre-registered protocol (``cffair/data/protocol.yaml``): the file,
the commit that last changed it (from git, never fixed text) and what it fixes, in a few sentences."""

from __future__ import annotations

from pathlib import Path

from cffair.experiments._protocol import Protocol, load_protocol, protocol_commit
from cffair.reporting import dataset_name, method_name
from cffair_book.wording import joined, say

__all__ = ["protocol_paragraph"]


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
    reps = sorted({plan.repeats(d) for d in plan.repetitions})
    cv = (
        say(
            "protocol.cv",
            "same",
            repeats=reps[0],
            folds=plan.folds,
            datasets=joined([dataset_name(d) for d in plan.repetitions]),
        )
        if len(reps) == 1
        else "; ".join(
            say("protocol.cv", "each", dataset=dataset_name(d), repeats=n, folds=plan.folds)
            for d, n in plan.repetitions.items()
        )
    )
    baselines = [
        say("protocol.baseline_seeds", baseline=method_name(b), datasets=joined([dataset_name(d) for d in ds]))
        for b, ds in plan.baseline_seeded.items()
    ]
    r = plan.rules
    return say(
        "protocol.paragraph",
        file=shown,
        when=say("protocol.when", "commit", commit=sha[:10]) if sha else say("protocol.when", "none"),
        cv=cv,
        seeds=plan.seeds,
        ltn=joined([method_name(s) for s in plan.ltn_seeded]),
        baselines=joined(baselines),
        twins=joined([repr(t) for t in plan.twins]),
        answer=plan.answer,
        test=say("protocol.test", "corrected" if r.test == "corrected" else "plain"),
        holm=say("protocol.holm", "yes" if r.holm else "no"),
        alpha=r.alpha,
        shared=say("protocol.shared", "yes" if r.count_shared else "no"),
    )
