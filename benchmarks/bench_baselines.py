"""Wall time per fold of each baseline at the paper's settings (issue 5), by extrapolation.

For every dataset, on the training rows of fold 0 (4/5 of the data), each stage is run for a
few epochs on one torch thread, timed, and extrapolated linearly to the paper's epoch counts:

* GAN (Grari et al. 2023): inference epoch 0 (300 adversary steps per batch) is timed on its
  own, a later epoch (50 steps) stands for the other 99; the predictor's epochs (20 latent
  samples per row, the release's default) are extrapolated to 1000.
* DCEVAE (Kim et al. 2021): 100 epochs of the generator, then the counterfactuals of the
  training rows and the MLP(100, 50) on factual + counterfactual rows.
* CNF-augmented MLP and the cheap baselines: MLP(100, 50), full batch, extrapolated to
  ``--mlp-epochs`` (LTN(acc)'s 1500 full-batch epochs by default).

COMPAS(age) costs the same as COMPAS (same rows and features; only the subgroups differ).
The counterfactual generation by the flow itself is not timed here (see the flow's benchmark).

Usage::

    python benchmarks/bench_baselines.py                  # all datasets, a few epochs each
    python benchmarks/bench_baselines.py --datasets compas --measure-epochs 3

Writes ``benchmarks/results/baselines.json``.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cffair._support.utils import project_root, seed_everything, torch_cpu_setup, write_json_atomic
from cffair.baselines import (
    DCEVAE,
    AugmentedMLP,
    DCEVAEConfig,
    GANBaseline,
    MLPConfig,
    PlugInCF,
    ResidualMLP,
    UnawareMLP,
    paper_config,
    train_mlp,
)
from cffair.datasets import load, make_folds
from cffair.datasets._encoding import Encoder

N_FOLDS = 5

#: Predictor variants compared on one fold: the paper's, and cheaper ones (binary attribute:
#: the 20 latent samples per row differ only by VAE noise; early stopping on 10 % of the rows).
CHEAP_GAN_VARIANTS: dict[str, dict[str, Any]] = {
    "paper (20 samples, 1000 epochs)": {},
    "1 sample, 1000 epochs": {"n_cf_samples": 1},
    "1 sample, early stopping (patience 20)": {"n_cf_samples": 1, "predictor_patience": 20},
}


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench_dataset(name: str, measure: int, mlp_epochs: int, gan_overrides: dict[str, Any]) -> dict[str, Any]:
    frame, spec = load(name)
    fold = make_folds(frame, spec, N_FOLDS, seed=0)[0]
    train = frame.iloc[fold.train]
    enc = Encoder(spec).fit(train)
    X, y = enc.transform(train), train[spec.target].to_numpy().astype(np.float32)
    out: dict[str, Any] = {"rows_train": len(train), "encoded_width": int(X.shape[1])}

    # --- GAN
    cfg = paper_config(name, **gan_overrides)
    gan = GANBaseline(cfg)
    t_first = _timed(lambda: gan.fit_inference(train, enc, epochs=1))
    gan2 = GANBaseline(cfg).fit_inference(train, enc, epochs=0)
    # a later epoch: 50 inner steps (time `measure` epochs after epoch 0 with the same model)
    t_later = _timed(lambda: _gan_later_epochs(gan2, train, enc, measure)) / measure
    t_pred = _timed(lambda: gan.fit_predictor(train, epochs=measure)) / measure
    gan_total = t_first + (cfg.inference_epochs - 1) * t_later + cfg.predictor_epochs * t_pred
    # the cheaper variant (see CHEAP_GAN_VARIANTS): one latent sample per row in the penalty;
    # 1000 epochs is its upper bound (early stopping ended after 137 epochs on COMPAS fold 0)
    cheap = GANBaseline(paper_config(name, **{**gan_overrides, "n_cf_samples": 1}))
    cheap.__dict__.update(
        {k: v for k, v in gan.__dict__.items() if k not in ("config", "predictor_", "history_", "timings_")}
    )
    cheap.history_ = {"inference": [], "predictor": [], "penalty": []}
    t_pred1 = _timed(lambda: cheap.fit_predictor(train, epochs=max(measure, 5))) / max(measure, 5)
    out["gan"] = {
        "config": {
            "batch_size": cfg.batch_size,
            "inference_epochs": cfg.inference_epochs,
            "predictor_epochs": cfg.predictor_epochs,
            "inner_steps": cfg.inner_steps,
            "n_cf_samples": cfg.n_cf_samples,
        },
        "s_inference_epoch0": t_first,
        "s_inference_epoch": t_later,
        "s_predictor_epoch": t_pred,
        "s_per_fold": gan_total,
    }
    out["gan_1sample"] = {
        "s_predictor_epoch": t_pred1,
        "s_per_fold": t_first + (cfg.inference_epochs - 1) * t_later + cfg.predictor_epochs * t_pred1,
        "note": "n_cf_samples=1, 1000 predictor epochs (upper bound; with predictor_patience=20 far fewer)",
    }

    # --- DCEVAE
    dcfg = DCEVAEConfig()
    gen = DCEVAE(dcfg)
    t_gen = _timed(lambda: gen.fit(train, enc, epochs=measure)) / measure
    t_cf = _timed(lambda: enc.transform(gen.counterfactual_frame(train)))
    out["dcevae"] = {
        "note": "generator epochs + counterfactuals of the training rows + the MLP on 2n rows",
        "s_generator_epoch": t_gen,
        "s_counterfactuals": t_cf,
        "generator_epochs": dcfg.epochs,
    }

    # --- MLPs (full batch): factual + one counterfactual per row, and factual only
    X2 = np.concatenate([X, X])
    y2 = np.concatenate([y, y])
    k = max(measure, 20)  # MLP epochs are cheap: time more of them so fixed costs do not dominate
    m = MLPConfig(epochs=k)
    AugmentedMLP(spec.target_kind, MLPConfig(epochs=5)).fit(X2, y2)  # warm-up (first runs are slower)
    t_aug = _timed(lambda: AugmentedMLP(spec.target_kind, m).fit(X2, y2)) / k
    t_fac = _timed(lambda: UnawareMLP(enc, m).fit(X, y)) / k
    res = ResidualMLP(enc, config=m)
    t_res_fixed = _timed(lambda: res.fit_residuals(X).transform(X))  # least squares: once per fold
    Z = res.transform(X)
    t_res = _timed(lambda: train_mlp(Z, y, spec.target_kind, m)) / k
    t_plug = _timed(lambda: PlugInCF(enc, m).fit(X, y)) / k
    out["mlp_epochs"] = mlp_epochs
    out["augmented_cnf"] = {"s_epoch": t_aug, "s_per_fold": mlp_epochs * t_aug}
    out["dcevae"]["s_per_fold"] = dcfg.epochs * t_gen + t_cf + mlp_epochs * t_aug
    out["unaware"] = {"s_epoch": t_fac, "s_per_fold": mlp_epochs * t_fac}
    out["residual_level3"] = {"s_epoch": t_res, "s_fixed": t_res_fixed, "s_per_fold": t_res_fixed + mlp_epochs * t_res}
    out["plugin_pcf"] = {"s_epoch": t_plug, "s_per_fold": mlp_epochs * t_plug}
    return out


def _gan_later_epochs(gan: GANBaseline, train, enc, epochs: int) -> None:
    """Run ``epochs`` inference epochs with the regular number of inner steps on an initialised model."""
    from cffair.baselines._mixed import encode_frame, minibatches

    X, y = encode_frame(train, enc)
    x, s, yt = gan._split(X, y)
    gan.model_.train()
    for _ in range(epochs):
        for idx in minibatches(len(x), gan.config.batch_size, gan.gen_, drop_last=True):
            gan._inference_step(x[idx], s[idx], yt[idx], gan.config.inner_steps, gan.gen_)


def compare_gan_variants(name: str, variants: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Train the GAN's inference stage once at the paper's settings on fold 0, then each predictor
    variant; report test accuracy (or MSE) and the CF-MSE on the GAN's own test counterfactuals."""
    from cffair.scores import evaluate

    frame, spec = load(name)
    fold = make_folds(frame, spec, N_FOLDS, seed=0)[0]
    train, test = frame.iloc[fold.train], frame.iloc[fold.test]
    enc = Encoder(spec).fit(train)
    base = GANBaseline(paper_config(name))
    t_inf = _timed(lambda: base.fit_inference(train, enc))
    cs = base.counterfactuals(frame, fold.test)
    pairs = cs.pairs(frame, enc, spec.sensitive)
    X_test, y_test = enc.transform(test), test[spec.target].to_numpy()
    sub = spec.subgroup_labels(frame).to_numpy()[pairs.row_id]
    out: dict[str, Any] = {"dataset": name, "fold": 0, "s_inference": t_inf, "variants": {}}
    for label, changes in variants.items():
        g = GANBaseline(paper_config(name, **changes))
        g.__dict__.update(
            {k: v for k, v in base.__dict__.items() if k not in ("config", "predictor_", "history_", "timings_")}
        )
        g.history_ = {"inference": list(base.history_["inference"]), "predictor": [], "penalty": []}
        t = _timed(lambda g=g: g.fit_predictor(train))
        res = evaluate(g.predict_score, X_test, y_test, pairs, sub, target_kind=spec.target_kind)
        out["variants"][label] = {
            "changes": changes,
            "s_predictor": t,
            "epochs_run": len(g.history_["predictor"]),
            "stopped_epoch": getattr(g, "stopped_epoch_", None),
            **{k: res[k] for k in ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup") if k in res},
        }
        print(label, out["variants"][label], flush=True)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["adult", "compas", "lawschool"])
    ap.add_argument("--measure-epochs", type=int, default=2, help="epochs actually run per stage (then extrapolated)")
    ap.add_argument(
        "--mlp-epochs", type=int, default=1500, help="epochs of the MLP(100, 50) predictors (LTN(acc): 1500)"
    )
    ap.add_argument("--gan-cf-samples", type=int, default=None, help="override the GAN's latent samples per row")
    ap.add_argument("--gan-predictor-epochs", type=int, default=None)
    ap.add_argument(
        "--compare-gan-variants",
        metavar="DATASET",
        default=None,
        help="instead of timing: fit the GAN predictor variants on fold 0 of DATASET (minutes) and compare",
    )
    ap.add_argument("--out", type=Path, default=project_root() / "benchmarks" / "results" / "baselines.json")
    args = ap.parse_args(argv)
    torch_cpu_setup()
    seed_everything(0)
    if args.compare_gan_variants:
        cmp = compare_gan_variants(args.compare_gan_variants, CHEAP_GAN_VARIANTS)
        write_json_atomic(args.out.with_name(f"baselines_gan_variants_{args.compare_gan_variants}.json"), cmp)
        return cmp
    overrides: dict[str, Any] = {}
    if args.gan_cf_samples is not None:
        overrides["n_cf_samples"] = args.gan_cf_samples
    if args.gan_predictor_epochs is not None:
        overrides["predictor_epochs"] = args.gan_predictor_epochs
    results: dict[str, Any] = {
        "caveat": "2 shared cores: other processes ran at the same time; repeated runs differed by up to 3x",
        "what": "wall time per fold (training rows of fold 0), extrapolated from --measure-epochs epochs per stage",
        "measured_epochs": args.measure_epochs,
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "machine": platform.processor() or platform.machine(),
        "gan_overrides": overrides,
        "datasets": {},
    }
    for name in args.datasets:
        t0 = time.perf_counter()
        results["datasets"][name] = bench_dataset(name, args.measure_epochs, args.mlp_epochs, overrides)
        results["datasets"][name]["s_benchmark"] = time.perf_counter() - t0
        print(
            name,
            {k: v.get("s_per_fold") for k, v in results["datasets"][name].items() if isinstance(v, dict)},
            flush=True,
        )
    total = {}
    for method in ("gan", "gan_1sample", "dcevae", "augmented_cnf", "unaware", "residual_level3", "plugin_pcf"):
        per = {n: d[method]["s_per_fold"] for n, d in results["datasets"].items()}
        if "compas" in per:
            per["compas_age"] = per["compas"]
        total[method] = {"s_all_folds_all_datasets": N_FOLDS * sum(per.values()), "s_per_fold": per}
    results["totals"] = total
    write_json_atomic(args.out, results)
    return results


if __name__ == "__main__":
    main()
