"""cffair.utils.torch_cpu_setup: one thread, and the process's floating-point state left alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

# In a fresh process, so that what other test modules set up does not leak in.
PROBE = """
import torch
from cffair.utils import torch_cpu_setup
tiny = torch.tensor([1e-39], dtype=torch.float32)  # a float32 denormal (below 1.18e-38)
before = float(tiny * 2.0)
torch_cpu_setup()
print(torch.get_num_threads(), before, float(tiny * 2.0))
"""


def test_torch_cpu_setup_uses_one_thread_and_keeps_denormals():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    threads, before, after = out.stdout.split()
    assert int(threads) == 1
    assert float(before) == pytest.approx(2e-39, rel=1e-3)  # the CPU computes with denormals...
    assert float(after) == float(before)  # ...and still does after the setup: no process-wide flush to zero
