"""A trained model as one self-contained file: predict and make twins for new rows, anywhere.

:func:`save_model` writes a fitted :class:`~cffair.learners.CounterfactualFairClassifier` or
:class:`~cffair.learners.CounterfactualFairRegressor` as one artefact
(:mod:`cffair._support.artefacts`: ``torch.load(weights_only=True)`` for the tensors, JSON for the rest,
so loading it runs no code) holding everything it answers from:

* the predicate's weights and its settings (axioms, schedule, weights, seed);
* the encoder's state (category lists, scaler statistics) and the features' dtypes;
* the spec and the causal graph themselves (not paths to them);
* the fitted causal flow (settings and weights) that makes the twins of new rows;
* the hashes of the training data (:func:`cffair._support.artefacts.data_fingerprint`), the library and
  torch versions that wrote it;
* for a classifier fitted with a calibration split (``cffair fit``), the calibration map of its
  outputs (:mod:`cffair.learners._calibration`), read back as ``calibration_`` (``None`` without one).

:func:`load_model` rebuilds the estimator from the file alone: editing, moving or deleting the
training CSV changes nothing it answers. A damaged file, a file of another kind, or one in a
layout this cffair does not read raises an :class:`~cffair.errors.ArtefactError` in one line.

Damage and edits are caught in two layers:

* **Checksums.** Every member of the file (each tensor, each metadata entry, the header) carries
  the SHA-256 written with it (:func:`cffair._support.integrity.artefact_checksums`); a flipped byte or an
  edited value is refused, naming the member (``meta/classes``, ``tensors/model/0.weight``).
  A file of layout 1 (before checksums) is refused: fit the model again.
* **Consistency.** Whoever edits a file can recompute its checksums, so :func:`load_model` also
  checks that the metadata describes the weights it comes with: the classes fit the target kind
  (a classifier's are the two labels seen in training, in sorted order; a score model has none),
  the estimator, the spec, the network and the flow agree on the target kind and the sensitive
  attribute, the encoder's categories are unique and those of the dtypes and of the flow, its
  scaler statistics are finite, positive and those of the rows the flow was fitted on, its output
  width is the network's input width, and the spec and graph are those whose hashes the training
  data's fingerprint keeps. An edit that keeps every one of these consistent (the same change made
  in every place, and the checksums recomputed) cannot be detected: a checksum tells damage from
  an intact file, not an honest file from a forged one. Take model files only from people you trust.

Example::

    from cffair.learners._model import load_model, save_model
    save_model(est, "credit.cffair")
    model = load_model("credit.cffair")
    model.predict(new_rows), model.predict_proba(new_rows), model.counterfactuals_of(new_rows)
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair._support.artefacts import data_fingerprint, read_artefact, write_artefact
from cffair.causal._flow_file import dtype_from_json, dtype_to_json
from cffair.errors import ArtefactError

if TYPE_CHECKING:  # pragma: no cover
    from cffair.learners._calibration import Calibration

__all__ = ["MODEL_FORMAT", "load_model", "save_model"]

FINGERPRINT_EXEMPT = True  # moves a trained model to and from a file; changes no number

#: ``(name, layout version)`` of a saved model.
MODEL_FORMAT = ("cffair.Model", 2)
MODEL_FIX = "write it again with `cffair fit ... --out MODEL` (or cffair.learners.save_model)"
_OLDER = "which carries no checksums, so damage to it cannot be detected"

_KINDS = {"CounterfactualFairClassifier": "binary", "CounterfactualFairRegressor": "score"}


def save_model(
    estimator: Any,
    path: str | Path,
    *,
    training_frame: pd.DataFrame | None = None,
    calibration: Calibration | None = None,
) -> Path:
    """Write a fitted estimator of :mod:`cffair.learners._estimator` as one self-contained file.

    Args:
        estimator: a fitted ``CounterfactualFairClassifier`` or ``CounterfactualFairRegressor``
            whose twins come from its causal flow (twins from a callable cannot be stored).
        path: the file (written atomically).
        training_frame: the rows it was trained on, whose hashes the file keeps (optional).
        calibration: a calibration map of its outputs fitted on held-out rows
            (:func:`cffair.learners.calibrated_fit`; a classifier's only), stored as the
            metadata entry ``calibration`` (checksummed like every entry; default: the
            estimator's ``calibration_`` if it has one, else none).

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
        k: v
        for k, v in estimator.get_params(deep=False).items()
        if k not in ("spec", "counterfactuals", "device", "verbose")
    }
    calibration = calibration if calibration is not None else getattr(estimator, "calibration_", None)
    if calibration is not None and name != "CounterfactualFairClassifier":
        raise ArtefactError(
            "a calibration map turns a classifier's outputs into probabilities; a score model has none."
        )
    state = estimator.learner_.state_dict()
    flow_meta, flow_tensors = estimator.flow_.to_payload()
    meta = {
        "estimator": name,
        "params": params,
        "spec": spec_dict,
        "encoder": estimator.encoder_.to_dict(),
        "dtypes": {c: dtype_to_json(t) for c, t in estimator.dtypes_.items()},
        "classes": None if not hasattr(estimator, "classes_") else [_plain(c) for c in estimator.classes_],
        "learner": {k: state[k] for k in ("params", "n_features", "pretrained", "data_hash")},
        "flow": flow_meta,
        "training_data": None
        if training_frame is None
        else data_fingerprint(training_frame.reset_index(drop=True), spec, graph),
    }
    if calibration is not None:  # only when there is one: a file without it reads as it always did
        meta["calibration"] = calibration.to_dict()
    tensors = {"model": state["model"], "optimizer": state["optimizer"], "flow": flow_tensors}
    write_artefact(path, MODEL_FORMAT, meta, tensors)
    return Path(path)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def load_model(path: str | Path) -> Any:
    """The estimator saved by :func:`save_model`, rebuilt from the file alone.

    The file's checksums are verified and its metadata is checked against its weights (see the
    module docstring) before it answers anything.

    Raises:
        ArtefactError: a missing, damaged, edited, crafted, old-layout or foreign file (one line
            naming the member or the contradiction, with the fix).
    """
    from cffair.causal._cnf import CausalFlow
    from cffair.datasets import DatasetSpec
    from cffair.datasets._encoding import Encoder
    from cffair.learners._estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
    from cffair.learners._training import LTNLearner

    what = "saved model"
    meta, tensors = read_artefact(path, MODEL_FORMAT, what=what, fix=MODEL_FIX, require_checksums=True, older=_OLDER)
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
        for problems in (_spec_problems, _encoder_problems, _flow_problems):  # each group assumes the last passed
            _refuse(path, problems(meta, spec))
        params = dict(meta["params"])
        if "hidden" in params:
            params["hidden"] = tuple(params["hidden"])
        est = cls(spec, **params)
        est.spec_ = spec
        est.dtypes_ = {c: dtype_from_json(v) for c, v in meta["dtypes"].items()}
        est.feature_names_in_ = np.asarray(list(spec.features), dtype=object)
        est.n_features_in_ = len(spec.features)
        est.encoder_ = Encoder.from_dict(spec, meta["encoder"])
        if meta.get("classes") is not None:
            est.classes_ = np.asarray(meta["classes"])
        learner_meta = meta["learner"]
        _refuse(path, _width_problems(est, tensors, learner_meta["n_features"]))
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
        est.flow_ = CausalFlow.from_payload(meta["flow"], tensors["flow"], path=path, what=what, fix=MODEL_FIX)
        est.training_data_ = meta.get("training_data")
        est.calibration_ = _calibration(path, meta.get("calibration"), meta.get("classes"))
        est.written_by_ = meta.get("_written_by")
    except ArtefactError:
        raise
    except Exception as exc:  # tampered settings, weights of the wrong shape, a spec that does not parse
        msg = " ".join(str(exc).split())[:200]
        raise ArtefactError(
            f"{what} {path} does not fit the model its settings describe ({type(exc).__name__}: {msg}); {MODEL_FIX}."
        ) from None
    return est


# ============================================================================ consistency
def _calibration(path: str | Path, raw: Any, classes: Any) -> Calibration | None:
    """The stored calibration map, checked (:meth:`cffair.learners.Calibration.from_dict`); ``None`` if none."""
    from cffair.learners._calibration import Calibration

    if raw is None:
        return None
    if classes is None:
        _refuse(path, ["it has a calibration map, which only a classifier has"])
    try:
        return Calibration.from_dict(raw, where="its calibration")
    except ArtefactError as exc:
        _refuse(path, [str(exc).rstrip(".")])
        raise  # pragma: no cover (_refuse raised)


def _close(a: float, b: float, scale: float) -> bool:
    """``a`` and ``b`` agree to what two float summations of the same column give (not an edit)."""
    return abs(a - b) <= 1e-6 * abs(b) + 1e-9 * abs(scale)


def _labels_problem(classes: Any, kind: str) -> str | None:
    if kind != "binary":
        return None if classes is None else f"it has classes {classes!r}, which a {kind} target does not have"
    plain = isinstance(classes, list) and all(isinstance(c, (str, int, float)) for c in classes)
    same_type = plain and (
        all(isinstance(c, str) for c in classes)
        or all(isinstance(c, bool) for c in classes)
        or all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in classes)
    )
    if not (same_type and len(classes) == 2 and classes[0] < classes[1]):
        return (
            f"its classes {classes!r} are not two distinct labels in sorted order (a classifier's classes are the two "
            "labels seen in training, the smaller first; its decisions mean the second)"
        )
    return None


def _spec_problems(meta: dict[str, Any], spec: Any) -> list[str]:
    """What the estimator, its classes and its network's settings say against the spec."""
    kind = spec.target_kind
    out = []
    expected = _KINDS[meta["estimator"]]
    if kind != expected:
        out.append(f"it holds a {meta['estimator']} (a {expected} target) but its spec's target is of kind {kind!r}")
    labels = _labels_problem(meta.get("classes"), kind)
    if labels:
        out.append(labels)
    net = dict(meta["learner"]["params"])
    if net.get("target_kind") != kind:
        out.append(f"its network was trained for a {net.get('target_kind')!r} target but its spec says {kind!r}")
    if net.get("sensitive") != spec.sensitive:
        out.append(
            f"its network was trained with the sensitive attribute {net.get('sensitive')!r} "
            f"but its spec names {spec.sensitive!r}"
        )
    params = dict(meta["params"])
    for key in ("setting", "hidden"):
        if key in params and json.dumps(net.get(key)) != json.dumps(params[key]):
            out.append(f"its network's {key} {net.get(key)!r} is not the estimator's {params[key]!r}")
    return out


def _encoder_problems(meta: dict[str, Any], spec: Any) -> list[str]:
    """What the encoder state and the dtypes say against the spec and against each other."""
    from cffair.datasets import CATEGORY_KINDS

    out = []
    dtypes, encoder = dict(meta["dtypes"]), dict(meta["encoder"])
    if list(dtypes) != list(spec.features):
        out.append(
            f"its feature dtypes are for {list(dtypes)[:8]} but its spec's features are {list(spec.features)[:8]}"
        )
    cats = dict(encoder.get("categories") or {})
    categorical = [c for c, k in spec.features.items() if k in CATEGORY_KINDS]
    if sorted(cats) != sorted(categorical):
        out.append(f"its encoder has categories of {sorted(cats)} but its spec's category features are {categorical}")
    for c in categorical:
        values = cats.get(c)
        if values is None:
            continue
        if not isinstance(values, list) or len(set(map(str, values))) != len(values):
            names = [str(v) for v in values] if isinstance(values, list) else []
            repeated = sorted({v for v in names if names.count(v) > 1}) if names else values
            out.append(f"its encoder's categories of {c!r} repeat {repeated!r}")
        elif spec.features[c] == "binary" and len(values) != 2:
            out.append(f"its encoder's categories of the binary feature {c!r} are {values!r}, not two")
        elif c == spec.sensitive and len(values) < 2:
            out.append(f"its encoder's categories of the sensitive attribute {c!r} are {values!r}, fewer than two")
        dtype = dtypes.get(c)
        if isinstance(dtype, dict) and [str(v) for v in dtype.get("categories") or []] != [str(v) for v in values]:
            out.append(
                f"its encoder's categories of {c!r} {values[:8]} are not those of its dtype "
                f"{list(dtype.get('categories') or [])[:8]} (reordered or edited)"
            )
    numeric = [c for c, k in spec.features.items() if k not in CATEGORY_KINDS]
    scaler = encoder.get("scaler")
    if numeric:
        if not isinstance(scaler, dict) or any(
            len(scaler.get(k) or []) != len(numeric) for k in ("mean", "scale", "var")
        ):
            return [*out, f"its encoder has no scaler statistics for the {len(numeric)} numeric features {numeric[:8]}"]
        for j, c in enumerate(numeric):
            mean, scale, var = (scaler[k][j] for k in ("mean", "scale", "var"))
            if not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (mean, scale, var)
            ):
                out.append(
                    f"its encoder's scaler statistics of {c!r} are not finite numbers: {mean!r}, {scale!r}, {var!r}"
                )
            elif scale <= 0 or var < 0:
                out.append(f"its encoder's scale of {c!r} is {scale!r} and variance {var!r}; a scale must be positive")
            elif not (_close(scale, math.sqrt(var), scale) or (scale == 1.0 and var < 1e-12)):
                out.append(f"its encoder's scale of {c!r} is {scale!r}, not the square root of its variance {var!r}")
        seen = scaler.get("n_samples_seen")
        if not isinstance(seen, int) or isinstance(seen, bool) or seen < 1:
            out.append(f"its encoder's scaler says it saw {seen!r} rows")
    return out


def _flow_problems(meta: dict[str, Any], spec: Any) -> list[str]:
    """What the flow (fitted on the same rows as the encoder) says against the spec and the encoder."""
    from cffair._support.artefacts import _spec_hash
    from cffair._support.utils import stable_hash

    out = []
    flow, encoder = dict(meta["flow"]), dict(meta["encoder"])
    ours = {k: v for k, v in dict(meta["spec"]).items() if k != "graph"}
    theirs = {k: v for k, v in dict(flow.get("spec") or {}).items() if k != "graph"}
    differ = [k for k in {**ours, **theirs} if json.dumps(ours.get(k)) != json.dumps(theirs.get(k))]
    if differ:
        k = differ[0]
        out.append(f"its spec says {k} = {ours.get(k)!r} but its flow was fitted with {k} = {theirs.get(k)!r}")
    if json.dumps(flow.get("graph")) != json.dumps(meta["spec"].get("graph")):
        out.append("its spec's causal graph is not the one its flow was fitted on")
    for n, dtype in dict(flow.get("dtypes") or {}).items():
        if n in meta["dtypes"] and json.dumps(meta["dtypes"][n]) != json.dumps(dtype):
            out.append(f"its dtype of {n!r} is not the one its flow was fitted with (reordered or edited)")
    cats = dict(encoder.get("categories") or {})
    numeric = [c for c in spec.features if c not in cats]
    scaler = encoder.get("scaler") or {}
    for col in flow.get("columns") or []:
        name = col.get("name")
        if col.get("categories") is not None and name in cats and list(col["categories"]) != list(cats[name]):
            out.append(
                f"its encoder's categories of {name!r} are not those its flow was fitted with (reordered or edited)"
            )
        if name in numeric and not col.get("log") and len(scaler.get("mean") or []) == len(numeric):
            j = numeric.index(name)
            shift = 0.5 if col.get("discrete") else 0.0  # the flow reads an integer at the middle of its unit cell
            mean, scale = scaler["mean"][j], scaler["scale"][j]
            if not (_close(float(col["mean"]) - shift, mean, scale) and _close(float(col["std"]), scale, scale)):
                out.append(
                    f"its encoder's scaler statistics of {name!r} (mean {mean!r}, scale {scale!r}) are not those of "
                    f"the rows its flow was fitted on (mean {float(col['mean']) - shift!r}, scale {col['std']!r})"
                )
    stored = meta.get("training_data")
    if isinstance(stored, dict):
        if "spec" in stored and stored["spec"] != _spec_hash(spec):
            out.append("its spec is not the one whose hash it keeps with the hashes of its training data")
        if "graph" in stored and stored["graph"] != stable_hash(spec.load_graph().to_dict()):
            out.append("its causal graph is not the one whose hash it keeps with the hashes of its training data")
    return out


def _width_problems(est: Any, tensors: dict[str, Any], n_features: Any) -> list[str]:
    """The encoder's output width against the network's input width."""
    width = est.encoder_.n_features_out
    first = next((t for t in tensors["model"].values() if getattr(t, "ndim", 0) == 2), None)
    out = []
    if n_features != width:
        out.append(f"its encoder makes {width} columns but its network was built for {n_features!r}")
    if first is not None and int(first.shape[1]) != width:
        out.append(f"its encoder makes {width} columns but its network's first layer reads {int(first.shape[1])}")
    return out


def _refuse(path: str | Path, problems: list[str]) -> None:
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ArtefactError(
            f"saved model {path} contradicts itself: {problems[0]}{more}; it was edited (and its checksums "
            f"recomputed), so its answers cannot be trusted: get an intact copy of the file, or {MODEL_FIX}."
        )
