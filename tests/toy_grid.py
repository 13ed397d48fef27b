"""A stand-in for record fingerprints in the runner tests (tests/experiments/test_experiments.py, tests/experiments/test_reproduce.py)."""

from __future__ import annotations

import os
from typing import Any


def toy_fingerprint(cfg: Any) -> dict[str, Any]:
    """Stands in for a real fingerprint: the config and a fixed code hash (``$TOY_CODE`` changes it)."""
    return {
        "code": {"toy": os.environ.get("TOY_CODE", "1")},
        "data": "toy",
        "config": cfg.to_dict(),
        "packages": {},
        "inputs": {},
    }
