"""``cffair reproduce`` (regenerate every table and figure) and ``cffair results`` (what is stored, fresh or stale, and why).

One writer per results folder: ``cffair reproduce`` holds the lock file ``.cffair.lock`` in its
store (``results/<mode>``) while it runs. A second ``cffair reproduce`` into the same folder
exits with status 2 and one line saying that another run holds it, unless it is given
``--lock-timeout SECONDS`` (or ``inf``): then it says that it waits, and waits that long
for the first to finish. The lock is the operating system's (``flock``): a run that is killed
releases it.

``cffair results`` only reads: it creates no folder and writes no file, so it works on a
read-only checkout; on a store that does not exist it says so (status 2).
"""

from __future__ import annotations

import argparse
import json

from cffair.cli._options import DEVICE_HELP, backend_name, device, positive_int
from cffair.experiments import _registry as registry

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``reproduce`` and ``results``."""
    p = sub.add_parser("reproduce", help="regenerate every table and figure (counterfactuals, grid, notebooks)")
    p.add_argument("--mode", choices=["quick", "full"], default="quick")
    p.add_argument("--only", nargs="*", choices=list(registry.groups()), help="question groups to run (default: all)")
    p.add_argument("--jobs", type=positive_int, default=2, help="worker processes (one torch thread each)")
    p.add_argument(
        "--datasets", nargs="*", default=list(registry.dataset_names()), choices=list(registry.dataset_names())
    )
    p.add_argument("--backend", type=backend_name, default=None, help="joblib backend: loky (default), dask, ...")
    p.add_argument(
        "--no-notebooks",
        action="store_true",
        help="only compute results (leave out the steps installed after the grid: the book's notebooks)",
    )
    p.add_argument(
        "--device",
        type=device,
        default="cpu",
        help=DEVICE_HELP + "; each worker takes one device, which enters no record's fingerprint",
    )
    p.add_argument(
        "--lock-timeout",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="when another `cffair reproduce` is writing the same results folder, wait this long for it "
        "(inf: until it finishes); default 0: stop at once and say so",
    )
    c = p.add_argument_group("a SLURM cluster (needs the slurm extra; see cffair.experiments._cluster)")
    c.add_argument(
        "--cluster",
        choices=["local", "slurm"],
        default="local",
        help="slurm: the workers are --jobs SLURM jobs (implies --backend dask); local (default): this machine",
    )
    c.add_argument(
        "--cluster-config", metavar="YAML", help="SLURM settings (queue, account, walltime, memory, ...) from a file"
    )
    c.add_argument("--queue", help="SLURM partition")
    c.add_argument("--account", help="SLURM account")
    c.add_argument("--walltime", help="per worker job, [D-]HH:MM[:SS] (default 02:00:00)")
    c.add_argument("--memory", help="per worker job, e.g. 8GB (default)")
    c.add_argument("--scheduler-host", help="address the Dask scheduler binds to (default: the network interface's)")
    p.set_defaults(func=_cmd_reproduce, check=_check_reproduce)
    r = sub.add_parser("results", help="list stored results: fresh, stale (and why), missing or corrupt")
    r.add_argument("--mode", choices=["quick", "full"], default="full")
    r.add_argument("--only", nargs="*", choices=list(registry.groups()))
    r.add_argument("--all", action="store_true", help="list every stale record with its reasons (default: a summary)")
    r.set_defaults(func=_cmd_results)


def _check_reproduce(args: argparse.Namespace) -> None:
    """``--datasets`` given with no name would reproduce nothing: refused before any work."""
    from cffair.cli._options import OptionError

    if not args.datasets:
        raise OptionError(
            f"--datasets was given without a dataset, so there is nothing to reproduce; name one or more of "
            f"{', '.join(registry.dataset_names())}, or leave --datasets out for all of them."
        )
    if args.only is not None and not args.only:
        raise OptionError(
            f"--only was given without a question group, so there is nothing to reproduce; name one or more of "
            f"{', '.join(registry.groups())}, or leave --only out for all of them."
        )
    slurm_options = [
        o for o in ("cluster_config", "queue", "account", "walltime", "memory", "scheduler_host") if getattr(args, o)
    ]
    if args.cluster == "slurm":
        if args.backend not in (None, "dask"):
            raise OptionError(
                f"--cluster slurm runs through the dask backend; drop --backend {args.backend} (or give --backend dask)."
            )
        from cffair.experiments._cluster import SlurmConfig

        args.slurm = SlurmConfig.load(
            args.cluster_config,
            queue=args.queue,
            account=args.account,
            walltime=args.walltime,
            memory=args.memory,
            scheduler_host=args.scheduler_host,
        )  # checked before any work
    elif slurm_options:
        raise OptionError(f"--{slurm_options[0].replace('_', '-')} is a SLURM setting; add --cluster slurm.")


def _seconds(text: str) -> float:
    """A wait in seconds: a number >= 0, or ``inf``."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        raise argparse.ArgumentTypeError(f"expected seconds >= 0 or inf, got {text!r}")
    return value


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from cffair.workflows._reproduce import reproduce

    slurm = getattr(args, "slurm", None)
    prov = reproduce(
        args.mode,
        args.only,
        jobs=args.jobs,
        datasets=args.datasets,
        steps=not args.no_notebooks,
        backend="dask" if slurm is not None else args.backend,
        lock_timeout=args.lock_timeout,
        cluster=slurm,
        device=args.device,
    )
    print(json.dumps(prov["stage_seconds"], indent=2))
    return 0


def _cmd_results(args: argparse.Namespace) -> int:
    from cffair.experiments import ResultsStore, paper_grid
    from cffair.workflows._reproduce import reason_counts, results_root, status

    store = ResultsStore(results_root() / args.mode, create=False)  # only reads
    if not store.exists:
        from cffair.errors import ResultsMissingError

        raise ResultsMissingError(
            f"no results store at {store.root}: nothing was computed in mode {args.mode} there; run "
            f"`cffair reproduce --mode {args.mode}`, or set CFFAIR_RESULTS to the folder that holds {args.mode}/"
        )
    st = status(store, paper_grid(args.mode, only=args.only))
    counts = st["state"].value_counts().to_dict()
    print(f"results/{args.mode}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    stale = st[st["state"] == "stale"]
    if len(stale):
        print("stale, because:")
        for reason, k in reason_counts(stale):
            print(f"  {reason}  ({k} records)")
        if args.all:
            for _, row in stale.iterrows():
                print(f"  {row['key']}: " + "; ".join(row["reasons"]))
    for _, row in st[st["state"] == "corrupt"].iterrows():
        print(
            f"corrupt: {row['path']}: {row['reasons'][0]} (moved aside and recomputed by the next `cffair reproduce`)"
        )
    listed = set(st["path"])
    for c in (c for c in store.corrupt() if str(c.path) not in listed):  # files of configs outside this grid
        print(f"corrupt: {c.path}: {c.reason}")
    missing = st.loc[st["state"] == "missing", "key"].tolist()
    if missing:
        print("missing:")
        for key in missing[:50]:
            print("  " + key)
        if len(missing) > 50:
            print(f"  ... and {len(missing) - 50} more")
    return 0
