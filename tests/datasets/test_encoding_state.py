"""Encoder.to_dict / from_dict: the fitted state as JSON round-trips to an encoder that encodes and
decodes bit for bit alike (a saved model carries its encoder without pickling)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cffair import datasets
from cffair.datasets._encoding import Encoder
from cffair.errors import DataError


@pytest.mark.parametrize("name", ["compas", "lawschool"])
def test_state_round_trip_encodes_and_decodes_identically(name: str) -> None:
    frame, spec = datasets.load(name)
    train = frame.sample(frac=0.5, random_state=0)
    enc = Encoder(spec).fit(train)
    state = json.loads(json.dumps(enc.to_dict()))  # through JSON, as a saved model stores it
    again = Encoder.from_dict(spec, state)
    x = enc.transform(frame)
    np.testing.assert_array_equal(again.transform(frame), x)
    assert again.feature_names_out == enc.feature_names_out and again.slices == enc.slices
    decoded, decoded_again = enc.inverse_transform(x), again.inverse_transform(x)
    assert decoded.equals(decoded_again)


def test_a_state_for_another_spec_is_refused() -> None:
    frame, spec = datasets.load("compas")
    state = Encoder(spec).fit(frame).to_dict()
    _, law = datasets.load("lawschool")
    with pytest.raises(DataError, match="categorical features"):
        Encoder.from_dict(law, state)
