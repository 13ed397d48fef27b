"""Shared input checks: one place for the checks every module needs (STYLE.md section 4).

Each check returns the validated value in a canonical form or raises a
:class:`~cffair.errors.CffairError` subclass whose message says what is wrong, what was
received and how to fix it. ``input_name`` is the name the user knows the argument by
(``"X_test"``, ``"y"``, ``"score_fn(X_test)"``); it starts the message.

>>> check_vector([[1.0], [2.0]], "y")
array([1., 2.])
>>> check_target_kind("binary")
'binary'
>>> check_device("cuda:1")
'cuda:1'
>>> check_number(0.1, "lr", low=0, low_open=True)
0.1
>>> check_learning_rate(1e-3)
0.001
>>> check_exponent(2, "fair_p")
2.0
>>> check_group_weights({"cf": 2}, ["acc_cf"])
{'cf': 2.0}
"""

from __future__ import annotations

__all__ = [
    "DEVICES",
    "MAX_LEARNING_RATE",
    "SETTING_GROUPS",
    "TARGET_KINDS",
    "Device",
    "TargetKind",
    "check_choice",
    "check_device",
    "check_exponent",
    "check_group_weights",
    "check_int",
    "check_labels",
    "check_learning_rate",
    "check_matrix",
    "check_number",
    "check_target_kind",
    "check_vector",
]

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from cffair.errors import CffairError, DataError, ParameterError, SpecError

#: What a target is: ``"binary"`` (labels 0/1) or ``"score"`` (a real number).
TargetKind = Literal["binary", "score"]
TARGET_KINDS: tuple[str, ...] = ("binary", "score")


def check_target_kind(kind: Any, *, input_name: str = "target_kind") -> TargetKind:
    """``kind`` if it is ``"binary"`` or ``"score"``.

    Raises:
        SpecError: (a ``ValueError``) naming the value received and the two allowed ones.
    """
    if not isinstance(kind, str) or kind not in TARGET_KINDS:
        raise SpecError(f"{input_name} must be 'binary' or 'score' (labels 0/1 or a real number), got {kind!r}.")
    return kind  # type: ignore[return-value]


#: Where a model trains: ``"cpu"`` (the default), ``"cuda"`` (or ``"cuda:N"``, one accelerator),
#: or ``"auto"`` (``cuda`` when one is present, else ``cpu``); see :mod:`cffair._support.devices`.
Device = Literal["cpu", "cuda", "auto"]
DEVICES: tuple[str, ...] = ("cpu", "cuda", "auto")
_CUDA_INDEX = re.compile(r"cuda:\d+")


def check_device(device: Any, *, input_name: str = "device") -> str:
    """``device`` if it names a device cffair can train on: ``"cpu"``, ``"cuda"``, ``"cuda:N"``
    or ``"auto"`` (whether that device is present is :func:`cffair._support.devices.resolve_device`'s check).

    Raises:
        DeviceError: (a ``ValueError``) naming the value received and the allowed ones.
    """
    from cffair.errors import DeviceError

    if isinstance(device, str) and (device in DEVICES or _CUDA_INDEX.fullmatch(device)):
        return device
    raise DeviceError(f"{input_name} must be 'cpu', 'cuda' (or 'cuda:N') or 'auto', got {device!r}.")


def check_choice(value: Any, choices: Sequence[Any], input_name: str, *, error: type[CffairError] | None = None) -> Any:
    """``value`` if it is one of ``choices``.

    Raises:
        ParameterError: (a ``ValueError``, or ``error``) naming the value received and the choices.
    """
    if isinstance(value, (list, dict, set)) or value not in choices:
        raise (error or ParameterError)(f"{input_name} must be one of {', '.join(map(repr, choices))}; got {value!r}.")
    return value


def check_number(
    value: Any,
    input_name: str,
    *,
    low: float | None = None,
    low_open: bool = False,
    optional: bool = False,
    error: type[CffairError] | None = None,
) -> float | None:
    """``value`` as a finite ``float`` (not a bool), at least ``low`` (above it if ``low_open``);
    ``None`` passes when ``optional``.

    Raises:
        ParameterError: (a ``ValueError``, or ``error``) naming the value received and the bound.
    """
    if value is None and optional:
        return None
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    ok = ok and math.isfinite(value) and (low is None or (value > low if low_open else value >= low))
    if not ok:
        if low == 0 and low_open:
            what = "a positive number"
        else:
            what = "a finite number" + ("" if low is None else f" {'>' if low_open else '>='} {low:g}")
        none = "None or " if optional else ""
        raise (error or ParameterError)(f"{input_name} must be {none}{what}, got {value!r}.")
    return float(value)


def check_int(value: Any, input_name: str, *, low: int = 0, error: type[CffairError] | None = None) -> int:
    """``value`` as an ``int`` (a whole number, not a bool) of at least ``low``.

    Raises:
        ParameterError: (a ``ValueError``, or ``error``) naming the value received and the bound.
    """
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < low:
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(low, f"a whole number >= {low}")
        raise (error or ParameterError)(f"{input_name} must be {what}, got {value!r}.")
    return int(value)


def check_exponent(
    value: Any, input_name: str = "p", *, optional: bool = False, error: type[CffairError] | None = None
) -> float | None:
    """``value`` as a float if it is an exponent of a p-mean of section 2.4 (a quantifier's, an
    axiom's own ∀, the knowledge base's aggregation): a finite number ``>= 1``; ``None`` passes
    when ``optional`` (the semantics' own exponent then applies).

    The one check of an exponent p: :class:`~cffair.logic.Semantics`, :class:`~cffair.logic._axioms.Axiom`,
    :class:`~cffair.learners.LTNLearner` (``fair_p``), an experiment's ``fair_p`` option and the
    command line's ``--fair-p`` all use it.

    Raises:
        ParameterError: (a ``ValueError``, or ``error``) naming the value received and the bound.
    """
    if value is None and optional:
        return None
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not (ok and math.isfinite(value) and value >= 1):
        raise (error or ParameterError)(  # None, where allowed, is a default, not a fix: not named
            f"{input_name} must be a finite number >= 1 (section 2.4: p = 1 is the mean, the paper's), got {value!r}."
        )
    return float(value)


#: The largest learning rate accepted: Adam's steps are about ``lr`` per weight, so beyond 1 a
#: single step moves every weight further than the initialisation's whole range.
MAX_LEARNING_RATE = 1.0


def check_learning_rate(value: Any, input_name: str = "lr", *, error: type[CffairError] | None = None) -> float:
    """``value`` as a float if it is an Adam learning rate cffair trains with: a finite number
    in ``(0, MAX_LEARNING_RATE]`` (the library's default 1e-3; the paper's 0.1).

    The one check of a learning rate: the command line (``--lr``), the estimators and
    :class:`~cffair.learners.LTNLearner` all use it.

    Raises:
        ParameterError: (a ``ValueError``, or ``error``) naming the value received, the range and the fix.
    """
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not (ok and math.isfinite(value) and 0 < value <= MAX_LEARNING_RATE):
        why = " (Adam moves each weight by about lr a step, so the model diverges)" if ok and value > 0 else ""
        raise (error or ParameterError)(
            f"{input_name} must be a number in (0, {MAX_LEARNING_RATE:g}], got {value!r}{why}; "
            "use 1e-3 (the default) or 0.1 (the paper's)."
        )
    return float(value)


#: The axiom groups of each LTN setting (appendix B): the groups whose weights it uses. A4_1..n
#: (``cf_sg``) replace A4 (``cf``) in the subgroup settings; the CKE settings add A5 (``cke``).
SETTING_GROUPS: dict[str, tuple[str, ...]] = {
    "acc": ("acc",),
    "acc_cf": ("acc", "cf"),
    "acc_cf_sg": ("acc", "cf_sg"),
    "acc_cf_cke": ("acc", "cf", "cke"),
    "acc_cf_sg_cke": ("acc", "cf_sg", "cke"),
}
_GROUP_ORDER: tuple[str, ...] = ("acc", "cf", "cf_sg", "cke")


def check_group_weights(
    weights: Mapping[str, Any] | None,
    settings: Iterable[str],
    *,
    input_name: str = "group_weights",
    setting_name: str = "setting",
    offered: Sequence[str] | None = None,
    error: type[CffairError] | None = None,
) -> dict[str, float]:
    """``weights`` as ``{group: float}`` if every group it names is one that ``settings`` train with.

    A weight of a group no chosen setting has (``cf_sg`` with ``acc_cf``, ``cke`` with ``acc``)
    would be accepted and change nothing; it is refused, naming the groups the settings have.

    Args:
        weights: axiom-group weights (``None``: none given).
        settings: the LTN settings that will train (``acc_cf`` or ``ltn_acc_cf``).
        input_name: what the user calls the weights (``"--weights"``).
        setting_name: what the user calls the setting (``"--setting"``).
        offered: the settings the caller offers, suggested in the message (default: every one).
        error: the :class:`~cffair.errors.CffairError` subclass to raise.

    Raises:
        ParameterError: (or ``error``) for an unknown setting or group, a weight that is not a
            finite number >= 0, or a group none of ``settings`` has.
    """
    err = error or ParameterError
    chosen = [str(s).removeprefix("ltn_") for s in settings]
    unknown = [s for s in chosen if s not in SETTING_GROUPS]
    if unknown:
        raise err(f"{setting_name} must be one of {', '.join(SETTING_GROUPS)}; got {unknown[0]!r}.")
    out: dict[str, float] = {}
    for group, w in dict(weights or {}).items():
        if group not in _GROUP_ORDER:
            raise err(
                f"{input_name} names the unknown axiom group {group!r}; the groups are {', '.join(_GROUP_ORDER)}."
            )
        out[str(group)] = check_number(w, f"the weight of {group!r} in {input_name}", low=0, error=err)  # type: ignore[assignment]
    used = {g for s in chosen for g in SETTING_GROUPS[s]}
    absent = [g for g in out if g not in used]
    if absent:
        which = ", ".join(repr(s) for s in chosen)
        lacks = f"{setting_name} {which} does not have" if len(chosen) == 1 else f"none of {setting_name} {which} has"
        has = ", ".join(g for g in _GROUP_ORDER if g in used)
        with_it = [s for s in (offered or SETTING_GROUPS) if set(absent) <= set(SETTING_GROUPS.get(s, ()))]
        raise err(
            f"{input_name} sets the weight of the axiom group(s) {absent}, which {lacks} "
            f"({'its' if len(chosen) == 1 else 'their'} groups: {has}), so it would change nothing; drop it"
            + (f", or choose a setting with it ({', '.join(with_it)})" if with_it else "")
            + "."
        )
    return out


def _as_array(a: Any, input_name: str, error: type[CffairError]) -> np.ndarray:
    if isinstance(a, (pd.DataFrame, pd.Series)):
        a = a.to_numpy()
    if hasattr(a, "detach") and hasattr(a, "cpu"):  # a torch tensor, without importing torch
        a = a.detach().cpu().numpy()
    arr = np.asarray(a)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise error(f"{input_name} must be numeric, got dtype {arr.dtype} (e.g. {arr.ravel()[:3].tolist()}).")
    return arr


def _check_finite(arr: np.ndarray, input_name: str, error: type[CffairError]) -> None:
    if arr.dtype.kind not in "fc":
        return  # integers and booleans are always finite
    bad = ~np.isfinite(arr)
    if bad.any():
        first = np.argwhere(bad)[0]
        where = f"row {first[0]}" if arr.ndim == 1 else f"row {first[0]}, column {first[1]}"
        what = "NaN" if np.isnan(arr[tuple(first)]) else "infinite"
        raise error(
            f"{input_name} contains {int(bad.sum())} NaN or infinite value(s), the first ({what}) at {where}; "
            "drop or fill them first."
        )


def check_vector(
    a: Any,
    input_name: str,
    *,
    length: int | None = None,
    dtype: Any = np.float64,
    finite: bool = True,
    error: type[CffairError] = DataError,
) -> np.ndarray:
    """``a`` as a 1-D numeric array of ``dtype`` (a single column ``(n, 1)`` is flattened).

    Args:
        a: array-like, pandas object or torch tensor.
        input_name: what the user calls ``a`` (starts every message).
        length: the required length, if any.
        dtype: the dtype of the result.
        finite: reject NaN and infinite values.
        error: the :class:`~cffair.errors.CffairError` subclass to raise.

    Raises:
        DataError: (or ``error``) for a non-numeric dtype, more than one column, a wrong
            length or a non-finite value (naming the first one's position).
    """
    arr = _as_array(a, input_name, error)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise error(f"{input_name} must be one value per row (1-D), got shape {arr.shape}.")
    if length is not None and arr.shape[0] != length:
        raise error(f"{input_name} has {arr.shape[0]} values but there are {length} rows; give one value per row.")
    if finite:
        _check_finite(arr, input_name, error)
    return arr.astype(dtype, copy=False)


def check_matrix(
    a: Any,
    input_name: str,
    *,
    n_columns: int | None = None,
    n_rows: int | None = None,
    dtype: Any = np.float32,
    finite: bool = True,
    error: type[CffairError] = DataError,
) -> np.ndarray:
    """``a`` as a 2-D numeric array ``(rows, columns)`` of ``dtype``.

    Raises:
        DataError: (or ``error``) for a non-numeric dtype (encode readable frames with
            :class:`cffair.datasets._encoding.Encoder` first), a wrong number of dimensions, rows or
            columns, or a non-finite value (naming the first one's row and column).
    """
    arr = _as_array(a, input_name, error)
    if arr.ndim != 2:
        raise error(f"{input_name} must be a 2-D array (rows x encoded features), got shape {arr.shape}.")
    if n_columns is not None and arr.shape[1] != n_columns:
        raise error(
            f"{input_name} has {arr.shape[1]} columns but {n_columns} are expected; encode it with the same Encoder."
        )
    if n_rows is not None and arr.shape[0] != n_rows:
        raise error(f"{input_name} has {arr.shape[0]} rows but {n_rows} are expected.")
    if finite:
        _check_finite(arr, input_name, error)
    return arr.astype(dtype, copy=False)


def check_labels(y: Any, target_kind: str, *, input_name: str = "y", length: int | None = None) -> np.ndarray:
    """Targets as a finite float64 vector; for a binary target, labels 0/1 only.

    Raises:
        SpecError: for an unknown ``target_kind``.
        DataError: as :func:`check_vector`, or for a binary target holding other labels.
    """
    kind = check_target_kind(target_kind)
    arr = check_vector(y, input_name, length=length, dtype=np.float64)
    if kind == "binary":
        bad = np.setdiff1d(np.unique(arr), [0.0, 1.0])
        if len(bad):
            raise DataError(
                f"{input_name}: a binary target needs labels 0/1, got value(s) {bad[:5].tolist()}; "
                "use target_kind='score' for a real-valued target."
            )
    return arr
