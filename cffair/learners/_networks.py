"""The shared predictor network.

The paper (section 6.3) uses one multi-layer perceptron with hidden layers of 100 and 50
units, both as the LTN predicate ``D`` and as the predictor of the CNF and DCEVAE baselines
(section 6.4). It lives here so that every method uses exactly the same network.
"""

from __future__ import annotations

from torch import nn

from cffair._support.validation import TargetKind, check_target_kind


def make_mlp(
    n_inputs: int,
    target_kind: TargetKind = "binary",
    hidden: tuple[int, ...] = (100, 50),
) -> nn.Sequential:
    """MLP(100, 50) with ReLU; sigmoid output for a binary target, linear output for a score.

    Args:
        n_inputs: width of the encoded feature vector.
        target_kind: ``"binary"`` gives outputs in (0, 1), read as the truth of ``D(x)``;
            ``"score"`` gives an unbounded real prediction.
        hidden: widths of the hidden layers (the paper: 100 and 50).
    """
    check_target_kind(target_kind)
    layers: list[nn.Module] = []
    width = n_inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, 1))
    if target_kind == "binary":
        layers.append(nn.Sigmoid())
    layers.append(nn.Flatten(0))
    return nn.Sequential(*layers)
