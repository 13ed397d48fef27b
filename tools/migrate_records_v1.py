"""One-off: give the records of the round-1 full run (code_version 5db07db7df5258c0, commit e9a0b90)
the fingerprints of today's results store, computed from the code that made them.

Usage (from the repository root)::

    git archive e9a0b90 cffair | tar -x -C /tmp/old-e9a0b90
    python tools/migrate_records_v1.py /tmp/old-e9a0b90/cffair old_contents.json

``old_contents.json`` holds, per dataset, the content hash of the counterfactual set and the
rows' hash as the old code computes them (`cffair.experiments._pipeline.counterfactuals.content_hash` on the
old `pipeline.counterfactual_set(name, "full")`). The old pipeline was one module that imported
every method, so every migrated record lists the whole old closure as its code: after the
round-2 restructuring they all read stale, with the modules named, until regenerated.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cffair._support.utils import write_json_atomic
from cffair.experiments import ExperimentConfig, SourceTree, make_record, profile
from cffair.experiments._store import _validate

OLD_CODE_VERSION = "5db07db7df5258c0"


def main(old_root: str, contents_file: str, results: str = "results/full") -> None:
    tree = SourceTree.from_directory(old_root)
    code = tree.code_fingerprint(["cffair.experiments._pipeline"], stop=["cffair.causal._flow", "cffair.causal"])
    producer_code = tree.code_fingerprint(["cffair.causal._flow"])
    prov = json.loads((Path(results) / "provenance.json").read_text())
    packages = {
        k: prov["packages"].get(k)
        for k in ("torch", "numpy", "zuko", "ltntorch", "scikit-learn", "pandas", "fairlearn")
    }
    old = json.loads(Path(contents_file).read_text())
    n = 0
    for path in sorted((Path(results) / "records").glob("*.json")):
        rec = json.loads(path.read_text())
        if "fingerprint" in rec:
            continue
        if rec.get("code_version") != OLD_CODE_VERSION:
            raise SystemExit(f"{path}: made by code {rec.get('code_version')}, not {OLD_CODE_VERSION}; not migrated")
        cfg = ExperimentConfig.from_dict(rec["config"])
        data = old[cfg.dataset]["data"]
        conf = {**cfg.to_dict(), "profile_values": profile(cfg.profile).to_dict()}
        inputs = {
            "counterfactuals": {
                "content": old[cfg.dataset]["content"],
                "producer": {
                    "code": producer_code,
                    "data": data,
                    "packages": packages,
                    "config": {
                        "dataset": cfg.dataset,
                        "flow": {"epochs": 1000, "categorical": "flow"},
                        "seed": 0,
                        "interventions": "immutable",
                    },
                },
            }
        }
        if cfg.method == "ltn" and (cfg.setting != "ltn_acc" or cfg.tag):
            prof = profile(cfg.profile)
            inputs["pretrained"] = {
                "content": None,
                "producer": {
                    "code": code,
                    "data": data,
                    "packages": packages,
                    "config": {
                        "dataset": cfg.dataset,
                        "fold": cfg.fold,
                        "seed": cfg.seed,
                        "pretrain_epochs": prof.pretrain_epochs,
                        "lr": prof.lr,
                        "max_rows": prof.max_rows,
                        "n_folds": prof.n_folds,
                    },
                },
            }
        if cfg.method == "ltn" and cfg.cf_source == "gan":
            gan = ExperimentConfig(cfg.dataset, cfg.fold, "gan", profile=cfg.profile, seed=cfg.seed)
            inputs["gan_counterfactuals"] = {
                "content": None,
                "producer": {
                    "code": code,
                    "data": data,
                    "packages": packages,
                    "config": {**gan.to_dict(), "profile_values": profile(cfg.profile).to_dict()},
                },
            }
        fingerprint = {"code": code, "data": data, "config": conf, "packages": packages, "inputs": inputs}
        extra = {
            k: v
            for k, v in rec.items()
            if k not in ("config", "hash", "data_hash", "code_version", "cffair_version", "metrics", "timings")
        }
        new = make_record(
            cfg, fingerprint, rec["metrics"], rec["timings"], made_by_code_version=OLD_CODE_VERSION, **extra
        )
        new["cffair_version"] = rec.get("cffair_version", new["cffair_version"])
        from cffair.experiments import checksum

        new["checksum"] = checksum(new)
        _validate(json.dumps(new).encode(), path)
        write_json_atomic(path, new)
        n += 1
    print(f"migrated {n} records")


if __name__ == "__main__":
    main(*sys.argv[1:])
