"""The library's shape, measured: top-level modules, the private share, import cycles and imports
that run back up the layers of the data flow (issue 39's "done when").

    python tools/structure.py            # a table, for a person
    python tools/structure.py --json     # the same numbers, for a closing note or a test
    python tools/structure.py --moves    # renames git sees since a commit, as MOVES ledger lines

The layers follow the data (DESIGN.md): support → datasets → causal → logic → scores → learners → baselines →
evaluation → experiments → reporting → workflows → cli. The workflows (the own-data run, reproduce) sit
above reporting because they orchestrate every part below them, the report included, and only the
command line imports them. A module's layer is the first entry of
:data:`LAYERS` whose prefix it starts with; an import from a lower layer into a higher one is fine,
the other way is a back-coupling. Cycles count type-only imports too (:meth:`SourceTree.cycles`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cffair._support.codehash import SourceTree  # noqa: E402

#: (layer, module prefixes), lowest first: the package's parts, as the book's API page lists them.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("support", ("cffair.errors", "cffair._support")),
    ("datasets", ("cffair.datasets",)),
    ("causal", ("cffair.causal",)),
    ("logic", ("cffair.logic",)),
    ("scores", ("cffair.scores",)),
    ("learners", ("cffair.learners",)),
    ("baselines", ("cffair.baselines",)),
    ("evaluation", ("cffair.evaluation",)),
    ("experiments", ("cffair.experiments",)),
    ("reporting", ("cffair.reporting",)),
    ("workflows", ("cffair.workflows",)),
    ("cli", ("cffair.cli", "cffair.__main__")),
    ("package", ("cffair",)),
)
ORDER = {name: i for i, (name, _) in enumerate(dict.fromkeys(n for n, _ in LAYERS).items())}


def layer(module: str) -> str:
    """The layer of ``module`` (the longest matching prefix wins)."""
    best = ("package", "")
    for name, prefixes in LAYERS:
        for p in prefixes:
            hit = module == p or module.startswith(p if p.endswith("_") else p + ".")
            if hit and (len(p) > len(best[1]) or (p == "cffair.__main__")):
                best = (name, p)
    return best[0]


def measure(tree: SourceTree) -> dict[str, object]:
    """The numbers: modules at the top level, private share, cycles, back-imports."""
    modules = [m for m in tree.sources if m != "cffair"]
    top = sorted(m for m in modules if m.count(".") == 1 and m not in tree.packages)
    private = [m for m in modules if any(part.startswith("_") and part != "__init__" for part in m.split(".")[1:])]
    back = sorted(
        (m, t)
        for m, targets in tree.import_graph(type_only=True).items()
        for t in targets
        if m != "cffair" and t != "cffair" and not m.startswith(t + ".") and ORDER[layer(t)] > ORDER[layer(m)]
    )
    return {
        "modules": len(modules),
        "top_level_modules": len(top),
        "top_level": top,
        "parts": len({layer(m) for m in modules}),
        "private_modules": len(private),
        "private_share": round(len(private) / len(modules), 3),
        "cycles": tree.cycles(type_only=True),
        "back_imports": [f"{m} -> {t} ({layer(m)} -> {layer(t)})" for m, t in back],
    }


def moves_since(commit: str) -> dict[str, str]:
    """``{new module: old module}`` for the ``.py`` files git sees renamed under cffair/ since ``commit``."""
    out = subprocess.run(
        ["git", "diff", "--find-renames", "--name-status", commit, "--", "cffair"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    def name(path: str) -> str:
        parts = Path(path).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    return {
        name(new): name(old)
        for line in out.splitlines()
        if line.startswith("R")
        for _, old, new in [line.split("\t")]
        if old.endswith(".py")
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--moves", metavar="COMMIT", help="print the renames since COMMIT as MOVES ledger lines")
    args = parser.parse_args(argv)
    if args.moves:
        for new, old in sorted(moves_since(args.moves).items()):
            print(f'    "{new}": "{old}",')
        return 0
    numbers = measure(SourceTree.from_directory(ROOT / "cffair"))
    if args.json:
        print(json.dumps(numbers, indent=1))
        return 0
    print(f"modules: {numbers['modules']} in {numbers['parts']} layers")
    print(f"top-level modules: {numbers['top_level_modules']}")
    print(f"private: {numbers['private_modules']} ({numbers['private_share']:.0%})")
    print(f"import cycles (type-only included): {len(numbers['cycles'])}")  # type: ignore[arg-type]
    for c in numbers["cycles"]:  # type: ignore[attr-defined]
        print("   ", " <-> ".join(c))
    print(f"imports back up the layers: {len(numbers['back_imports'])}")  # type: ignore[arg-type]
    for b in numbers["back_imports"]:  # type: ignore[attr-defined]
        print("   ", b)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
