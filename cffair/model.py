"""A trained model as one self-contained file: predict and make twins for new rows, anywhere.

:func:`save_model` writes a fitted :class:`~cffair.estimator.CounterfactualFairClassifier` or
:class:`~cffair.estimator.CounterfactualFairRegressor` as one artefact
(:mod:`cffair.artefacts`: ``torch.load(weights_only=True)`` for the tensors, JSON for the rest,
so loading it runs no code) holding everything it answers from:

* the predicate's weights and its settings (axioms, schedule, weights, seed);
* the encoder's state (category lists, scaler statistics) and the features' dtypes;
* the spec and the causal graph themselves (not paths to them);
* the fitted causal flow (settings and weights) that makes the twins of new rows;
* the hashes of the training data (:func:`cffair.artefacts.data_fingerprint`), the library and
  torch versions that wrote it.

:func:`load_model` rebuilds the estimator from the file alone: editing, moving or deleting the
training CSV changes nothing it answers. A damaged file, a file of another kind, or one in a
layout this cffair does not read raises an :class:`~cffair.errors.ArtefactError` in one line.

Example::

    from cffair.model import load_model, save_model
    save_model(est, "credit.cffair")
    model = load_model("credit.cffair")
    model.predict(new_rows), model.predict_proba(new_rows), model.counterfactuals_of(new_rows)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cffair.artefacts import (
    _dtype_from_json,
    _dtype_to_json,
    data_fingerprint,
    flow_from_payload,
    flow_payload,
    read_artefact,
    write_artefact,
)
from cffair.errors import ArtefactError

__all__ = ["MODEL_FORMAT", "load_model", "save_model"]

FINGERPRINT_EXEMPT = True  # moves a trained model to and from a file; changes no number

#: ``(name, layout version)`` of a saved model.
MODEL_FORMAT = ("cffair.Model", 1)
MODEL_FIX = "write it again with `cffair fit ... --out MODEL` (or cffair.model.save_model)"

_KINDS = {"CounterfactualFairClassifier": "binary", "CounterfactualFairRegressor": "score"}


def save_model(estimator: Any, path: str | Path, *, training_frame: pd.DataFrame | None = None) -> Path:
    """Write a fitted estimator of :mod:`cffair.estimator` as one self-contained file.

    Args:
        estimator: a fitted ``CounterfactualFairClassifier`` or ``CounterfactualFairRegressor``
            whose twins come from its causal flow (twins from a callable cannot be stored).
        path: the file (written atomically).
        training_frame: the rows it was trained on, whose hashes the file keeps (optional).

    Raises:
        ArtefactError: the estimator is not fitted, or its twins come from a callable.
    """
    from sklearn.utils.validation import check_is_fitted

    name = type(estimator).__name__
    if name not in _KINDS:
        raise ArtefactError(f"save_model saves cffair's estimators ({', '.join(_KINDS)}), not a {name}.")
    check_is_fitted(estimator, "learner_")
    if estimator.flow_ is None:
        raise ArtefactError(
            "this estimator's twins come from a callable, which a file cannot hold; fit it with "
            "counterfactuals='flow' to save it, or save the twins you made with the callable yourself."
        )
    spec = estimator.spec_
    graph = spec.load_graph()
    spec_dict = {**spec.to_dict(), "graph": graph.to_dict()}  # the graph itself, not a path to it
    params = {
        k: v for k, v in estimator.get_params(deep=False).items() if k not in ("spec", "counterfactuals", "device")
    }
    state = estimator.learner_.state_dict()
    flow_meta, flow_tensors = flow_payload(estimator.flow_)
    meta = {
        "estimator": name,
        "params": params,
        "spec": spec_dict,
        "encoder": estimator.encoder_.to_dict(),
        "dtypes": {c: _dtype_to_json(t) for c, t in estimator.dtypes_.items()},
        "classes": None if not hasattr(estimator, "classes_") else [_plain(c) for c in estimator.classes_],
        "learner": {k: state[k] for k in ("params", "n_features", "pretrained", "data_hash")},
        "flow": flow_meta,
        "training_data": None
        if training_frame is None
        else data_fingerprint(training_frame.reset_index(drop=True), spec, graph),
    }
    tensors = {"model": state["model"], "optimizer": state["optimizer"], "flow": flow_tensors}
    write_artefact(path, MODEL_FORMAT, meta, tensors)
    return Path(path)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def load_model(path: str | Path) -> Any:
    """The estimator saved by :func:`save_model`, rebuilt from the file alone.

    Raises:
        ArtefactError: a missing, damaged, crafted, old-layout or foreign file (one line with the fix).
    """
    from cffair.causal.cnf import CausalFlow
    from cffair.datasets import DatasetSpec
    from cffair.encoding import Encoder
    from cffair.estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
    from cffair.training import LTNLearner

    what = "saved model"
    meta, tensors = read_artefact(path, MODEL_FORMAT, what=what, fix=MODEL_FIX)
    missing = [k for k in ("estimator", "params", "spec", "encoder", "dtypes", "learner", "flow") if k not in meta]
    if missing or not isinstance(tensors.get("model"), dict) or not isinstance(tensors.get("flow"), dict):
        raise ArtefactError(f"{what} {path} is damaged (no {', '.join(missing) or 'weights'} in it); {MODEL_FIX}.")
    cls = {
        "CounterfactualFairClassifier": CounterfactualFairClassifier,
        "CounterfactualFairRegressor": CounterfactualFairRegressor,
    }.get(meta["estimator"])
    if cls is None:
        raise ArtefactError(
            f"{what} {path} holds a {meta['estimator']!r}, which this cffair does not know; {MODEL_FIX}."
        )
    try:
        spec = DatasetSpec.from_dict(meta["spec"])
        params = dict(meta["params"])
        if "hidden" in params:
            params["hidden"] = tuple(params["hidden"])
        est = cls(spec, **params)
        est.spec_ = spec
        est.dtypes_ = {c: _dtype_from_json(v) for c, v in meta["dtypes"].items()}
        est.feature_names_in_ = np.asarray(list(spec.features), dtype=object)
        est.n_features_in_ = len(spec.features)
        est.encoder_ = Encoder.from_dict(spec, meta["encoder"])
        if meta.get("classes") is not None:
            est.classes_ = np.asarray(meta["classes"])
        learner_meta = meta["learner"]
        state = {
            "format": "cffair.LTNLearner/1",
            "params": learner_meta["params"],
            "model": tensors["model"],
            "optimizer": tensors["optimizer"],
            "n_features": learner_meta["n_features"],
            "pretrained": learner_meta["pretrained"],
            "data_hash": learner_meta.get("data_hash"),
            "history": {},
        }
        est.learner_ = LTNLearner.load(state, progress=False)
        est.flow_ = flow_from_payload(meta["flow"], tensors["flow"], CausalFlow, path=path, what=what, fix=MODEL_FIX)
        est.training_data_ = meta.get("training_data")
        est.written_by_ = meta.get("_written_by")
    except ArtefactError:
        raise
    except Exception as exc:  # tampered settings, weights of the wrong shape, a spec that does not parse
        msg = " ".join(str(exc).split())[:200]
        raise ArtefactError(
            f"{what} {path} does not fit the model its settings describe ({type(exc).__name__}: {msg}); {MODEL_FIX}."
        ) from None
    return est
